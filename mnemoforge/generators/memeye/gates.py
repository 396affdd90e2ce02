"""Exact gates of the visual family (MemEye): taxonomy audit and pixel-only evidence.

* ``memeye_taxonomy``: Y1 has exactly one evidence unit; Y2 has at least two, with no two facts of
  the same scene and key disagreeing; Y3 reads an earlier state and a later override of the same
  scene and key, the latest round comes after the stale one, the answer is the latest value, and
  the latest showing of the current state is a clue round (evidence or an alternative);
  the X label is the highest granularity among the facts read through pictures.
* ``memeye_pixel_only``: every X3/X4 fact the program read reaches the evidence only through the
  ``pixel`` channel, and its value is in no evidence text (nor in the minimal caption, which is
  that text plus an ``[image: kind]`` tag).
* ``memeye_options``: the MCQ has no structural tell: a Y3 item offers its stale state; a total
  offers no addend and no option that is the sum of two others; pair slots are balanced (each
  slot value twice); a label answer is not the one option all others are one edit from.
"""

from __future__ import annotations

import re

from mnemoforge.schemas.observations import Channel, Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import Fact
from mnemoforge.validators.gates import Gate, GateContext, verdict
from mnemoforge.validators.panel_gates import minimal_caption

VISUAL = {Channel.scene, Channel.pixel}


def _evidence(q: Question, ctx: GateContext) -> list[Observation]:
    return [ctx.observations[e] for e in q.evidence if e in ctx.observations]


def _read(q: Question, ctx: GateContext) -> list[Fact]:
    ids = set(q.facts_read)
    return [f for f in ctx.world.facts if f.id in ids]


class TaxonomyAudit:
    """The (X, Y) labels match the structure of the evidence (MemEye's reasoning-structure audit)."""

    name, version = "memeye_taxonomy", "2"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        x, y = q.labels.get("x"), q.labels.get("y")
        ev = _evidence(q, ctx)
        read = _read(q, ctx)
        read_ids = {f.id for f in read}
        grains = [
            e.granularity
            for o in ev
            for e in o.expresses
            if e.fact in read_ids and e.channel in VISUAL and e.granularity
        ]
        if not grains:
            return verdict(self, q, False, "no fact read through a picture")
        if x != max(grains):
            return verdict(self, q, False, f"x label {x} is not the highest granularity read ({max(grains)})")
        groups: dict[tuple[str, str], list[Fact]] = {}
        for f in read:
            groups.setdefault((f.subject, f.object), []).append(f)
        changed = {k: fs for k, fs in groups.items() if len({f.value for f in fs}) > 1}
        n = len(ev)
        if y == "Y1":
            ok = n == 1 and not changed
            return verdict(self, q, ok, "one evidence unit" if ok else f"Y1 needs one unit, has {n}", units=n)
        if y == "Y2":
            if n < 2:
                return verdict(self, q, False, f"Y2 needs several units, has {n}", units=n)
            if changed:
                return verdict(self, q, False, f"Y2 evidence conflicts on {sorted(changed)}", units=n)
            return verdict(self, q, True, f"{n} non-conflicting units", units=n)
        if y == "Y3":
            if not changed:
                return verdict(self, q, False, "Y3 without an earlier state and a later override", units=n)
            for fs in changed.values():
                fs = sorted(fs, key=lambda f: (f.at, f.id))
                stale, latest = fs[0], fs[-1]
                if q.answer != latest.value:
                    return verdict(
                        self, q, False, f"answer {q.answer!r} is not the latest state {latest.value!r}"
                    )
                first = {
                    f.id: min((o.order for o in ev if f.id in o.fact_ids()), default=-1)
                    for f in (stale, latest)
                }
                if first[stale.id] < 0 or first[latest.id] < 0:
                    return verdict(self, q, False, "evidence lacks the stale or the latest round")
                if first[latest.id] <= first[stale.id]:
                    return verdict(self, q, False, "the latest round does not come after the stale one")
                gap = float(first[latest.id] - first[stale.id])
                shown = [o for o in ctx.observations.values() if latest.id in o.fact_ids()]
                last = max(shown, key=lambda o: o.order).id
                if last not in {*q.evidence, *q.evidence_alternatives}:
                    return verdict(
                        self, q, False, f"the latest showing of the current state ({last}) is no clue round"
                    )
            return verdict(self, q, True, "stale state overridden by a later round", units=n, gap=gap)
        return verdict(self, q, False, f"unknown y label {y!r}")


