"""Visual-memory scenes (MemEye): one composed picture per scene state, with its layout recorded.

Layout (fractions of width × height, the same for every kind)::

    backdrop        the wall / tablecloth / header bar / facade, in a neutral per-scene tint
    colour object   one small object in the asked colour (a vase, a coaster, a profile badge,
                    a door; ``colour_box``, about 1 % of the frame): the X4 colour
    instances       four look-alike instances in a row (x 0.30–0.70, y 0.17–0.31); one marked
    left | gist | right   region items and the scene's gist object (y 0.36–0.85)
    countables      a row of small countable items (x 0.03–0.66, y 0.88–0.98)
    label           a small tag with legible text (x 0.70–0.97, y 0.87–0.98)
    map             a declared map with named locations and a pin (x 0.22–0.71, y 0.01–0.36),
                    where the instances would be (``visual_map``)

``render_scene`` returns the image and a layout of boxes (``left``, ``right``, ``gist``,
``instances``, ``mark``, ``mark_detail``, ``countables``, ``label``, ``colour_box``,
``colour_point``, ``map``) so a test can read the facts back from the pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from mnemoforge.backends.image import visual_figures as figures
from mnemoforge.backends.image import visual_gists as gists
from mnemoforge.backends.image import visual_library as library
from mnemoforge.backends.image import visual_props as props
from mnemoforge.backends.image import visual_shelf as shelf
from mnemoforge.backends.image.colors import BLACK, WHITE, Box, rgb
from mnemoforge.backends.image.fonts import font, renderable
from mnemoforge.backends.image.visual_animals import SPECIES, AnimalLook, draw_animal
from mnemoforge.backends.image.visual_map import draw_map
from mnemoforge.rng import derive_rng

FLOOR = (150, 110, 75)
# every drawable region item, and each kind's countable ink
ITEMS = props.ITEMS | shelf.ITEMS
COUNT_INK = props.COUNT_INK | {"shelf": shelf.COUNT_INK}


@dataclass(frozen=True)
class SceneState:
    """Everything a picture of a scene shows; values are the World's facts at that moment."""

    kind: str
    gist: str
    left: str
    right: str
    mark: int  # 0-based index (from the left) of the marked instance
    colour: str  # '#rrggbb' of the small colour object
    count: int
    label: str
    seed: int
    backdrop: str = "#e6e2da"  # neutral tint of the large background (never asked)
    width: int = 512
    height: int = 384
    board: tuple[str, ...] = ()  # declared: the gist is a board with these lines (``gist`` unused)
    colour_drawable: str = ""  # declared: the drawable carrying the colour (``visual_library``)
    count_drawable: str = ""  # declared: the drawable counted
    count_colour: str = ""
    label_drawable: str = ""  # declared: "sign" writes the label on a sign on a post (top right)
    label_range: tuple[int, ...] = ()  # declared: a chart's axis, (low, high)
    count_container: str = ""  # declared: the counted items stand in a bin, crate or basket
    table_items: tuple[str, ...] = ()  # declared table-top arrangement (replaces the gist drawing)
    order: tuple[str, ...] = ()  # its objects, left to right
    person_colours: tuple[tuple[str, str], ...] = ()  # declared cast person: (part, '#rrggbb')
    person_holds: tuple[str, ...] = ()  # what they may hold (replaces the left region item)
    held: str = ""  # what they hold in this picture
    person_name: str = ""  # the name on their chest tag
    animal: tuple[str, ...] = ()  # a declared animal's look: (size, coat '#rrggbb', markings)
    map_places: tuple[str, ...] = ()  # declared map: its named locations (replaces the instances)
    map_style: str = "trail"
    marked: str = ""  # the location its pin marks in this picture


def _box(w: int, h: int, fx0: float, fy0: float, fx1: float, fy1: float) -> Box:
    return (round(fx0 * w), round(fy0 * h), round(fx1 * w), round(fy1 * h))


def _background(d: ImageDraw.ImageDraw, s: SceneState) -> None:
    w, h, c = s.width, s.height, rgb(s.backdrop)
    if s.kind == "shelf":
        shelf.background(d, w, h, c)
    elif s.kind == "room":
        d.rectangle((0, 0, w, round(0.86 * h)), fill=c)
        d.rectangle((0, round(0.86 * h), w, h), fill=FLOOR)
        d.rectangle(_box(w, h, 0.28, 0.31, 0.72, 0.33), fill=props.WOOD)  # upper shelf
    elif s.kind == "board":
        d.rectangle((0, 0, w, h), fill=c)
    elif s.kind == "dashboard":
        d.rectangle((0, 0, w, h), fill=(246, 247, 250))
        d.rectangle((0, 0, w, round(0.14 * h)), fill=c)
        d.rectangle(_box(w, h, 0.0, 0.86, 1.0, 1.0), fill=(232, 234, 240))
    else:
        d.rectangle((0, 0, w, round(0.14 * h)), fill=(150, 195, 235))
        d.rectangle((0, round(0.14 * h), w, round(0.86 * h)), fill=c)
        d.rectangle((0, round(0.86 * h), w, h), fill=(190, 190, 185))
        for k in range(6):  # windows of the facade, clear of the door and the instances
            x0 = round((0.03 + k * 0.16) * w)
            if 0.25 * w < x0 < 0.7 * w:
                continue
            d.rectangle((x0, round(0.16 * h), x0 + round(0.05 * w), round(0.2 * h)), fill=(60, 70, 90))


