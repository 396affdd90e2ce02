"""A map a theme declares (``scenarios.*.draws.map``): a trail map, a floor plan or a district map
with named locations, each a dot with its name written on a small plate beside it, and a pin at
the **marked** location (the ``marked`` variable: which location the pin stands at).

Where the locations stand depends only on the map's declared names and style (the same in every
picture of the map); only the pin moves. The pin is drawn in ``PIN_INK`` (no other drawing of a
picture uses it), its tip on the marked location's dot, so the drawn check can find the pin in the
picture's pixels and read which location it marks (:func:`pinned_at`).
"""

from __future__ import annotations

import zlib
from typing import Any

from PIL import ImageDraw

from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, Box, mix
from mnemoforge.backends.image.fonts import font, renderable

Draw = ImageDraw.ImageDraw
PIN_INK: RGB = (226, 18, 96)  # the marker; drawn nowhere else in a picture
STYLES = ("trail", "floor", "district")
PAPER: dict[str, RGB] = {"trail": (232, 238, 214), "floor": (238, 238, 236), "district": (242, 234, 214)}
LINE: dict[str, RGB] = {"trail": (170, 110, 60), "floor": (90, 96, 110), "district": (200, 200, 196)}
DOT: RGB = (40, 44, 52)
MIN_FONT = 9
PAD = (
    10  # px of plate either side of a name (a reader takes a letter's stem near a plate's edge for its frame)
)


