"""Declared objects of an album scene drawn by the parts of the drawing library (issue 30: both
picture families use one library). The memeye pictures compose the same parts
(``visual_library``, ``visual_figures``, ``visual_map``, ``visual_animals``): a written value on a
sign, board, screen, tag or chart; counted items on a shelf or in a bin, crate or basket; a map
with named places and a pin; a vehicle, aircraft, animal or thing in its colour.

An album scene draws at most two parts, in the top corners of the part of the still that stays
in frame (``safe``: left first, then right), above every face (a part that would reach a face is
drawn shorter), after the people so nobody stands in front of a written value. Each part returns
its layout: ``box`` (the whole part), ``text`` (where a value is written), ``countables`` (one
box per counted item), ``map`` (``visual_map.draw_map``'s layout), ``chart`` or ``point`` (a
pixel of the coloured part), so the render audit reads the value back from the pixels.
"""

from __future__ import annotations

import random
import zlib
from typing import Any

from PIL import ImageDraw

from mnemoforge.backends.image import visual_figures as figures
from mnemoforge.backends.image import visual_library as library
from mnemoforge.backends.image.colors import BLACK, Box, rgb
from mnemoforge.backends.image.fonts import font, renderable
from mnemoforge.backends.image.protocol import PartPlacement
from mnemoforge.backends.image.visual_animals import SPECIES, AnimalLook, draw_animal
from mnemoforge.backends.image.visual_map import draw_map
from mnemoforge.backends.image.visual_scene import draw_label

Draw = ImageDraw.ImageDraw
SHELF = (139, 94, 60)
# part (or written drawable) -> (width as a fraction of the safe width, height as a fraction of H)
SIZES = {
    "sign": (0.22, 0.30), "board": (0.22, 0.30), "screen": (0.22, 0.30), "tag": (0.2, 0.13),
    "chart": (0.24, 0.33), "count": (0.3, 0.2), "map": (0.34, 0.34), "colour": (0.16, 0.22),
}  # fmt: skip
COUNT_SLOTS = 9  # the most items a shelf holds in one legible row (``object_parts.COUNT_SPAN``)
MAP_FONT = 11  # px: a map's place names are written at least this large where the frame allows
MAP_CELL_PAD = 40  # px of a map's column beside its longest name (the dot, the plate's padding)


