"""Shared drawing helpers for the document/UI renderers in :mod:`documents`.

Everything here is pure and deterministic: fonts come from Pillow's bundled scalable
font (``ImageFont.load_default(size=N)``), colours are fixed, and nothing reads the
clock or a global random state.
"""

from __future__ import annotations

import math
import unicodedata
import zlib
from functools import cache, lru_cache

from PIL import Image, ImageDraw, ImageFont

from mnemoforge.backends.image import colors
from mnemoforge.backends.image.font_cover import fold, pick_font

Color = tuple[int, int, int]

WHITE: Color = (255, 255, 255)
INK: Color = (32, 33, 36)
MUTED: Color = (95, 99, 104)
FAINT: Color = (154, 160, 166)
RULE: Color = (218, 220, 224)

# Pillow's bundled font covers ASCII and a handful of extras; everything else is mapped
# to a legible ASCII spelling so no fact is drawn as an empty "tofu" box.
_FALLBACK: dict[str, str] = {
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2212": "-",
    "\u2022": "*",
    "\u2192": "->",
    "\u2190": "<-",
    "\u2713": "v",
    "\u00d7": "x",
    "\u00f7": "/",
    "\u20ac": "EUR ",
    "\u00a3": "GBP ",
    "\u00a5": "JPY ",
    "\u20b9": "INR ",
    "\u00df": "ss",
    "\u00f8": "o",
    "\u00d8": "O",
    "\u00e6": "ae",
    "\u00c6": "AE",
    "\u0153": "oe",
    "\u0152": "OE",
    "\u0141": "L",
    "\u0142": "l",
    "\u0131": "i",
    "\u00d0": "D",
    "\u00f0": "d",
    "\u00fe": "th",
    "\u2026": "...",
}

_PALETTE: tuple[Color, ...] = (
    (26, 115, 232),
    (217, 48, 37),
    (30, 142, 62),
    (227, 116, 0),
    (132, 48, 206),
    (0, 131, 143),
    (196, 43, 130),
    (95, 99, 104),
)


@cache
def _bundled(size: int) -> ImageFont.FreeTypeFont:
    loaded = ImageFont.load_default(size=size)
    if not isinstance(loaded, ImageFont.FreeTypeFont):  # pragma: no cover - needs FreeType-less Pillow
        raise TypeError("Pillow was built without FreeType; scalable default font unavailable")
    return loaded


def font(size: int, text: str = "") -> ImageFont.FreeTypeFont:
    """Pillow's bundled scalable font at ``size`` pixels, or a Noto font covering ``text`` where the
    bundled one lacks a character of it (``font_cover``: names in Arabic, Devanagari, Han...)."""
    return pick_font(size, text, _bundled(size), has_glyph)  # type: ignore[return-value]


@cache
def _notdef_mask() -> bytes:
    return bytes(_bundled(20).getmask("\uffff"))


@lru_cache(maxsize=8192)
def has_glyph(ch: str) -> bool:
    """True when the bundled font draws ``ch`` as a real glyph (not the missing-glyph box)."""
    return ch.isspace() or bytes(_bundled(20).getmask(ch)) != _notdef_mask()


@lru_cache(maxsize=4096)
def sanitize(text: str) -> str:
    """``text`` as drawn: kept when the bundled font or one Noto font covers it (``font_cover``);
    else characters no font draws replaced by ASCII spellings, ``?``, or nothing (emoji)."""
    if "\n" not in text and fold(text, has_glyph) is not None and text.isprintable():
        return text
    out: list[str] = []
    for ch in text:
        if ch == "\n":
            out.append(ch)
        elif ch.isspace():
            out.append(" ")
        elif has_glyph(ch):
            out.append(ch)
        elif ch in _FALLBACK:
            out.append(_FALLBACK[ch])
        else:
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
            if base and all(has_glyph(c) for c in base):
                out.append(base)
            elif unicodedata.category(ch) not in ("So", "Sk", "Mn", "Me", "Cf"):  # emoji etc. are dropped
                out.append("?")
    return "".join(out)


