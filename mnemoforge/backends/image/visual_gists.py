"""Scene gists of the visual-memory scenes (X1): a room's use, the game on the board, the
dashboard view, the street and its weather."""

from __future__ import annotations

import random

from PIL import Image, ImageDraw

from mnemoforge.backends.image import visual_shelf as shelf
from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, Box
from mnemoforge.backends.image.visual_props import GREY, WOOD, Draw, card, frac


def _backgammon(d: Draw, b: Box, rng: random.Random) -> None:
    s = frac(b, 0.0, 0.1, 1.0, 0.9)
    d.rectangle(s, fill=(110, 70, 40), outline=BLACK, width=3)
    w = (s[2] - s[0]) / 12
    for k in range(12):
        x0 = s[0] + k * w
        ink = (230, 210, 170) if k % 2 == 0 else (160, 40, 40)
        d.polygon([(x0, s[1]), (x0 + w, s[1]), (x0 + w / 2, s[1] + 0.42 * (s[3] - s[1]))], fill=ink)
        d.polygon([(x0, s[3]), (x0 + w, s[3]), (x0 + w / 2, s[3] - 0.42 * (s[3] - s[1]))], fill=ink)
    d.rectangle((round((s[0] + s[2]) / 2) - 3, s[1], round((s[0] + s[2]) / 2) + 3, s[3]), fill=BLACK)
    for k in range(10):
        col, top = rng.randrange(12), rng.random() < 0.5
        cx, r = s[0] + col * w + w / 2, w / 2 - 1
        cy = s[1] + r + 1 if top else s[3] - r - 1
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=WHITE if k % 2 else BLACK, outline=GREY)


