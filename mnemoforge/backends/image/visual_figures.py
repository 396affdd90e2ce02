"""More generic drawables of the memeye library: a sign on a post (the X4 text), a table-top
arrangement of four named objects (the ``order`` variable) and a recurring cast person holding one
named object (the ``presence`` variable).

An object is drawn as a distinct shape in a distinct colour (by its index in the declared list),
with its name written on a small card, so what stands where is readable from the pixels alone.
Each function draws inside the box it is given and returns the boxes a test can read back.
"""

from __future__ import annotations

from PIL import ImageDraw

from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, Box, mix
from mnemoforge.backends.image.fonts import font, renderable, text_tag
from mnemoforge.backends.image.visual_library import draw_countable
from mnemoforge.backends.image.visual_props import WOOD, frac

Draw = ImageDraw.ImageDraw
SHAPES = ("box", "bottle", "tin", "coin", "book", "cone")
# object inks (by index in the declared list): far from every asked colour group's near shades
INKS: tuple[RGB, ...] = (
    (200, 60, 40),
    (40, 90, 180),
    (230, 180, 30),
    (60, 150, 70),
    (140, 70, 160),
    (240, 130, 40),
    (90, 90, 90),
    (20, 160, 170),
)
CARD: RGB = (255, 255, 240)
SIGN: RGB = (245, 245, 245)


def _lines(d: Draw, text: str, width: int, max_size: int) -> tuple[list[str], int]:
    """``text`` wrapped into at most two lines that fit ``width`` (the font shrinks, min 7 px)."""
    words = renderable(text).split()
    for size in range(max_size, 6, -1):
        f = font(size, " ".join(words))
        splits = [[" ".join(words)]] + [
            [" ".join(words[:k]), " ".join(words[k:])] for k in range(1, len(words))
        ]
        for ls in splits:
            if all(d.textlength(x, font=f) <= width for x in ls):
                return ls, size
    return [" ".join(words)], 7


