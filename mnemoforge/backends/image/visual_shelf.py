"""The ``shelf`` scene kind: a shop shelf photographed on visits.

X1 gist: the product line stocked in the middle (coffee bags, tea boxes, cereal boxes, pasta
packs); X2: a shop fixture standing left / right; X3: four look-alike jars on the top shelf, one
with a red seal; X4: coupons pinned along the bottom (a count), a little shopping bag on a hook
(the colour) and the code on the shelf tag (small text, drawn by the scene composer).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, Box
from mnemoforge.backends.image.visual_props import GREY, WOOD, Draw, frac

SEAL: RGB = (200, 24, 36)
COUNT_INK: RGB = (46, 150, 88)
GISTS = ("coffee", "tea", "cereal", "pasta")


def _basket(d: Draw, b: Box) -> None:
    s = frac(b, 0.1, 0.55, 0.9, 1.0)
    d.rectangle(s, fill=(200, 60, 50), outline=BLACK)
    for k in range(1, 5):
        x = s[0] + k * (s[2] - s[0]) // 5
        d.line([(x, s[1]), (x, s[3])], fill=(150, 40, 35), width=2)
    d.arc(frac(b, 0.25, 0.3, 0.75, 0.8), 180, 360, fill=BLACK, width=4)


def _scanner(d: Draw, b: Box) -> None:
    s = frac(b, 0.3, 0.15, 0.7, 1.0)
    d.rectangle((s[0] + 10, s[1] + 40, s[2] - 10, s[3]), fill=GREY, outline=BLACK)
    d.rectangle((s[0], s[1], s[2], s[1] + 40), fill=(40, 44, 52), outline=BLACK)
    d.rectangle((s[0] + 6, s[1] + 6, s[2] - 6, s[1] + 24), fill=(120, 220, 150))


def _sample_stand(d: Draw, b: Box) -> None:
    s = frac(b, 0.1, 0.35, 0.9, 1.0)
    d.rectangle((s[0], s[1], s[2], s[1] + 10), fill=WOOD, outline=BLACK)
    d.rectangle(((s[0] + s[2]) // 2 - 4, s[1] + 10, (s[0] + s[2]) // 2 + 4, s[3]), fill=WOOD)
    for k in range(4):
        x = s[0] + 6 + k * (s[2] - s[0] - 12) // 4
        d.ellipse((x, s[1] - 12, x + 16, s[1]), fill=WHITE, outline=BLACK)


def _flower_bucket(d: Draw, b: Box) -> None:
    s = frac(b, 0.25, 0.6, 0.75, 1.0)
    d.polygon(
        [(s[0], s[1]), (s[2], s[1]), (s[2] - 8, s[3]), (s[0] + 8, s[3])], fill=(160, 165, 175), outline=BLACK
    )
    cx = (s[0] + s[2]) // 2
    for dx, dy, c in ((-24, -70, (230, 80, 120)), (0, -90, (250, 200, 60)), (24, -70, (150, 90, 200))):
        d.line([(cx, s[1]), (cx + dx, s[1] + dy)], fill=(40, 130, 60), width=3)
        d.ellipse((cx + dx - 10, s[1] + dy - 10, cx + dx + 10, s[1] + dy + 10), fill=c)


def _sale_sign(d: Draw, b: Box) -> None:
    s = frac(b, 0.15, 0.2, 0.85, 0.6)
    d.rectangle(s, fill=(250, 220, 60), outline=BLACK, width=2)
    d.polygon(
        [((s[0] + s[2]) // 2, s[1] + 8), (s[2] - 12, s[3] - 8), (s[0] + 12, s[3] - 8)], fill=(220, 40, 40)
    )
    d.line([((s[0] + s[2]) // 2, s[3]), ((s[0] + s[2]) // 2, b[3])], fill=BLACK, width=4)


ITEMS: dict[str, Callable[[Draw, Box], None]] = {
    "shopping basket": _basket,
    "price scanner": _scanner,
    "sample stand": _sample_stand,
    "flower bucket": _flower_bucket,
    "sale sign": _sale_sign,
}


def background(d: Draw, w: int, h: int, tint: RGB) -> None:
    """The shop wall in a neutral tint, shelf planks under the jars and under the products."""
    d.rectangle((0, 0, w, h), fill=tint)
    for y in (0.31, 0.855):
        d.rectangle((round(0.0 * w), round(y * h), w, round((y + 0.02) * h)), fill=WOOD)


def draw_gist(d: Draw, b: Box, gist: str, rng: random.Random) -> None:
    """Five packs of the product line standing on the middle shelf."""
    w = (b[2] - b[0]) / 5
    for k in range(5):
        x0, x1 = round(b[0] + k * w + 3), round(b[0] + (k + 1) * w - 3)
        if gist == "coffee":  # brown bags with a bean
            top = b[1] + round(0.3 * (b[3] - b[1]))
            d.polygon(
                [(x0, b[3]), (x1, b[3]), (x1 - 3, top), (x0 + 3, top)], fill=(110, 70, 40), outline=BLACK
            )
            cx, cy = (x0 + x1) // 2, (top + b[3]) // 2
            d.ellipse((cx - 6, cy - 9, cx + 6, cy + 9), fill=(60, 35, 20))
        elif gist == "tea":  # flat green boxes with a leaf
            top = b[1] + round(0.55 * (b[3] - b[1]))
            d.rectangle((x0, top, x1, b[3]), fill=(70, 140, 80), outline=BLACK)
            cx, cy = (x0 + x1) // 2, (top + b[3]) // 2
            d.ellipse((cx - 9, cy - 5, cx + 9, cy + 5), fill=(190, 230, 160))
        elif gist == "cereal":  # tall yellow boxes with a bowl
            top = b[1] + round(0.05 * (b[3] - b[1]))
            d.rectangle((x0, top, x1, b[3]), fill=(240, 190, 50), outline=BLACK)
            cx, cy = (x0 + x1) // 2, (top + b[3]) // 2
            d.pieslice((cx - 10, cy - 10, cx + 10, cy + 10), 0, 180, fill=WHITE)
        else:  # pasta: clear packs with pale noodle strokes
            top = b[1] + round(0.35 * (b[3] - b[1]))
            d.rectangle((x0, top, x1, b[3]), fill=(235, 235, 225), outline=BLACK)
            for j in range(4):
                y = top + 8 + j * (b[3] - top - 16) // 4 + rng.randrange(3)
                d.line([(x0 + 4, y), (x1 - 4, y + 4)], fill=(225, 190, 90), width=3)


def draw_instance(d: Draw, b: Box, marked: bool) -> Box | None:
    """A glass jar with a grey lid; the marked one has a red seal on its body."""
    body = frac(b, 0.15, 0.25, 0.85, 1.0)
    d.rounded_rectangle(body, radius=5, fill=(215, 232, 238), outline=BLACK)
    d.rectangle(frac(b, 0.2, 0.08, 0.8, 0.25), fill=GREY, outline=BLACK)
    if marked:
        cx, cy = (body[0] + body[2]) // 2, (body[1] + body[3]) // 2
        d.ellipse((cx - 6, cy - 6, cx + 6, cy + 6), fill=SEAL)
        return (cx - 6, cy - 6, cx + 7, cy + 7)
    return None


def draw_countable(d: Draw, b: Box) -> None:
    """A coupon pinned to the shelf edge."""
    d.rectangle(frac(b, 0.1, 0.1, 0.9, 0.9), fill=COUNT_INK)
    d.rectangle(frac(b, 0.3, 0.35, 0.7, 0.65), fill=WHITE)


def draw_colour_object(d: Draw, b: Box, c: RGB) -> tuple[int, int]:
    """A little shopping bag on a hook; returns a pixel inside it."""
    hook = ((b[0] + b[2]) // 2, b[1])
    d.arc((hook[0] - 8, b[1], hook[0] + 8, b[1] + 18), 180, 360, fill=BLACK, width=2)
    bag = (b[0], b[1] + 12, b[2], b[3])
    d.rectangle(bag, fill=c, outline=BLACK)
    return ((bag[0] + bag[2]) // 2, (bag[1] + bag[3]) // 2 + 4)
