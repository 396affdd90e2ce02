"""The fast still PNG writer is lossless and deterministic."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from mnemoforge.backends.image.png_fast import rgb_png_bytes, still_png_bytes
from mnemoforge.backends.image.procedural import png_bytes


def _image(seed: int, w: int = 64, h: int = 36) -> Image.Image:
    rng = np.random.default_rng(seed)
    a = np.zeros((h, w, 3), dtype=np.uint8)
    a[: h // 2] = (200, 210, 230)  # flat areas, as in the cartoon stills
    a[h // 2 :, : w // 3] = (250, 5, 0)
    a[3:9, 7:20] = rng.integers(0, 256, (6, 13, 3), dtype=np.uint8)  # and values that wrap mod 256
    a[-1] = 255
    return Image.fromarray(a)


def test_pixels_round_trip_and_bytes_are_stable() -> None:
    for seed in range(3):
        img = _image(seed)
        data = still_png_bytes(img)
        back = Image.open(io.BytesIO(data))
        back.load()
        assert back.mode == "RGB" and back.size == img.size
        assert np.array_equal(np.asarray(back), np.asarray(img))
        assert data == still_png_bytes(_image(seed))  # depends on the pixels only
        assert data == rgb_png_bytes(img.tobytes(), img.width, img.height)  # from raw pixels alike


def test_other_modes_use_the_pillow_writer() -> None:
    img = _image(0).convert("RGBA")
    assert still_png_bytes(img) == png_bytes(img)
