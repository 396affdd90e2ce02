"""Shapes of the visual-memory scenes: region items, scene gists, similar instances, countables.

Every drawable name is listed in ``ITEMS`` / ``GISTS`` so the planner's vocabulary can be checked
against what the renderer can draw. Colours of details (the star sticker, the gold ring) are
fixed so tests can find them in the pixels.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import ImageDraw

from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, Box, mix

STAR: RGB = (255, 205, 0)
RING: RGB = (212, 160, 23)
FOLD: RGB = (250, 250, 250)
ROOFBOX: RGB = (30, 30, 30)
COUNT_INK: dict[str, RGB] = {
    "room": (178, 34, 52),
    "board": (236, 236, 236),
    "dashboard": (218, 165, 32),
    "street": (255, 120, 0),
}
WOOD: RGB = (139, 94, 60)
GREY: RGB = (120, 124, 130)

Draw = ImageDraw.ImageDraw


def frac(box: Box, fx0: float, fy0: float, fx1: float, fy1: float) -> Box:
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    return (round(x0 + fx0 * w), round(y0 + fy0 * h), round(x0 + fx1 * w), round(y0 + fy1 * h))


# ---- region items (X2) ----------------------------------------------------------------------


def _bookshelf(d: Draw, b: Box) -> None:
    s = frac(b, 0.15, 0.0, 0.85, 1.0)
    d.rectangle(s, fill=WOOD, outline=BLACK)
    for k in range(1, 4):
        y = s[1] + k * (s[3] - s[1]) // 4
        d.line([(s[0], y), (s[2], y)], fill=BLACK, width=2)
        for i in range(5):
            x = s[0] + 4 + i * (s[2] - s[0] - 8) // 5
            d.rectangle(
                (x, y - 18, x + 6, y - 2), fill=[(60, 90, 160), (200, 200, 190), (90, 140, 80)][i % 3]
            )


def _floor_lamp(d: Draw, b: Box) -> None:
    cx = (b[0] + b[2]) // 2
    d.line([(cx, b[1] + 30), (cx, b[3] - 6)], fill=BLACK, width=4)
    d.polygon(
        [(cx - 30, b[1] + 34), (cx + 30, b[1] + 34), (cx + 18, b[1]), (cx - 18, b[1])],
        fill=(245, 232, 190),
        outline=BLACK,
    )
    d.ellipse((cx - 22, b[3] - 10, cx + 22, b[3]), fill=BLACK)


def _armchair(d: Draw, b: Box) -> None:
    s = frac(b, 0.08, 0.45, 0.92, 1.0)
    d.rounded_rectangle(frac(b, 0.2, 0.2, 0.8, 0.7), radius=10, fill=(110, 60, 90), outline=BLACK)
    d.rounded_rectangle(s, radius=8, fill=(130, 70, 105), outline=BLACK)
    d.rectangle(frac(b, 0.08, 0.5, 0.22, 0.9), fill=(95, 50, 78))
    d.rectangle(frac(b, 0.78, 0.5, 0.92, 0.9), fill=(95, 50, 78))


def _dresser(d: Draw, b: Box) -> None:
    s = frac(b, 0.1, 0.35, 0.9, 1.0)
    d.rectangle(s, fill=(170, 120, 80), outline=BLACK)
    for k in range(3):
        y0 = s[1] + 4 + k * (s[3] - s[1] - 8) // 3
        y1 = y0 + (s[3] - s[1] - 8) // 3 - 4
        d.rectangle((s[0] + 5, y0, s[2] - 5, y1), outline=BLACK)
        cx = (s[0] + s[2]) // 2
        d.ellipse((cx - 3, (y0 + y1) // 2 - 3, cx + 3, (y0 + y1) // 2 + 3), fill=BLACK)


def _potted_palm(d: Draw, b: Box) -> None:
    cx = (b[0] + b[2]) // 2
    d.polygon(
        [(cx - 22, b[3] - 40), (cx + 22, b[3] - 40), (cx + 15, b[3]), (cx - 15, b[3])],
        fill=(180, 90, 50),
        outline=BLACK,
    )
    for dx, dy in ((-50, -60), (50, -60), (-30, -100), (30, -100), (0, -115)):
        d.line([(cx, b[3] - 40), (cx + dx, b[3] - 40 + dy)], fill=(40, 130, 60), width=7)


def _scorepad(d: Draw, b: Box) -> None:
    s = frac(b, 0.2, 0.3, 0.8, 0.95)
    d.rectangle(s, fill=WHITE, outline=BLACK)
    for k in range(1, 6):
        y = s[1] + k * (s[3] - s[1]) // 6
        d.line([(s[0] + 4, y), (s[2] - 4, y)], fill=(120, 150, 200))
    d.rectangle((s[0], s[1], s[2], s[1] + 8), fill=(200, 60, 60))


def _dice_cup(d: Draw, b: Box) -> None:
    s = frac(b, 0.2, 0.35, 0.7, 0.95)
    d.polygon(
        [(s[0], s[1]), (s[2], s[1]), (s[2] - 8, s[3]), (s[0] + 8, s[3])], fill=(120, 70, 40), outline=BLACK
    )
    for k, dx in enumerate((0.72, 0.86)):
        x0 = round(b[0] + dx * (b[2] - b[0]))
        y0 = b[3] - 22 - 6 * k
        d.rectangle((x0, y0, x0 + 16, y0 + 16), fill=WHITE, outline=BLACK)
        d.ellipse((x0 + 6, y0 + 6, x0 + 10, y0 + 10), fill=BLACK)


def _sand_timer(d: Draw, b: Box) -> None:
    s = frac(b, 0.3, 0.3, 0.7, 0.95)
    cx, cy = (s[0] + s[2]) // 2, (s[1] + s[3]) // 2
    d.rectangle((s[0], s[1], s[2], s[1] + 6), fill=WOOD)
    d.rectangle((s[0], s[3] - 6, s[2], s[3]), fill=WOOD)
    d.polygon([(s[0] + 6, s[1] + 6), (s[2] - 6, s[1] + 6), (cx, cy)], fill=(220, 235, 245), outline=BLACK)
    d.polygon([(s[0] + 6, s[3] - 6), (s[2] - 6, s[3] - 6), (cx, cy)], fill=(230, 200, 120), outline=BLACK)


def _snack_bowl(d: Draw, b: Box) -> None:
    s = frac(b, 0.1, 0.5, 0.9, 0.95)
    d.pieslice((s[0], s[1] - (s[3] - s[1]), s[2], s[3]), 0, 180, fill=(60, 120, 170), outline=BLACK)
    for k in range(5):
        x = s[0] + 12 + k * (s[2] - s[0] - 24) // 5
        d.ellipse((x, s[1] - 8, x + 14, s[1] + 4), fill=(230, 190, 90))


def _card_box(d: Draw, b: Box) -> None:
    s = frac(b, 0.2, 0.4, 0.8, 0.95)
    d.rectangle(s, fill=(150, 30, 40), outline=BLACK)
    c = frac(s, 0.3, 0.2, 0.7, 0.8)
    d.rectangle(c, fill=WHITE, outline=BLACK)
    d.polygon(
        [
            ((c[0] + c[2]) // 2, c[1] + 6),
            (c[2] - 6, (c[1] + c[3]) // 2),
            ((c[0] + c[2]) // 2, c[3] - 6),
            (c[0] + 6, (c[1] + c[3]) // 2),
        ],
        fill=(200, 30, 40),
    )


def card(d: Draw, b: Box) -> Box:
    s = frac(b, 0.05, 0.15, 0.95, 0.95)
    d.rounded_rectangle(s, radius=8, fill=WHITE, outline=(200, 200, 205))
    return frac(s, 0.1, 0.1, 0.9, 0.9)


def _ring_chart(d: Draw, b: Box) -> None:
    s = card(d, b)
    r = min(s[2] - s[0], s[3] - s[1]) // 2
    cx, cy = (s[0] + s[2]) // 2, (s[1] + s[3]) // 2
    d.arc((cx - r, cy - r, cx + r, cy + r), 0, 360, fill=(225, 225, 230), width=12)
    d.arc((cx - r, cy - r, cx + r, cy + r), -90, 160, fill=(46, 160, 90), width=12)


def _bar_chart(d: Draw, b: Box) -> None:
    s = card(d, b)
    w = (s[2] - s[0]) // 6
    for k, h in enumerate((0.4, 0.7, 0.55, 0.9, 0.3)):
        x = s[0] + k * w + w // 3
        d.rectangle((x, s[3] - round(h * (s[3] - s[1])), x + w - 4, s[3]), fill=(70, 110, 200))


def _line_chart(d: Draw, b: Box) -> None:
    s = card(d, b)
    ys = (0.7, 0.4, 0.55, 0.2, 0.45, 0.3)
    pts = [(s[0] + k * (s[2] - s[0]) // 5, s[1] + round(y * (s[3] - s[1]))) for k, y in enumerate(ys)]
    d.line(pts, fill=(210, 60, 60), width=3)
    d.line([(s[0], s[3]), (s[2], s[3])], fill=GREY)


def _pie_chart(d: Draw, b: Box) -> None:
    s = card(d, b)
    r = min(s[2] - s[0], s[3] - s[1]) // 2
    cx, cy = (s[0] + s[2]) // 2, (s[1] + s[3]) // 2
    bb = (cx - r, cy - r, cx + r, cy + r)
    for a0, a1, c in ((0, 140, (90, 170, 210)), (140, 250, (240, 170, 60)), (250, 360, (150, 110, 190))):
        d.pieslice(bb, a0, a1, fill=c, outline=WHITE)


def _gauge(d: Draw, b: Box) -> None:
    s = card(d, b)
    r = min(s[2] - s[0], 2 * (s[3] - s[1])) // 2
    cx, cy = (s[0] + s[2]) // 2, s[3]
    d.arc((cx - r, cy - r, cx + r, cy + r), 180, 360, fill=(220, 220, 225), width=10)
    d.arc((cx - r, cy - r, cx + r, cy + r), 180, 300, fill=(240, 120, 40), width=10)
    d.line([(cx, cy), (cx + r // 2, cy - r // 2)], fill=BLACK, width=3)


def _bus_stop(d: Draw, b: Box) -> None:
    s = frac(b, 0.1, 0.2, 0.9, 1.0)
    d.rectangle((s[0], s[1] + 20, s[2], s[1] + 26), fill=GREY)
    d.rectangle((s[0] + 4, s[1] + 26, s[0] + 8, s[3]), fill=GREY)
    d.rectangle((s[2] - 8, s[1] + 26, s[2] - 4, s[3]), fill=GREY)
    d.rectangle((s[0] + 10, s[1] + 30, s[2] - 10, s[3] - 20), fill=(200, 225, 240), outline=GREY)
    d.ellipse((s[0] - 6, s[1] - 10, s[0] + 22, s[1] + 18), fill=(30, 120, 60), outline=WHITE, width=2)


def _shopfront(d: Draw, b: Box, awning: RGB) -> Box:
    s = frac(b, 0.05, 0.15, 0.95, 1.0)
    d.rectangle(s, fill=(235, 225, 210), outline=BLACK)
    for k in range(6):
        x0 = s[0] + k * (s[2] - s[0]) // 6
        d.rectangle((x0, s[1], x0 + (s[2] - s[0]) // 6, s[1] + 24), fill=awning if k % 2 == 0 else WHITE)
    return s


def _bakery(d: Draw, b: Box) -> None:
    s = _shopfront(d, b, (150, 90, 40))
    d.ellipse(frac(s, 0.25, 0.45, 0.75, 0.7), fill=(205, 150, 80), outline=(120, 70, 30), width=2)


def _pharmacy(d: Draw, b: Box) -> None:
    s = _shopfront(d, b, (40, 150, 70))
    cx, cy = (s[0] + s[2]) // 2, (s[1] + s[3]) // 2 + 10
    d.rectangle((cx - 8, cy - 24, cx + 8, cy + 24), fill=(30, 170, 70))
    d.rectangle((cx - 24, cy - 8, cx + 24, cy + 8), fill=(30, 170, 70))


def _fountain(d: Draw, b: Box) -> None:
    s = frac(b, 0.05, 0.3, 0.95, 1.0)
    d.rectangle((s[0], s[3] - 30, s[2], s[3]), fill=(170, 170, 175), outline=BLACK)
    cx = (s[0] + s[2]) // 2
    d.rectangle((cx - 5, s[1] + 30, cx + 5, s[3] - 30), fill=(170, 170, 175))
    for dx in (-40, -20, 20, 40):
        d.arc(
            (cx + min(0, dx), s[1] + 10, cx + max(0, dx), s[3] - 20), 180, 360, fill=(80, 160, 230), width=3
        )


def _bike_rack(d: Draw, b: Box) -> None:
    s = frac(b, 0.05, 0.55, 0.95, 1.0)
    w = (s[2] - s[0]) // 4
    for k in range(4):
        x = s[0] + k * w
        d.arc((x + 2, s[1], x + w - 2, s[3] + (s[3] - s[1])), 180, 360, fill=GREY, width=5)


ITEMS: dict[str, Callable[[Draw, Box], None]] = {
    "bookshelf": _bookshelf,
    "floor lamp": _floor_lamp,
    "armchair": _armchair,
    "dresser": _dresser,
    "potted palm": _potted_palm,
    "scorepad": _scorepad,
    "dice cup": _dice_cup,
    "sand timer": _sand_timer,
    "snack bowl": _snack_bowl,
    "card box": _card_box,
    "ring chart": _ring_chart,
    "bar chart": _bar_chart,
    "line chart": _line_chart,
    "pie chart": _pie_chart,
    "gauge": _gauge,
    "bus stop": _bus_stop,
    "bakery": _bakery,
    "pharmacy": _pharmacy,
    "fountain": _fountain,
    "bike rack": _bike_rack,
}


def draw_item(d: Draw, name: str, box: Box) -> None:
    ITEMS[name](d, box)


# ---- similar instances (X3) and countables (X4) -----------------------------------------------


def draw_instance(d: Draw, kind: str, b: Box, marked: bool) -> Box | None:
    """One of four look-alike instances; the marked one gets a small detail. Returns the detail box."""
    if kind == "room":  # a mug
        body = frac(b, 0.1, 0.2, 0.75, 1.0)
        d.rounded_rectangle(body, radius=4, fill=(240, 240, 236), outline=BLACK)
        d.arc((body[2] - 8, body[1] + 6, body[2] + 10, body[3] - 8), -90, 90, fill=BLACK, width=3)
        if marked:
            cx, cy, r = (body[0] + body[2]) // 2, (body[1] + body[3]) // 2, 6
            pts = [
                (cx, cy - r),
                (cx + 2, cy - 2),
                (cx + r, cy - 1),
                (cx + 3, cy + 2),
                (cx + 4, cy + r),
                (cx, cy + 3),
                (cx - 4, cy + r),
                (cx - 3, cy + 2),
                (cx - r, cy - 1),
                (cx - 2, cy - 2),
            ]
            d.polygon(pts, fill=STAR)
            return (cx - r, cy - r, cx + r + 1, cy + r + 1)
    elif kind == "board":  # a face-down card
        s = frac(b, 0.1, 0.0, 0.9, 1.0)
        d.rounded_rectangle(s, radius=4, fill=(40, 60, 140), outline=WHITE, width=2)
        if marked:
            d.polygon([(s[2] - 12, s[1]), (s[2], s[1]), (s[2], s[1] + 12)], fill=FOLD)
            return (s[2] - 12, s[1], s[2] + 1, s[1] + 13)
    elif kind == "dashboard":  # a day tile
        s = frac(b, 0.08, 0.05, 0.92, 0.95)
        d.rounded_rectangle(s, radius=6, fill=(235, 238, 242), outline=(200, 204, 210))
        cx, cy = (s[0] + s[2]) // 2, (s[1] + s[3]) // 2
        d.ellipse((cx - 8, cy - 8, cx + 8, cy + 8), fill=(140, 180, 220))
        if marked:
            d.ellipse((cx - 13, cy - 13, cx + 13, cy + 13), outline=RING, width=3)
            return (cx - 13, cy - 13, cx + 14, cy + 14)
    else:  # a parked car
        s = frac(b, 0.0, 0.35, 1.0, 0.9)
        d.rounded_rectangle(s, radius=6, fill=(190, 40, 40), outline=BLACK)
        d.rectangle(frac(s, 0.25, -0.35, 0.75, 0.05), fill=(190, 40, 40), outline=BLACK)
        for fx in (0.22, 0.78):
            x = round(s[0] + fx * (s[2] - s[0]))
            d.ellipse((x - 6, s[3] - 6, x + 6, s[3] + 6), fill=BLACK)
        if marked:
            top = frac(s, 0.3, -0.6, 0.7, -0.38)
            d.rectangle(top, fill=ROOFBOX)
            return (top[0], top[1], top[2] + 1, top[3] + 1)
    return None


def draw_countable(d: Draw, kind: str, b: Box) -> None:
    """One countable item (a book spine, a captured piece, a trophy, a traffic cone)."""
    ink = COUNT_INK[kind]
    if kind == "room":
        d.rectangle(frac(b, 0.25, 0.0, 0.75, 1.0), fill=ink)
    elif kind == "board":
        d.ellipse(frac(b, 0.1, 0.15, 0.9, 0.95), fill=ink, outline=BLACK)
    elif kind == "dashboard":
        s = frac(b, 0.2, 0.05, 0.8, 0.95)
        d.pieslice((s[0], s[1] - (s[3] - s[1]) // 2, s[2], s[3] - (s[3] - s[1]) // 3), 0, 180, fill=ink)
        d.rectangle(frac(b, 0.4, 0.6, 0.6, 0.95), fill=ink)
    else:
        s = frac(b, 0.15, 0.0, 0.85, 1.0)
        d.polygon([((s[0] + s[2]) // 2, s[1]), (s[2], s[3]), (s[0], s[3])], fill=ink)
        d.rectangle(frac(b, 0.3, 0.45, 0.7, 0.6), fill=WHITE)


def shade(c: RGB, t: float) -> RGB:
    return mix(c, BLACK, t)
