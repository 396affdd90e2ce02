"""The head of a cartoon person: face, features, hair and headwear, plus accessory colours."""

from __future__ import annotations

import zlib

from mnemoforge.backends.image.colors import BLACK, GOLD, RGB, WHITE, contrast_shade, mix, rgb
from mnemoforge.backends.image.figure_pen import _Pen
from mnemoforge.schemas.theme import AppearanceSpec

ACCESSORY_COLORS: tuple[RGB, ...] = (
    (200, 40, 50),
    (30, 90, 170),
    (40, 140, 70),
    (120, 60, 150),
    (220, 130, 20),
    (20, 140, 150),
    (90, 60, 40),
    (210, 80, 140),
)


HEADWEAR = ("hat", "cap", "headband")
HEADWEAR_SLOT = {"hat": 0, "cap": 1, "headband": 3}


def headwear_color(a: AppearanceSpec, kind: str) -> RGB:
    """The colour a hat, cap or headband is drawn in: the theme's ``headwear_color`` if set."""
    return rgb(a.headwear_color) if a.headwear_color else accessory_color(a, HEADWEAR_SLOT[kind])


def accessory_color(a: AppearanceSpec, k: int) -> RGB:
    """Stable per-person accessory colour (does not change with the outfit)."""
    key = f"{a.skin_tone}{a.hair_color}{a.eye_color}{a.face_shape}".encode()
    return ACCESSORY_COLORS[(zlib.crc32(key) + k) % len(ACCESSORY_COLORS)]


def _hair_back(pen: _Pen, a: AppearanceSpec, hair: RGB, fw: float, fh: float, ys: float) -> None:
    s = a.hair_style
    if s == "long":
        pen.rect(-fw / 2 - 0.14, 0.05, fw / 2 + 0.14, ys + 0.15, hair, r=0.3)
    elif s == "bob":
        pen.rect(-fw / 2 - 0.12, -0.04, fw / 2 + 0.12, fh * 0.92, hair, r=0.28)
    elif s == "ponytail":
        pen.ell(fw / 2 - 0.08, 0.12, fw / 2 + 0.3, fh + 0.35, hair)
        pen.circ(fw / 2 + 0.02, 0.25, 0.09, contrast_shade(hair, 0.4))
    elif s == "curly":
        for i in range(11):
            t = i / 10
            x = (-fw / 2 - 0.06) + t * (fw + 0.12)
            yb = 0.05 + 0.6 * abs(t - 0.5) * 2
            pen.circ(x, yb, 0.17, hair)
        pen.ell(-fw / 2 - 0.12, -0.18, fw / 2 + 0.12, fh * 0.75, hair)
    elif s == "bun":
        pen.circ(0, -0.12, 0.22, hair)


def _hair_front(pen: _Pen, a: AppearanceSpec, hair: RGB, skin: RGB, fw: float, fh: float) -> None:
    s = a.hair_style
    if s == "bald":
        pen.ell(-fw * 0.2, 0.06, fw * 0.05, 0.16, mix(skin, WHITE, 0.35))
        return
    if s == "buzz":
        buzz = mix(hair, skin, 0.35)
        pen.chord((-fw / 2 - 0.01, -0.03, fw / 2 + 0.01, 0.62), 180, 360, buzz)
        if a.face_shape == "square":
            pen.rect(-fw / 2, 0, fw / 2, 0.26, buzz, r=0.2)
        return
    if s == "bob":
        pen.chord((-fw / 2 - 0.05, -0.1, fw / 2 + 0.05, 0.7), 180, 360, hair)
        pen.rect(-fw / 2 - 0.05, 0.2, fw / 2 + 0.05, 0.34, hair)
        return
    pen.chord((-fw / 2 - 0.05, -0.12, fw / 2 + 0.05, 0.72), 180, 360, hair)
    if a.face_shape == "square":
        pen.rect(-fw / 2 - 0.02, -0.02, fw / 2 + 0.02, 0.3, hair, r=0.2)
    if s == "short":
        pen.rect(-fw / 2 - 0.02, 0.2, -fw / 2 + 0.08, 0.48, hair)
        pen.rect(fw / 2 - 0.08, 0.2, fw / 2 + 0.02, 0.48, hair)
        pen.poly([(-fw * 0.1, 0.2), (fw * 0.45, 0.2), (fw * 0.38, 0.34)], hair)
    elif s == "curly":
        for i in range(7):
            pen.circ(-fw / 2 + 0.1 + i * (fw - 0.2) / 6, 0.24, 0.09, hair)
    elif s == "long":
        pen.poly([(-fw / 2 - 0.05, 0.3), (-fw * 0.05, 0.18), (-fw / 2 + 0.05, 0.42)], hair)


