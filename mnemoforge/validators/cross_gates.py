"""The gates of the cross items (``generators/cross_items.py``; docs/cross-family.md), run after the exact
gates every item passes and before the shared item and panel gates (``gate_runner.gate_list``).

- ``cross_rederive``: the program on the whole merged World gives the stored answer (the shared
  ``symbolic_rederive`` runs it on the evidence alone), and a place bridge's place is the one the
  World gives its picture log;
- ``evidence_families``: each fact read has its evidence, and the evidence comes from at least two
  families;
- ``one_family_insufficient``: the program run on each family's facts alone fails (its bridge or
  its property is missing there): no family answers the item by itself;
- ``cross_options``: at least three options of the answer's type, the answer once among them, no
  distractor also true of the person asked about, the answer not written in the question.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mnemoforge.generators.cross_bridges import NoAnswer, args_disagree
from mnemoforge.generators.cross_items import MIN_OPTIONS, CrossResult, family_of
from mnemoforge.generators.cross_program import run_program
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import World
from mnemoforge.validators.gates import Gate, GateContext, verdict


class CrossRederive:
    name, version = "cross_rederive", "2"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        try:
            answer, read = run_program(ctx.world, ctx.world.facts, q.program.args)
        except NoAnswer as e:
            return verdict(self, q, False, f"the program fails on the World: {e}")
        wrong = args_disagree(ctx.world, q.program.args["bridge"])
        if wrong:
            return verdict(self, q, False, f"the args disagree with the World: {wrong}")
        if answer != q.answer or read != q.facts_read:
            return verdict(self, q, False, f"the World gives {answer!r} from {read}")
        return verdict(self, q, True, "the program gives the stored answer")


class EvidenceFamilies:
    name, version = "evidence_families", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        fams = sorted({family_of(e) for e in q.evidence})
        shown = {f for e in q.evidence if e in ctx.observations for f in ctx.observations[e].fact_ids()}
        unshown = [f for f in q.facts_read if f not in shown]
        if unshown or len(fams) < 2:
            return verdict(self, q, False, f"evidence from {fams}; facts without evidence {unshown}")
        return verdict(self, q, True, f"evidence from {fams}", families=float(len(fams)))


class OneFamilyInsufficient:
    name, version = "one_family_insufficient", "1"

    def __init__(self, sources: Mapping[str, str]) -> None:
        self.sources = sources  # fact id -> family

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        alone = []
        for fam in sorted(set(self.sources.values())):
            facts = [f for f in ctx.world.facts if self.sources.get(f.id) == fam]
            try:
                got, _ = run_program(ctx.world, facts, q.program.args)
            except NoAnswer:
                continue
            alone.append(f"{fam} alone gives {got!r}")
        if alone:
            return verdict(self, q, False, "; ".join(alone))
        return verdict(self, q, True, "no family answers it alone")


class CrossOptions:
    name, version = "cross_options", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        opts = q.options or []
        also = _also_true(ctx.world, q)
        if len(opts) < MIN_OPTIONS or opts.count(q.answer) != 1 or also:
            return verdict(self, q, False, f"options {opts} (also true of the person: {also})")
        if q.answer.lower() in q.question.lower():
            return verdict(self, q, False, "the question writes the answer")
        return verdict(self, q, True, f"{len(opts)} options, one true", options=float(len(opts)))


def _also_true(world: World, q: Question) -> list[str]:
    """Distractors also true of the person asked about (another habit of theirs, ...)."""
    p = q.program.args["property"]
    person = q.target_people[0] if q.target_people else ""
    true = set()
    for f in world.facts:
        if f.subject != person:
            continue
        if p["kind"] == "habit" and f.kind == "habit":
            true.add(f.object)
        elif p["kind"] in ("profile", "preference") and f.object == p.get("key") and f.kind != "relation":
            true.add(str(f.value))
        elif p["kind"] == "member" and f.kind == "member" and f.value == p["entity_kind"]:
            true.add(world.entity(f.object).name)
    return [o for o in (q.options or [])[1:] if o in true]


def cross_gates(sources: Mapping[str, str]) -> list[Gate]:
    """The cross items' own gates, in order."""
    return [CrossRederive(), EvidenceFamilies(), OneFamilyInsufficient(sources), CrossOptions()]


def run_cross_gates(
    theme: Theme,
    world: World,
    sources: Mapping[str, str],
    cands: list[Question],
    observations: Mapping[str, Observation],
    cache_dir: Path | None = None,
) -> CrossResult:
    """Every gate a family's items pass (``gate_runner.run_all_gates``: the exact gates, these
    cross gates as the family's own, then the item and panel gates the theme's ``gates:`` seat)."""
    from mnemoforge.validators import gate_runner
    from mnemoforge.validators import gates as gates_mod

    gctx = GateContext(world, dict(observations), cands)
    run = gate_runner.run_all_gates(
        cands, gctx, theme.gates, cache_dir=cache_dir, family_gates=cross_gates(sources)
    )
    kept = gates_mod.kept_ids(run.verdicts)
    funnel = gates_mod.funnel(cands, run.verdicts, run.gates)
    return CrossResult(cands, run.verdicts, funnel, [q for q in cands if q.id in kept])