def _board(d: Draw, b: Box, gist: str, rng: random.Random) -> None:
    if gist == "backgammon":
        _backgammon(d, b, rng)
        return
    side = min(b[2] - b[0], b[3] - b[1])
    x0, y0 = (b[0] + b[2] - side) // 2, (b[1] + b[3] - side) // 2
    cell = side // 8
    for r in range(8):
        for c in range(8):
            if gist == "reversi":
                fill: RGB = (30, 120, 60)
            else:
                fill = (235, 215, 170) if (r + c) % 2 == 0 else (120, 80, 50)
            d.rectangle(
                (x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell),
                fill=fill,
                outline=BLACK if gist == "reversi" else None,
            )
    cells = [(r, c) for r in range(8) for c in range(8)]
    picks = rng.sample(cells, 14)
    for k, (r, c) in enumerate(picks):
        cx, cy = x0 + c * cell + cell // 2, y0 + r * cell + cell // 2
        q = cell // 2 - 3
        if gist == "reversi":
            d.ellipse((cx - q, cy - q, cx + q, cy + q), fill=BLACK if k % 2 else WHITE, outline=BLACK)
        elif gist == "checkers":
            d.ellipse((cx - q, cy - q, cx + q, cy + q), fill=(200, 30, 30) if k % 2 else BLACK, outline=WHITE)
        else:  # chess: pawn-like pieces with a head and a base
            ink = WHITE if k % 2 else BLACK
            d.ellipse((cx - q // 2, cy - q, cx + q // 2, cy), fill=ink, outline=GREY)
            d.polygon([(cx - q, cy + q), (cx + q, cy + q), (cx, cy - 2)], fill=ink, outline=GREY)


def _room_gist(d: Draw, b: Box, gist: str) -> None:
    if gist == "guest bedroom":
        d.rectangle(frac(b, 0.05, 0.45, 0.95, 0.9), fill=(120, 80, 60), outline=BLACK)
        d.rectangle(frac(b, 0.08, 0.4, 0.92, 0.7), fill=(235, 235, 245), outline=BLACK)
        d.rounded_rectangle(frac(b, 0.1, 0.3, 0.4, 0.45), radius=6, fill=WHITE, outline=BLACK)
        d.rectangle(frac(b, 0.02, 0.15, 0.1, 0.95), fill=(120, 80, 60))
    elif gist == "home office":
        d.rectangle(frac(b, 0.05, 0.5, 0.95, 0.58), fill=WOOD, outline=BLACK)
        for fx in (0.08, 0.88):
            d.rectangle(frac(b, fx, 0.58, fx + 0.04, 0.95), fill=WOOD)
        d.rectangle(frac(b, 0.3, 0.15, 0.7, 0.42), fill=(30, 30, 40), outline=BLACK, width=3)
        d.rectangle(frac(b, 0.47, 0.42, 0.53, 0.5), fill=(30, 30, 40))
    elif gist == "nursery":
        crib = frac(b, 0.1, 0.35, 0.9, 0.9)
        d.rectangle(crib, outline=(240, 240, 240), width=4)
        for k in range(1, 10):
            x = crib[0] + k * (crib[2] - crib[0]) // 10
            d.line([(x, crib[1]), (x, crib[3])], fill=(240, 240, 240), width=3)
        d.ellipse(frac(b, 0.4, 0.05, 0.6, 0.2), fill=(250, 200, 210), outline=BLACK)
    else:  # art studio: an easel with a canvas
        d.line([frac(b, 0.3, 0.95, 0, 0)[:2], frac(b, 0.5, 0.05, 0, 0)[:2]], fill=WOOD, width=5)
        d.line([frac(b, 0.7, 0.95, 0, 0)[:2], frac(b, 0.5, 0.05, 0, 0)[:2]], fill=WOOD, width=5)
        d.rectangle(frac(b, 0.25, 0.15, 0.75, 0.6), fill=WHITE, outline=BLACK)
        d.ellipse(frac(b, 0.32, 0.22, 0.5, 0.4), fill=(230, 120, 40))
        d.polygon(
            [frac(b, 0.45, 0.55, 0, 0)[:2], frac(b, 0.7, 0.55, 0, 0)[:2], frac(b, 0.6, 0.3, 0, 0)[:2]],
            fill=(60, 120, 200),
        )


def _dashboard_gist(d: Draw, b: Box, gist: str) -> None:
    s = card(d, b)
    cx, cy = (s[0] + s[2]) // 2, (s[1] + s[3]) // 2
    r = min(s[2] - s[0], s[3] - s[1]) // 3
    if gist == "sleep summary":
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(70, 70, 160))
        d.ellipse((cx - r // 3, cy - r, cx + r + r // 2, cy + r // 2), fill=WHITE)
    elif gist == "step summary":
        for dx, dy in ((-r // 2, r // 3), (r // 3, -r // 3)):
            d.ellipse(
                (cx + dx - r // 4, cy + dy - r // 2, cx + dx + r // 4, cy + dy + r // 2), fill=(60, 60, 60)
            )
    elif gist == "heart-rate summary":
        d.ellipse((cx - r, cy - r // 2, cx, cy + r // 3), fill=(220, 40, 60))
        d.ellipse((cx, cy - r // 2, cx + r, cy + r // 3), fill=(220, 40, 60))
        d.polygon([(cx - r, cy), (cx + r, cy), (cx, cy + r)], fill=(220, 40, 60))
    else:  # hydration: a water drop
        d.ellipse((cx - r // 1.5, cy - r // 4, cx + r // 1.5, cy + r), fill=(50, 140, 230))
        d.polygon(
            [(cx - r // 1.6, cy + r // 6), (cx + r // 1.6, cy + r // 6), (cx, cy - r)], fill=(50, 140, 230)
        )


def weather(img: Image.Image, boxes: list[Box], gist: str, rng: random.Random) -> None:
    """Weather over the sky band and the road: rain streaks, snow flakes, or a fog veil."""
    d = ImageDraw.Draw(img)
    for b in boxes:
        w, h = b[2] - b[0], b[3] - b[1]
        if gist == "foggy":
            veil = Image.new("RGB", (w, h), (222, 224, 228))
            img.paste(Image.blend(img.crop(b), veil, 0.6), b[:2])
            continue
        for _ in range(40 if gist in ("rainy", "snowy") else 0):
            x, y = b[0] + rng.randrange(w), b[1] + rng.randrange(max(1, h - 10))
            if gist == "rainy":
                d.line([(x, y), (x - 3, y + 10)], fill=(90, 120, 200), width=2)
            else:
                d.ellipse((x - 2, y - 2, x + 2, y + 2), fill=WHITE)


def draw_gist(d: Draw, kind: str, b: Box, gist: str, rng: random.Random) -> None:
    if kind == "room":
        _room_gist(d, b, gist)
    elif kind == "board":
        _board(d, b, gist, rng)
    elif kind == "dashboard":
        _dashboard_gist(d, b, gist)
    elif kind == "shelf":
        shelf.draw_gist(d, b, gist, rng)
    else:  # street: the road; weather is drawn by the scene composer over sky and road
        d.rectangle(b, fill=(90, 90, 96))
        cx = (b[0] + b[2]) // 2
        for y in range(b[1] + 6, b[3], 24):
            d.rectangle((cx - 3, y, cx + 3, y + 12), fill=(245, 245, 245))


GISTS = {
    "room": ("guest bedroom", "home office", "nursery", "art studio"),
    "board": ("chess", "checkers", "reversi", "backgammon"),
    "dashboard": ("sleep summary", "step summary", "heart-rate summary", "hydration summary"),
    "street": ("sunny", "rainy", "snowy", "foggy"),
    "shelf": shelf.GISTS,
}