class PixelOnly:
    """X3/X4 facts only in pixels: never in the round's text or its minimal caption."""

    name, version = "memeye_pixel_only", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        ev = _evidence(q, ctx)
        read = {f.id: f for f in _read(q, ctx)}
        fine = 0
        for o in ev:
            texts = (o.content.lower(), minimal_caption(o).lower())
            for e in o.expresses:
                if e.fact not in read or e.granularity not in ("X3", "X4"):
                    continue
                fine += 1
                if e.channel != Channel.pixel:
                    return verdict(
                        self, q, False, f"{e.fact} ({e.granularity}) expressed via {e.channel} in {o.id}"
                    )
                value = (read[e.fact].value or "").lower()
                if value and any(re.search(rf"(?<![\w$]){re.escape(value)}(?!\w)", t) for t in texts):
                    return verdict(self, q, False, f"text leak: value of {e.fact} in the text of {o.id}")
        return verdict(self, q, True, f"{fine} fine-grained expressions only in pixels", fine=float(fine))


def _fields(o: str) -> list[str]:
    return re.findall(r"[A-Z]|\d+", o)


def _one_edit(a: str, b: str) -> bool:
    fa, fb = _fields(a), _fields(b)
    return len(fa) == len(fb) > 0 and sum(x != y for x, y in zip(fa, fb, strict=True)) == 1


class OptionStructure:
    """Option sets carry no structural tell an option-only solver could use."""

    name, version = "memeye_options", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        opts = q.options
        if not opts:
            return verdict(self, q, True, "open-ended only")
        read = sorted(_read(q, ctx), key=lambda f: (f.at, f.id))
        if q.labels.get("y") == "Y3":
            stale = [f.value for f in read if f.value != q.answer]
            if not stale or stale[0] not in opts[1:]:
                return verdict(self, q, False, "Y3 options lack the stale state")
        if q.program.fn == "visual_total":
            nums = [int(o) for o in opts]
            if {f.value for f in read} & set(opts):
                return verdict(self, q, False, "a total offers one of its addends")
            if any(
                n == a + b for n in nums for i, a in enumerate(nums) for b in nums[i + 1 :] if n not in (a, b)
            ):
                return verdict(self, q, False, "an option is the sum of two others")
        if all(" / " in o for o in opts):
            for k in (0, 1):
                counts = [sum(o.split(" / ")[k] == p.split(" / ")[k] for p in opts) for o in opts]
                if set(counts) != {2}:
                    return verdict(self, q, False, f"pair slot {k + 1} is unbalanced")
        elif q.labels.get("key") == "label":
            near = {o: sum(_one_edit(o, p) for p in opts if p != o) for o in opts}
            if near[q.answer] > max(v for o, v in near.items() if o != q.answer):
                return verdict(self, q, False, "the answer is the centre of near-variant options")
        return verdict(self, q, True, "no structural tell in the options")


MEMEYE_GATES = [TaxonomyAudit(), PixelOnly(), OptionStructure()]


def family_gates() -> list[Gate]:
    """The family's gates: the three above, the render audit per item (``memeye_drawn``) and, with
    the ``ocr`` extra, the OCR read-back of written values (``memeye_legible``)."""
    from mnemoforge.generators.memeye.drawn import FactsDrawn
    from mnemoforge.generators.memeye.ocr import legibility_gates

    return [*MEMEYE_GATES, FactsDrawn(), *legibility_gates()]
