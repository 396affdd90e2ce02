"""Gates decide which candidates survive. Each returns a Verdict with a reason; none drops silently."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from mnemoforge.generators.questions.fairness import near_duplicates
from mnemoforge.generators.questions.programs import FactView, Unanswerable
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import World
from mnemoforge.validators.solver import solve, view_of


@dataclass
class GateContext:
    """What gates may look at: the World, every observation, all candidates (for family-level
    checks), the run folder holding media, and the answerer panels configured per gate."""

    world: World
    observations: dict[str, Observation]
    questions: list[Question] = field(default_factory=list)
    media_root: Path | None = None
    panels: dict[str, Any] = field(default_factory=dict)
    max_answer_share: float = 0.5
    survivors: set[str] | None = None
    """Ids no earlier gate rejected (set by the gate runner before ``answer_balance``)."""
    quotas: dict[str, int] | None = None
    """Per category, how many items the release keeps (families that over-generate candidates)."""
    keep_split: bool = False
    """Scale every quota down with the scarcest category, so the requested shares hold."""
    review_excluded: set[str] = field(default_factory=set)
    """Ids only the human review rejected: they still count when quotas are scaled, so excluding an
    item frees its own slot (filled by the next survivor of its category) instead of shrinking every
    category (set by the gate runner before ``answer_balance``)."""
    _source_views: dict[tuple[str, int | None], FactView] = field(
        default_factory=dict, init=False, repr=False
    )  # source_view's views

    @cached_property
    def by_source(self) -> dict[str, list[Observation]]:
        """Observations grouped by source, in stream order (for single-source checks)."""
        out: dict[str, list[Observation]] = {}
        for o in sorted(self.observations.values(), key=lambda o: (o.order, o.id)):
            out.setdefault(o.source, []).append(o)
        return out

    def source_view(self, source: str, cutoff: int | None) -> FactView:
        """The facts ``source``'s observations express up to ``cutoff`` (``solver.view_of``), made
        once per source and cutoff: a single-source check asks each source for every item."""
        key = (source, cutoff)
        view = self._source_views.get(key)
        if view is None:
            view = self._source_views[key] = view_of(self.world, self.by_source.get(source, ()), cutoff)
        return view

    @cached_property
    def near_duplicates(self) -> dict[str, str]:
        """Item id -> the earlier item it repeats (``UniqueQuestion``)."""
        return near_duplicates(self.questions)

    @cached_property
    def ids_by_text(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for q in self.questions:
            out.setdefault(q.question.lower(), []).append(q.id)
        return {k: sorted(v) for k, v in out.items()}


class Gate(Protocol):
    name: str
    version: str

    def check(self, q: Question, ctx: GateContext) -> Verdict: ...


@runtime_checkable
class Prepares(Protocol):
    """A gate that computes something for all the items it is about to check at once (the
    runner calls ``prepare`` with the items whose verdicts are not cached, before checking them):
    a verdict never depends on it, only the time does."""

    def prepare(self, questions: list[Question], ctx: GateContext) -> None: ...


def verdict(gate: Gate, q: Question, keep: bool, reason: str, **scores: float) -> Verdict:
    return Verdict(
        item=q.id, gate=gate.name, gate_version=gate.version, keep=keep, reason=reason, scores=scores
    )


class EvidenceResolves:
    """Every evidence id names an existing, evidence-eligible observation (never the calibration clip)."""

    name, version = "evidence_resolves", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        if not q.evidence:
            return verdict(self, q, False, "no evidence")
        missing = [e for e in q.evidence if e not in ctx.observations]
        if missing:
            return verdict(self, q, False, f"unknown evidence ids: {missing}")
        ineligible = [e for e in q.evidence if not ctx.observations[e].evidence_eligible]
        if ineligible:
            return verdict(self, q, False, f"evidence not eligible (calibration): {ineligible}")
        return verdict(self, q, True, f"{len(q.evidence)} evidence ids resolve", n_evidence=len(q.evidence))


class CutoffValid:
    """The latest accessible episode comes at or after every evidence observation."""

    name, version = "cutoff_valid", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        orders = [ctx.observations[e].order for e in q.evidence if e in ctx.observations]
        if not orders:
            return verdict(self, q, False, "no resolvable evidence to place the cutoff after")
        last = max(orders)
        if q.cutoff is not None and q.cutoff < last:
            return verdict(
                self, q, False, f"cutoff {q.cutoff} precedes evidence at {last}", gap=q.cutoff - last
            )
        gap = -1.0 if q.cutoff is None else float(q.cutoff - last)
        return verdict(self, q, True, "evidence before cutoff", gap=gap)


class SymbolicRederive:
    """The program, run on the evidence alone, re-derives the stored answer."""

    name, version = "symbolic_rederive", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        evidence = [ctx.observations[e] for e in q.evidence if e in ctx.observations]
        try:
            got = solve(q, ctx.world, evidence)
        except Unanswerable as e:
            return verdict(self, q, False, f"evidence does not determine the answer: {e}", match=0.0)
        except KeyError as e:
            return verdict(self, q, False, f"program error: unknown {e}", match=0.0)
        if got != q.answer:
            return verdict(
                self, q, False, f"evidence gives {got!r}, stored answer is {q.answer!r}", match=0.0
            )
        return verdict(self, q, True, "answer re-derived from evidence", match=1.0)


class UniqueQuestion:
    """No two kept items ask the same thing (the first by id wins): the same text; the same
    normalised text with the same answer; or the same program and arguments but for their time
    window, one window inside the other, with the same answer ("in July" and "between May and
    October" both keyed "2": the wider asks nothing the narrower does not)."""

    name, version = "unique_question", "2"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        same = ctx.ids_by_text.get(q.question.lower(), [])
        if same and same[0] != q.id:
            return verdict(
                self, q, False, f"duplicate question: same text as {same[0]}", duplicates=len(same)
            )
        first = ctx.near_duplicates.get(q.id)
        if first:
            return verdict(self, q, False, f"near-duplicate question: {first}", duplicates=2.0)
        return verdict(self, q, True, "question text is unique", duplicates=len(same))


class CategoryRules:
    """ICM category audit: Recall has a cutoff; Retrieval spans ≥ 2 clips with a cutoff;
    Profile spans ≥ 2 clips over the full timeline (no cutoff)."""

    name, version = "category_rules", "1"
    MIN_CLIPS = {"identity_recall": 1, "cross_episode_retrieval": 2, "profile_inference": 2}

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        clips = {ctx.observations[e].episode for e in q.evidence if e in ctx.observations}
        need = self.MIN_CLIPS.get(q.category)
        if need is None:
            return verdict(self, q, True, f"no rules for category {q.category}", clips=len(clips))
        if len(clips) < need:
            return verdict(self, q, False, f"too few evidence clips: {len(clips)} < {need}", clips=len(clips))
        full_timeline = q.category == "profile_inference"
        if full_timeline != (q.cutoff is None):
            want = "no cutoff (full timeline)" if full_timeline else "a cutoff"
            return verdict(self, q, False, f"wrong timeline: {q.category} needs {want}", clips=len(clips))
        return verdict(self, q, True, f"{len(clips)} evidence clips", clips=len(clips))


class Coherent:
    """The item's texts and action are coherent with the World (``generators/coherence_text.py``):
    no weekday that disagrees with its date, no empty range, no date outside the span, no action
    with one person on both sides. The reason starts with the rule's code (the funnel counts it)."""

    name, version = "coherence", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        from mnemoforge.generators.coherence_text import item_problems

        problems = item_problems(ctx.world, q)
        if problems:
            p = problems[0]
            return verdict(self, q, False, f"{p.code}: {p.detail}", problems=float(len(problems)))
        return verdict(self, q, True, "coherent with the World")


# exact gates every family runs first (family gates follow, see gate_runner.gate_list)
EXACT_GATES: list[Gate] = [EvidenceResolves(), CutoffValid(), SymbolicRederive(), Coherent()]


def kept_ids(verdicts: list[Verdict]) -> set[str]:
    items = {v.item for v in verdicts}
    rejected = {v.item for v in verdicts if not v.keep}
    return items - rejected


def funnel(questions: list[Question], verdicts: list[Verdict], gates: list[Gate]) -> dict:
    """Candidates → kept after each gate in ``gates`` order, with reject reasons counted."""
    alive = {q.id for q in questions}
    stages = []
    by_gate: dict[str, list[Verdict]] = {}
    for v in verdicts:
        by_gate.setdefault(v.gate, []).append(v)
    undecided_total = 0
    for g in gates:
        vs = by_gate.get(g.name, [])
        rejected = {v.item for v in vs if not v.keep} & alive
        undecided = {v.item for v in vs if v.failures} & rejected
        reasons = Counter(v.reason.split(":")[0] for v in vs if not v.keep and v.item in rejected)
        alive -= rejected
        stage = {
            "gate": g.name,
            "version": g.version,
            "rejected": len(rejected - undecided),
            "kept": len(alive),
            "reasons": dict(sorted(reasons.items())),
        }
        if undecided:  # model calls failed: neither kept nor rejected on the merits
            stage["undecided"] = len(undecided)
            undecided_total += len(undecided)
        stages.append(stage)
    out = {"candidates": len(questions), "kept": len(alive), "stages": stages}
    if undecided_total:
        out["undecided"] = undecided_total
    return out
