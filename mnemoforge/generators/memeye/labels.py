"""Small legible labels of memeye scenes: a few integer fields per scene kind (``LABELS``),
formatted per kind; near misreadings are one-step nudges of a field.

``label_square`` gives the four nudges around a hidden base, so an option set of four labels has
no centre: every option is one edit from exactly one other and two edits from the rest.
"""

from __future__ import annotations

import random

STREET_LETTERS = "ABCDEFHKLMNPRSTW"
# kind -> per field (low, high, step): values drawn in [low, high]; readings up to two steps
# beyond (nudges, later updates) still format with the same number of characters
LABELS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "room": ((12, 87, 1), (2, 7, 1)),
    "board": ((12, 37, 1), (12, 37, 1)),
    "dashboard": ((3, 7, 1), (120, 880, 10)),
    "street": ((2, len(STREET_LETTERS) - 3, 1), (12, 97, 1)),
    "shelf": ((12, 37, 1), (2, 7, 1)),
}
Fields = tuple[int, int]


def format_label(kind: str, f: Fields) -> str:
    a, b = f
    if kind == "room":
        return f"${a}.{b}0"
    if kind == "board":
        return f"{a}-{b}"
    if kind == "dashboard":
        return f"{a},{b:03d}"
    if kind == "shelf":
        return f"{a}/{b}"
    return f"{STREET_LETTERS[a]}{b}"


def parse_label(kind: str, s: str) -> Fields:
    if kind == "room":
        a, b = s[1:].split(".")
        return int(a), int(b[0])
    if kind == "board":
        a, b = s.split("-")
        return int(a), int(b)
    if kind in ("dashboard", "shelf"):
        a, b = s.split("," if kind == "dashboard" else "/")
        return int(a), int(b)
    return STREET_LETTERS.index(s[0]), int(s[1:])


def _in_range(kind: str, f: Fields) -> bool:
    return all(lo - 2 * st <= v <= hi + 2 * st for v, (lo, hi, st) in zip(f, LABELS[kind], strict=True))


def make_label(kind: str, rng: random.Random) -> str:
    """Small legible text of a scene kind (fields away from their limits, so nudges stay valid)."""
    return format_label(kind, tuple(rng.randrange(lo, hi + 1, st) for lo, hi, st in LABELS[kind]))  # type: ignore[arg-type]


def label_square(kind: str, base: Fields) -> list[str]:
    """The four one-step nudges of a (hidden) base label."""
    (s1, s2), (a, b) = (st for _, _, st in LABELS[kind]), base
    return [format_label(kind, f) for f in ((a + s1, b), (a - s1, b), (a, b + s2), (a, b - s2))]


def changed_label(kind: str, old: str, rng: random.Random) -> str:
    """A later reading of a label: two steps in one field, or one step in both (so the old and
    the new label fit one ``label_square``)."""
    (s1, s2), (a, b) = (st for _, _, st in LABELS[kind]), parse_label(kind, old)
    deltas = [(2 * s1, 0), (-2 * s1, 0), (0, 2 * s2), (0, -2 * s2)]
    deltas += [(x * s1, y * s2) for x in (1, -1) for y in (1, -1)]
    ok = [(a + da, b + db) for da, db in deltas if _in_range(kind, (a + da, b + db))]
    return format_label(kind, rng.choice(ok))


def label_options(kind: str, answer: str, stale: str | None, rng: random.Random) -> list[str]:
    """Three wrong labels: with the answer they form the ``label_square`` of a hidden base
    (for a Y3 item the base is one whose square holds both the stale and the latest label)."""
    a = parse_label(kind, answer)
    (s1, s2) = (st for _, _, st in LABELS[kind])
    if stale is not None:
        s = parse_label(kind, stale)
        d = (a[0] - s[0], a[1] - s[1])
        base = ((a[0] + s[0]) // 2, (a[1] + s[1]) // 2) if 0 in d else (s[0] + d[0], s[1])
        square = label_square(kind, base)
        assert answer in square and stale in square, (answer, stale, square)
        return [x for x in square if x != answer]
    offsets = [(s1, 0), (-s1, 0), (0, s2), (0, -s2)]
    rng.shuffle(offsets)
    for da, db in offsets:
        square = label_square(kind, (a[0] - da, a[1] - db))
        lengths = {len(x) for x in square}
        if len(lengths) == 1 and all(_in_range(kind, parse_label(kind, x)) for x in square):
            return [x for x in square if x != answer]
    return [x for x in label_square(kind, (a[0] - offsets[0][0], a[1] - offsets[0][1])) if x != answer]
