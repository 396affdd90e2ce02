"""Backgrounds of the place kinds a theme declares by what the place is (``PlaceSpec.kind``):
a room, a vehicle interior, a street, a coast, a mountain, a forest, a field, an airfield or a
helipad. Each place draws a look of its own: the layout and, without a declared palette, the
colours are seeded from the place's name, so two rooms of one building do not look alike.

Snow on the ground (``snow``) is the caller's decision (season, altitude and weather, see
``generators/icm/place_look.py``); the sky follows the time of day and the weather as elsewhere.
Randomness comes from the ``random.Random`` given and from the place's name (never global state).
"""

from __future__ import annotations

import colorsys
import random
import zlib
from typing import NamedTuple

from PIL import ImageDraw

from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, mix, rgb
from mnemoforge.backends.image.place_props import DECOR, SNOW, decor
from mnemoforge.backends.image.scenery import precipitation, sky, sky_objects

OUTDOOR_KINDS = ("street", "coast", "mountain", "forest", "field", "airfield", "helipad")
INDOOR_KINDS = ("room", "vehicle")
KINDS = OUTDOOR_KINDS + INDOOR_KINDS
SNOW_SHADE: RGB = (214, 222, 236)

__all__ = ["DECOR", "KINDS", "draw_place", "place_colours", "place_hue"]  # DECOR: place_props.py

GROUND = {
    "street": "#8a8a8e",
    "coast": "#e4d3a2",
    "mountain": "#8c9a6a",
    "forest": "#4f6b3a",
    "field": "#a8b85a",
    "airfield": "#7b7f84",
    "helipad": "#6f747a",
}


def place_hue(name: str) -> float:
    """A place's own hue in [0, 1), from its name."""
    return (zlib.crc32(name.encode()) % 360) / 360


def _hsv(h: float, s: float, v: float) -> RGB:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, s, v)
    return round(r * 255), round(g * 255), round(b * 255)


def place_colours(name: str, pal: list[RGB]) -> tuple[RGB, RGB, RGB]:
    """(main, second, accent): the declared palette, else seeded from the place's name."""
    h = place_hue(name)
    seeded = (_hsv(h, 0.22, 0.9), _hsv(h + 0.08, 0.35, 0.55), _hsv(h + 0.5, 0.55, 0.6))
    return (
        pal[0] if pal else seeded[0],
        pal[1] if len(pal) > 1 else seeded[1],
        (pal[2] if len(pal) > 2 else seeded[2]),
    )


class _Scene(NamedTuple):
    """What every place kind draws with: the canvas and its size, the horizon, the place's name
    and palette, the zoom, time of day and weather, the shot's rng and the place's fixed layout rng."""

    draw: ImageDraw.ImageDraw
    W: int
    H: int
    horizon: int
    name: str
    pal: list[RGB]
    z: float
    tod: str
    wx: str
    rng: random.Random
    local: random.Random


def draw_place(
    draw: ImageDraw.ImageDraw,
    W: int,
    H: int,
    horizon: int,
    kind: str,
    name: str,
    pal: list[RGB],
    z: float,
    tod: str,
    wx: str,
    rng: random.Random,
    *,
    snow: bool = False,
    props: tuple[str, ...] = (),
) -> None:
    """Draw the background of a place of ``kind`` (one of :data:`KINDS`)."""
    local = random.Random(zlib.crc32(f"{kind}:{name}".encode()))  # the place's fixed layout
    scene = _Scene(draw, W, H, horizon, name, pal, z, tod, wx, rng, local)
    if kind in INDOOR_KINDS:
        (_room if kind == "room" else _vehicle)(scene)
    else:
        _outdoor(scene, kind, snow)
    for j, prop in enumerate(props):
        x = W * (0.12 + 0.76 * (j + 0.5) / max(1, len(props))) + local.uniform(-0.04, 0.04) * W
        decor(draw, prop, x, horizon + 0.02 * H, 0.16 * H * z, place_colours(name, pal)[2], snow)