def draw_colour_object(d: ImageDraw.ImageDraw, s: SceneState) -> tuple[Box, tuple[int, int]]:
    """The small object carrying the X4 colour; returns its box and a pixel inside it."""
    w, h, c = s.width, s.height, rgb(s.colour)
    if s.colour_drawable:
        b = _box(w, h, 0.04, 0.15, 0.20, 0.35)
        if s.colour_drawable == "vehicle":
            return b, figures.draw_vehicle(d, b, c)
        if s.colour_drawable == "aircraft":
            return b, library.draw_aircraft(d, b, c)
        if s.animal and s.colour_drawable in SPECIES:
            size, coat, markings = s.animal[:3]
            return b, draw_animal(d, AnimalLook(s.colour_drawable, size, coat, markings), b, c)
        return b, library.draw_coloured(d, s.colour_drawable, b, c)
    if s.kind == "room":  # a small vase on a short shelf at the left
        d.rectangle(_box(w, h, 0.04, 0.33, 0.16, 0.35), fill=props.WOOD)
        b = _box(w, h, 0.07, 0.19, 0.13, 0.33)
        cx = (b[0] + b[2]) // 2
        d.rectangle((cx - 4, b[1], cx + 4, b[1] + (b[3] - b[1]) // 3), fill=c, outline=BLACK)
        d.ellipse((b[0], b[1] + (b[3] - b[1]) // 4, b[2], b[3]), fill=c, outline=BLACK)
        return b, (cx, (b[1] + 5 * b[3]) // 6 - 2)
    if s.kind == "shelf":  # a little shopping bag on a hook
        b = _box(w, h, 0.06, 0.16, 0.14, 0.30)
        return b, shelf.draw_colour_object(d, b, c)
    if s.kind == "board":  # a round drinks coaster
        b = _box(w, h, 0.06, 0.18, 0.15, 0.30)
        d.ellipse(b, fill=c, outline=BLACK, width=2)
        return b, ((b[0] + b[2]) // 2, (b[1] + b[3]) // 2)
    if s.kind == "dashboard":  # the profile badge in the header
        b = _box(w, h, 0.89, 0.025, 0.96, 0.115)
        d.ellipse(b, fill=c, outline=WHITE, width=2)
        return b, ((b[0] + b[2]) // 2, (b[1] + b[3]) // 2)
    b = _box(w, h, 0.10, 0.21, 0.17, 0.37)  # street: the building's front door
    d.rectangle(b, fill=c, outline=BLACK, width=2)
    d.ellipse((b[2] - 9, (b[1] + b[3]) // 2, b[2] - 5, (b[1] + b[3]) // 2 + 4), fill=BLACK)
    return b, ((b[0] + b[2]) // 2, b[1] + (b[3] - b[1]) // 4)


def draw_label(d: ImageDraw.ImageDraw, box: Box, text: str) -> Box:
    d.rectangle(box, fill=WHITE, outline=BLACK)
    text = renderable(text)
    f = font(max(11, (box[3] - box[1]) * 2 // 3), text)
    x0, y0, x1, y1 = d.textbbox((0, 0), text, font=f)
    cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
    d.text((cx - (x1 - x0) // 2 - x0, cy - (y1 - y0) // 2 - y0), text, fill=BLACK, font=f)
    return box


def render_scene(s: SceneState) -> tuple[Image.Image, dict]:
    """Draw one scene state; return the RGB image and its layout (boxes as [x0, y0, x1, y1])."""
    if not s.board and not s.table_items and s.gist and s.gist not in gists.GISTS[s.kind]:
        raise ValueError(f"cannot draw gist {s.gist!r} for kind {s.kind!r}")
    for item in (s.right,) if s.person_holds else (s.left, s.right):
        if item and item not in ITEMS:
            raise ValueError(f"cannot draw item {item!r}")
    w, h = s.width, s.height
    rng = derive_rng(s.seed, "visual_scene")
    img = Image.new("RGB", (w, h), WHITE)
    d = ImageDraw.Draw(img)
    _background(d, s)
    layout: dict = {}
    if s.colour:  # undrawn when no scene pack draws the kind's own and the theme declares none
        cbox, cpoint = draw_colour_object(d, s)
        layout |= {"colour_box": list(cbox), "colour_point": list(cpoint)}
    gist = _box(w, h, 0.33, 0.36, 0.67, 0.85)
    extra: dict = {}
    if s.board:
        library.draw_board(d, gist, s.board)
    elif s.table_items:
        extra["table"] = figures.draw_table(d, gist, list(s.table_items), list(s.order))
    elif s.gist:
        gists.draw_gist(d, s.kind, gist, s.gist, rng)
    if s.kind == "street" and not s.board and not s.table_items and s.gist:
        gists.weather(img, [(0, 0, w, round(0.14 * h)), gist], s.gist, rng)
        if s.gist == "sunny":
            d.ellipse(_box(w, h, 0.8, 0.01, 0.86, 0.09), fill=(255, 220, 60))
    left, right = _box(w, h, 0.03, 0.38, 0.30, 0.85), _box(w, h, 0.70, 0.38, 0.97, 0.85)
    if s.person_holds:
        extra["person"] = figures.draw_person(
            d, left, {k: rgb(v) for k, v in s.person_colours}, list(s.person_holds), s.held, s.person_name
        )
    elif s.left:
        ITEMS[s.left](d, left)
    if s.right:
        ITEMS[s.right](d, right)
    inst = []
    detail: Box | None = None
    step = 0.40 / 4
    for k in range(4 if s.mark >= 0 else 0):
        b = _box(w, h, 0.30 + k * step + 0.01, 0.17, 0.30 + (k + 1) * step - 0.01, 0.31)
        marked = k == s.mark
        got = (
            shelf.draw_instance(d, b, marked)
            if s.kind == "shelf"
            else props.draw_instance(d, s.kind, b, marked)
        )
        detail = got or detail
        inst.append(list(b))
    if s.map_places:  # the pin's location is the value; the places stand alike in every picture
        layout["map"] = draw_map(d, _box(w, h, 0.22, 0.01, 0.71, 0.36), s.map_places, s.marked, s.map_style)
    count_boxes = []
    cw = 0.63 / 10
    if s.count_container and s.count >= 0:  # the items stand inside it
        cbox = _box(w, h, 0.02, 0.855, 0.68, 0.995)
        inner = library.draw_container(d, s.count_container, cbox)
        layout["container"] = {"kind": s.count_container, "box": list(cbox), "inner": list(inner)}
    for k in range(max(0, s.count)):
        b = _box(w, h, 0.03 + k * cw + 0.005, 0.885, 0.03 + (k + 1) * cw - 0.005, 0.975)
        if s.count_drawable:
            library.draw_countable(d, s.count_drawable, b, rgb(s.count_colour))
        elif s.kind == "shelf":
            shelf.draw_countable(d, b)
        else:
            props.draw_countable(d, s.kind, b)
        count_boxes.append(list(b))
    label: Box | None = None
    if not s.label:
        pass
    elif s.label_drawable == "sign":
        label = figures.draw_sign(d, _box(w, h, 0.74, 0.11, 0.97, 0.34), s.label)
    elif s.label_drawable == "chart":  # the last bar's level is the value, written above the chart
        lo, hi = s.label_range
        crng = derive_rng(s.seed, "visual_chart")  # the earlier bars: the same in every picture
        others = tuple(crng.randint(1, hi - lo + 1) / (hi - lo + 1) for _ in range(3))
        label, layout["chart"] = library.draw_chart(
            d, _box(w, h, 0.72, 0.06, 0.97, 0.42), s.label, lo, hi, others
        )
    elif s.label_drawable in ("board", "screen"):
        label = library.draw_written(d, s.label_drawable, _box(w, h, 0.72, 0.10, 0.97, 0.40), s.label)
    else:
        label = draw_label(d, _box(w, h, 0.70, 0.875, 0.97, 0.98), s.label)
    layout |= extra
    layout |= {
        "left": list(left),
        "right": list(right),
        "gist": list(gist),
        "instances": inst,
        "mark": s.mark,
        "mark_detail": list(detail) if detail else None,
        "countables": count_boxes,
        "count_ink": list(rgb(s.count_colour) if s.count_drawable else COUNT_INK[s.kind]),
    }
    if label is not None:
        layout["label"] = list(label)
    return img, layout


def save_png(img: Image.Image, path: str) -> None:
    """PNG without timestamps or text chunks, so identical pictures are identical bytes."""
    img.save(path, format="PNG", optimize=False, compress_level=6)
