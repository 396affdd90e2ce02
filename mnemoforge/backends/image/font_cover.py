"""Fonts that cover the scripts of a theme's names and labels (Noto fonts from PyPI).

Pillow's built-in font draws Latin text; a text with a character it lacks is drawn in the first
Noto font whose character map covers the whole text (Noto Sans for accented Latin, Greek and
Cyrillic; Noto Sans Arabic; Noto Sans Devanagari; Noto Sans CJK SC for Han, kana and Hangul).
Coverage is read from each font's ``cmap`` with fontTools, so a name tag is never drawn as
missing-glyph boxes. Text in a script that needs shaping (Arabic joins, Devanagari conjuncts) is
laid out with Pillow's Raqm engine where Pillow has it (:func:`layout_engine`).
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import ImageFont

# (package, font file inside it, face index in a collection); tried in this order
FALLBACKS: tuple[tuple[str, str, int], ...] = (
    ("fontpkg_noto_sans", "files/NotoSans[wdth,wght].ttf", 0),
    ("fontpkg_noto_sans_arabic", "files/NotoSansArabic[wdth,wght].ttf", 0),
    ("fontpkg_noto_sans_devanagari", "files/NotoSansDevanagari[wdth,wght].ttf", 0),
    ("noto_cjk_sans_otc", "NotoSansCJK-Regular.ttc", 2),  # face 2 of the collection: Simplified Chinese
)


@dataclass(frozen=True)
class CoverFont:
    path: Path
    index: int
    chars: frozenset[int]

    def covers(self, text: str) -> bool:
        return all(ord(c) in self.chars for c in text if not c.isspace())


@functools.cache
def cover_fonts() -> tuple[CoverFont, ...]:
    """The fallback fonts that are installed, with the characters each maps."""
    from fontTools.ttLib import TTCollection, TTFont

    out = []
    for package, name, index in FALLBACKS:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        path = Path(next(iter(spec.submodule_search_locations))) / name
        if not path.is_file():
            continue
        if path.suffix == ".ttc":
            with TTCollection(str(path), lazy=True) as coll:
                cmap = coll.fonts[index].getBestCmap()
        else:
            with TTFont(str(path), lazy=True) as f:
                cmap = f.getBestCmap()
        out.append(CoverFont(path, index, frozenset(cmap)))
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def covering_font(text: str) -> CoverFont | None:
    """The first fallback font that maps every character of ``text`` (None: none does)."""
    return next((f for f in cover_fonts() if f.covers(text)), None)


@functools.lru_cache(maxsize=8192)
def covered(ch: str) -> bool:
    """Some fallback font maps ``ch``."""
    return any(ord(ch) in f.chars for f in cover_fonts())


@functools.cache
def layout_engine() -> int | None:
    """Pillow's Raqm layout engine where available (shapes Arabic and Devanagari), else None."""
    from PIL import features

    return ImageFont.Layout.RAQM if features.check("raqm") else None


@functools.lru_cache(maxsize=256)
def cover_truetype(path: Path, index: int, size: int) -> ImageFont.FreeTypeFont:
    """A fallback font loaded at ``size`` px (cached), with Raqm layout where Pillow has it."""
    return ImageFont.truetype(str(path), max(6, int(size)), index=index, layout_engine=layout_engine())


def pick_font(
    size: int,
    text: str,
    builtin: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    has_glyph: Callable[[str], bool],
) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """``builtin`` when it draws all of ``text``, else the first fallback font covering it."""
    if text and not all(map(has_glyph, text)):
        cf = covering_font(text)
        if cf is not None:
            return cover_truetype(cf.path, cf.index, size)
    return builtin


def fold(text: str, has_glyph: Callable[[str], bool]) -> str | None:
    """``text`` as it can be drawn: unchanged when the built-in font or one fallback font covers
    it, else None (the caller folds character by character)."""
    if all(map(has_glyph, text)) or covering_font(text) is not None:
        return text
    return None