def rgb(color: str | Color) -> Color:
    """Parse ``'#rrggbb'``/named colours (or pass a tuple through) to an RGB tuple."""
    return colors.rgb(color)


def mix(a: Color, b: Color, t: float) -> Color:
    """Linear blend from ``a`` (t=0) to ``b`` (t=1)."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def name_color(name: str) -> Color:
    """A stable palette colour for a name (crc32, not the salted builtin hash)."""
    return _PALETTE[zlib.crc32(name.encode("utf-8")) % len(_PALETTE)]


def palette(i: int) -> Color:
    """The ``i``-th series colour."""
    return _PALETTE[i % len(_PALETTE)]


def initials(name: str) -> str:
    """Up to two initials of a name, e.g. ``'Ana Ruiz' -> 'AR'``."""
    titles = {"dr", "mr", "mrs", "ms", "mx", "prof", "sir", "dame"}
    parts = [
        p
        for p in sanitize(name).replace("-", " ").split()
        if p[:1].isalnum() and p.rstrip(".").lower() not in titles
    ]
    return "".join(p[0].upper() for p in parts[:2]) or "?"


def text_width(text: str, size: int, bold: bool = False) -> int:
    """Rendered width of one line in pixels."""
    text = sanitize(text)
    return math.ceil(font(size, text).getlength(text)) + (1 if bold else 0)


def line_height(size: int) -> int:
    """Ascent plus descent of the font at ``size``."""
    ascent, descent = font(size).getmetrics()
    return ascent + descent


def _break_word(word: str, size: int, max_width: int, bold: bool) -> list[str]:
    pieces: list[str] = []
    cur = ""
    for ch in word:
        if cur and text_width(cur + ch, size, bold) > max_width:
            pieces.append(cur)
            cur = ch
        else:
            cur += ch
    return pieces + [cur] if cur else pieces


def wrap_text(text: str, size: int, max_width: int, bold: bool = False) -> list[str]:
    """Greedy word-wrap to ``max_width`` pixels; explicit newlines are kept, long words split."""
    lines: list[str] = []
    for para in sanitize(text).split("\n"):
        cur = ""
        for word in para.split():
            trial = f"{cur} {word}" if cur else word
            if text_width(trial, size, bold) <= max_width:
                cur = trial
                continue
            if cur:
                lines.append(cur)
            if text_width(word, size, bold) <= max_width:
                cur = word
            else:
                *full, cur = _break_word(word, size, max_width, bold)
                lines.extend(full)
        lines.append(cur)
    return lines or [""]


def fit_text(text: str, size: int, max_width: int, bold: bool = False) -> str:
    """Truncate one line with an ellipsis so it fits ``max_width`` (used only for decoration)."""
    text = sanitize(text)
    if text_width(text, size, bold) <= max_width:
        return text
    while text and text_width(text + "...", size, bold) > max_width:
        text = text[:-1]
    return text.rstrip() + "..."


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: Color,
    bold: bool = False,
    anchor: str = "la",
    halo: Color | None = None,
) -> None:
    """Draw one line; ``bold`` is a one-pixel double strike (the bundled font has no bold face).

    ``halo`` paints a 2-pixel outline of that colour behind the glyphs (labels over lines).
    """
    text = sanitize(text)
    if halo is not None:
        for dx in (0, 1) if bold else (0,):
            draw.text(
                (xy[0] + dx, xy[1]),
                text,
                font=font(size, text),
                fill=halo,
                anchor=anchor,
                stroke_width=2,
                stroke_fill=halo,
            )
    draw.text(xy, text, font=font(size, text), fill=fill, anchor=anchor)
    if bold:
        draw.text((xy[0] + 1, xy[1]), text, font=font(size, text), fill=fill, anchor=anchor)


def draw_lines(
    draw: ImageDraw.ImageDraw,
    x: float,
    y: float,
    lines: list[str],
    size: int,
    fill: Color,
    spacing: float = 1.0,
    bold: bool = False,
) -> int:
    """Draw wrapped lines top-down from ``(x, y)``; returns the y below the last line."""
    step = round(line_height(size) * spacing)
    for line in lines:
        draw_text(draw, (x, y), line, size, fill, bold)
        y += step
    return round(y)


def block_height(n_lines: int, size: int, spacing: float = 1.0) -> int:
    """Height taken by ``n_lines`` drawn with :func:`draw_lines`."""
    return n_lines * round(line_height(size) * spacing)


def aa_shape(
    img: Image.Image,
    box: tuple[int, int, int, int],
    fill: Color,
    radius: int | None = None,
    ellipse: bool = False,
    scale: int = 4,
) -> None:
    """Paste an anti-aliased rounded rectangle or ellipse (supersampled mask) onto ``img``."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if w <= 0 or h <= 0:
        return
    mask = Image.new("L", (w * scale, h * scale), 0)
    md = ImageDraw.Draw(mask)
    if ellipse:
        md.ellipse((0, 0, w * scale - 1, h * scale - 1), fill=255)
    else:
        md.rounded_rectangle((0, 0, w * scale - 1, h * scale - 1), radius=(radius or 0) * scale, fill=255)
    mask = mask.resize((w, h), Image.Resampling.LANCZOS)
    img.paste(Image.new("RGB", (w, h), fill), (x0, y0), mask)