def _width(p: PartPlacement, sw: int) -> int:
    """A part's width: its share of the safe width; a map at least as wide as its names need at
    ``MAP_FONT`` px in its two columns (at most half the safe width)."""
    fw, _ = SIZES.get(p.drawable if p.part == "label" else p.part, SIZES["sign"])
    w = round(fw * sw)
    if p.part == "map" and p.places:
        f = font(MAP_FONT, " ".join(renderable(x) for x in p.places))
        need = 2 * (max(f.getlength(renderable(x)) for x in p.places) + MAP_CELL_PAD)
        w = max(w, min(round(need), sw // 2))
    return w


def part_columns(parts: tuple[PartPlacement, ...], safe: Box) -> list[tuple[int, int]]:
    """The x extent of each part: the top-left, then the top-right corner of ``safe``."""
    sw = safe[2] - safe[0]
    out = []
    for k, p in enumerate(parts):
        w = _width(p, sw)
        x0 = safe[0] + 4 if k % 2 == 0 else safe[2] - 4 - w
        out.append((x0, x0 + w))
    return out


def sign_gap(parts: tuple[PartPlacement, ...], safe: Box) -> tuple[int, int]:
    """The stretch of ``safe`` between the parts, where the place sign goes."""
    cols = part_columns(parts, safe)
    left = [x1 for k, (_, x1) in enumerate(cols) if k % 2 == 0]
    right = [x0 for k, (x0, _) in enumerate(cols) if k % 2 == 1]
    return (max(left, default=safe[0]) + 4, min(right, default=safe[2]) - 4)


def part_boxes(parts: tuple[PartPlacement, ...], W: int, H: int, safe: Box, faces: list[Box]) -> list[Box]:
    """Where each part goes (``part_columns``), ending above every face whose columns it shares."""
    out = []
    for p, (x0, x1) in zip(parts, part_columns(parts, safe), strict=True):
        _, fh = SIZES.get(p.drawable if p.part == "label" else p.part, SIZES["sign"])
        y0 = safe[1] + max(4, round(0.02 * H))
        y1 = y0 + round(fh * H)
        for f in faces:
            if f[0] < x1 and x0 < f[2] and f[1] < y1:
                y1 = max(y0 + 8, f[1] - 3)
        out.append((x0, y0, x1, y1))
    return out


def _written(d: Draw, p: PartPlacement, b: Box) -> dict[str, Any]:
    if p.drawable == "sign":
        return {"text": list(figures.draw_sign(d, b, p.value))}
    if p.drawable == "tag":
        return {"text": list(draw_label(d, b, p.value))}
    if p.drawable == "chart":
        crng = random.Random(zlib.crc32(p.oid.encode()))  # the earlier bars: alike in every shot
        steps = p.hi - p.lo + 1
        others = tuple(crng.randint(1, steps) / steps for _ in range(3))
        text, chart = library.draw_chart(d, b, p.value, p.lo, p.hi, others)
        return {"text": list(text), "chart": chart}
    return {"text": list(library.draw_written(d, p.drawable, b, p.value))}


def _counted(d: Draw, p: PartPlacement, b: Box) -> dict[str, Any]:
    """``value`` items in a row on a wooden shelf (or standing in a bin, crate or basket)."""
    out: dict[str, Any] = {}
    if p.container:
        inner = library.draw_container(d, p.container, b)
        out["container"] = {"kind": p.container, "box": list(b), "inner": list(inner)}
    else:
        plank = max(3, (b[3] - b[1]) // 10)
        d.rectangle((b[0], b[3] - plank, b[2], b[3]), fill=SHELF, outline=BLACK)
        inner = (b[0] + 2, b[1] + 2, b[2] - 2, b[3] - plank)
    slot = (inner[2] - inner[0]) / COUNT_SLOTS
    h = min(inner[3] - inner[1], round(slot * 1.8))
    boxes = []
    for k in range(int(p.value)):
        x0 = round(inner[0] + k * slot + slot * 0.08)
        ib = (x0, inner[3] - h, round(x0 + slot * 0.84), inner[3])
        library.draw_countable(d, p.drawable, ib, rgb(p.colour or "#b04a30"))
        boxes.append(list(ib))
    return out | {"countables": boxes, "ink": list(rgb(p.colour or "#b04a30"))}


def _coloured(d: Draw, p: PartPlacement, b: Box) -> dict[str, Any]:
    c = rgb(p.value)
    if p.drawable == "vehicle":
        point = figures.draw_vehicle(d, b, c)
    elif p.drawable == "aircraft":
        point = library.draw_aircraft(d, b, c)
    elif p.drawable in SPECIES:
        point = draw_animal(d, AnimalLook(p.drawable, *p.look), b, c)
    else:
        point = library.draw_coloured(d, p.drawable, b, c)
    return {"point": list(point)}


def draw_parts(d: Draw, parts: tuple[PartPlacement, ...], boxes: list[Box]) -> tuple[dict, ...]:
    """Draw each part in its box; return one layout per part (``oid``, ``part``, ``value``,
    ``box`` and what the part records)."""
    out = []
    for p, b in zip(parts, boxes, strict=True):
        rec: dict[str, Any] = {"oid": p.oid, "part": p.part, "drawable": p.drawable, "value": p.value,
                               "box": list(b)}  # fmt: skip
        if p.part == "label":
            rec |= _written(d, p, b)
        elif p.part == "count":
            rec |= _counted(d, p, b)
        elif p.part == "map":
            rec["map"] = draw_map(d, b, p.places, p.value, p.style or "trail")
        else:
            rec |= _coloured(d, p, b)
        out.append(rec)
    return tuple(out)
