"""Written values of a declared type (``draws.label.type``; a memeye scenario's and an album
object's): a ``level`` or a ``count`` is an
integer in its range, drawn as digits ("3"); a ``time`` is a time of day on the quarter hour in
its range of hours ("14:30"). Wrong options are values of the same range next to the answer, so
the answer is never the odd one out and never always the middle one.
"""

from __future__ import annotations

import random
from typing import Any

from mnemoforge.schemas.memeye import LABEL_RANGES
from mnemoforge.schemas.object_parts import COUNT_SPAN


def bounds(label: dict) -> tuple[int, int]:
    """The declared range of a label (as ``draws.label`` data), else its type's default."""
    r = label.get("range")
    return (int(r[0]), int(r[1])) if r else LABEL_RANGES[label["type"]]


def values(kind: str, lo: int, hi: int) -> list[str]:
    """Every value a label of ``kind`` in [lo, hi] can show, in order."""
    if kind == "time":
        return [f"{h:02d}:{m:02d}" for h in range(lo, hi + 1) for m in (0, 15, 30, 45) if h < hi or m == 0]
    return [str(n) for n in range(lo, hi + 1)]


def typed_label(label: dict, rng: random.Random) -> str:
    """A first value of a declared label."""
    lo, hi = bounds(label)
    return rng.choice(values(label["type"], lo, hi))


def changed_typed(kind: str, rng_range: tuple[int, int], old: str, rng: random.Random) -> str:
    """A later value: another value of the range, at most two steps away (a level 3 becomes 2 or 4)."""
    vs = values(kind, *rng_range)
    i = vs.index(old)
    near = [vs[k] for k in range(max(0, i - 2), min(len(vs), i + 3)) if k != i]
    return rng.choice(near)


def typed_options(
    kind: str, rng_range: tuple[int, int], answer: str, stale: str | None, rng: random.Random
) -> list[str]:
    """Three wrong values: a window of four neighbouring values holding the answer (and the stale
    value, for a Y3 item), placed at a seeded offset so the answer's rank varies."""
    vs = values(kind, *rng_range)
    i = vs.index(answer)
    need = {i} | ({vs.index(stale)} if stale in vs else set())
    lo, hi = min(need), max(need)
    starts = [s for s in range(max(0, hi - 3), min(lo, len(vs) - 4) + 1)]
    s = rng.choice(starts) if starts else max(0, min(i - 1, len(vs) - 4))
    window = vs[s : s + 4]
    out = [x for x in window if x != answer]
    if stale is not None and stale not in out and stale != answer:
        out = [stale, *out[:2]]
    return out[:3]


def part_values(draws: Any) -> list[str]:
    """Every value a declared object's part (``schemas/object_parts.py``) can show: a label's
    values, a shelf's counts, a map's places (a colour part: none)."""
    if draws.label is not None:
        return values(draws.label.type, *draws.label.bounds())
    if draws.count is not None:
        return [str(n) for n in range(COUNT_SPAN[0], COUNT_SPAN[1] + 1)]
    if draws.map is not None:
        return list(draws.map.places)
    return []
