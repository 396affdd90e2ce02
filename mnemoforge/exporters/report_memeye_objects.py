"""memeye report: the contact sheet of every drawn object across time (issue 30).

One row per scenario and drawn part (the coloured object or animal, the written value, the counted
items, the table-top, the cast person, the map), its crops from the pictures in time order, each labelled
with its round and date, so an author sees their domain as drawn before they publish. The boxes
come from the renderer's layouts (``episodes/memeye_layouts.jsonl`` in a run,
``data/memeye/annotations/layouts.jsonl`` in a release).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

from mnemoforge.backends.image.documents_base import INK, MUTED, WHITE, draw_text, fit_text
from mnemoforge.exporters.report_drawing import PAPER, _title

if TYPE_CHECKING:
    from mnemoforge.exporters.report import Source

LAYOUT_FILES = ("episodes/memeye_layouts.jsonl", "data/memeye/annotations/layouts.jsonl")
PARTS = ("colour", "label", "count", "table", "person", "map")  # as the sheet names its rows
MAX_CROPS = 12


def _union(boxes: list[list[int]]) -> list[int] | None:
    if not boxes:
        return None
    return [
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    ]


def part_boxes(layout: dict) -> dict[str, list[int]]:
    """The box of each drawn part of one picture (absent parts left out)."""
    person = layout.get("person") or {}
    got = {
        "colour": layout.get("colour_box"),
        "label": layout.get("label"),
        "count": _union(layout.get("countables") or []),
        "table": _union(
            [r["box"] for r in layout.get("table") or []] + [r["card"] for r in layout.get("table") or []]
        ),
        "person": _union([b for b in (person.get("person"), person.get("box"), person.get("card")) if b]),
        "map": (layout.get("map") or {}).get("box"),
    }
    return {k: v for k, v in got.items() if v}


def layouts(src: Source) -> dict[str, dict]:
    """The drawn layout of each picture, by observation id (empty when none was recorded)."""
    for rel in LAYOUT_FILES:
        path = src.root / rel
        if path.is_file():
            out = {}
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    lay = row["layout"]
                    out[row["observation"]] = json.loads(lay) if isinstance(lay, str) else lay
            return out
    return {}


def object_sheet(src: Source, titles: dict[str, str], thumb: int = 84) -> Image.Image | None:
    """The contact sheet, or None when no layout was recorded."""
    lays = layouts(src)
    rows: dict[tuple[str, str], list[tuple[dict, Image.Image]]] = {}
    for o in sorted(src.observations.values(), key=lambda o: (str(o.get("timestamp")), o["id"])):
        media = [m for m in o.get("media") or [] if m.endswith(".png")]
        if o["id"] not in lays or not media or not (src.root / media[0]).is_file():
            continue
        with Image.open(src.root / media[0]) as pic:
            rgb = pic.convert("RGB")
        for part, box in part_boxes(lays[o["id"]]).items():
            crops = rows.setdefault((o.get("source") or "", part), [])
            if len(crops) < MAX_CROPS:
                crop = rgb.crop(tuple(box))
                crop.thumbnail((thumb, thumb))
                crops.append((o, crop))
    if not rows:
        return None
    order = sorted(rows, key=lambda k: (k[0], PARTS.index(k[1])))
    left, row_h = 200, thumb + 30
    width = max(640, left + MAX_CROPS * (thumb + 8) + 24)
    title = "Every drawn object across time"
    why = "One row per scenario and drawn part; crops from its pictures in time order."
    top = _title(Image.new("RGB", (width, 10)), title, why) + 6
    img = Image.new("RGB", (width, top + row_h * len(order) + 10), PAPER)
    _title(img, title, why)
    draw = ImageDraw.Draw(img)
    for i, key in enumerate(order):
        y = top + i * row_h
        draw.rectangle((16, y, width - 16, y + row_h - 6), fill=WHITE)
        name = fit_text(titles.get(key[0], key[0]), 13, left - 40, bold=True)
        draw_text(draw, (28, y + row_h / 2 - 9), name, 13, INK, True, "lm")
        draw_text(draw, (28, y + row_h / 2 + 9), key[1], 11, MUTED, anchor="lm")
        for k, (o, crop) in enumerate(rows[key]):
            x = left + k * (thumb + 8)
            img.paste(crop, (x + (thumb - crop.width) // 2, y + 4 + (thumb - crop.height) // 2))
            label = str(o.get("timestamp", ""))[5:10]
            draw_text(
                draw, (x + thumb / 2, y + thumb + 8), fit_text(label, 10, thumb), 10, MUTED, anchor="ma"
            )
    return img
