"""Animals a memeye theme declares (``draws.colour.drawable``: dog, cat, horse, bird), drawn with
PIL shapes by their declared look: ``size`` (how much of the box they fill), ``coat`` colour and
``markings`` (spots, a patch over the eye, a white blaze, stripes). The asked colour is on the
animal's collar (dog, cat), halter (horse) or leg ring (bird), in the exact colour, so a test can
find it in the pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import ImageDraw

from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, Box, mix, rgb
from mnemoforge.backends.image.visual_props import frac

Draw = ImageDraw.ImageDraw
SPECIES = ("dog", "cat", "horse", "bird")
COATS: dict[str, RGB] = {
    "dog": (150, 120, 90),
    "cat": (120, 110, 105),
    "horse": (120, 80, 50),
    "bird": (90, 110, 140),
}
SCALE = {"small": 0.6, "medium": 0.8, "large": 1.0}  # of its place; undeclared: fills it


@dataclass(frozen=True)
class AnimalLook:
    """How a declared animal looks (``ColourDraw``'s animal fields)."""

    species: str
    size: str = ""
    coat: str = ""  # '#rrggbb'; '' = the species' default
    markings: str = "none"

    def coat_rgb(self) -> RGB:
        return rgb(self.coat) if self.coat else COATS[self.species]


def _scaled(b: Box, size: str) -> Box:
    """The part of ``b`` an animal of ``size`` fills (standing on its bottom edge)."""
    k = SCALE.get(size, 1.0)
    x0, y0, x1, y1 = b
    w, h = (x1 - x0) * k, (y1 - y0) * k
    return (round(x0 + ((x1 - x0) - w) / 2), round(y1 - h), round(x0 + ((x1 - x0) + w) / 2), y1)


def _markings(d: Draw, body: Box, head: Box, look: AnimalLook) -> None:
    ink = WHITE if sum(look.coat_rgb()) < 380 else mix(look.coat_rgb(), BLACK, 0.55)
    if look.markings == "spots":
        for fx, fy in ((0.3, 0.3), (0.55, 0.5), (0.75, 0.3)):
            d.ellipse(frac(body, fx - 0.07, fy - 0.1, fx + 0.07, fy + 0.1), fill=ink)
    elif look.markings == "patch":
        d.ellipse(frac(head, 0.15, 0.2, 0.55, 0.6), fill=ink)
    elif look.markings == "blaze":
        d.rectangle(frac(head, 0.35, 0.1, 0.5, 0.9), fill=WHITE)
    elif look.markings == "stripes":
        for fx in (0.3, 0.45, 0.6, 0.75):
            d.line([frac(body, fx, 0.1, 0, 0)[:2], frac(body, fx - 0.05, 0.8, 0, 0)[:2]], fill=ink, width=3)


def _band(d: Draw, x: int, y: int, w: int, c: RGB) -> tuple[int, int]:
    d.rectangle((x, y, x + w, y + 6), fill=c, outline=BLACK)
    return x + w // 2, y + 3


def draw_animal(d: Draw, look: AnimalLook, box: Box, c: RGB) -> tuple[int, int]:
    """The animal inside ``box`` with its collar (halter, ring) in ``c``; returns a pixel of it."""
    b = _scaled(box, look.size)
    coat = look.coat_rgb()
    x0, y0, x1, y1 = b
    w, h = x1 - x0, y1 - y0
    if look.species == "horse":  # standing, side view: body, four legs, neck and head up left
        body = frac(b, 0.25, 0.3, 0.95, 0.65)
        for fx in (0.3, 0.42, 0.75, 0.87):
            d.rectangle(frac(b, fx, 0.6, fx + 0.06, 1.0), fill=mix(coat, BLACK, 0.2))
        d.ellipse(body, fill=coat, outline=BLACK)
        d.polygon([frac(b, 0.22, 0.35, 0, 0)[:2], frac(b, 0.12, 0.05, 0, 0)[:2], frac(b, 0.3, 0.05, 0, 0)[:2],
                   frac(b, 0.38, 0.35, 0, 0)[:2]], fill=coat, outline=BLACK)  # fmt: skip
        head = frac(b, 0.0, 0.0, 0.3, 0.2)
        d.ellipse(head, fill=coat, outline=BLACK)
        d.line(
            [frac(b, 0.95, 0.35, 0, 0)[:2], frac(b, 1.0, 0.7, 0, 0)[:2]], fill=mix(coat, BLACK, 0.4), width=4
        )
        _markings(d, body, head, look)
        return _band(d, x0 + round(0.12 * w), y0 + round(0.1 * h), max(8, round(0.14 * w)), c)
    if look.species == "bird":  # perched on a bar: round body, head, beak, tail; a ring on its leg
        d.rectangle(frac(b, 0.0, 0.9, 1.0, 0.95), fill=(110, 90, 60))
        body = frac(b, 0.2, 0.3, 0.8, 0.8)
        d.polygon([frac(b, 0.7, 0.55, 0, 0)[:2], frac(b, 1.0, 0.8, 0, 0)[:2], frac(b, 0.75, 0.75, 0, 0)[:2]],
                  fill=mix(coat, BLACK, 0.3))  # fmt: skip
        d.ellipse(body, fill=coat, outline=BLACK)
        head = frac(b, 0.12, 0.1, 0.45, 0.42)
        d.ellipse(head, fill=coat, outline=BLACK)
        d.polygon([frac(b, 0.13, 0.22, 0, 0)[:2], frac(b, 0.0, 0.28, 0, 0)[:2], frac(b, 0.14, 0.3, 0, 0)[:2]],
                  fill=(230, 170, 40))  # fmt: skip
        d.ellipse(frac(b, 0.22, 0.18, 0.28, 0.24), fill=BLACK)
        _markings(d, body, head, look)
        d.line([frac(b, 0.45, 0.78, 0, 0)[:2], frac(b, 0.45, 0.9, 0, 0)[:2]], fill=BLACK, width=2)
        return _band(d, x0 + round(0.36 * w), y0 + round(0.8 * h), max(8, round(0.18 * w)), c)
    # dog, cat: sitting, seen from the side; the collar carries the colour
    body = frac(b, 0.2, 0.45, 0.9, 1.0)
    d.ellipse(body, fill=coat, outline=BLACK)
    head = frac(b, 0.0, 0.12, 0.45, 0.5)
    d.ellipse(head, fill=coat, outline=BLACK)
    if look.species == "dog":  # a drooping ear and a snout
        d.ellipse(frac(b, 0.02, 0.14, 0.16, 0.42), fill=mix(coat, BLACK, 0.3))
        d.ellipse(frac(b, -0.06, 0.28, 0.14, 0.44), fill=coat, outline=BLACK)
    else:  # pointed ears and whiskers
        for ex in (0.06, 0.3):
            e = frac(b, ex, 0.02, ex + 0.12, 0.2)
            d.polygon([(e[0], e[3]), (e[2], e[3]), ((e[0] + e[2]) // 2, e[1])], fill=coat, outline=BLACK)
        d.line([frac(b, 0.0, 0.36, 0, 0)[:2], frac(b, 0.12, 0.34, 0, 0)[:2]], fill=BLACK)
    _markings(d, body, head, look)
    d.ellipse(frac(b, 0.12, 0.24, 0.18, 0.3), fill=BLACK)  # eye
    d.line([frac(b, 0.85, 0.8, 0, 0)[:2], frac(b, 1.0, 0.55, 0, 0)[:2]], fill=coat, width=4)  # tail
    return _band(d, x0 + round(0.12 * w), y0 + round(0.47 * h), max(8, round(0.28 * w)), c)
