"""OCR read-back of the values memeye pictures write (issue 30): the ``memeye_legible`` gate.

Every item's answer depends on facts; where such a fact is a **written** value (a declared label:
the level on a sign, the count on a board, the time on a screen, a tag; the name cards of a
table-top order; the name card of what a drawn person holds; the lines of a declared board; the
names of a declared map's locations, for the location its pin marks), the
gate crops the drawn box from each evidence picture (the layout the renderer recorded,
``episodes/memeye_layouts.jsonl``) and reads it back with RapidOCR (offline: the models ship in
its wheel). An item whose value does not read back as the World's value is rejected with a coded
reason: ``illegible:<key>`` (nothing read), ``misread:<key>`` (read as something else) or
``unlocated:<key>`` (the picture's layout has no box for it).

RapidOCR is the ``ocr`` extra (``pip install 'mnemoforge[ocr]'``); without it the family leaves
the gate out with one notice line (``gates_available``).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path
from typing import Any

from mnemoforge.generators.memeye.drawn import layouts
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import World
from mnemoforge.validators.gates import GateContext, verdict

log = logging.getLogger("mnemoforge.memeye")
BOARD_SEP, ORDER_SEP = ", ", " > "  # as ``generators/memeye/vocab``
MIN_SCORE = 0.6  # a reading below this recogniser confidence counts as illegible
NEAR = 0.75  # a card's reading at least this alike to its own declared name (and nearest to it)
DIGIT_LOOKALIKES = str.maketrans("0158", "olsb")  # a small name's letters read as digits ("compa55")
HEIGHT = 32  # px: each line of ink is scaled to this height before it is read


def ocr_available() -> bool:
    """Whether the ``ocr`` extra (``rapidocr-onnxruntime``) is installed."""
    return importlib.util.find_spec("rapidocr_onnxruntime") is not None


@cache
def _engine() -> Any:
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR()


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


@dataclass(frozen=True)
class Written:
    """One written value an item reads: the fact, its key, the value and where it is drawn."""

    fact: str
    key: str
    value: str
    choices: tuple[str, ...] = ()
    """The declared names a card shows one of (a table's objects, what a person may hold): a card
    is legible when its reading names its own object and no other; a label or a board, exact."""


def written_facts(world: World, q: Question) -> list[Written]:
    """The facts ``q`` reads whose value is written in the picture (a declared label, a declared
    board's lines, a table-top's name cards, the card of what a drawn person holds, the place names
    on a declared map)."""
    out = []
    for f in world.facts:
        if f.id not in q.facts_read or f.value is None:
            continue
        draws = json.loads(world.entity(f.subject).attrs.get("draws") or "{}")
        written = f.object in ("label", "order", "presence", "marked")
        if written or (f.object == "gist" and draws.get("board")):
            names = (draws.get("table") or {}).get("items") if f.object == "order" else None
            if f.object == "presence":
                names = (draws.get("person") or {}).get("holds")
            if f.object == "marked":
                names = (draws.get("map") or {}).get("places")
            out.append(Written(f.id, f.object, f.value, tuple(names or ())))
    return out


def _boxes(layout: dict, w: Written) -> list[tuple[list[int], str, bool]]:
    """(box, expected text, several lines) for one written value in one picture's layout."""
    if w.key == "label" and layout.get("label"):
        return [(layout["label"], w.value, False)]
    if w.key == "gist" and layout.get("gist"):
        return [(layout["gist"], " ".join(w.value.split(BOARD_SEP)), True)]
    if w.key == "order" and layout.get("table"):
        return [(r["card"], r["item"], True) for r in layout["table"]]
    if w.key == "presence" and (layout.get("person") or {}).get("card"):
        return [(layout["person"]["card"], w.value, True)]
    if w.key == "marked" and (layout.get("map") or {}).get("labels"):  # every name the options are among
        return [(box, name, True) for name, box in layout["map"]["labels"].items()]
    return []


def check_item(q: Question, ctx: GateContext, layouts: dict[str, dict]) -> tuple[bool, str]:
    """(legible, reason) for one item: every written value it reads, in every evidence picture
    showing it, reads back as the World's value."""
    wanted = written_facts(ctx.world, q)
    if not wanted:
        return True, "no written value"
    if ctx.media_root is None:  # a release's re-check (``mnemoforge verify``) reads no pictures
        return True, "pictures not at hand"
    read: list[str] = []
    for oid in q.evidence:
        o = ctx.observations.get(oid)
        if o is None or not o.media:
            continue
        shown = {e.fact for e in o.expresses}
        entry = layouts.get(oid)
        for w in (x for x in wanted if x.fact in shown):
            boxes = _boxes(entry["layout"], w) if entry else []
            if not boxes:
                return False, f"unlocated:{w.key}"
            if w.key == "order":  # the cards read left to right are the order
                expected = [n for n in w.value.split(ORDER_SEP)]
                if [b[1] for b in boxes] != expected:
                    return False, f"misread:{w.key}"
            for box, text, lines in boxes:
                got, score = read_cached(ctx.media_root / o.media[0], box, lines)
                if not got or score < MIN_SCORE:
                    return False, f"illegible:{w.key}"
                if not names(got, text, w.choices):
                    return False, f"misread:{w.key}"
                read.append(got)
    return True, "read back: " + "; ".join(read) if read else "no written value in its evidence"


class WrittenValuesLegible:
    """``memeye_legible``: each written value an item reads is legible in its pictures (OCR)."""

    name, version = "memeye_legible", "2"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        ok, reason = check_item(q, ctx, layouts(ctx.media_root))
        return verdict(self, q, ok, reason)


_NOTICE = {"said": False}


def legibility_gates() -> list[WrittenValuesLegible]:
    """The OCR gate when RapidOCR is installed, else none (one notice line per process)."""
    if ocr_available():
        return [WrittenValuesLegible()]
    if not _NOTICE["said"]:
        _NOTICE["said"] = True
        log.warning("memeye: OCR read-back of written values skipped (install the ocr extra: "
                    "pip install 'mnemoforge[ocr]')")  # fmt: skip
    return []
