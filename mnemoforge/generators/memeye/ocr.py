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

import json
import logging
from dataclasses import dataclass

from mnemoforge.backends.image.read_back import (  # noqa: F401  (re-exported: the gate's reading)
    MIN_SCORE,
    names,
    normal,
    ocr_available,
    read_cached,
    read_text,
)
from mnemoforge.generators.memeye.drawn import layouts
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import World
from mnemoforge.validators.gates import GateContext, verdict

log = logging.getLogger("mnemoforge.memeye")
BOARD_SEP, ORDER_SEP = ", ", " > "  # as ``generators/memeye/vocab``


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