def name_card(d: Draw, b: Box, text: str) -> Box:
    """A small card with ``text`` written on it (two lines at most), centred in ``b``."""
    d.rectangle(b, fill=CARD, outline=BLACK)
    lines, size = _lines(d, text, b[2] - b[0] - 4, max(7, (b[3] - b[1] - 4) // 2))
    f = font(size, " ".join(lines))
    y = (b[1] + b[3]) // 2 - (len(lines) * (size + 1)) // 2
    for x in lines:
        w = d.textlength(x, font=f)
        d.text(((b[0] + b[2] - w) / 2, y), x, fill=BLACK, font=f)
        y += size + 1
    return b


def draw_object(d: Draw, b: Box, index: int) -> None:
    """The ``index``-th object of a declared list: its own shape and ink."""
    draw_countable(d, SHAPES[index % len(SHAPES)], b, INKS[index % len(INKS)])


def draw_sign(d: Draw, b: Box, text: str) -> Box:
    """A sign panel on a post with ``text`` in large letters; returns the panel box."""
    panel = frac(b, 0.0, 0.0, 1.0, 0.62)
    post = frac(b, 0.46, 0.62, 0.54, 1.0)
    d.rectangle(post, fill=(110, 110, 115))
    d.rectangle(panel, fill=SIGN, outline=(30, 60, 120), width=3)
    t = renderable(text)
    size = max(10, (panel[3] - panel[1]) * 3 // 5)
    while size > 8 and d.textlength(t, font=font(size, t)) > panel[2] - panel[0] - 10:
        size -= 1
    f = font(size, t)
    x0, y0, x1, y1 = d.textbbox((0, 0), t, font=f)
    cx, cy = (panel[0] + panel[2]) // 2, (panel[1] + panel[3]) // 2
    d.text((cx - (x1 - x0) // 2 - x0, cy - (y1 - y0) // 2 - y0), t, fill=BLACK, font=f)
    return panel


def draw_table(d: Draw, b: Box, items: list[str], order: list[str]) -> list[dict]:
    """A table top seen from the front with ``order`` standing on it left to right, a name card in
    front of each; ``items`` (the declared list) fixes each object's shape and ink. Returns one
    record per object: name, object box, card box (left to right)."""
    top = frac(b, 0.0, 0.55, 1.0, 0.62)
    d.rectangle(top, fill=WOOD, outline=BLACK)
    for fx in (0.04, 0.92):
        d.rectangle(frac(b, fx, 0.62, fx + 0.04, 1.0), fill=mix(WOOD, BLACK, 0.3))
    n = len(order)
    out = []
    for k, name in enumerate(order):
        cell = (b[0] + (b[2] - b[0]) * k // n, b[1], b[0] + (b[2] - b[0]) * (k + 1) // n, b[3])
        obj = frac(cell, 0.18, 0.22, 0.82, 0.55)
        draw_object(d, obj, items.index(name))
        card = frac(cell, 0.03, 0.66, 0.97, 0.9)
        name_card(d, card, name)
        out.append({"item": name, "box": list(obj), "card": list(card)})
    return out


def draw_person(
    d: Draw, b: Box, colours: dict[str, RGB], holds: list[str], held: str, name: str = ""
) -> dict:
    """A standing person in their own colours (skin, hair, top, bottom) holding ``held`` (one of
    ``holds``, which fixes its shape and ink) out in one hand, its name on a card below, and the
    person's ``name`` on a tag on the chest (in a font covering its script). Returns the person,
    object, card and tag boxes and the item."""
    skin, hair, top, bottom = (colours[k] for k in ("skin", "hair", "top", "bottom"))
    head = frac(b, 0.14, 0.02, 0.4, 0.2)
    d.ellipse(head, fill=skin, outline=BLACK)
    d.chord((head[0], head[1], head[2], head[3] - (head[3] - head[1]) // 3), 180, 360, fill=hair)
    body = frac(b, 0.1, 0.21, 0.44, 0.55)
    d.rounded_rectangle(body, radius=4, fill=top, outline=BLACK)
    for fx in (0.13, 0.29):
        d.rectangle(frac(b, fx, 0.55, fx + 0.12, 0.9), fill=bottom, outline=BLACK)
    d.rectangle(frac(b, 0.02, 0.23, 0.1, 0.5), fill=top, outline=BLACK)  # the lowered arm
    arm = frac(b, 0.44, 0.3, 0.62, 0.36)  # the arm held out, hand at its end
    d.rectangle(arm, fill=top, outline=BLACK)
    d.ellipse((arm[2] - 3, arm[1] - 1, arm[2] + 5, arm[3] + 1), fill=skin, outline=BLACK)
    obj = frac(b, 0.56, 0.08, 0.98, 0.34)
    draw_object(d, obj, holds.index(held))
    card = frac(b, 0.5, 0.62, 1.0, 0.9)
    name_card(d, card, held)
    out = {"person": list(frac(b, 0.0, 0.02, 0.46, 0.9)), "box": list(obj), "card": list(card), "item": held}
    if name:
        size = max(8, (body[3] - body[1]) // 4)
        out["tag"] = list(text_tag(d, (body[0] + body[2]) / 2, (body[1] + body[3]) / 2, name, size))
    return out


def draw_vehicle(d: Draw, b: Box, c: RGB) -> tuple[int, int]:
    """A small van seen from the side, its body in ``c``; returns a pixel inside the body."""
    body = frac(b, 0.02, 0.35, 0.98, 0.8)
    cab = frac(b, 0.62, 0.15, 0.98, 0.4)
    d.rectangle(body, fill=c, outline=BLACK)
    d.polygon(
        [(cab[0], cab[3]), (cab[0], cab[1]), (cab[2] - 6, cab[1]), (cab[2], cab[3])], fill=c, outline=BLACK
    )
    d.rectangle(frac(b, 0.68, 0.2, 0.9, 0.36), fill=(190, 220, 240), outline=BLACK)  # window
    for fx in (0.22, 0.76):
        w = frac(b, fx - 0.1, 0.7, fx + 0.1, 0.98)
        d.ellipse(w, fill=(30, 30, 30))
        d.ellipse(frac(w, 0.3, 0.3, 0.7, 0.7), fill=WHITE)
    return (body[0] + body[2]) // 3, (body[1] + body[3]) // 2