def _slots(b: Box, n: int, names: tuple[str, ...]) -> list[tuple[int, int, Box]]:
    """(dot x, dot y, cell) of each location: a grid of two columns, rows nudged by a few px seeded
    from the names (two maps with other names do not look alike; one map always looks the same)."""
    rows = (n + 1) // 2
    w, h = b[2] - b[0], b[3] - b[1]
    out = []
    seed = zlib.crc32("|".join(names).encode())
    for k in range(n):
        col, row = k % 2, k // 2
        cx0 = b[0] + col * w // 2
        cy0 = b[1] + row * h // rows
        cell = (cx0, cy0, cx0 + w // 2, cy0 + h // rows)
        jitter = ((seed >> (3 * k)) % 5) - 2
        out.append((cell[0] + 9 + abs(jitter), (cell[1] + cell[3]) // 2 + jitter + 3, cell))
    return out


def _ground(d: Draw, b: Box, style: str, dots: list[tuple[int, int]], seed: int) -> None:
    """The map's paper and its features: a winding trail between the locations (trail), walls of
    one room per location (floor), streets between the blocks (district)."""
    paper = PAPER.get(style, PAPER["trail"])
    d.rectangle(b, fill=paper, outline=BLACK, width=2)
    ink = LINE.get(style, LINE["trail"])
    if style == "floor":
        for x0, y0, x1, y1 in _cells_of(b, len(dots)):
            d.rectangle((x0 + 2, y0 + 2, x1 - 2, y1 - 2), outline=ink, width=2)
            d.line(
                [(x0 + 2 + (x1 - x0) // 3, y1 - 2), (x0 + 2 + (x1 - x0) // 2, y1 - 2)], fill=paper, width=2
            )
        return
    if style == "district":
        mid = (b[0] + b[2]) // 2
        d.line([(mid, b[1] + 2), (mid, b[3] - 2)], fill=ink, width=5)
        for _, y0, _, _ in _cells_of(b, len(dots))[::2][1:]:
            d.line([(b[0] + 2, y0), (b[2] - 2, y0)], fill=ink, width=5)
        return
    order = sorted(range(len(dots)), key=lambda k: (dots[k][1] // 8, dots[k][0] + (seed >> k) % 7))
    d.line([dots[k] for k in order], fill=ink, width=2)  # the trail
    water = mix(paper, (80, 140, 200), 0.5)  # a stream across one corner
    d.line([(b[2] - 4, b[1] + 4), (b[2] - (b[2] - b[0]) // 5, b[3] - 4)], fill=water, width=3)


def _cells_of(b: Box, n: int) -> list[Box]:
    return [cell for _, _, cell in _slots(b, n, ())]


def draw_map(d: Draw, b: Box, places: tuple[str, ...], marked: str, style: str = "trail") -> dict[str, Any]:
    """A map in ``b`` with ``places`` (4-6 names) and the pin at ``marked`` ('' draws no pin).
    Returns its layout: ``box``, ``places`` (name -> its dot), ``labels`` (name -> the box its
    name is written in), ``pin`` (the tip, on the marked dot) and ``marked``."""
    seed = zlib.crc32("|".join(places).encode())
    slots = _slots(b, len(places), places)
    _ground(d, b, style, [(x, y) for x, y, _ in slots], seed)
    texts = [renderable(p) for p in places]
    size = max(MIN_FONT, min(18, min((c[3] - c[1]) * 3 // 5 for _, _, c in slots)))
    room = min(c[2] - x - 8 - 2 * PAD for x, _, c in slots)
    every = " ".join(texts)
    while size > MIN_FONT and max(d.textlength(t, font=font(size, every)) for t in texts) > room:
        size -= 1  # every name is written whole: the font shrinks, no name is cut
    f = font(size, every)
    dots, labels = {}, {}
    _, top, _, bottom = d.textbbox((0, 0), "Ag", font=f)  # one plate height for every name
    for name, text, (x, y, _) in zip(places, texts, slots, strict=True):
        d.ellipse((x - 3, y - 3, x + 3, y + 3), fill=DOT)
        x0, _, x1, _ = d.textbbox((0, 0), text, font=f)
        plate = (
            x + 6,
            y - (bottom - top) // 2 - 4,
            x + 6 + (x1 - x0) + 2 * PAD,
            y + (bottom - top + 1) // 2 + 4,
        )
        d.rectangle(plate, fill=WHITE, outline=mix(DOT, WHITE, 0.5))
        d.text((plate[0] + PAD - x0, plate[1] + 4 - top), text, fill=BLACK, font=f)
        dots[name], labels[name] = [x, y], list(plate)
    layout: dict[str, Any] = {"box": list(b), "places": dots, "labels": labels, "marked": marked}
    if marked:
        x, y = dots[marked]
        r = max(4, size // 2)
        head = (x - r, y - 3 * r - 2, x + r, y - r - 2)
        d.polygon([(x - r + 1, y - 2 * r - 2), (x + r - 1, y - 2 * r - 2), (x, y)], fill=PIN_INK)
        d.ellipse(head, fill=PIN_INK)
        d.ellipse((x - r // 3, y - 2 * r - 3 - r // 3, x + r // 3, y - 2 * r - 3 + r // 3), fill=WHITE)
        layout["pin"] = [x, y]
    return layout


def pinned_at(img: Any, layout: dict[str, Any]) -> str:
    """The location the pin drawn in ``img`` (a PIL image) marks, read from its pixels: the dot
    nearest the pin's tip (its lowest ``PIN_INK`` pixel), when the tip is within a few px of it;
    '' when no pin is drawn in the map's box."""
    import numpy as np

    x0, y0, x1, y1 = layout["box"]
    crop = np.asarray(img.convert("RGB").crop((x0, y0, x1, y1)), dtype=int)
    ys, xs = np.nonzero((crop == np.array(PIN_INK)).all(axis=2))
    if not len(ys):
        return ""
    low = ys.max()
    tip = (float(xs[ys == low].mean()) + x0, float(low) + y0)
    near = min(layout["places"].items(), key=lambda kv: (kv[1][0] - tip[0]) ** 2 + (kv[1][1] - tip[1]) ** 2)
    dx, dy = near[1][0] - tip[0], near[1][1] - tip[1]
    return near[0] if dx * dx + dy * dy <= 16 else ""
