"""Flat drawn animals (dog, cat, horse, bird): an icm cast animal's anchor picture and its figure
beside a companion in a scene. Geometry comes from the species, size, coat, markings and collar
only, so one animal is drawn alike in every picture."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from mnemoforge.backends.image.colors import BLACK, RGB, Box, mix, rgb
from mnemoforge.schemas.animals import AnimalSpec

SIZE = {"small": 0.55, "medium": 0.8, "large": 1.1}
SPECIES_SCALE = {"dog": 1.0, "cat": 0.65, "horse": 2.4, "bird": 0.4}
ANCHOR_BG: RGB = (226, 232, 222)


@dataclass(frozen=True)
class AnimalPlacement:
    """One animal in a scene, drawn beside the person at ``beside`` (index into the people)."""

    species: str
    size: str
    coat: str
    markings: str = "none"
    markings_color: str = "#f4f1ea"
    collar: str | None = None
    beside: int | None = None


def placement(spec: AnimalSpec, beside: int | None = None) -> AnimalPlacement:
    """How a theme's animal is drawn (beside the person at index ``beside``)."""
    return AnimalPlacement(
        spec.species, spec.size, spec.coat, spec.markings, spec.markings_color, spec.collar, beside
    )


def draw_animal(d: ImageDraw.ImageDraw, a: AnimalPlacement, cx: float, base: float, u: float) -> Box:
    """Draw ``a`` standing on ``base`` centred on ``cx``; ``u`` is the scene's head unit (a
    person's head height). Returns the figure's box (unclipped)."""
    s = u * SIZE.get(a.size, 0.8) * SPECIES_SCALE.get(a.species, 1.0) * 2.2  # body length
    coat, mark = rgb(a.coat), rgb(a.markings_color)
    dark = mix(coat, BLACK, 0.45)
    if a.species == "bird":
        return _bird(d, a, cx, base, s, coat, mark, dark)
    leg_h = s * (0.55 if a.species == "horse" else 0.35)
    body_h = s * (0.38 if a.species != "cat" else 0.32)
    bx0, bx1 = cx - s / 2, cx + s / 2
    by1 = base - leg_h
    by0 = by1 - body_h
    legw = max(2.0, s * 0.08)
    for lx in (bx0 + s * 0.06, bx0 + s * 0.2, bx1 - s * 0.26, bx1 - s * 0.12):
        d.rectangle([lx, by1 - 2, lx + legw, base], fill=dark if a.species == "horse" else coat)
        if a.markings == "socks":
            d.rectangle([lx, base - leg_h * 0.35, lx + legw, base], fill=mark)
    d.rounded_rectangle([bx0, by0, bx1, by1], radius=max(1, round(body_h / 2)), fill=coat)
    if a.markings == "patch":
        d.ellipse([cx - s * 0.15, by0 + body_h * 0.1, cx + s * 0.12, by1 - body_h * 0.2], fill=mark)
    elif a.markings == "spots":
        for k in range(4):
            x = bx0 + s * (0.2 + 0.17 * k)
            d.ellipse([x, by0 + body_h * 0.25, x + s * 0.08, by0 + body_h * 0.25 + s * 0.08], fill=mark)
    # tail
    if a.species == "horse":
        d.polygon(
            [(bx0, by0 + 2), (bx0 - s * 0.12, by1 + leg_h * 0.5), (bx0 + s * 0.04, by0 + body_h * 0.4)],
            fill=dark,
        )
    else:
        rise = s * (0.35 if a.species == "cat" else 0.22)
        d.line(
            [(bx0 + 2, by0 + body_h * 0.3), (bx0 - s * 0.12, by0 - rise)],
            fill=coat,
            width=max(2, round(s * 0.06)),
        )
    # neck and head at the front (right)
    hs = s * (0.32 if a.species != "horse" else 0.24)
    if a.species == "horse":
        neck = [
            (bx1 - s * 0.18, by0 + body_h * 0.4),
            (bx1 - s * 0.02, by0 - s * 0.35),
            (bx1 + s * 0.08, by0 - s * 0.3),
            (bx1, by0 + body_h * 0.5),
        ]
        d.polygon(neck, fill=coat)
        hx0, hy0 = bx1 - s * 0.04, by0 - s * 0.45
        d.rounded_rectangle(
            [hx0, hy0, hx0 + hs * 1.4, hy0 + hs * 0.6], radius=max(1, round(hs * 0.2)), fill=coat
        )
        d.polygon(
            [(hx0 + 2, hy0 + 2), (hx0 - s * 0.05, by0 - s * 0.05), (hx0 + s * 0.02, by0)], fill=dark
        )  # mane
        head = (hx0, hy0, hx0 + hs * 1.4, hy0 + hs * 0.6)
    else:
        hx0, hy0 = bx1 - hs * 0.3, by0 - hs * 0.7
        d.ellipse([hx0, hy0, hx0 + hs, hy0 + hs], fill=coat)
        if a.species == "dog":  # snout and a floppy ear
            d.rounded_rectangle(
                [hx0 + hs * 0.7, hy0 + hs * 0.45, hx0 + hs * 1.25, hy0 + hs * 0.85],
                radius=max(1, round(hs * 0.15)),
                fill=coat,
            )
            d.ellipse([hx0 + hs * 1.12, hy0 + hs * 0.45, hx0 + hs * 1.3, hy0 + hs * 0.6], fill=BLACK)
            d.polygon(
                [
                    (hx0 + hs * 0.15, hy0 + hs * 0.1),
                    (hx0 + hs * 0.45, hy0 + hs * 0.1),
                    (hx0 + hs * 0.25, hy0 + hs * 0.75),
                ],
                fill=dark,
            )
        else:  # cat: pointed ears
            for ex in (0.15, 0.6):
                d.polygon(
                    [
                        (hx0 + hs * ex, hy0 + hs * 0.2),
                        (hx0 + hs * (ex + 0.12), hy0 - hs * 0.25),
                        (hx0 + hs * (ex + 0.25), hy0 + hs * 0.2),
                    ],
                    fill=coat,
                )
        head = (hx0, hy0, hx0 + hs * 1.3, hy0 + hs)
    if a.markings == "blaze":
        d.rectangle(
            [
                head[0] + (head[2] - head[0]) * 0.45,
                head[1] + 2,
                head[0] + (head[2] - head[0]) * 0.6,
                head[3] - 2,
            ],
            fill=mark,
        )
    ey = head[1] + (head[3] - head[1]) * 0.35
    ex = head[0] + (head[2] - head[0]) * 0.6
    r = max(1.0, hs * 0.07)
    d.ellipse([ex - r, ey - r, ex + r, ey + r], fill=BLACK)
    if a.collar:
        cxn = bx1 - s * 0.08 if a.species != "horse" else head[0] + 2
        cyn = by0 - hs * 0.05 if a.species != "horse" else head[1] + hs * 0.1
        d.rectangle([cxn - s * 0.05, cyn - s * 0.06, cxn + s * 0.07, cyn + s * 0.04], fill=rgb(a.collar))
    return (
        round(bx0 - s * 0.15),
        round(min(head[1], by0 - s * 0.3)),
        round(max(head[2], bx1) + 1),
        round(base) + 1,
    )


