"""Colour helpers: parsing (PIL.ImageColor), naming, the ink colours and blending.

One parser and one namer serve the procedural drawings, the diffusers prompts and the captions,
so a colour is called the same word in a prompt and in the caption of the picture it drew.
"""

from __future__ import annotations

from PIL import ImageColor

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

BLACK: RGB = (20, 20, 24)
WHITE: RGB = (250, 250, 248)
GOLD: RGB = (230, 180, 40)


# colour words by reference colour, for naming a theme's '#rrggbb' colours in text
HAIR_COLOURS = {
    "black": "#1a1a1a",
    "dark brown": "#3b2417",
    "brown": "#6b4226",
    "light brown": "#a0785a",
    "auburn": "#922724",
    "ginger": "#c8561e",
    "blonde": "#e3c16f",
    "golden blonde": "#d4a017",
    "platinum blonde": "#ece6cf",
    "grey": "#9a9a9a",
    "white": "#f2f2f2",
    "blue": "#2a5bd7",
    "pink": "#e26fa8",
    "green": "#2e9e4f",
    "purple": "#7b3fb0",
}
EYE_COLOURS = {
    "dark brown": "#2e1b10",
    "brown": "#5b3a21",
    "amber": "#b5722a",
    "hazel": "#8e7618",
    "green": "#3a7d44",
    "blue": "#2a6fb0",
    "light blue": "#8ab4e0",
    "grey": "#8a9499",
}
COLOURS = {
    "black": "#1b1b1b",
    "charcoal": "#333333",
    "grey": "#808080",
    "light grey": "#c8c8c8",
    "white": "#f5f5f5",
    "cream": "#f3e5c0",
    "beige": "#c2b280",
    "brown": "#6b4423",
    "tan": "#b5854b",
    "red": "#d0312d",
    "dark red": "#8b1a1a",
    "orange": "#f28c28",
    "yellow": "#f2c12e",
    "olive": "#708238",
    "green": "#2e8b57",
    "dark green": "#1e4d2b",
    "teal": "#008080",
    "light blue": "#8ab4e0",
    "blue": "#1f5fbf",
    "navy": "#1f2a50",
    "purple": "#6a3d9a",
    "pink": "#e58fb0",
}


def rgb(color: str | tuple[int, ...]) -> RGB:
    """``'#a1b2c3'`` -> ``(161, 178, 195)``; also ``'#abc'``, CSS names, and RGB(A) tuples."""
    if isinstance(color, tuple):
        return (int(color[0]), int(color[1]), int(color[2]))
    r, g, b = ImageColor.getrgb(color)[:3]
    return (r, g, b)


def lab(color: str | tuple[int, ...]) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour: distances there follow what people see."""

    def linear(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb(color))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(v: float) -> float:
        return v ** (1 / 3) if v > 216 / 24389 else (24389 / 27 * v + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def colour_name(color: str, palette: dict[str, str] = COLOURS) -> str:
    """The word in ``palette`` nearest to ``color`` in CIE L*a*b* (ΔE*76; ties: palette order),
    so a grey stays "grey" rather than the nearest tinted word by RGB distance."""
    target = lab(color)

    def dist(name: str) -> float:
        ref = lab(palette[name])
        return sum((p - q) ** 2 for p, q in zip(target, ref, strict=True))

    return min(palette, key=dist)


def hair_colour_name(color: str) -> str:
    """``'#e3c16f'`` -> ``'blonde'``: the hair word prompts and captions share."""
    return colour_name(color, HAIR_COLOURS)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """Linear blend from ``a`` (t=0) to ``b`` (t=1)."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def luma(c: RGB) -> float:
    """Relative brightness in 0..1."""
    return (0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) / 255


def contrast_shade(c: RGB, t: float = 0.45) -> RGB:
    """A visibly different shade of ``c``: lighter for dark colours, darker for light ones."""
    return mix(c, WHITE, t + 0.1) if luma(c) < 0.45 else mix(c, BLACK, t)
