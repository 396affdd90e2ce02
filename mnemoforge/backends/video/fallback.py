"""Per-shot fallback chain for generated video: one refused shot never stops a build.

For each shot the chain tries, in order:

1. ``veo``: the video model with the shot's prompt;
2. ``veo_rewritten``: on a safety refusal or a permanent error, once more with the prompt's
   refused parts dropped (which parts: ``assets/video/filter_rewrites.yaml``, by the refusal's
   reasons; the dropped parts are recorded);
3. ``still``: the shot's still with its planned camera move and the same speech, as the offline
   renderer makes every shot (the still was drawn for that camera, so the render audit holds).

A transient failure that outlasted its retries (the API unreachable, overloaded) goes straight to
``still`` (``reason: unavailable``): a rewritten prompt would not help. Such a shot is asked again
by the next render (its album clip is re-encoded when the model answers), and ``OUTAGE`` of them
in a row stop the build (``VideoUnavailable``): an API that is down would otherwise turn the rest
of the album into stills. Nothing paid is lost: the run resumes where it stopped.

What happened is written beside the clip, at ``media/veo/<shot>.json`` (``path``, ``reason``, the
refusal, the rewrite), before the clip is encoded; a resumed render reads it back and asks nothing
again. Delete that file (and the album clip ``media/clips/<clip>.mp4``) to try a shot again.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemoforge import yaml_io
from mnemoforge.backends.image.scene_prompt import PromptPart
from mnemoforge.backends.media_api import MediaApiError
from mnemoforge.hashing import canonical_json
from mnemoforge.store import atomic

if TYPE_CHECKING:
    from mnemoforge.backends.video.veo import VeoBackend

RULES_FILE = Path(__file__).resolve().parents[3] / "assets" / "video" / "filter_rewrites.yaml"
PATHS = ("veo", "veo_rewritten", "still")
OUTAGE = 3  # shots in a row the API was unavailable for: the build stops (resumable) instead
_IN_A_ROW = {"unavailable": 0}
_ROW_LOCK = threading.Lock()


class VideoUnavailable(MediaApiError):
    """The video API failed (after its retries) for ``OUTAGE`` shots in a row: an outage, not a shot."""


@dataclass(frozen=True)
class Rules:
    keep: frozenset[str]
    rules: tuple[tuple[tuple[str, ...], frozenset[str]], ...]
    default: frozenset[str]


@cache
def load_rules(path: Path = RULES_FILE) -> Rules:
    """The rewrite rules (``assets/video/filter_rewrites.yaml``); a clear error naming the field."""
    data = yaml_io.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping")
    rules = []
    for n, r in enumerate(data.get("rules") or []):
        if not isinstance(r, dict) or not r.get("match") or not r.get("drop"):
            raise ValueError(f"{path}: rules.{n}: needs `match` and `drop` lists")
        rules.append((tuple(str(w).lower() for w in r["match"]), frozenset(map(str, r["drop"]))))
    return Rules(
        frozenset(map(str, data.get("keep") or [])), tuple(rules), frozenset(map(str, data["default"]))
    )


def rewrite(parts: list[PromptPart], reasons: list[str], rules: Rules | None = None) -> tuple[str, list[str]]:
    """``(prompt without the refused parts, the kinds dropped)``; kinds dropped are sorted."""
    rules = rules or load_rules()
    text = " ".join(reasons).lower()
    drop: set[str] = set()
    for words, kinds in rules.rules:
        if any(w in text for w in words):
            drop |= kinds
    if not drop:
        drop = set(rules.default)
    drop -= rules.keep
    present = {k for k, _ in parts}
    kept = " ".join(t for k, t in parts if k not in drop)
    return kept, sorted(drop & present)


@dataclass
class ShotVideo:
    """The shot's generated clip (``None``: the still with its camera move) and what happened;
    ``redo_clip``: an earlier render made the shot from its still because the API was unavailable
    and it has a generated clip now, so the album clip holding it must be encoded again."""

    clip: Path | None
    record: dict[str, Any]
    redo_clip: bool = False


def _reasons(err: MediaApiError) -> list[str]:
    return list(getattr(err, "reasons", None) or [str(err)])


def _kind(err: MediaApiError) -> str:
    return "filtered" if hasattr(err, "reasons") else ("permanent" if err.permanent else "unavailable")


def shot_video(
    backend: VeoBackend,
    shot_id: str,
    still: Path,
    out: Path,
    shot_s: float,
    parts: list[PromptPart],
    camera: str,
    seed: int,
    width: int,
    height: int,
) -> ShotVideo:
    """Run the chain for one shot (or read back what it decided before; a shot the API was
    unavailable for is asked again)."""
    log = out.with_suffix(".json")
    again = False
    if log.is_file():
        rec = json.loads(log.read_text(encoding="utf-8"))
        again = rec.get("path") == "still" and rec.get("reason") == "unavailable"
        clip = out if rec.get("path") != "still" and out.is_file() else None
        if not again and (clip is not None or rec.get("path") == "still"):
            return ShotVideo(clip, rec)
    rec = {"shot": shot_id, "path": "veo"}
    prompt = " ".join(t for _, t in parts)

    def attempt(description: str) -> None:
        backend.shot_clip(still, out, shot_s, description, camera, seed, width, height)

    try:
        attempt(prompt)
    except MediaApiError as first:
        rec["refused"] = {"kind": _kind(first), "reasons": _reasons(first)}
        if first.permanent:
            rewritten, dropped = rewrite(parts, _reasons(first))
            rec["rewrite"] = {"dropped": dropped, "prompt": rewritten}
            try:
                if not dropped:
                    raise first
                attempt(rewritten)
                rec["path"] = "veo_rewritten"
            except MediaApiError as second:
                if second is not first:
                    rec["refused_again"] = {"kind": _kind(second), "reasons": _reasons(second)}
                rec["path"] = "still"
        else:
            rec["path"] = "still"
        rec["reason"] = rec["refused"]["kind"]
    atomic.write_text(log, canonical_json(rec) + "\n")
    _count_outage(rec)
    return ShotVideo(out if rec["path"] != "still" else None, rec, again and rec["path"] != "still")


def _count_outage(rec: dict[str, Any]) -> None:
    """Raise ``VideoUnavailable`` at the ``OUTAGE``-th shot in a row the API was unavailable for."""
    with _ROW_LOCK:
        if rec.get("reason") != "unavailable":
            _IN_A_ROW["unavailable"] = 0
            return
        _IN_A_ROW["unavailable"] += 1
        n = _IN_A_ROW["unavailable"]
        if n >= OUTAGE:
            _IN_A_ROW["unavailable"] = 0
    if n >= OUTAGE:
        why = "; ".join(rec["refused"]["reasons"])[:300]
        raise VideoUnavailable(
            f"the video API was unavailable for {n} shots in a row (last {rec['shot']}: {why}); stopping "
            "rather than making the rest of the album from stills. Nothing paid is lost: run the same "
            "command again when the API answers (those shots are asked again)"
        )


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """How many shots took each path, and which shots did not take ``veo`` (for the changelog/card)."""
    counts = {p: sum(1 for r in records if r.get("path") == p) for p in PATHS}
    other = sorted((r for r in records if r.get("path") != "veo"), key=lambda r: r["shot"])
    return {"counts": counts, "shots": other}
