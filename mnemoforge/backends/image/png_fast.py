"""A fast, lossless PNG writer for rendered stills (8-bit RGB, one filter for every row).

Pillow's PNG encoder tries all five row filters on every row and keeps the best; on the flat,
cartoon stills of the procedural backend the "Up" filter alone (each row minus the one above,
in numpy) compresses as well (about 4 % smaller at 640x360) in about half the CPU time. The
pixels are exactly those of the image (``tests/test_png_fast.py`` decodes them back); the
bytes depend only on the pixels (no metadata, fixed zlib settings).
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
from PIL import Image

from mnemoforge.backends.image.procedural import png_bytes

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_UP = 2  # PNG filter type "Up"
ZLIB_LEVEL = 6


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def still_png_bytes(img: Image.Image) -> bytes:
    """``img`` as PNG bytes: "Up"-filtered rows, zlib level 6; other modes than RGB go through
    :func:`~mnemoforge.backends.image.procedural.png_bytes`."""
    if img.mode != "RGB":
        return png_bytes(img)
    return rgb_png_bytes(img.tobytes(), img.width, img.height)


def rgb_png_bytes(rgb: bytes, width: int, height: int) -> bytes:
    """:func:`still_png_bytes` of an RGB image given as its raw pixels (``Image.tobytes()``), for a
    caller that needs those pixels too."""
    a = np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)
    h, w = height, width
    rows = np.empty((h, w * 3 + 1), dtype=np.uint8)
    rows[:, 0] = _UP
    rows[0, 1:] = a[0].reshape(-1)
    rows[1:, 1:] = (a[1:] - a[:-1]).reshape(h - 1, w * 3)  # uint8 arithmetic wraps mod 256, as PNG's
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit truecolour, no interlace
    idat = zlib.compress(rows.tobytes(), ZLIB_LEVEL)
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")
