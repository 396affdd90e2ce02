"""Identity Recall questions (ICM family): local events about a person, answered by programs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mnemoforge.generators.questions.programs import FactView, Lexicon, Unanswerable, run_program
from mnemoforge.hashing import content_hash, short
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.schemas.world import World

FAMILY = "icm"


@dataclass(frozen=True)
class Template:
    id: str
    category: str
    program: str
    text: str


RECALL_TEMPLATES = [
    Template(
        "recall.companions.v1",
        "identity_recall",
        "event_companions",
        "Who joined {person} when {subj} {verb} at {place} in {month}?",
    ),
    Template(
        "recall.object.v1",
        "identity_recall",
        "object_brought",
        "What did {person} bring along when {subj} {verb} in {month}?",
    ),
    Template(
        "recall.place.v1",
        "identity_recall",
        "meeting_place",
        "Where did {person} and {other} go when they {verb} in {month}?",
    ),
]


def person_reference(world: World, pid: str, style: str) -> str:
    """Refer to a person by name, by family/social relation to the protagonist, or by description."""
    p = world.person(pid)
    if style == "relation":
        for r in world.relations:
            if r.a == world.protagonist and r.b == pid and r.a_calls_b:
                return f"{world.person(world.protagonist).name}'s {r.a_calls_b}"
    if style == "description":
        desc = p.description()
        if sum(q.description() == desc for q in world.people) == 1:
            return desc
    return p.name


def _candidates(world: World) -> Iterator[tuple[Template, dict[str, Any]]]:
    for ev in world.events:
        month = ev.start.strftime("%Y-%m")
        for p in ev.participants:
            base = {"person": p, "activity": ev.activity, "month": month}
            yield RECALL_TEMPLATES[0], {**base, "place": ev.place}
            yield RECALL_TEMPLATES[1], base
            for o in ev.participants:
                if o > p:
                    yield RECALL_TEMPLATES[2], {**base, "other": o}


def _obs_key(o: Observation) -> tuple:
    return (o.order, o.timestamp, o.id)


class EvidenceIndex:
    """Maps each fact to the earliest evidence-eligible observation that expresses it."""

    def __init__(self, observations: list[Observation]) -> None:
        self.first: dict[str, Observation] = {}
        for o in sorted(observations, key=_obs_key):
            if o.evidence_eligible:
                for f in o.fact_ids():
                    self.first.setdefault(f, o)

    def evidence_for(self, facts_read: set[str]) -> list[Observation]:
        chosen: dict[str, Observation] = {}
        for f in sorted(facts_read):
            if f not in self.first:
                raise Unanswerable(f"fact {f} is expressed by no observation")
            chosen[self.first[f].id] = self.first[f]
        return sorted(chosen.values(), key=_obs_key)


def generate_recall(world: World, observations: list[Observation], n: int, last_order: int) -> list[Question]:
    """Plan up to ``n`` Identity Recall candidates; selection is seeded, answers are computed."""
    lex = Lexicon(world)
    index = EvidenceIndex(observations)
    world_hash = content_hash(world)
    base = FactView(world.facts, lex)
    pool = []
    for tpl, args in _candidates(world):
        view = base.fork()
        try:
            answer = run_program(tpl.program, view, args)
            evidence = index.evidence_for(view.read)
        except Unanswerable:
            continue
        pool.append((tpl, args, answer, view.read, evidence))
    rng = derive_rng(world.seed, FAMILY, "identity_recall", "select")
    picked = rng.sample(pool, min(n, len(pool)))
    out = []
    for tpl, args, answer, read, evidence in picked:
        prog = Program(fn=tpl.program, args=args)
        qid = f"{FAMILY}_recall_{short(content_hash(tpl.id, prog))}"
        qrng = derive_rng(world.seed, qid)
        style = qrng.choice(["name", "name", "relation", "description"])
        ev_month = args["month"]
        month_text = dt.datetime.strptime(ev_month, "%Y-%m").strftime("%B %Y")
        act_ev = next(e for e in world.events if e.activity == args["activity"])
        text = tpl.text.format(
            person=person_reference(world, args["person"], style),
            subj=_pronoun(world, args["person"]),
            verb=act_ev.verb,
            place=world.place(args["place"]).name if "place" in args else "",
            month=month_text,
            other=world.person(args["other"]).name if "other" in args else "",
        )
        text = text[0].upper() + text[1:]
        last_ev = max(o.order for o in evidence)
        cutoff = min(last_order, last_ev + qrng.randint(5, 20))
        targets = sorted({args["person"], *([args["other"]] if "other" in args else [])})
        out.append(
            Question(
                id=qid,
                family=FAMILY,
                category=tpl.category,
                question=text,
                answer=answer,
                target_people=targets,
                evidence=[o.id for o in evidence],
                evidence_clips=sorted({o.episode for o in evidence}),
                evidence_shots=sorted({o.id for o in evidence if o.kind == "shot"}),
                facts_read=sorted(read),
                cutoff=cutoff,
                program=prog,
                lineage=Lineage(
                    template=tpl.id,
                    seed=world.seed,
                    program_hash=content_hash(prog),
                    world_hash=world_hash,
                    answer_hash=content_hash(answer),
                ),
            )
        )
    return sorted(out, key=lambda q: q.id)


def _pronoun(world: World, pid: str) -> str:
    g = world.person(pid).gender
    return "she" if g == "female" else "he" if g == "male" else "they"
