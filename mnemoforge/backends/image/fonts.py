"""Fonts for the procedural drawings: the built-in font, a Noto font for text in other scripts
(``font_cover``), folding what no font has to its glyphs, text tags."""

from __future__ import annotations

import functools
import unicodedata

from PIL import ImageDraw, ImageFont

from mnemoforge.backends.image.colors import BLACK, RGB, WHITE, Box
from mnemoforge.backends.image.font_cover import fold, pick_font
from mnemoforge.generators.names import transliterate


@functools.lru_cache(maxsize=64)
def _builtin(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(6, int(size)))


def font(size: int, text: str = "") -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in scalable font at ``size`` px, or a Noto font covering ``text`` where the
    built-in one lacks a character of it (``font_cover``)."""
    return pick_font(size, text, _builtin(size), _glyph_ok)


@functools.lru_cache(maxsize=512)
def _glyph_ok(ch: str) -> bool:
    f = _builtin(20)
    return ch.isspace() or bytes(f.getmask(ch)) != bytes(f.getmask("\uffff"))


def renderable(text: str) -> str:
    """``text`` as drawn: kept when the built-in font or a Noto font covers it, else characters no
    font has folded to ASCII (``é`` -> ``e``), transliterated, or ``?``."""
    kept = fold(text, _glyph_ok)
    if kept is not None:
        return kept
    out = []
    for ch in text:
        if not _glyph_ok(ch):
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
            if not (base and all(_glyph_ok(c) for c in base)):
                base = transliterate(ch) if ch.isalpha() else ""
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
    text = renderable(text)
    f = font(size, text)
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=f)
    w, h = x1 - x0, y1 - y0
    pad = max(1, size // 5)
    left, top = round(cx - w / 2) - pad, round(cy - h / 2) - pad
    box = (left, top, left + w + 2 * pad, top + h + 2 * pad)
    draw.rectangle(box, fill=bg, outline=border)
    draw.text((left + pad - x0, top + pad - y0), text, fill=fg, font=f)
    return (box[0], box[1], box[2] + 1, box[3] + 1)
