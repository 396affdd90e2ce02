"""Shared machinery of question families: templates, evidence selection, person references."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from mnemoforge.generators.questions.programs import FactView, Lexicon, Unanswerable, run_program
from mnemoforge.hashing import content_hash, short
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.schemas.world import World


@dataclass(frozen=True)
class Template:
    """A question form: category, the program that answers it, and its text.

    ``evidence`` is ``first`` (the earliest observation of each fact read: local recall) or
    ``all`` (every observation of each fact read: accumulated profile evidence).
    """

    id: str
    category: str
    program: str
    text: str
    evidence: str = "first"


def _obs_key(o: Observation) -> tuple:
    return (o.order, o.timestamp, o.id)


class EvidenceIndex:
    """Maps each fact to the evidence-eligible observations expressing it, in stream order."""

    def __init__(self, observations: Iterable[Observation]) -> None:
        self.by_fact: dict[str, list[Observation]] = {}
        for o in sorted(observations, key=_obs_key):
            if o.evidence_eligible:
                for f in o.fact_ids():
                    self.by_fact.setdefault(f, []).append(o)

    def evidence_for(self, facts_read: set[str], mode: str = "first") -> list[Observation]:
        chosen: dict[str, Observation] = {}
        for f in sorted(facts_read):
            hits = self.by_fact.get(f)
            if not hits:
                raise Unanswerable(f"fact {f} is expressed by no observation")
            for o in hits if mode == "all" else hits[:1]:
                chosen[o.id] = o
        return sorted(chosen.values(), key=_obs_key)


def person_reference(world: World, pid: str, style: str) -> str:
    """Refer to a person by name, by relation to the protagonist, or by a description that fits
    them alone as drawn (``generators/referring.py``: rendered cues, not the theme's wording)."""
    from mnemoforge.generators.referring import describe

    p = world.person(pid)
    if style == "relation":
        for r in world.relations:
            if r.a == world.protagonist and r.b == pid and r.a_calls_b:
                return f"{world.person(world.protagonist).name}'s {r.a_calls_b}"
    if style == "description":
        desc = describe(world, pid)
        if desc:
            return desc
    return p.name


def pronoun(world: World, pid: str) -> str:
    g = world.person(pid).gender
    return "she" if g == "female" else "he" if g == "male" else "they"


@dataclass
class Candidate:
    template: Template
    args: dict[str, Any]
    answer: str
    read: set[str]
    evidence: list[Observation]


def solve_candidates(
    world: World, index: EvidenceIndex, items: Iterator[tuple[Template, dict[str, Any]]]
) -> list[Candidate]:
    """Run each candidate's program on the full World; keep those with a unique answer and evidence."""
    base = FactView(world.facts, Lexicon(world))
    out, seen = [], set()
    for tpl, args in items:
        key = content_hash(tpl.id, args)
        if key in seen:
            continue
        seen.add(key)
        view = base.fork()
        try:
            answer = run_program(tpl.program, view, args)
            evidence = index.evidence_for(view.read, tpl.evidence)
        except Unanswerable:
            continue
        out.append(Candidate(tpl, args, answer, view.read, evidence))
    return out


def make_question(
    world: World,
    family: str,
    c: Candidate,
    text: str,
    targets: list[str],
    cutoff: int | None,
    world_hash: str,
) -> Question:
    prog = Program(fn=c.template.program, args=c.args)
    qid = question_id(family, c.template, prog)
    return Question(
        id=qid,
        family=family,
        category=c.template.category,
        question=text[0].upper() + text[1:],
        answer=c.answer,
        target_people=sorted(targets),
        evidence=[o.id for o in c.evidence],
        evidence_clips=sorted({o.episode for o in c.evidence}),
        evidence_shots=sorted({o.id for o in c.evidence if o.kind == "shot"}),
        facts_read=sorted(c.read),
        cutoff=cutoff,
        program=prog,
        lineage=Lineage(
            template=c.template.id,
            seed=world.seed,
            program_hash=content_hash(prog),
            world_hash=world_hash,
            answer_hash=content_hash(c.answer),
        ),
    )


def candidate_of(template: Template, q: Question) -> Candidate:
    """The candidate a released question was made from (for re-realising its text; no evidence)."""
    return Candidate(template, dict(q.program.args), q.answer, set(q.facts_read), [])


def capitalised(text: str) -> str:
    """A question text as ``make_question`` writes it: the first letter upper-case."""
    return text[0].upper() + text[1:] if text else text


def question_id(family: str, tpl: Template, prog: Program) -> str:
    return f"{family}_{tpl.category}_{short(content_hash(tpl.id, prog))}"


def recall_cutoff(world: World, qid: str, evidence: list[Observation], last_order: int) -> int:
    """ICM's latest accessible clip: 5–20 clips after the last evidence clip (seeded), capped."""
    return min(
        last_order, max(o.order for o in evidence) + derive_rng(world.seed, qid, "cutoff").randint(5, 20)
    )


OVERGENERATE = 1.5
"""Candidates planned per requested item in families that over-generate (icm, memeye): the gates
reject some, and the ``category_quota`` gate keeps the requested number of the survivors."""


def overgenerate(n: int) -> int:
    """How many candidates to plan for ``n`` kept items."""
    return n if n <= 0 else int(n * OVERGENERATE + 0.999) + 1