def _face(pen: _Pen, a: AppearanceSpec, skin: RGB, fw: float, fh: float) -> None:
    s = a.face_shape
    pen.circ(-fw / 2, fh * 0.52, 0.1, mix(skin, BLACK, 0.08))
    pen.circ(fw / 2, fh * 0.52, 0.1, mix(skin, BLACK, 0.08))
    if s == "square":
        pen.rect(-fw / 2, 0, fw / 2, fh, skin, r=0.2)
    elif s == "heart":
        pen.ell(-fw / 2, 0, fw / 2, fh * 0.8, skin)
        pen.poly(
            [
                (-fw / 2 + 0.01, 0.42),
                (fw / 2 - 0.01, 0.42),
                (fw * 0.18, fh * 0.9),
                (0, fh),
                (-fw * 0.18, fh * 0.9),
            ],
            skin,
        )
    else:
        pen.ell(-fw / 2, 0, fw / 2, fh, skin)


def _features(pen: _Pen, a: AppearanceSpec, skin: RGB, hair: RGB, fw: float, fh: float) -> None:
    eye, brow = rgb(a.eye_color), mix(hair, BLACK, 0.3) if a.hair_style != "bald" else mix(skin, BLACK, 0.5)
    ex, ey = 0.25 * max(fw, 0.72), fh * 0.5
    for sx in (-ex, ex):
        if pen.u >= 14:
            pen.ell(sx - 0.1, ey - 0.06, sx + 0.1, ey + 0.06, WHITE)
            pen.circ(sx, ey, 0.058, eye)
            pen.circ(sx, ey, 0.024, BLACK)
        else:
            pen.circ(sx, ey, 0.06, mix(eye, BLACK, 0.3))
        pen.line([(sx - 0.1, ey - 0.12), (sx + 0.1, ey - 0.13)], brow, 0.035)
    nose = mix(skin, BLACK, 0.25)
    pen.line([(0.0, ey + 0.04), (0.04, fh * 0.66), (-0.02, fh * 0.68)], nose, 0.025)
    fhair = a.facial_hair
    if fhair in ("beard", "stubble"):
        col = hair if fhair == "beard" else mix(skin, hair, 0.4)
        ext = 0.03 if fhair == "beard" else -0.03
        pen.chord((-fw / 2 - ext, fh * 0.3, fw / 2 + ext, fh + ext * 3), 0, 180, col)
        if fhair == "beard":
            pen.ell(-0.17, fh * 0.74, 0.17, fh * 0.88, mix(skin, hair, 0.25))
    if fhair in ("beard", "moustache"):
        pen.poly(
            [(-0.16, fh * 0.76), (0, fh * 0.7), (0.16, fh * 0.76), (0.1, fh * 0.79), (-0.1, fh * 0.79)], hair
        )
    lip = mix(skin, (150, 40, 50), 0.55) if fhair != "beard" else mix(hair, WHITE, 0.35)
    my = fh * 0.82 if fhair in ("beard", "moustache") else fh * 0.79
    pen.line([(-0.11, my - 0.015), (0, my + 0.025), (0.11, my - 0.015)], lip, 0.035)


def _headwear(pen: _Pen, a: AppearanceSpec, fw: float, fh: float, ys: float) -> None:
    acc = set(a.accessories)
    if "headband" in acc:
        pen.chord((-fw / 2 - 0.02, 0.0, fw / 2 + 0.02, 0.7), 195, 345, headwear_color(a, "headband"))
        pen.chord((-fw / 2 + 0.02, 0.1, fw / 2 - 0.02, 0.74), 190, 350, rgb(a.hair_color))
    if "hat" in acc:
        c = headwear_color(a, "hat")
        pen.rect(-fw / 2 + 0.02, -0.42, fw / 2 - 0.02, 0.2, c, r=0.12)
        pen.rect(-fw / 2 + 0.02, 0.02, fw / 2 - 0.02, 0.14, mix(c, BLACK, 0.5))
        pen.ell(-fw / 2 - 0.3, 0.1, fw / 2 + 0.3, 0.3, c)
    if "cap" in acc:
        c = headwear_color(a, "cap")
        pen.chord((-fw / 2 - 0.04, -0.18, fw / 2 + 0.04, 0.62), 180, 360, c)
        pen.ell(-fw * 0.1, 0.16, fw / 2 + 0.32, 0.3, mix(c, BLACK, 0.2))
        pen.circ(0, -0.17, 0.05, mix(c, WHITE, 0.4))
    ey, ex = fh * 0.5, 0.25 * max(fw, 0.72)
    if "glasses" in acc:
        for sx in (-ex, ex):
            pen.ell(sx - 0.14, ey - 0.11, sx + 0.14, ey + 0.11, None, outline=BLACK, w=0.035)
        pen.line([(-ex + 0.14, ey), (ex - 0.14, ey)], BLACK, 0.03)
    if "sunglasses" in acc:
        for sx in (-ex, ex):
            pen.ell(sx - 0.15, ey - 0.1, sx + 0.15, ey + 0.1, (25, 25, 35))
        pen.line([(-ex - 0.15, ey - 0.03), (ex + 0.15, ey - 0.03)], (25, 25, 35), 0.04)
    if "earrings" in acc:
        pen.circ(-fw / 2 - 0.01, fh * 0.66, 0.05, GOLD)
        pen.circ(fw / 2 + 0.01, fh * 0.66, 0.05, GOLD)
