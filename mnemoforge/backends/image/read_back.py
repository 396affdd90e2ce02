"""Reading written values back from drawn pictures with RapidOCR (issue 30), offline: the models
ship in its wheel. Both picture families use it: memeye's ``memeye_legible`` gate
(``generators/memeye/ocr.py``) and the album's render audit of drawn parts
(``generators/icm/drawn_parts.py``). The pictures are flat drawings, so a text box's lines of ink
are found by their rows and each is read by the recogniser alone (no detector).

RapidOCR is the ``ocr`` extra (``pip install 'mnemoforge[ocr]'``).
"""

from __future__ import annotations

import importlib.util
import os
import re
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path
from typing import Any

MIN_SCORE = 0.6  # a reading below this recogniser confidence counts as illegible
NEAR = 0.75  # a card's reading at least this alike to its own declared name (and nearest to it)
DIGIT_LOOKALIKES = str.maketrans("0158", "olsb")  # a small name's letters read as digits ("compa55")
HEIGHT = 32  # px: each line of ink is scaled to this height before it is read


def ocr_available() -> bool:
    """Whether the ``ocr`` extra (``rapidocr-onnxruntime``) is installed."""
    return importlib.util.find_spec("rapidocr_onnxruntime") is not None


def _threads() -> dict[str, int]:
    """ONNX Runtime's thread counts: ``OMP_NUM_THREADS`` where the environment sets a thread budget
    (each test worker sets 1: one thread reads the same text for about two thirds of the CPU time
    two spend), else ONNX Runtime's default (every core)."""
    n = os.environ.get("OMP_NUM_THREADS", "")
    return {"intra_op_num_threads": int(n), "inter_op_num_threads": 1} if n.isdigit() and int(n) > 0 else {}


@cache
def _engine() -> Any:
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR(**_threads())


def normal(text: str) -> str:
    """Lower case letters and digits only ("14:30" and "1430" read alike; "Map case" = "mapcase")."""
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _bands(gray: Any) -> list[tuple[int, int]]:
    """The rows of ink of a text crop (a grey array, ink darker than paper) grouped into lines."""
    rows = (gray < 128).sum(axis=1) > 0
    out, start = [], None
    for y, ink in enumerate([*rows, False]):
        if ink and start is None:
            start = y
        elif not ink and start is not None:
            if y - start >= 4:  # a line of text, not a stray pixel row
                out.append((start, y))
            start = None
    return out


def _unframed(gray: Any) -> Any:
    """``gray`` without the frame lines round the text (edge rows or columns mostly ink) and the
    few pixels beyond them (a rounded corner)."""
    for _ in range(2):
        gray = gray.T
        ink = (gray < 128).mean(axis=1)
        framed = [i for i in range(min(8, len(ink))) if ink[i] > 0.5]
        top = max(framed) + 2 if framed else 0
        framed = [i for i in range(len(ink) - 1, max(-1, len(ink) - 9), -1) if ink[i] > 0.5]
        bottom = min(framed) - 1 if framed else len(ink)
        gray = gray[top:bottom] if bottom - top > 4 else gray
    return gray


_READ: dict[tuple, tuple[str, float]] = {}


def read_text(img: Any, box: list[int], lines: bool = False) -> tuple[str, float]:
    """The text written in ``box`` of a PIL image and the recogniser's lowest confidence. The box's
    frame is cut off, the lines of ink are found by their rows (the pictures are flat drawings) and
    each is read by the recogniser alone, scaled to ``HEIGHT``."""
    import numpy as np

    x0, y0, x1, y1 = box
    gray = np.asarray(img.convert("L").crop((x0 + 1, y0 + 1, x1 - 1, y1 - 1)))
    if gray.size and gray.mean() < 110:  # light text on a dark screen
        gray = 255 - gray
    gray = _unframed(gray)
    bands = _bands(gray) if lines else [(0, gray.shape[0])]
    texts, scores = [], []
    for top, bottom in bands:
        if lines:
            top, bottom = max(0, top - 4), min(gray.shape[0], bottom + 4)
        strip = gray[top:bottom]
        cols = np.nonzero((strip < 128).sum(axis=0))[0]
        if not len(cols):
            continue
        strip = np.pad(strip[:, max(0, cols[0] - 4) : cols[-1] + 5], ((0, 0), (4, 4)), constant_values=255)
        k = HEIGHT / max(1, strip.shape[0])
        from PIL import Image

        big = Image.fromarray(strip).resize((max(8, round(strip.shape[1] * k)), HEIGHT), Image.BILINEAR)
        res, _ = _engine()(np.asarray(big.convert("RGB")), use_det=False, use_cls=False, use_rec=True)
        for text, score in res or []:
            if not text.strip():  # ink that is no text (an easel's legs, a frame's corner)
                continue
            texts.append(text)
            scores.append(float(score))
    return " ".join(texts), min(scores, default=0.0)


def read_cached(path: Path, box: list[int], lines: bool) -> tuple[str, float]:
    """``read_text`` of a picture file, once per (file, box) in a process (items share pictures)."""
    key = (str(path), tuple(box), lines)
    if key not in _READ:
        from PIL import Image

        with Image.open(path) as img:
            _READ[key] = read_text(img, box, lines)
    return _READ[key]


def names(got: str, text: str, choices: tuple[str, ...] = ()) -> bool:
    """Whether a reading ``got`` is ``text``: exactly (letters and digits), or, among declared
    ``choices``, ``text`` is the one choice it is nearest to and at least ``NEAR`` alike."""
    if normal(got) == normal(text):
        return True
    if text not in choices:
        return False
    read = normal(got).translate(DIGIT_LOOKALIKES) if not any(ch.isdigit() for ch in text) else normal(got)
    like = {c: SequenceMatcher(None, read, normal(c)).ratio() for c in choices}
    best = max(like.values())
    return like[text] == best >= NEAR and sum(v == best for v in like.values()) == 1
