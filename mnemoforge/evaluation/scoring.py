"""Scoring replies: strict MCQ letters, normalised exact match, function calls; and aggregation.

Items whose model call failed are counted as failed, apart from the answered ones, and never
scored (see :func:`aggregate`). MCQ accuracy is reported per rotation (the answer sits at a
different letter in each) and over all four rotations ("debiased": an item counts only when
every rotation is right), so a model that always says "A" scores exactly 0.25 per rotation and
0.0 on all four.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from mnemoforge.validators.answerers.judges import exact_match
from mnemoforge.validators.answerers.protocol import LETTERS
from mnemoforge.validators.answerers.textnorm import normalize

_LEAD = r"^\s*(?:\**\s*)?(?:(?:the\s+)?(?:correct\s+)?(?:answer|option|choice)\s*(?:is)?\s*[:\-]?\s*)?"
_LETTER = re.compile(
    _LEAD + r"[\(\[]?([A-J])[\)\]]?(?:\s*[.:)\-]\s*(.*?))?\s*\**[.!]?\s*$", re.IGNORECASE | re.DOTALL
)


def parse_mcq(reply: str, choices: list[str]) -> str | None:
    """The letter a reply gives, strictly: "B", "(B)", "Answer: B", "B. <that option's text>", or
    exactly one option's text. Anything else (two letters, a letter with another option's text,
    prose) is ``None``: counted invalid, never guessed."""
    text = (reply or "").strip()
    if not text:
        return None
    n = len(choices)
    m = _LETTER.match(text)
    if m:
        letter = m.group(1).upper()
        k = LETTERS.index(letter)
        if k >= n:
            return None
        tail = (m.group(2) or "").strip()
        if tail and normalize(tail) != normalize(choices[k]):
            return None
        return letter
    hits = [k for k, c in enumerate(choices) if normalize(c) and normalize(c) == normalize(text)]
    return LETTERS[hits[0]] if len(hits) == 1 else None


def open_answer(reply: str) -> str:
    """The first non-empty line without an "Answer:" prefix."""
    line = next((s.strip() for s in (reply or "").splitlines() if s.strip()), "")
    return re.sub(r"^(?:(?:final\s+)?answer\s*[:\-]\s*)", "", line, flags=re.IGNORECASE).strip()


def em_score(reply: str, answer: str, aliases: Iterable[str] = ()) -> float:
    got = open_answer(reply)
    return float(bool(got) and any(exact_match(r, got) for r in [answer, *aliases]))


def parse_calls_reply(reply: str) -> Any | None:
    """The JSON call plan in a reply (the whole reply, a fenced block, or the first ``[...]``)."""
    text = (reply or "").strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    for cand in [text, fenced.group(1) if fenced else None, _bracketed(text)]:
        if not cand:
            continue
        try:
            data = json.loads(cand)
        except ValueError:
            continue
        if isinstance(data, dict):  # one step or one call
            data = [data] if "calls" in data else [{"step": 1, "calls": [data]}]
        if isinstance(data, list):
            if data and all(isinstance(c, dict) and "name" in c for c in data):
                data = [{"step": 1, "calls": data}]
            return data
    return None


def _bracketed(text: str) -> str | None:
    start = text.find("[")
    end = text.rfind("]")
    return text[start : end + 1] if 0 <= start < end else None


def call_score(reply: str, gold: Any, world: Any) -> tuple[float, Any]:
    from mnemoforge.generators.tool_calls import score_calls

    pred = parse_calls_reply(reply)
    if pred is None:
        return 0.0, None
    try:
        return score_calls(pred, gold, world), pred
    except (ValueError, TypeError, KeyError, AttributeError):
        return 0.0, pred


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def aggregate(rows: list[dict]) -> dict[str, Any]:
    """Accuracy figures over result rows (one per item) of one method × model.

    A row whose model call failed (``failed``: no answer came back after the retries) is counted
    apart and left out of every accuracy: a failure is never a wrong answer. ``answered`` and
    ``failed`` count the items each way."""
    failed = [r for r in rows if r.get("failed")]
    rows = [r for r in rows if not r.get("failed")]
    mcq = [r for r in rows if r["kind"] == "mcq"]
    out: dict[str, Any] = {
        "items": len(rows) + len(failed),
        "answered": len(rows),
        "failed": len(failed),
        "mcq": len(mcq),
    }
    if mcq:
        n_rot = max(len(r["rotations"]) for r in mcq)
        per_rot = []
        for k in range(n_rot):
            got = [float(r["rotations"][k]["correct"]) for r in mcq if len(r["rotations"]) > k]
            per_rot.append(_mean(got))
        out["per_rotation"] = per_rot
        out["accuracy"] = _mean([x for x in per_rot if x is not None])
        out["all_four"] = _mean([float(r["all_correct"]) for r in mcq])
        calls = [c for r in mcq for c in r["rotations"]]
        out["invalid_rate"] = _mean([float(c["parsed"] is None) for c in calls])
    opens = [r for r in rows if r["kind"] == "open"]
    if opens:
        out["open"] = len(opens)
        out["em"] = _mean([r["em"] for r in opens])
        judged = [r["judge"]["score"] for r in opens if r.get("judge") and r["judge"].get("ok")]
        out["judge"] = _mean(judged)
    calls_rows = [r for r in rows if r["kind"] == "call"]
    if calls_rows:
        out["calls"] = len(calls_rows)
        out["call_em"] = _mean([r["score"] for r in calls_rows])
        out["call_invalid_rate"] = _mean([float(r["parsed"] is None) for r in calls_rows])
    out["score"] = _mean([r["score"] for r in rows])
    return out


def by_group(rows: list[dict], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if key in r["group"]:
            groups[r["group"][key]].append(r)
    return {g: aggregate(rs) for g, rs in sorted(groups.items())}