def paste_circle_avatar(
    img: Image.Image, center: tuple[int, int], diameter: int, name: str, avatar: Image.Image | None
) -> None:
    """Draw a round avatar: the given picture cropped to a circle, or initials on a name colour."""
    x0, y0 = center[0] - diameter // 2, center[1] - diameter // 2
    if avatar is None:
        aa_shape(img, (x0, y0, x0 + diameter, y0 + diameter), name_color(name), ellipse=True)
        draw = ImageDraw.Draw(img)
        draw_text(draw, center, initials(name), max(10, diameter * 2 // 5), WHITE, bold=True, anchor="mm")
        return
    src = avatar.convert("RGB")
    side = min(src.size)
    left, top = (src.width - side) // 2, (src.height - side) // 2
    src = src.crop((left, top, left + side, top + side))
    src = src.resize((diameter, diameter), Image.Resampling.LANCZOS)
    scale = 4
    mask = Image.new("L", (diameter * scale, diameter * scale), 0)
    ImageDraw.Draw(mask).ellipse((0, 0, diameter * scale - 1, diameter * scale - 1), fill=255)
    img.paste(src, (x0, y0), mask.resize((diameter, diameter), Image.Resampling.LANCZOS))


def fmt_number(value: float) -> str:
    """Human number: thousands separators, at most two decimals, no trailing zeros."""
    if math.isclose(value, round(value), abs_tol=1e-9):
        return f"{round(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def with_unit(value: float, unit: str) -> str:
    """Format ``value`` with ``unit``: currency symbols prefix, ``%`` hugs, others follow a space."""
    num = fmt_number(value)
    if not unit:
        return num
    if unit in ("$", "\u20ac", "\u00a3", "\u00a5"):
        return f"-{unit}{num[1:]}" if num.startswith("-") else f"{unit}{num}"
    if unit in ("%", "\u00b0", "\u00b0C", "\u00b0F"):
        return f"{num}{unit}"
    return f"{num} {unit}"


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Round axis ticks covering ``[lo, hi]`` with a 1/2/2.5/5 x 10^k step."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError("chart values must be finite")
    if hi <= lo:  # a flat range: centre it
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    raw = (hi - lo) / max(1, target)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * (1 - 1e-9))
    start = math.floor(lo / step + 1e-9) * step
    end = math.ceil(hi / step - 1e-9) * step
    count = round((end - start) / step)
    return [round(start + i * step, 10) for i in range(count + 1)]
