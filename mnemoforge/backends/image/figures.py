"""Cartoon people drawn from an ``AppearanceSpec`` with Pillow primitives.

All geometry is expressed in *head units* (``u`` pixels = the height of an oval face) relative
to the figure's centre line ``cx`` and the top of the face ``top``, so one person can be drawn
at any size. Nothing here is random: the same spec always gives the same figure.
"""

from __future__ import annotations

import functools
import itertools
import unicodedata
import zlib
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from mnemoforge.schemas.theme import AppearanceSpec, Outfit

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

BLACK: RGB = (20, 20, 24)
WHITE: RGB = (250, 250, 248)
GOLD: RGB = (230, 180, 40)
FACE_W = {"oval": 0.78, "round": 0.96, "square": 0.88, "heart": 0.9, "long": 0.64}
FACE_H = {"oval": 1.0, "round": 0.92, "square": 0.98, "heart": 1.0, "long": 1.12}
SHOULDER_W = {"slim": 1.4, "medium": 1.75, "broad": 2.2}
ARM_W = {"slim": 0.24, "medium": 0.3, "broad": 0.4}
SLEEVE = {"tshirt": 0.35, "dress": 0.18}
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


def rgb(color: str) -> RGB:
    """``'#a1b2c3'`` -> ``(161, 178, 195)``."""
    h = color.lstrip("#")
    return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """Linear blend from ``a`` (t=0) to ``b`` (t=1)."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def luma(c: RGB) -> float:
    """Relative brightness in 0..1."""
    return (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) / 255


def contrast_shade(c: RGB, t: float = 0.45) -> RGB:
    """A visibly different shade of ``c``: lighter for dark colours, darker for light ones."""
    return mix(c, WHITE, t + 0.1) if luma(c) < 0.45 else mix(c, BLACK, t)


@functools.lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in scalable font at ``size`` px (cached)."""
    return ImageFont.load_default(size=max(6, int(size)))


@functools.lru_cache(maxsize=512)
def _glyph_ok(ch: str) -> bool:
    f = font(20)
    return ch.isspace() or bytes(f.getmask(ch)) != bytes(f.getmask("\uffff"))


def renderable(text: str) -> str:
    """``text`` with characters the built-in font lacks folded to ASCII (``é`` -> ``e``) or ``?``."""
    out = []
    for ch in text:
        if not _glyph_ok(ch):
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
            ch = base if base and all(_glyph_ok(c) for c in base) else "?"
        out.append(ch)
    return "".join(out)