def _outdoor(scene: _Scene, kind: str, snow: bool) -> None:
    draw, W, H, horizon, name, pal, z, tod, wx, rng, local = scene
    ground = pal[0] if pal else mix(rgb(GROUND[kind]), _hsv(place_hue(name), 0.4, 0.6), 0.15)
    sky(draw, (0, 0, W, horizon), tod, wx)
    sky_objects(draw, (0, 0, W, horizon), tod, wx, rng)
    if kind == "mountain":
        _peaks(draw, W, horizon, z, local, snow, rock=(118, 122, 138))
    elif kind == "forest":
        _conifers(draw, W, horizon, H, z, local, snow)
    elif kind == "coast":
        sea = pal[1] if len(pal) > 1 else (52, 112, 170)
        draw.rectangle([0, horizon - 0.06 * H, W, horizon + 0.25 * (H - horizon)], fill=sea)
        for i in range(4):
            y = horizon + 0.05 * (H - horizon) * (i + 1)
            draw.line(
                [(local.uniform(0, 0.3) * W, y), (local.uniform(0.6, 1) * W, y)], fill=mix(sea, WHITE, 0.5)
            )
        horizon = round(horizon + 0.25 * (H - horizon))
    elif kind in ("field", "airfield", "helipad"):
        _hills(draw, W, horizon, H, z, local, snow)
    elif kind == "street":
        _facades(draw, W, horizon, H, z, tod, local, pal)
    top = SNOW if snow and kind != "coast" else ground
    draw.rectangle([0, horizon, W, H], fill=top)
    if kind == "street":
        kerb = horizon + 0.18 * (H - horizon)
        draw.rectangle([0, kerb, W, H], fill=mix(top, BLACK, 0.25) if not snow else SNOW_SHADE)
        for x in range(0, W, max(12, W // 8)):
            y = kerb + 0.45 * (H - kerb)
            draw.rectangle([x, y, x + W // 16, y + max(2, H // 90)], fill=(236, 220, 120))
    elif kind == "field" and not snow:
        for i in range(1, 9):
            y = horizon + (H - horizon) * (i / 9) ** 1.3
            draw.line([(0, y), (W, y)], fill=mix(top, BLACK, 0.15), width=max(1, H // 160))
    elif kind == "airfield":
        ry0, ry1 = horizon + 0.25 * (H - horizon), horizon + 0.6 * (H - horizon)
        draw.rectangle([0, ry0, W, ry1], fill=(70, 72, 76))
        for x in range(0, W, max(16, W // 7)):
            draw.rectangle([x, (ry0 + ry1) / 2 - 1, x + W // 14, (ry0 + ry1) / 2 + 1], fill=WHITE)
    elif kind == "helipad":
        cx, cy = W * local.uniform(0.35, 0.65), horizon + 0.55 * (H - horizon)
        rx, ry = 0.3 * W * min(z, 1.5), 0.28 * (H - horizon)
        draw.ellipse([cx - rx, cy - ry, cx + rx, cy + ry], fill=(58, 60, 64), outline=(236, 200, 60), width=3)
        hw, hh = rx * 0.3, ry * 0.6
        for dx in (-hw, hw * 0.6):
            draw.rectangle([cx + dx, cy - hh, cx + dx + hw * 0.4, cy + hh], fill=WHITE)
        draw.rectangle([cx - hw, cy - hh * 0.15, cx + hw, cy + hh * 0.15], fill=WHITE)
    elif kind == "mountain" and snow:
        for _ in range(5):  # drifts
            x, w = local.uniform(0, W), local.uniform(0.15, 0.35) * W
            y = horizon + local.uniform(0.1, 0.8) * (H - horizon)
            draw.ellipse([x - w, y - 0.03 * H, x + w, y + 0.03 * H], fill=SNOW_SHADE)
    elif kind == "coast":
        for _ in range(6):
            x, y = local.uniform(0, W), horizon + local.uniform(0.1, 0.9) * (H - horizon)
            draw.ellipse([x - 3, y - 2, x + 3, y + 2], fill=mix(top, BLACK, 0.2))


def _peaks(
    draw: ImageDraw.ImageDraw, W: int, horizon: int, z: float, local: random.Random, snow: bool, rock: RGB
) -> None:
    x = -local.uniform(0.05, 0.2) * W
    while x < W:
        w = local.uniform(0.35, 0.6) * W
        h = local.uniform(0.45, 0.8) * horizon * min(z, 1.2)
        top = (x + w / 2, horizon - h)
        draw.polygon([(x, horizon), top, (x + w, horizon)], fill=mix(rock, BLACK, local.uniform(0, 0.2)))
        cap = 0.6 if snow else 0.3  # snow reaches further down when it lies
        draw.polygon(
            [top, (top[0] - w / 2 * cap, top[1] + h * cap), (top[0] + w / 2 * cap, top[1] + h * cap)],
            fill=SNOW,
        )
        x += w * 0.6


def _conifers(
    draw: ImageDraw.ImageDraw, W: int, horizon: int, H: int, z: float, local: random.Random, snow: bool
) -> None:
    n = max(6, round(10 / min(z, 2.0)))
    for i in range(n):
        cx = (i + local.uniform(0, 1)) * W / n
        h = local.uniform(0.35, 0.6) * H * min(z, 1.4)
        w = h * 0.35
        base = horizon + local.uniform(0, 0.04) * H
        draw.rectangle([cx - w * 0.08, base - h * 0.15, cx + w * 0.08, base], fill=(85, 60, 40))
        green = (34, 88, 52) if i % 2 else (44, 104, 60)
        draw.polygon(
            [(cx - w / 2, base - h * 0.12), (cx, base - h), (cx + w / 2, base - h * 0.12)], fill=green
        )
        if snow:
            draw.polygon(
                [(cx - w * 0.18, base - h * 0.7), (cx, base - h), (cx + w * 0.18, base - h * 0.7)], fill=SNOW
            )


def _hills(
    draw: ImageDraw.ImageDraw, W: int, horizon: int, H: int, z: float, local: random.Random, snow: bool
) -> None:
    for _ in range(3):
        hx, hr = local.uniform(0, W), local.uniform(0.3, 0.6) * W
        hh = local.uniform(0.08, 0.16) * H * z
        fill = SNOW_SHADE if snow else (104, 140, 92)
        draw.ellipse([hx - hr, horizon - hh, hx + hr, horizon + hh], fill=fill)


def _facades(
    draw: ImageDraw.ImageDraw,
    W: int,
    horizon: int,
    H: int,
    z: float,
    tod: str,
    local: random.Random,
    pal: list[RGB],
) -> None:
    x = -local.uniform(0, 0.1) * W
    glass = (250, 220, 130) if tod in ("evening", "night") else (160, 195, 220)
    while x < W:
        bw = local.uniform(0.18, 0.32) * W * min(z, 1.5)
        bh = local.uniform(0.55, 0.95) * horizon
        c = pal[1] if len(pal) > 1 and local.random() < 0.4 else _hsv(local.random(), 0.3, 0.8)
        draw.rectangle([x, horizon - bh, x + bw - 2, horizon], fill=c)
        ws = max(3, round(0.04 * H * z))
        for wy in range(round(horizon - bh + ws), round(horizon - ws * 2), ws * 2):
            for wxp in range(round(x + ws), round(x + bw - 2 * ws), ws * 2):
                draw.rectangle([wxp, wy, wxp + ws - 1, wy + ws * 1.4], fill=glass)
        x += bw


def _room(scene: _Scene) -> None:
    draw, W, H, horizon, name, pal, z, tod, wx, rng, local = scene
    wall, floor, accent = place_colours(name, pal)
    draw.rectangle([0, 0, W, horizon], fill=wall)
    draw.rectangle([0, horizon, W, H], fill=floor)
    style = local.randrange(3)  # planks, tiles or plain floor
    if style == 0:
        for i in range(1, 7):
            y = horizon + (H - horizon) * (i / 7) ** 1.4
            draw.line([(0, y), (W, y)], fill=mix(floor, BLACK, 0.2))
    elif style == 1:
        step = max(8, W // 12)
        for x in range(0, W, step):
            draw.line([(x, horizon), (x - (x - W / 2) * 0.6, H)], fill=mix(floor, WHITE, 0.2))
    if local.random() < 0.5:  # a wainscot band in the accent colour
        draw.rectangle([0, horizon - 0.14 * H * z, W, horizon], fill=mix(accent, wall, 0.5))
    ww, wh = round(local.uniform(0.14, 0.26) * W * min(z, 1.6)), round(local.uniform(0.2, 0.3) * H * z)
    wx0 = round(local.uniform(0.04, 0.78) * W)
    wy0 = max(2, horizon - round(0.14 * H * z) - wh)
    frame = mix(wall, BLACK, 0.35)
    draw.rectangle([wx0 - 2, wy0 - 2, wx0 + ww + 1, wy0 + wh + 1], fill=frame)
    sky(draw, (wx0, wy0, wx0 + ww, wy0 + wh), tod, wx)
    sky_objects(draw, (wx0, wy0, wx0 + ww, wy0 + wh), tod, wx, rng)
    precipitation(draw, (wx0, wy0, wx0 + ww, wy0 + wh), wx, rng)
    for _ in range(local.randint(1, 3)):  # framed pictures / notices on the wall
        px, pw = local.uniform(0.05, 0.85) * W, local.uniform(0.05, 0.1) * W
        if abs(px - wx0) < ww + pw:
            continue
        py = wy0 + local.uniform(0, 0.3) * wh
        draw.rectangle(
            [px, py, px + pw, py + pw * 0.75], fill=mix(accent, WHITE, 0.5), outline=frame, width=2
        )


def _vehicle(scene: _Scene) -> None:
    draw, W, H, horizon, name, pal, z, tod, wx, rng, local = scene
    cabin, seat, accent = place_colours(name, pal)
    cabin = mix(cabin, (60, 64, 72), 0.5)
    draw.rectangle([0, 0, W, H], fill=cabin)
    n = local.randint(2, 4)
    for i in range(n):  # rounded windows onto the sky
        x0 = W * (0.06 + 0.9 * i / n)
        box = (round(x0), round(0.12 * H), round(x0 + 0.7 * W / n), round(0.45 * H))
        draw.rounded_rectangle(
            [box[0] - 3, box[1] - 3, box[2] + 3, box[3] + 3], radius=8, fill=mix(cabin, BLACK, 0.4)
        )
        sky(draw, box, tod, wx)
        precipitation(draw, box, wx, rng)
    draw.rectangle([0, horizon, W, H], fill=mix(cabin, BLACK, 0.35))
    for i in range(n + 1):  # seat backs
        x = W * (i + 0.1) / (n + 0.5)
        draw.rounded_rectangle([x, horizon - 0.22 * H, x + 0.14 * W, horizon + 0.04 * H], radius=6, fill=seat)
        draw.rectangle([x, horizon - 0.22 * H, x + 0.14 * W, horizon - 0.18 * H], fill=accent)
