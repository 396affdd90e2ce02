"""Shared parts of the report for families without clips: episodes, evidence, card lines.

The icm family shows clips of shots; the other families' releases have no clips, so their episodes
are derived from ``observations``: one per ``episode``, or one per (episode, day) where an episode
spans several days (an smm source runs across the whole timeline). Each derived episode is shaped
like a clip record (``index``, ``start``, one pseudo-shot whose ``visible`` people are the
observations' ``people``), so the shared timeline, graph and heatmap code reads it unchanged.
What a family shows besides is its ``ReportPart`` (``exporters/report_part.py``, overridden in the
family's package: ``Family.report_part``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from PIL import Image

from mnemoforge.store.atomic import write_bytes

if TYPE_CHECKING:
    from pathlib import Path

    from mnemoforge.exporters.report import Source

Rec = dict[str, Any]
QUOTE_CHARS = 280


def episodes(observations: Iterable[Rec]) -> list[Rec]:
    """Clip-shaped episodes from observations, in time order, ``index`` from 0."""
    groups: dict[str, list[Rec]] = {}
    timed = [o for o in observations if o.get("timestamp")]
    for o in sorted(timed, key=lambda o: (str(o["timestamp"]), o.get("order", 0), o["id"])):
        groups.setdefault(str(o.get("episode") or o.get("source") or ""), []).append(o)
    out = []
    for ep, obs in groups.items():
        days = sorted({str(o["timestamp"])[:10] for o in obs})
        parts = [(ep, obs)] if len(days) == 1 else [
            (f"{ep}@{d}", [o for o in obs if str(o["timestamp"])[:10] == d]) for d in days
        ]  # fmt: skip
        for eid, part in parts:
            people = sorted({p for o in part for p in o.get("people", [])})
            shot = {"id": eid, "visible": people, "place": "", "dialogue": [{"speaker": p} for p in people]}
            first = part[0]
            out.append(
                {"id": eid, "episode": ep, "source": first.get("source") or ep,
                 "start": str(first["timestamp"]), "observations": [o["id"] for o in part], "shots": [shot]}
            )  # fmt: skip
    out.sort(key=lambda c: (c["start"], c["id"]))
    return [c | {"index": i} for i, c in enumerate(out)]


# ----------------------------------------------------------------------------- examples


def evidence(src: Source, oid: str, out_dir: Path) -> Rec:
    """One evidence observation: its first image copied under ``out_dir``, its text quoted."""
    o = src.observations.get(oid, {})
    still, size = None, None
    for m in o.get("media") or []:
        path = src.root / m
        if m.endswith(".png") and path.is_file() and not m.startswith(("/", "..")):
            still = m
            write_bytes(out_dir / m, path.read_bytes())
            with Image.open(path) as img:
                scale = min(1.0, 320 / img.width)
                size = (round(img.width * scale), round(img.height * scale))
            break
    text = str(o.get("content", ""))
    quote = text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "\u2026"
    where = " / ".join(t for t in (str(o.get("source") or ""), str(o.get("kind") or "")) if t)
    when = str(o.get("timestamp", ""))[:10]
    return {"id": oid, "still": still, "size": size, "speech": False, "quote": quote, "text": text,
            "speaker": "", "where": where, "when": when}  # fmt: skip


def card_extra(src: Source, q: Rec) -> tuple[list[tuple[str, str]], str | None]:
    """Meta lines for a card (the family's: sources, or scenario and clue rounds) and the
    structured answer."""
    structured = q.get("structured_answer")
    return src.part.card_extra(src, q), tool_calls(structured) if structured else None


def tool_calls(structured: Any) -> str:
    """A structured function-calling answer as one line per call: ``step. name(arg=value, ...)``."""
    try:
        return "\n".join(
            f"{step['step']}. {call['name']}("
            + ", ".join(
                f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in sorted(call["arguments"].items())
            )
            + ")"
            for step in structured
            for call in step["calls"]
        )
    except (KeyError, TypeError, AttributeError):
        return json.dumps(structured, indent=1, ensure_ascii=False, sort_keys=True)
