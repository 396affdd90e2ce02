"""Backgrounds, weather, lighting and signs for procedural scenes (props: ``scene_props``).

Every function draws at the target resolution and takes its randomness from the
``random.Random`` it is given (never from global state).
"""

from __future__ import annotations

import functools
import random
import zlib

from PIL import Image, ImageDraw

from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, Box, luma, mix, rgb
from mnemoforge.backends.image.fonts import font, renderable, text_tag

WALL = {"home": "#eadcc8", "venue": "#d8c3a0", "work": "#dfe5ec", "shop": "#f0e4cc", "transit": "#cdd6da"}
FLOOR = {"home": "#9b6b44", "venue": "#70492c", "work": "#8f969e", "shop": "#c2b293", "transit": "#7d7d7d"}
GROUND = {"outdoor": "#6aa84f", "transit": "#6b6b6b"}
SKY: dict[str, tuple[RGB, RGB]] = {
    "morning": ((150, 200, 240), (250, 226, 200)),
    "afternoon": ((85, 155, 230), (190, 225, 250)),
    "evening": ((70, 70, 140), (250, 150, 90)),
    "night": ((8, 12, 40), (35, 45, 85)),
}
# per-channel (multiply, add) lighting applied to the finished frame; afternoon is neutral
LIGHT: dict[tuple[str, bool], tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    ("morning", False): ((1.02, 1.0, 0.95), (10, 9, 6)),
    ("morning", True): ((1.02, 1.0, 0.96), (8, 7, 4)),
    ("afternoon", False): ((1.0, 1.0, 1.0), (0, 0, 0)),
    ("afternoon", True): ((1.0, 1.0, 1.0), (0, 0, 0)),
    ("evening", False): ((1.0, 0.8, 0.6), (8, 0, 0)),
    ("evening", True): ((0.97, 0.85, 0.7), (6, 0, 0)),
    ("night", False): ((0.4, 0.45, 0.7), (0, 0, 10)),
    ("night", True): ((0.6, 0.6, 0.72), (0, 0, 8)),
}
CLOUD_PUFFS = ((-1.0, 0.2, 0.8), (0.0, 0.0, 1.0), (1.0, 0.2, 0.8), (0.5, 0.45, 0.8), (-0.5, 0.45, 0.8))


def weather_kind(weather: str) -> str:
    """Map free-form weather text to one of clear/cloudy/rain/snow/fog."""
    w = weather.lower()
    for key, words in (
        ("snow", ("snow", "sleet", "blizzard")),
        ("rain", ("rain", "drizzl", "storm", "shower")),
        ("fog", ("fog", "mist", "haze")),
        ("cloudy", ("cloud", "overcast", "grey", "gray")),
    ):
        if any(x in w for x in words):
            return key
    return "clear"


@functools.lru_cache(maxsize=16)
def _lut(time_of_day: str, indoor: bool) -> list[int]:
    mul, add = LIGHT[(time_of_day, indoor)]
    return [max(0, min(255, round(v * mul[c] + add[c]))) for c in range(3) for v in range(256)]


def apply_light(img: Image.Image, time_of_day: str, indoor: bool) -> Image.Image:
    """Tint the frame for the time of day (night darker and bluer, evening warmer)."""
    if time_of_day == "afternoon":
        return img
    return img.point(_lut(time_of_day, indoor))


def sky_colours(tod: str, wx: str) -> tuple[RGB, RGB]:
    """The sky's top and bottom colours for the time of day, greyed by bad weather."""
    top, bottom = SKY[tod]
    grey = {"rain": 0.6, "snow": 0.45, "cloudy": 0.4, "fog": 0.5}.get(wx, 0.0)
    if grey:
        g = (150, 155, 165) if tod != "night" else (45, 50, 65)
        top, bottom = mix(top, g, grey), mix(bottom, g, grey)
    return top, bottom


def sky(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], tod: str, wx: str) -> None:
    """Vertical sky gradient in ``box`` for the time of day, greyed by bad weather."""
    x0, y0, x1, y1 = box
    top, bottom = sky_colours(tod, wx)
    n = max(1, y1 - y0)
    image = getattr(draw, "_image", None)
    if image is not None and image.mode == "RGB" and x1 > x0:  # the same rows, pasted from a cache
        image.paste(_sky_rows(x1 - x0, n, top, bottom), (x0, y0))
        return
    for i in range(n):
        draw.line([(x0, y0 + i), (x1 - 1, y0 + i)], fill=mix(top, bottom, i / n))


@functools.lru_cache(maxsize=64)
def _sky_rows(w: int, n: int, top: RGB, bottom: RGB) -> Image.Image:
    """``n`` rows ``w`` wide, row ``i`` coloured ``mix(top, bottom, i / n)``: what :func:`sky` draws
    line by line, made once per size and colours."""
    column = Image.new("RGB", (1, n))
    column.putdata([mix(top, bottom, i / n) for i in range(n)])
    return column.resize((w, n), Image.Resampling.NEAREST)


