"""The memeye render audit per item (issue 30): the ``memeye_drawn`` gate.

For every item, each fact its answer depends on must be drawn, in every evidence picture that
expresses it, with the attribute the item reads and at a legible size. The gate reads the layout
the renderer recorded for each picture (``episodes/memeye_layouts.jsonl``) and, for a colour, the
picture's pixels:

* ``colour``: the coloured part is drawn (its box at least ``MIN_SIDE`` px) and the pixel the
  renderer marked holds exactly the World's colour;
* ``count``: as many countables are drawn as the World's count, each at least ``MIN_SIDE`` px;
* ``mark``: four look-alike instances, the marked one at the World's position;
* ``order``: the table-top's objects stand left to right in the World's order;
* ``presence``: the drawn person holds the World's object;
* ``marked``: the declared map's pin, found in the picture's pixels (its ink, ``visual_map.PIN_INK``),
  has its tip on the dot of the World's location, and every location's name is written at least
  ``MIN_TEXT`` px high (the OCR gate reads the names back);
* ``label``: the written value's box is at least ``MIN_TEXT`` px high (the OCR gate,
  ``memeye_ocr``, reads it back); on a chart, the last bar's height reads the World's value;
* ``count``: items in a declared container (bin, crate, basket) are counted the same way;
* ``gist``, ``left``, ``right``: their region is drawn.

Reasons: ``undrawn:<key>`` (the picture's layout has no drawing of it), ``wrong:<key>`` (drawn
with another value) and ``small:<key>`` (drawn below the legible size).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.validators.gates import GateContext, verdict

LAYOUTS = "episodes/memeye_layouts.jsonl"  # as ``generators/memeye/render.LAYOUTS``
POSITIONS = ("first", "second", "third", "fourth")  # as ``generators/memeye/vocab.POSITIONS``
ORDER_SEP = " > "
MIN_SIDE = 6  # px: the least side of a coloured part or a countable
MIN_TEXT = 12  # px: the least height of a box a value is written in


def _side(box: list[int]) -> int:
    return min(box[2] - box[0], box[3] - box[1])


def _pixel(path: Path, point: tuple[int, int]) -> tuple[int, int, int]:
    return _pixel_at(path, path.stat().st_mtime, point)


@cache
def _pixel_at(path: Path, mtime: float, point: tuple[int, int]) -> tuple[int, int, int]:
    from PIL import Image

    with Image.open(path) as img:
        return img.convert("RGB").getpixel(point)  # type: ignore[return-value]


def _chart_level(chart: dict) -> int:
    """The value a drawn chart's last bar reads on its axis (as ``visual_library.chart_level``)."""
    bar, axis, (lo, hi) = chart["bar"], chart["axis"], chart["range"]
    return lo - 1 + round((bar[3] - bar[1]) * (hi - lo + 1) / max(1, axis[3] - axis[1]))


def drawn_problem(key: str, value: str, layout: dict, picture: Path) -> str:
    """'' when ``layout`` (and ``picture``) draws ``key`` with ``value`` at a legible size, else a
    coded reason."""
    from mnemoforge.backends.image.colors import rgb
    from mnemoforge.generators.memeye.vocab import colour_hex

    if key == "colour":
        box, point = layout.get("colour_box"), layout.get("colour_point")
        if not box or not point:
            return "undrawn:colour"
        if _side(box) < MIN_SIDE:
            return "small:colour"
        return "" if _pixel(picture, tuple(point)) == rgb(colour_hex(value)) else "wrong:colour"
    if key == "count":
        boxes = layout.get("countables") or []
        if len(boxes) != int(value):
            return "wrong:count"
        return "small:count" if any(_side(b) < MIN_SIDE for b in boxes) else ""
    if key == "mark":
        if len(layout.get("instances") or []) != len(POSITIONS) or layout.get("mark", -1) < 0:
            return "undrawn:mark"
        return "" if POSITIONS[layout["mark"]] == value else "wrong:mark"
    if key == "order":
        table = layout.get("table")
        if not table:
            return "undrawn:order"
        return "" if [r["item"] for r in table] == value.split(ORDER_SEP) else "wrong:order"
    if key == "presence":
        person = layout.get("person")
        if not person:
            return "undrawn:presence"
        return "" if person.get("item") == value else "wrong:presence"
    if key == "marked":
        return _map_problem(value, layout.get("map"), picture)
    if key == "label":
        box = layout.get("label")
        if not box:
            return "undrawn:label"
        if box[3] - box[1] < MIN_TEXT:
            return "small:label"
        chart = layout.get("chart")
        return "wrong:label" if chart and _chart_level(chart) != int(value) else ""
    if key in ("gist", "left", "right"):
        return "" if layout.get(key) else f"undrawn:{key}"
    return ""


def _map_problem(value: str, drawn: dict | None, picture: Path) -> str:
    """'' when the map's pin stands at ``value`` in the picture and every name is legible-sized."""
    if not drawn or not drawn.get("places"):
        return "undrawn:marked"
    if value not in drawn["places"]:
        return "wrong:marked"
    if any(b[3] - b[1] < MIN_TEXT for b in drawn["labels"].values()):
        return "small:marked"
    got = _pinned(picture, picture.stat().st_mtime, json.dumps(drawn, sort_keys=True))
    if not got:
        return "undrawn:marked"
    return "" if got == value else "wrong:marked"


@cache
def _pinned(path: Path, mtime: float, drawn: str) -> str:
    from PIL import Image

    from mnemoforge.backends.image.visual_map import pinned_at

    with Image.open(path) as img:
        return pinned_at(img, json.loads(drawn))


def check_item(q: Question, ctx: GateContext, layouts: dict[str, dict]) -> tuple[bool, str]:
    """(drawn, reason) for one item: every fact it reads, in every evidence picture showing it."""
    if ctx.media_root is None:  # a release's re-check (``mnemoforge verify``) reads no pictures
        return True, "pictures not at hand"
    read = {f.id: f for f in ctx.world.facts if f.id in q.facts_read and f.value is not None}
    checked = 0
    for oid in q.evidence:
        o = ctx.observations.get(oid)
        if o is None or not o.media:
            continue
        entry = layouts.get(oid)
        for e in o.expresses:
            f = read.get(e.fact)
            if f is None:
                continue
            if entry is None:
                return False, f"undrawn:{f.object}"
            problem = drawn_problem(f.object, str(f.value), entry["layout"], ctx.media_root / o.media[0])
            if problem:
                return False, f"{problem} in {oid}"
            checked += 1
    return True, f"{checked} fact(s) drawn as read"


class FactsDrawn:
    """``memeye_drawn``: each fact an item reads is drawn in its evidence pictures as read."""

    name, version = "memeye_drawn", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        ok, reason = check_item(q, ctx, layouts(ctx.media_root))
        return verdict(self, q, ok, reason)


@cache
def _layouts_at(path: Path, mtime: float) -> dict[str, dict]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[row["observation"]] = row
    return out


def layouts(root: Path | None) -> dict[str, dict]:
    """The drawn layout of each picture of a run, by observation id (empty without a render)."""
    path = (root or Path(".")) / LAYOUTS
    return _layouts_at(path, path.stat().st_mtime) if path.is_file() else {}