def text_tag(
    draw: ImageDraw.ImageDraw,
    cx: float,
    cy: float,
    text: str,
    size: int,
    bg: RGB = WHITE,
    fg: RGB = BLACK,
    border: RGB | None = None,
) -> Box:
    """Draw ``text`` centred at (cx, cy) on a light tag; return the tag box."""
    f, text = font(size), renderable(text)
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=f)
    w, h = x1 - x0, y1 - y0
    pad = max(1, size // 5)
    left, top = round(cx - w / 2) - pad, round(cy - h / 2) - pad
    box = (left, top, left + w + 2 * pad, top + h + 2 * pad)
    draw.rectangle(box, fill=bg, outline=border)
    draw.text((left + pad - x0, top + pad - y0), text, fill=fg, font=f)
    return (box[0], box[1], box[2] + 1, box[3] + 1)


def accessory_color(a: AppearanceSpec, k: int) -> RGB:
    """Stable per-person accessory colour (does not change with the outfit)."""
    key = f"{a.skin_tone}{a.hair_color}{a.eye_color}{a.face_shape}".encode()
    return ACCESSORY_COLORS[(zlib.crc32(key) + k) % len(ACCESSORY_COLORS)]


def figure_units(a: AppearanceSpec) -> float:
    """Full height of the figure from face top to shoe bottom, in head units."""
    return FACE_H[a.face_shape] + 5.6 + 6.8 * (a.height - 1.0)


@dataclass(frozen=True)
class FigureGeom:
    """Where a drawn figure's parts landed, in image pixels (unclipped)."""

    box: Box
    face: Box
    torso: Box
    hand: tuple[int, int]


class _Pen:
    """Draws shapes given in head units relative to (cx, top)."""

    def __init__(self, draw: ImageDraw.ImageDraw, cx: float, top: float, u: float) -> None:
        self.d, self.cx, self.top, self.u = draw, cx, top, u

    def pt(self, x: float, y: float) -> tuple[float, float]:
        return (self.cx + x * self.u, self.top + y * self.u)

    def bx(self, x0: float, y0: float, x1: float, y1: float) -> list[float]:
        u = self.u
        return [self.cx + x0 * u, self.top + y0 * u, self.cx + x1 * u, self.top + y1 * u]

    def ell(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        fill: RGB | None,
        outline: RGB | None = None,
        w: float = 0.0,
    ) -> None:
        self.d.ellipse(self.bx(x0, y0, x1, y1), fill=fill, outline=outline, width=self.px(w))

    def circ(self, x: float, y: float, r: float, fill: RGB) -> None:
        self.ell(x - r, y - r, x + r, y + r, fill)

    def rect(self, x0: float, y0: float, x1: float, y1: float, fill: RGB, r: float = 0.0) -> None:
        if r > 0 and self.u * r >= 1:
            self.d.rounded_rectangle(self.bx(x0, y0, x1, y1), radius=self.u * r, fill=fill)
        else:
            self.d.rectangle(self.bx(x0, y0, x1, y1), fill=fill)

    def poly(self, pts: list[tuple[float, float]], fill: RGB) -> None:
        self.d.polygon([self.pt(x, y) for x, y in pts], fill=fill)

    def line(self, pts: list[tuple[float, float]], fill: RGB, w: float) -> None:
        self.d.line([self.pt(x, y) for x, y in pts], fill=fill, width=self.px(w), joint="curve")

    def chord(self, b: tuple[float, float, float, float], start: float, end: float, fill: RGB) -> None:
        self.d.chord(self.bx(*b), start, end, fill=fill)

    def px(self, w: float) -> int:
        return max(1, round(w * self.u)) if w > 0 else 0


def _paint_pattern(
    img: Image.Image, pen: _Pen, pts: list[tuple[float, float]], base: RGB, pattern: str
) -> None:
    """Fill the polygon ``pts`` with ``base`` and overlay stripes/dots/check in a contrasting shade."""
    pen.poly(pts, base)
    if pattern == "plain":
        return
    xy = [pen.pt(x, y) for x, y in pts]
    x0, y0 = int(min(p[0] for p in xy)), int(min(p[1] for p in xy))
    x1, y1 = int(max(p[0] for p in xy)) + 2, int(max(p[1] for p in xy)) + 2
    w, h = x1 - x0, y1 - y0
    if w < 3 or h < 3:
        return
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).polygon([(x - x0, y - y0) for x, y in xy], fill=255)
    tile = Image.new("RGB", (w, h), base)
    td = ImageDraw.Draw(tile)
    shade = contrast_shade(base, 0.5)
    u = pen.u
    if pattern == "stripes":
        step = max(3, round(0.24 * u))
        for y in range(0, h, step):
            td.rectangle([0, y, w, y + max(1, step // 2) - 1], fill=shade)
    elif pattern == "dots":
        step, r = max(4, round(0.3 * u)), max(1, round(0.06 * u))
        for j, y in enumerate(range(step // 2, h, step)):
            for x in range(step // 2 + (j % 2) * step // 2, w, step):
                td.ellipse([x - r, y - r, x + r, y + r], fill=shade)
    elif pattern == "check":
        step, lw = max(4, round(0.3 * u)), max(1, round(0.07 * u))
        for v in range(0, max(w, h), step):
            td.rectangle([v, 0, v + lw - 1, h], fill=shade)
            td.rectangle([0, v, w, v + lw - 1], fill=shade)
    img.paste(tile, (x0, y0), mask)


def _arm(pen: _Pen, pts: list[tuple[float, float]], skin: RGB, top: RGB, sleeve: float, aw: float) -> None:
    """An arm along ``pts`` (shoulder ... hand): skin, sleeve over the first ``sleeve`` fraction."""
    pen.line(pts, skin, aw * 0.85)
    pen.circ(*pts[-1], aw * 0.55, skin)
    if sleeve >= 1.0:
        pen.line(pts, top, aw)
        pen.circ(*pts[-1], aw * 0.5, skin)
        return
    segs = list(itertools.pairwise(pts))
    left = sleeve * sum(((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5 for (ax, ay), (bx, by) in segs)
    out = [pts[0]]
    for (ax, ay), (bx, by) in segs:
        n = ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5
        t = min(1.0, left / n) if n else 1.0
        out.append((ax + (bx - ax) * t, ay + (by - ay) * t))
        left -= n
        if left <= 0:
            break
    pen.line(out, top, aw * 1.2)


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


def _top_details(pen: _Pen, o: Outfit, top: RGB, skin: RGB, sw: float, ys: float, yh: float) -> None:
    st, dark, light = o.top_style, mix(top, BLACK, 0.35), contrast_shade(top, 0.5)
    if st in ("tshirt", "dress", "sweater"):
        pen.chord((-0.2, ys - 0.2, 0.2, ys + (0.22 if st != "sweater" else 0.14)), 0, 180, skin)
        if st == "sweater":
            pen.line([(-0.21, ys - 0.02), (0, ys + 0.15), (0.21, ys - 0.02)], dark, 0.06)
            pen.rect(-sw * 0.41, yh - 0.2, sw * 0.41, yh, dark)
    elif st == "shirt":
        pen.poly([(-0.22, ys - 0.06), (0, ys + 0.3), (0.22, ys - 0.06)], skin)
        pen.poly([(-0.26, ys - 0.08), (-0.02, ys + 0.28), (-0.3, ys + 0.2)], light)
        pen.poly([(0.26, ys - 0.08), (0.02, ys + 0.28), (0.3, ys + 0.2)], light)
        for i in range(4):
            pen.circ(0, ys + 0.5 + i * 0.42, 0.035, dark)
    elif st in ("jacket", "hoodie"):
        inner = WHITE if luma(top) < 0.7 else (60, 60, 70)
        if st == "jacket":
            pen.poly([(-0.2, ys - 0.02), (0.2, ys - 0.02), (0.16, yh), (-0.16, yh)], inner)
            pen.line([(0.17, ys), (0.15, yh)], dark, 0.04)
            pen.poly([(-0.28, ys - 0.08), (-0.16, ys + 0.3), (-0.36, ys + 0.22)], dark)
            pen.poly([(0.28, ys - 0.08), (0.16, ys + 0.3), (0.36, ys + 0.22)], dark)
        else:
            pen.chord((-0.22, ys - 0.2, 0.22, ys + 0.2), 0, 180, skin)
            pen.rect(-sw * 0.26, yh - 0.8, sw * 0.26, yh - 0.2, dark, r=0.08)
            pen.line([(-0.1, ys + 0.05), (-0.12, ys + 0.6)], WHITE, 0.035)
            pen.line([(0.1, ys + 0.05), (0.12, ys + 0.6)], WHITE, 0.035)
    elif st == "blazer":
        pen.poly([(-0.26, ys - 0.04), (0.26, ys - 0.04), (0, ys + 1.1)], WHITE)
        pen.poly([(-0.12, ys - 0.03), (0.12, ys - 0.03), (0, ys + 0.2)], skin)
        pen.poly([(-0.3, ys - 0.06), (0, ys + 1.12), (-0.42, ys + 0.5)], dark)
        pen.poly([(0.3, ys - 0.06), (0, ys + 1.12), (0.42, ys + 0.5)], dark)
        pen.circ(0, ys + 1.4, 0.045, BLACK)
        pen.circ(0, ys + 1.75, 0.045, BLACK)


def _headwear(pen: _Pen, a: AppearanceSpec, fw: float, fh: float, ys: float) -> None:
    acc = set(a.accessories)
    if "headband" in acc:
        pen.chord((-fw / 2 - 0.02, 0.0, fw / 2 + 0.02, 0.7), 195, 345, accessory_color(a, 3))
        pen.chord((-fw / 2 + 0.02, 0.1, fw / 2 - 0.02, 0.74), 190, 350, rgb(a.hair_color))
    if "hat" in acc:
        c = accessory_color(a, 0)
        pen.rect(-fw / 2 + 0.02, -0.42, fw / 2 - 0.02, 0.2, c, r=0.12)
        pen.rect(-fw / 2 + 0.02, 0.02, fw / 2 - 0.02, 0.14, mix(c, BLACK, 0.5))
        pen.ell(-fw / 2 - 0.3, 0.1, fw / 2 + 0.3, 0.3, c)
    if "cap" in acc:
        c = accessory_color(a, 1)
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


def draw_person(
    img: Image.Image,
    a: AppearanceSpec,
    o: Outfit,
    cx: float,
    top: float,
    u: float,
    *,
    holding: bool = False,
    label: str | None = None,
) -> FigureGeom:
    """Draw one person: face top at ``top``, centre line ``cx``, head unit ``u`` px."""
    pen = _Pen(ImageDraw.Draw(img), cx, top, u)
    skin, hair, topc, bottom = rgb(a.skin_tone), rgb(a.hair_color), rgb(o.top_color), rgb(o.bottom_color)
    fw, fh = FACE_W[a.face_shape], FACE_H[a.face_shape]
    sw, aw = SHOULDER_W[a.build], ARM_W[a.build]
    extra = 6.8 * (a.height - 1.0)
    ys = fh + 0.18
    yh = ys + 2.3 + 0.3 * extra
    yl = yh + 2.9 + 0.7 * extra
    ww = sw * 0.82
    acc = set(a.accessories)
    _hair_back(pen, a, hair, fw, fh, ys)
    if o.top_style == "hoodie":
        pen.ell(-0.55, ys - 0.35, 0.55, ys + 0.35, mix(topc, BLACK, 0.25))
    # legs and shoes
    leg_w = ww * 0.4
    dress = o.top_style == "dress"
    legc = skin if dress else bottom
    lw = leg_w * (0.6 if dress else 1.0)
    for sx in (-1, 1):
        xc = sx * (ww * 0.25)
        pen.rect(xc - lw / 2, yh - 0.1, xc + lw / 2, yl, legc)
        sx0 = xc + sx * 0.06
        pen.ell(sx0 - leg_w * 0.55, yl - 0.08, sx0 + leg_w * 0.55, yl + 0.2, (40, 34, 30))
    sleeve = SLEEVE.get(o.top_style, 1.0)
    shoulder_l, shoulder_r = (-sw / 2 + aw / 2, ys + 0.18), (sw / 2 - aw / 2, ys + 0.18)
    _arm(pen, [shoulder_l, (-sw / 2 - 0.02, yh - 0.1)], skin, topc, sleeve, aw)
    if holding:
        arm_r = [shoulder_r, (sw / 2 + 0.12, ys + 1.15), (sw / 2 + 0.55, ys + 1.2)]
    else:
        arm_r = [shoulder_r, (sw / 2 + 0.02, yh - 0.1)]
        _arm(pen, arm_r, skin, topc, sleeve, aw)
    pen.rect(-0.16, fh - 0.2, 0.16, ys + 0.15, mix(skin, BLACK, 0.06))
    torso = [
        (-sw / 2 + 0.12, ys),
        (sw / 2 - 0.12, ys),
        (sw / 2, ys + 0.28),
        (ww / 2, yh),
        (-ww / 2, yh),
        (-sw / 2, ys + 0.28),
    ]
    _paint_pattern(img, pen, torso, topc, o.pattern)
    if dress:
        hw = ww / 2
        skirt = [(-hw, yh - 0.35), (hw, yh - 0.35), (hw + 0.35, yh + 1.5), (-hw - 0.35, yh + 1.5)]
        _paint_pattern(img, pen, skirt, topc, o.pattern)
        pen.rect(-ww / 2, yh - 0.42, ww / 2, yh - 0.28, bottom)
    _top_details(pen, o, topc, skin, sw, ys, yh)
    if label:
        pen_pt = pen.pt(-sw * 0.24, ys + 0.75)
        text_tag(pen.d, pen_pt[0], pen_pt[1], label, max(8, round(0.3 * u)), border=(90, 90, 90))
    if "scarf" in acc:
        c = accessory_color(a, 2)
        pen.rect(-0.3, fh - 0.08, 0.3, ys + 0.1, c, r=0.08)
        pen.rect(0.08, ys, 0.24, ys + 0.75, mix(c, BLACK, 0.15))
    if "necklace" in acc:
        for i in range(7):
            t = (i - 3) / 3
            pen.circ(t * 0.22, ys + 0.1 + 0.16 * (1 - t * t), 0.035, GOLD)
    if a.hair_style == "long":
        for sx in (-1, 1):
            pen.rect(sx * fw / 2 - 0.15, 0.3, sx * fw / 2 + 0.15, ys + 0.6, hair, r=0.12)
    _face(pen, a, skin, fw, fh)
    _features(pen, a, skin, hair, fw, fh)
    _hair_front(pen, a, hair, skin, fw, fh)
    _headwear(pen, a, fw, fh, ys)
    if holding:
        _arm(pen, arm_r, skin, topc, sleeve, aw)
    hx, hy = pen.pt(*arm_r[-1])
    x0, y0, x1, y1 = pen.bx(-sw / 2 - aw, -0.45, sw / 2 + aw, yl + 0.2)
    t0 = pen.bx(-sw / 2, ys, sw / 2, yh)
    f0 = pen.bx(-fw / 2, 0, fw / 2, fh)
    return FigureGeom(
        box=(int(x0), int(y0), int(x1) + 1, int(y1) + 1),
        face=(int(f0[0]), int(f0[1]), int(f0[2]) + 1, int(f0[3]) + 1),
        torso=(int(t0[0]), int(t0[1]), int(t0[2]) + 1, int(t0[3]) + 1),
        hand=(round(hx), round(hy)),
    )


def draw_silhouette(img: Image.Image, cx: float, top: float, u: float, color: RGB) -> Box:
    """A faceless background figure in one flat colour; returns its box."""
    pen = _Pen(ImageDraw.Draw(img), cx, top, u)
    pen.ell(-0.4, 0, 0.4, 1.0, color)
    pen.rect(-0.14, 0.8, 0.14, 1.3, color)
    pen.poly([(-0.75, 1.2), (0.75, 1.2), (0.85, 1.5), (0.65, 3.5), (-0.65, 3.5), (-0.85, 1.5)], color)
    pen.line([(-0.75, 1.4), (-0.9, 3.3)], color, 0.28)
    pen.line([(0.75, 1.4), (0.9, 3.3)], color, 0.28)
    pen.rect(-0.55, 3.4, -0.06, 6.4, color)
    pen.rect(0.06, 3.4, 0.55, 6.4, color)
    b = pen.bx(-1.0, 0, 1.0, 6.4)
    return (int(b[0]), int(b[1]), int(b[2]) + 1, int(b[3]) + 1)
