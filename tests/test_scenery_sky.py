"""The sky gradient pasted from its cache is the one drawn line by line, pixel for pixel."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from mnemoforge.backends.image.colors import mix
from mnemoforge.backends.image.scenery import SKY, sky, sky_colours


def _lines(img: Image.Image, box: tuple[int, int, int, int], tod: str, wx: str) -> None:
    """The previous drawing of ``sky``: one horizontal line per row."""
    x0, y0, x1, y1 = box
    top, bottom = sky_colours(tod, wx)
    draw = ImageDraw.Draw(img)
    n = max(1, y1 - y0)
    for i in range(n):
        draw.line([(x0, y0 + i), (x1 - 1, y0 + i)], fill=mix(top, bottom, i / n))


def test_cached_sky_equals_the_line_drawn_one() -> None:
    for box in [(0, 0, 640, 216), (32, 40, 160, 141), (600, 300, 700, 400), (5, 5, 6, 9)]:
        for tod in SKY:
            for wx in ("clear", "rain", "fog"):
                a = Image.new("RGB", (640, 360), (1, 2, 3))
                b = a.copy()
                sky(ImageDraw.Draw(a), box, tod, wx)
                _lines(b, box, tod, wx)
                assert np.array_equal(np.asarray(a), np.asarray(b)), (box, tod, wx)
