"""Colour helpers for the procedural drawings: RGB/box aliases, the ink colours and blending."""

from __future__ import annotations

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

BLACK: RGB = (20, 20, 24)
WHITE: RGB = (250, 250, 248)
GOLD: RGB = (230, 180, 40)


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