def _bird(
    d: ImageDraw.ImageDraw,
    a: AnimalPlacement,
    cx: float,
    base: float,
    s: float,
    coat: RGB,
    mark: RGB,
    dark: RGB,
) -> Box:
    body = (cx - s * 0.5, base - s * 1.1, cx + s * 0.5, base - s * 0.35)
    d.line([(cx - s * 0.1, base - s * 0.4), (cx - s * 0.1, base)], fill=dark, width=2)
    d.line([(cx + s * 0.1, base - s * 0.4), (cx + s * 0.1, base)], fill=dark, width=2)
    d.polygon(
        [
            (body[0] + 2, body[1] + s * 0.3),
            (body[0] - s * 0.4, body[1] + s * 0.45),
            (body[0] + 2, body[3] - 2),
        ],
        fill=dark,
    )
    d.ellipse(body, fill=coat)
    d.ellipse(
        [cx - s * 0.2, body[1] + s * 0.2, cx + s * 0.3, body[3] - s * 0.1],
        fill=mark if a.markings != "none" else dark,
    )
    hx, hy, hr = cx + s * 0.45, body[1] - s * 0.05, s * 0.28
    d.ellipse([hx - hr, hy - hr, hx + hr, hy + hr], fill=coat)
    d.polygon(
        [(hx + hr * 0.8, hy - hr * 0.2), (hx + hr * 1.8, hy + hr * 0.1), (hx + hr * 0.8, hy + hr * 0.4)],
        fill=(230, 170, 40),
    )
    d.ellipse([hx + hr * 0.2, hy - hr * 0.3, hx + hr * 0.5, hy], fill=BLACK)
    return (round(body[0] - s * 0.4), round(hy - hr), round(hx + hr * 1.8) + 1, round(base) + 1)


def animal_anchor(a: AnimalPlacement, size: int = 256) -> Image.Image:
    """The animal's anchor picture: the whole animal, side on, on a plain background."""
    img = Image.new("RGB", (size, size), ANCHOR_BG)
    d = ImageDraw.Draw(img)
    scale = 2.2 * SIZE.get(a.size, 0.8) * SPECIES_SCALE.get(a.species, 1.0)
    u = 0.62 * size / max(scale, 0.5) / 1.4  # body length about 60 % of the picture
    d.rectangle([0, round(size * 0.82), size, size], fill=mix(ANCHOR_BG, BLACK, 0.1))
    draw_animal(d, a, size * 0.47, size * 0.84, u)
    return img
