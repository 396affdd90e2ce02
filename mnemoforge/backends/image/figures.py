"""Cartoon people drawn from an ``AppearanceSpec`` with Pillow primitives.

All geometry is expressed in *head units* (``u`` pixels = the height of an oval face) relative
to the figure's centre line ``cx`` and the top of the face ``top``, so one person can be drawn
at any size. Nothing here is random: the same spec always gives the same figure.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from PIL import Image, ImageDraw

from mnemoforge.backends.image.colors import BLACK, GOLD, RGB, WHITE, Box, contrast_shade, luma, mix, rgb
from mnemoforge.backends.image.figure_head import (
    _face,
    _features,
    _hair_back,
    _hair_front,
    _headwear,
    accessory_color,
)
from mnemoforge.backends.image.figure_pen import _Pen
from mnemoforge.backends.image.fonts import text_tag
from mnemoforge.schemas.theme import AppearanceSpec, Outfit

FACE_W = {"oval": 0.78, "round": 0.96, "square": 0.88, "heart": 0.9, "long": 0.64}
FACE_H = {"oval": 1.0, "round": 0.92, "square": 0.98, "heart": 1.0, "long": 1.12}
SHOULDER_W = {"slim": 1.4, "medium": 1.75, "broad": 2.2}
ARM_W = {"slim": 0.24, "medium": 0.3, "broad": 0.4}
SLEEVE = {"tshirt": 0.35, "dress": 0.18}


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