def sky_objects(draw: ImageDraw.ImageDraw, box: Box, tod: str, wx: str, rng: random.Random) -> None:
    """Sun or moon, stars at night, clouds for cloudy/rainy weather, inside ``box``."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if w < 8 or h < 8:
        return
    r = max(3, round(min(w, h) * 0.1))
    sx, sy = x0 + rng.uniform(0.15, 0.85) * w, y0 + rng.uniform(0.2, 0.45) * h
    if tod == "night":
        for _ in range(max(4, w * h // 900)):
            px, py = rng.randrange(x0, x1), rng.randrange(y0, y1)
            draw.point((px, py), fill=(230, 230, 200))
        if wx == "clear":
            draw.ellipse([sx - r, sy - r, sx + r, sy + r], fill=(240, 240, 215))
    elif wx == "clear":
        sun = (255, 236, 130) if tod != "evening" else (255, 190, 90)
        draw.ellipse([sx - r, sy - r, sx + r, sy + r], fill=sun)
    if wx in ("cloudy", "rain", "snow"):
        cloud = (236, 238, 242) if wx == "cloudy" else (168, 172, 182)
        if tod == "night":
            cloud = mix(cloud, BLACK, 0.6)
        for _ in range(3):
            cx, cy = x0 + rng.uniform(0.05, 0.95) * w, y0 + rng.uniform(0.1, 0.4) * h
            cr = r * rng.uniform(1.0, 1.6)
            for dx, dy, k in CLOUD_PUFFS:
                px, py, rr = cx + dx * cr, cy + dy * cr, cr * k
                draw.ellipse([px - rr, py - rr, px + rr, py + rr], fill=cloud)


def precipitation(draw: ImageDraw.ImageDraw, box: Box, wx: str, rng: random.Random) -> None:
    """Rain streaks or snow dots over ``box`` (drawn in front of everything outdoors)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if w < 4 or h < 4 or wx not in ("rain", "snow"):
        return
    count = max(6, w * h // (600 if wx == "rain" else 450))
    ln = max(3, h // 14)
    for _ in range(count):
        px, py = rng.uniform(x0, x1), rng.uniform(y0, y1)
        if wx == "rain":
            draw.line([(px, py), (px - ln * 0.25, min(y1 - 1, py + ln))], fill=(200, 212, 232), width=1)
        else:
            s = rng.choice((0.8, 1.2, 1.6))
            draw.ellipse([px - s, py - s, px + s, py + s], fill=(252, 252, 255))


def indoor_room(
    draw: ImageDraw.ImageDraw,
    W: int,
    H: int,
    horizon: int,
    kind: str,
    pal: list[RGB],
    z: float,
    tod: str,
    wx: str,
    rng: random.Random,
    layout: int = -1,
) -> Box:
    """Wall, floor, a window onto the weather and a few kind-specific furnishings; returns window box.

    ``layout`` (see :func:`room_layout`) fixes the window side and the furnishing of a place, so one
    place always looks the same and two homes look different; -1 draws them at random."""
    wall = pal[0] if pal else rgb(WALL.get(kind, "#dddddd"))
    floor = pal[1] if len(pal) > 1 else rgb(FLOOR.get(kind, "#8a8a8a"))
    accent = pal[2] if len(pal) > 2 else mix(wall, BLACK, 0.4)
    draw.rectangle([0, 0, W, horizon], fill=wall)
    draw.rectangle([0, horizon, W, H], fill=floor)
    if kind in ("home", "venue"):
        for i in range(1, 6):
            y = horizon + (H - horizon) * (i / 6) ** 1.4
            draw.line([(0, y), (W, y)], fill=mix(floor, BLACK, 0.2))
    draw.rectangle([0, horizon - max(2, round(0.025 * H * z)), W, horizon], fill=mix(wall, BLACK, 0.3))
    ww, wh = round(0.2 * W * min(z, 1.6)), round(0.28 * H * z)
    side = rng.choice((0.05, 0.72)) if layout < 0 else (0.05, 0.72)[layout % 2]
    wx0 = round(side * W)
    wy0 = max(2, horizon - round(0.12 * H * z) - wh)
    win = (wx0, wy0, wx0 + ww, wy0 + wh)
    frame = mix(wall, WHITE, 0.6) if luma(wall) < 0.8 else mix(wall, BLACK, 0.25)
    draw.rectangle([win[0] - 2, win[1] - 2, win[2] + 1, win[3] + 1], fill=frame)
    sky(draw, win, tod, wx)
    sky_objects(draw, win, tod, wx, rng)
    precipitation(draw, win, wx, rng)
    draw.line([((win[0] + win[2]) / 2, win[1]), ((win[0] + win[2]) / 2, win[3])], fill=frame, width=2)
    fx0 = W - wx0 - ww  # the other side of the room from the window
    if kind == "home" and layout >= 0 and (layout // 2) % 3 == 1:  # bookshelf and a floor lamp
        for row in range(4):
            y = wy0 + wh * 0.25 * row
            draw.rectangle([fx0, y, fx0 + ww, y + max(2, H // 90)], fill=mix(accent, BLACK, 0.45))
            for k in range(6):
                bx = fx0 + ww * (0.04 + 0.16 * k)
                draw.rectangle(
                    [bx, y - wh * 0.18, bx + ww * 0.1, y],
                    fill=((150, 60, 50), (60, 90, 140), (70, 120, 70))[k % 3],
                )
        lx = W * 0.5
        draw.line([(lx, horizon - 0.4 * H * z), (lx, horizon)], fill=(60, 60, 60), width=max(2, H // 120))
        lo, hi, sh = horizon - 0.38 * H * z, horizon - 0.46 * H * z, 0.05 * H * z
        shade = [(lx - sh, lo), (lx + sh, lo), (lx + 0.6 * sh, hi), (lx - 0.6 * sh, hi)]
        draw.polygon(shade, fill=(245, 220, 150))
    elif kind == "home" and layout >= 0 and (layout // 2) % 3 == 2:  # a wall clock over a dresser
        r = 0.06 * H * z
        cx, cy = fx0 + ww / 2, wy0 + r + 2
        draw.ellipse(
            [cx - r, cy - r, cx + r, cy + r], fill=WHITE, outline=(40, 40, 40), width=max(2, H // 120)
        )
        draw.line([(cx, cy), (cx, cy - r * 0.7)], fill=(40, 40, 40), width=2)
        draw.line([(cx, cy), (cx + r * 0.5, cy)], fill=(40, 40, 40), width=2)
        draw.rectangle([fx0, horizon - 0.2 * H * z, fx0 + ww, horizon], fill=mix(accent, BLACK, 0.2))
    elif kind == "home":
        draw.rectangle(
            [fx0 + ww * 0.15, wy0, fx0 + ww * 0.85, wy0 + wh * 0.6],
            fill=accent,
            outline=mix(accent, BLACK, 0.5),
            width=2,
        )
        draw.rounded_rectangle(
            [W * 0.25, horizon - 0.16 * H * z, W * 0.75, horizon + 0.02 * H],
            radius=max(1, round(0.03 * H * z)),
            fill=mix(accent, WHITE, 0.25),
        )
    elif kind == "venue":
        draw.rectangle([0, horizon - 0.15 * H * z, W, horizon - 0.1 * H * z], fill=mix(accent, BLACK, 0.2))
        draw.rectangle([0, horizon - 0.1 * H * z, W, horizon], fill=accent)
        for lx in (0.2, 0.5, 0.8):
            draw.line([(W * lx, 0), (W * lx, 0.1 * H * z)], fill=BLACK)
            r = 0.03 * H * z
            draw.ellipse([W * lx - r, 0.1 * H * z - r, W * lx + r, 0.1 * H * z + r], fill=(255, 220, 120))
    elif kind == "work":
        draw.rectangle([fx0, wy0, fx0 + ww, wy0 + wh * 0.75], fill=WHITE, outline=(120, 120, 120), width=2)
        for i in range(3):
            y = wy0 + wh * (0.2 + 0.18 * i)
            draw.line(
                [(fx0 + ww * 0.1, y), (fx0 + ww * rng.uniform(0.5, 0.9), y)],
                fill=((40, 80, 200), (200, 40, 40), (30, 140, 60))[i],
                width=2,
            )
    elif kind == "shop":
        sx0, sx1 = min(fx0, W * 0.3), max(fx0 + ww, W * 0.7)
        for row in range(3):
            y = wy0 + wh * (0.3 + 0.33 * row)
            draw.rectangle([sx0, y, sx1, y + 2], fill=mix(accent, BLACK, 0.3))
            x = sx0 + 2
            while x < sx1 - 6:
                bw = rng.randint(4, 9) * z
                c = (rng.randint(40, 230), rng.randint(40, 230), rng.randint(40, 230))
                draw.rectangle([x, y - wh * 0.22, x + bw, y - 1], fill=c)
                x += bw + 2
    elif kind == "transit":
        draw.rectangle([0, 0.34 * H, W, 0.34 * H + 0.05 * H * z], fill=accent)
        draw.rectangle([W * 0.3, horizon - 0.08 * H * z, W * 0.7, horizon - 0.05 * H * z], fill=(90, 90, 95))
    return win


def room_layout(place_name: str) -> int:
    """A place's fixed room layout (window side and furnishing), from its name."""
    return zlib.crc32(place_name.encode()) % 6


def outdoor_view(
    draw: ImageDraw.ImageDraw,
    W: int,
    H: int,
    horizon: int,
    kind: str,
    pal: list[RGB],
    z: float,
    tod: str,
    wx: str,
    rng: random.Random,
) -> None:
    """Sky, ground and kind-specific scenery (trees, road, house, storefronts)."""
    ground = pal[0] if kind == "outdoor" and pal else rgb(GROUND.get(kind, "#b3ab9c"))
    if kind != "outdoor" and len(pal) > 1:
        ground = pal[1]
    building = pal[0] if kind != "outdoor" and pal else (170, 150, 130)
    accent = pal[2] if len(pal) > 2 else mix(building, BLACK, 0.35)
    sky(draw, (0, 0, W, horizon), tod, wx)
    sky_objects(draw, (0, 0, W, horizon), tod, wx, rng)
    draw.rectangle([0, horizon, W, H], fill=ground)
    if kind == "outdoor":
        for _ in range(2):
            hx, hr = rng.uniform(0, W), rng.uniform(0.3, 0.5) * W
            hh = 0.12 * H * z
            draw.ellipse([hx - hr, horizon - hh, hx + hr, horizon + hh], fill=mix(ground, BLACK, 0.2))
        draw.rectangle([0, horizon, W, H], fill=ground)
        for _ in range(rng.randint(2, 4)):
            tx, th = rng.uniform(0.03, 0.97) * W, rng.uniform(0.18, 0.28) * H * z
            trunk, crown = (95, 65, 40), (50, 120, 55)
            draw.rectangle([tx - th * 0.06, horizon - th * 0.5, tx + th * 0.06, horizon + 2], fill=trunk)
            draw.ellipse([tx - th * 0.3, horizon - th, tx + th * 0.3, horizon - th * 0.35], fill=crown)
        return
    if kind == "transit":
        ry = max(horizon + 2, horizon + (H - horizon) * 0.35)
        draw.rectangle([0, horizon + 2, W, ry], fill=(70, 70, 74))
        for x in range(0, W, max(8, W // 12)):
            draw.rectangle([x, (horizon + ry) / 2 - 1, x + W // 30, (horizon + ry) / 2], fill=(235, 235, 235))
    x = -rng.randint(0, max(1, W // 10))
    while x < W:
        bw = rng.uniform(0.22, 0.4) * W * min(z, 1.5)
        bh = rng.uniform(0.35, 0.5) * horizon * (1 if kind != "home" else 0.75)
        c = mix(building, rng.choice((WHITE, BLACK)), rng.uniform(0.0, 0.25))
        draw.rectangle([x, horizon - bh, x + bw - 2, horizon], fill=c)
        if kind == "home":
            roof = [(x - 3, horizon - bh), (x + bw / 2, horizon - bh * 1.45), (x + bw + 1, horizon - bh)]
            draw.polygon(roof, fill=accent)
        glass = (250, 220, 130) if tod in ("evening", "night") else (160, 195, 220)
        ws = max(3, round(0.045 * H * z))
        for wy in range(round(horizon - bh + ws), round(horizon - ws * 2.5), ws * 2):
            for wxp in range(round(x + ws), round(x + bw - 2 * ws), ws * 2):
                draw.rectangle([wxp, wy, wxp + ws - 1, wy + ws - 1], fill=glass)
        draw.rectangle([x + bw * 0.4, horizon - ws * 2.2, x + bw * 0.6, horizon], fill=mix(c, BLACK, 0.45))
        if kind == "shop":
            for i in range(6):
                awning = [x + bw * i / 6, horizon - bh * 0.42, x + bw * (i + 1) / 6, horizon - bh * 0.35]
                draw.rectangle(awning, fill=accent if i % 2 else WHITE)
        x += bw


def sign_board(draw: ImageDraw.ImageDraw, cx: float, cy: float, text: str, size: int, accent: RGB) -> Box:
    """A cream board with dark text and an ``accent`` border; returns its box."""
    pad = max(2, size // 4)
    x0, y0, x1, y1 = text_tag(draw, cx, cy, text, size, bg=(250, 244, 226), fg=(25, 25, 35), border=accent)
    draw.rectangle([x0 - pad, y0 - pad, x1 - 1 + pad, y1 - 1 + pad], outline=accent, width=max(2, pad))
    return (x0 - pad, y0 - pad, x1 + pad, y1 + pad)


@functools.lru_cache(maxsize=1024)
def sign_size(text: str, W: int, H: int, max_frac: float) -> int:
    """Largest font size (>= 8 px) that keeps ``text`` within ``max_frac`` of the width."""
    text = renderable(text)
    size = max(9, round(0.075 * H))
    while size > 8 and font(size, text).getlength(text) > max_frac * W:
        size -= 1
    return size
