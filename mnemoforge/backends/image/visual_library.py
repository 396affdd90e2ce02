"""Generic drawables a memeye scenario may declare (``scenarios.*.draws``): a board with a short
text list (the X1 gist), an object or animal carrying the X4 colour (a dog's or a cat's collar, a
mug, a door, a bag, a vase, a cap) and the X4 countable (boxes, bottles, tins, coins, books,
cones). Each draws inside the box it is given; the coloured part uses the exact colour, so a test
can find it in the pixels.
"""

from __future__ import annotations

from PIL import ImageDraw

from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, Box, mix
from mnemoforge.backends.image.fonts import font, renderable
from mnemoforge.backends.image.visual_animals import SPECIES, AnimalLook, draw_animal
from mnemoforge.backends.image.visual_props import frac

Draw = ImageDraw.ImageDraw
FRAME: RGB = (150, 150, 155)


def draw_board(d: Draw, b: Box, lines: tuple[str, ...]) -> None:
    """A whiteboard on an easel with the list written on it, one line each, in marker ink."""
    board = frac(b, 0.0, 0.02, 1.0, 0.8)
    d.rectangle(board, fill=(250, 250, 248), outline=FRAME, width=4)
    for fx in (0.2, 0.8):
        d.line(
            [frac(b, fx, 0.8, 0, 0)[:2], frac(b, fx - 0.08 if fx < 0.5 else fx + 0.08, 1.0, 0, 0)[:2]],
            fill=FRAME,
            width=4,
        )
    n = max(1, len(lines))
    size = max(8, min(20, (board[3] - board[1] - 12) // (n + 1)))
    texts = [renderable(x) for x in lines]
    room = board[2] - board[0] - 12
    every = " ".join(texts)
    while size > 8 and max(d.textlength(t, font=font(size, every)) for t in texts) > room:
        size -= 1  # the whole list is written: the font shrinks, no line is cut
    f = font(size, every)
    y = board[1] + 8
    for text in texts:
        d.text((board[0] + 6, y), text, fill=(25, 60, 160), font=f)
        y += size + 6


def draw_written(d: Draw, drawable: str, b: Box, text: str) -> Box:
    """A written value on a declared drawable: a ``board`` (dark marker on a small whiteboard), a
    ``screen`` (bright digits on a dark display); returns the box the text is written in."""
    panel = frac(b, 0.0, 0.0, 1.0, 0.62)
    if drawable == "screen":
        d.rectangle(frac(b, 0.45, 0.62, 0.55, 0.75), fill=FRAME)
        d.rounded_rectangle(panel, radius=4, fill=(20, 28, 36), outline=FRAME, width=3)
        ink: RGB = (120, 240, 140)
    else:  # board
        d.rectangle(panel, fill=(250, 250, 248), outline=FRAME, width=4)
        ink = (25, 60, 160)
    t = renderable(text)
    size = max(10, (panel[3] - panel[1]) * 3 // 5)
    while size > 8 and d.textlength(t, font=font(size, t)) > panel[2] - panel[0] - 12:
        size -= 1
    f = font(size, t)
    x0, y0, x1, y1 = d.textbbox((0, 0), t, font=f)
    cx, cy = (panel[0] + panel[2]) // 2, (panel[1] + panel[3]) // 2
    d.text((cx - (x1 - x0) // 2 - x0, cy - (y1 - y0) // 2 - y0), t, fill=ink, font=f)
    return panel


def draw_coloured(d: Draw, drawable: str, b: Box, c: RGB) -> tuple[int, int]:
    """The drawable with its coloured part in ``c``; returns a pixel inside that part."""
    if drawable in SPECIES:  # an animal of the default look (``visual_animals``)
        return draw_animal(d, AnimalLook(drawable), b, c)
    if drawable == "mug":
        body = frac(b, 0.2, 0.45, 0.7, 0.95)
        d.rounded_rectangle(body, radius=3, fill=c, outline=BLACK)
        d.arc((body[2] - 6, body[1] + 6, body[2] + 10, body[3] - 6), -90, 90, fill=BLACK, width=3)
        return (body[0] + body[2]) // 2, (body[1] + body[3]) // 2
    if drawable == "door":
        door = frac(b, 0.25, 0.05, 0.75, 1.0)
        d.rectangle(door, fill=c, outline=BLACK, width=2)
        d.ellipse(
            (door[2] - 9, (door[1] + door[3]) // 2, door[2] - 5, (door[1] + door[3]) // 2 + 4), fill=BLACK
        )
        return (door[0] + door[2]) // 2, door[1] + (door[3] - door[1]) // 4
    if drawable == "bag":
        bag = frac(b, 0.2, 0.4, 0.8, 0.95)
        d.arc((bag[0] + 6, bag[1] - 14, bag[2] - 6, bag[1] + 10), 180, 360, fill=BLACK, width=2)
        d.rectangle(bag, fill=c, outline=BLACK)
        return (bag[0] + bag[2]) // 2, (bag[1] + bag[3]) // 2
    if drawable == "cap":
        crown = frac(b, 0.2, 0.45, 0.75, 0.8)
        d.pieslice(
            (crown[0], crown[1], crown[2], crown[3] + (crown[3] - crown[1])), 180, 360, fill=c, outline=BLACK
        )
        d.rectangle((crown[2] - 4, crown[3] - 4, crown[2] + 14, crown[3]), fill=c, outline=BLACK)
        return (crown[0] + crown[2]) // 2, crown[3] - 6
    vase = frac(b, 0.3, 0.3, 0.7, 0.95)  # vase
    cx = (vase[0] + vase[2]) // 2
    d.rectangle((cx - 4, vase[1], cx + 4, vase[1] + (vase[3] - vase[1]) // 3), fill=c, outline=BLACK)
    d.ellipse((vase[0], vase[1] + (vase[3] - vase[1]) // 4, vase[2], vase[3]), fill=c, outline=BLACK)
    return cx, (vase[1] + 5 * vase[3]) // 6 - 2


def draw_aircraft(d: Draw, b: Box, c: RGB) -> tuple[int, int]:
    """A small high-wing plane seen from the side, its fuselage in ``c``; returns a pixel inside it."""
    body = frac(b, 0.05, 0.45, 0.85, 0.7)
    d.ellipse(body, fill=c, outline=BLACK)
    d.polygon([frac(b, 0.7, 0.5, 0, 0)[:2], frac(b, 0.98, 0.2, 0, 0)[:2], frac(b, 0.98, 0.6, 0, 0)[:2]],
              fill=c, outline=BLACK)  # fmt: skip
    d.rectangle(frac(b, 0.3, 0.38, 0.6, 0.45), fill=mix(c, BLACK, 0.3), outline=BLACK)  # the wing
    d.rectangle(frac(b, 0.16, 0.5, 0.3, 0.58), fill=(190, 220, 240), outline=BLACK)  # cockpit window
    d.line([frac(b, 0.05, 0.42, 0, 0)[:2], frac(b, 0.05, 0.73, 0, 0)[:2]], fill=BLACK, width=2)  # propeller
    for fx in (0.3, 0.6):
        d.line([frac(b, fx, 0.7, 0, 0)[:2], frac(b, fx, 0.85, 0, 0)[:2]], fill=BLACK)
        d.ellipse(frac(b, fx - 0.04, 0.83, fx + 0.04, 0.95), fill=(30, 30, 30))
    return (body[0] + body[2]) // 2, (body[1] + body[3]) // 2 + 2


def draw_countable(d: Draw, drawable: str, b: Box, c: RGB) -> None:
    """One countable item in colour ``c``."""
    if drawable == "box":
        s = frac(b, 0.1, 0.2, 0.9, 1.0)
        d.rectangle(s, fill=c, outline=BLACK)
        d.line([(s[0], s[1] + 4), (s[2], s[1] + 4)], fill=WHITE)
    elif drawable == "bottle":
        d.rectangle(frac(b, 0.38, 0.0, 0.62, 0.3), fill=c)
        d.rounded_rectangle(frac(b, 0.2, 0.28, 0.8, 1.0), radius=3, fill=c, outline=BLACK)
    elif drawable == "tin":
        s = frac(b, 0.15, 0.3, 0.85, 1.0)
        d.rectangle(s, fill=c, outline=BLACK)
        d.ellipse((s[0], s[1] - 3, s[2], s[1] + 3), fill=mix(c, WHITE, 0.4), outline=BLACK)
    elif drawable == "coin":
        d.ellipse(frac(b, 0.1, 0.3, 0.9, 0.9), fill=c, outline=BLACK)
    elif drawable == "book":
        d.rectangle(frac(b, 0.25, 0.0, 0.75, 1.0), fill=c, outline=BLACK)
    else:  # cone
        s = frac(b, 0.15, 0.0, 0.85, 1.0)
        d.polygon([(s[0], s[3]), (s[2], s[3]), ((s[0] + s[2]) // 2, s[1])], fill=c)
        d.rectangle((s[0] + 3, (s[1] + s[3]) // 2, s[2] - 3, (s[1] + s[3]) // 2 + 3), fill=WHITE)


CHART_INK: RGB = (200, 70, 40)  # the bar whose level is the declared value
CHART_BARS: RGB = (160, 168, 180)  # the other (earlier) bars


def chart_level(bar: Box, axis: Box, lo: int, hi: int) -> int:
    """The value a bar of ``bar``'s height reads on an axis of ``axis``'s height (``lo``..``hi``)."""
    steps = hi - lo + 1
    return lo - 1 + round((bar[3] - bar[1]) * steps / max(1, axis[3] - axis[1]))


def draw_chart(d: Draw, b: Box, text: str, lo: int, hi: int, others: tuple[float, ...]) -> tuple[Box, dict]:
    """A bar chart on a card: grey bars at ``others`` (fractions of the axis) and, last, the
    declared bar in ``CHART_INK`` whose height is its value on the ``lo``..``hi`` axis, the value
    written above the chart. Returns the written value's box and the chart's layout (``axis``,
    ``bar``, ``range``) so the drawn check can read the bar's level back."""
    d.rectangle(b, fill=(250, 250, 248), outline=FRAME, width=2)
    head = frac(b, 0.05, 0.03, 0.95, 0.36)
    axis = frac(b, 0.12, 0.42, 0.94, 0.94)
    d.line([(axis[0], axis[1]), (axis[0], axis[3]), (axis[2], axis[3])], fill=BLACK, width=2)
    value = int(text)
    steps = hi - lo + 1
    n = len(others) + 1
    slot = (axis[2] - axis[0] - 4) / n
    bar: Box = (0, 0, 0, 0)
    for k in range(n):
        fx = others[k] if k < len(others) else (value - lo + 1) / steps
        x0 = round(axis[0] + 4 + k * slot + slot * 0.15)
        x1 = round(axis[0] + 4 + (k + 1) * slot - slot * 0.15)
        top = axis[3] - round(fx * (axis[3] - axis[1]))
        box = (x0, top, x1, axis[3])
        d.rectangle((x0, top, x1, axis[3] - 1), fill=CHART_INK if k == n - 1 else CHART_BARS)
        bar = box
    t = renderable(text)
    size = max(10, (head[3] - head[1]) * 4 // 5)
    f = font(size, t)
    x0, y0, x1, y1 = d.textbbox((0, 0), t, font=f)
    cx, cy = (head[0] + head[2]) // 2, (head[1] + head[3]) // 2
    d.text((cx - (x1 - x0) // 2 - x0, cy - (y1 - y0) // 2 - y0), t, fill=CHART_INK, font=f)
    return head, {"axis": list(axis), "bar": list(bar), "range": [lo, hi]}


CONTAINERS = ("bin", "crate", "basket")


def draw_container(d: Draw, kind: str, b: Box) -> Box:
    """An open container (a plastic ``bin``, a wooden ``crate``, a wicker ``basket``) seen from the
    front, its floor the bottom of ``b``; counted items stand inside it, in front of its back wall
    and above its low front lip. Returns the inner box the items stand in."""
    wall = {"bin": (70, 110, 150), "crate": (170, 120, 70), "basket": (190, 150, 90)}.get(
        kind, (120, 120, 120)
    )
    back = mix(wall, WHITE, 0.45)
    d.rectangle(b, fill=back, outline=BLACK)
    lip = max(3, (b[3] - b[1]) // 8)
    d.rectangle((b[0], b[3] - lip, b[2], b[3]), fill=wall, outline=BLACK)  # the front lip
    side = max(3, (b[2] - b[0]) // 60)
    d.rectangle((b[0], b[1], b[0] + side, b[3]), fill=wall)
    d.rectangle((b[2] - side, b[1], b[2], b[3]), fill=wall)
    if kind == "crate":
        d.line([(b[0], b[1] + (b[3] - b[1]) // 3), (b[2], b[1] + (b[3] - b[1]) // 3)], fill=wall, width=2)
    elif kind == "basket":
        for x in range(b[0] + 8, b[2], 10):
            d.line([(x, b[1]), (x, b[3] - lip)], fill=mix(wall, back, 0.5))
    return (b[0] + side + 1, b[1] + 2, b[2] - side - 1, b[3] - lip - 1)
