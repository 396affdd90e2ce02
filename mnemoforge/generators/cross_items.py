"""Cross-family items: questions whose evidence spans at least two families of one World.

An item names a person by a **bridge** (a description that picks exactly one person, read from one
family's facts: "the person who weighs the silica twice", "the person whose bench is B4") and asks
for a **property** of that person read from another family's facts (their bench, a habit, which
commission they are on, what they held in a picture on a date). A **date bridge** names a moment
instead of a person ("when Elodie brought the steel jacks", an icm clip) and asks what a picture
log showed by then (what its drawn person held in the last picture before it, memeye). Both are
programs over the merged World's facts (``world_merge.py``); the answer is computed, and the
evidence is the observations of each family expressing the facts the program read (ids
``FAMILY:OBSERVATION``).

The gates (``validators/cross_gates.py``) run with every gate a family's items pass; theirs
re-derive the answer on the whole World, require evidence from two families, and run the program
on each family's facts alone, which must fail.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from mnemoforge.dates import month_name
from mnemoforge.generators import cross_bridges as places
from mnemoforge.generators.cross_program import (
    CROSS,
    DATE_BRIDGES,
    bridge_moment,
    bridge_person,
    depicted,
    run_program,
)
from mnemoforge.generators.questions.options import rotations
from mnemoforge.generators.questions.programs import Unanswerable
from mnemoforge.hashing import content_hash, short
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import Fact, World

MIN_OPTIONS = 3  # the answer and at least two distractors of its type


# ---------------------------------------------------------------- candidates


@dataclass
class CrossResult:
    candidates: list[Question]
    verdicts: list[Verdict]
    funnel: dict
    kept: list[Question] = field(default_factory=list)


def _bridges(world: World, people: list[str]) -> list[dict]:
    """Every bridge the World's facts offer (checked for uniqueness when run)."""
    out: list[dict] = []
    for f in world.facts:
        if f.kind == "habit":
            out.append({"kind": "habit", "text": f.object})
        elif f.kind == "brought" and f.event:
            out.append({"kind": "brought", "object": f.object, "event": f.event})
            out.append({"kind": "when_brought", "subject": f.subject, "object": f.object})
        elif f.kind == "relation" and f.value:
            out.append({"kind": "relation", "subject": f.subject, "word": f.value})
        elif f.kind == "attribute" and f.subject in people and f.value and f.object != places.CODE:
            out.append({"kind": "profile", "key": f.object, "value": f.value, "people": ",".join(people)})
        elif f.kind == "attribute" and f.value in people:
            out.append(
                {"kind": "role_of", "entity": f.subject, "key": f.object} | places.filing(world, f.subject)
            )
    out += places.place_bridges(world)
    return [dict(t) for t in dict.fromkeys(tuple(sorted(b.items())) for b in out)]


def _properties(world: World, people: list[str], obs_by_fact: Mapping[str, list[Observation]]) -> list[dict]:
    out: list[dict] = [{"kind": "habit"}]
    out += [
        {"kind": "profile", "key": k}
        for k in sorted(
            {
                f.object
                for f in world.facts
                if f.kind == "attribute" and f.subject in people and f.object != places.CODE
            }
        )
    ]
    out += [
        {"kind": "member", "entity_kind": k}
        for k in sorted({str(f.value) for f in world.facts if f.kind == "member" and f.value})
    ]
    out += [
        {"kind": "preference", "key": k}
        for k in sorted({f.object for f in world.facts if f.kind == "preference"})
    ]
    days: set[tuple[str, dt.date]] = set()
    for f in world.facts:  # a drawn person's held thing, at the first picture of each day showing it
        who = depicted(world, f.subject)
        if who and f.kind == "state":
            for o in sorted(obs_by_fact.get(f.id, []), key=lambda o: o.timestamp):
                if (f.subject, o.timestamp.date()) not in days:
                    days.add((f.subject, o.timestamp.date()))
                    at = o.timestamp.isoformat()
                    out.append(
                        {"kind": "holding", "subject": f.subject, "key": f.object, "at": at, "person": who}
                    )
            out.append({"kind": "held_before", "subject": f.subject, "key": f.object, "person": who})
    out += places.place_properties(world)
    return [dict(t) for t in dict.fromkeys(tuple(sorted(p.items())) for p in out)]


def _describe(world: World, b: Mapping[str, str]) -> str:
    if b["kind"] == "habit":
        return f"the person who {b['text']}"
    if b["kind"] == "relation":
        return f"the person {world.person(b['subject']).name} calls their {b['word']}"
    if b["kind"] == "profile":
        return f"the person whose {b['key']} is {b['value']}"
    if b["kind"] == "brought":
        ev = world.event(b["event"])
        return f"the person who brought {_thing(world, b['object'])} to the {ev.noun} on {_day(ev.start)}"
    if b["kind"] == "when_brought":  # the moment, without its date (the clip gives it)
        (f,) = bridge_moment(world.facts, b)[1]
        ev = f" to the {world.event(f.event).noun}" if f.event else ""
        return f"{world.person(b['subject']).name} brought {_thing(world, b['object'])}{ev}"
    if b["kind"] == "role_of":
        return f"the {b['key']} of {world.entity(b['entity']).name}"
    return places.describe(world, b, lambda o: _thing(world, o))


def _thing(world: World, obj: str) -> str:
    thing = world.object(obj).name
    return thing if "'s " in thing else f"the {thing}"  # "Tavita's punty", "the steel jacks"


def _ask(world: World, p: Mapping[str, str], who: str, bridge: str = "") -> str:
    k = p["kind"]
    if k == "held_before":  # ``who`` is a moment here: a clip's, or a dated record's day
        name = world.person(p["person"]).name
        when = f"on or before {who}" if bridge == "when_due" else f"before {who}"  # a day, a moment
        return f"In the last picture of {name} taken {when}, what is {name} holding?"
    if k in (*places.PLACE_PROPERTIES, "first_after"):  # ``who`` is a place or a day here
        return places.ask(world, p, who, lambda o: _thing(world, o))
    if k == "habit":
        return f"What habit does {who} have?"
    if k == "profile":
        return f"What is the {p['key']} of {who}?"
    if k == "member":
        return f"Which {p['entity_kind']} is {who} part of?"
    if k == "preference":
        return f"Which {p['key']} does {who} prefer?"
    return f"In the picture of {_day(dt.datetime.fromisoformat(p['at']))}, what is {who} holding?"


def _day(when: dt.datetime) -> str:
    return f"{month_name(when)} {when.day}, {when.year}"  # not the locale's month name


def _pool(world: World, facts: list[Fact], p: Mapping[str, str]) -> list[str]:
    """Values of the answer's type (distractors are drawn from them)."""
    k = p["kind"]
    if k == "habit":
        return sorted({f.object for f in facts if f.kind == "habit"})
    if k == "profile":
        return sorted({str(f.value) for f in facts if f.kind == "attribute" and f.object == p["key"]})
    if k == "member":
        return sorted({e.name for e in world.entities if e.kind == p["entity_kind"]})
    if k == "preference":
        return sorted(
            {str(f.value) for f in facts if f.kind in ("preference", "chose") and f.object == p["key"]}
        )
    if k in (*places.PLACE_PROPERTIES, "first_after"):
        return places.pool(world, p)
    holds = json.loads(world.entity(p["subject"]).attrs.get("draws", "{}")).get("person", {}).get("holds", [])
    return sorted({*holds, *(str(f.value) for f in facts if f.subject == p["subject"])})


def qualified(family: str, o: Observation) -> Observation:
    """An observation of one family as the cross items name it: ``FAMILY:`` before its id, source
    and episode (two families may use one id)."""
    up = {k: f"{family}:{getattr(o, k)}" for k in ("id", "source", "episode")}
    return o.model_copy(update=up)


def family_of(evidence_id: str) -> str:
    """The family of a cross item's evidence id (``FAMILY:OBSERVATION``)."""
    return evidence_id.split(":", 1)[0]


def candidates(
    theme: Theme, world: World, sources: Mapping[str, str], observations: Mapping[str, Observation]
) -> list[Question]:
    """The cross candidates of the merged ``world`` (``sources``: fact id -> family;
    ``observations``: every family's, by qualified id)."""
    obs_by_fact: dict[str, list[tuple[str, Observation]]] = {}
    for key, o in observations.items():
        if o.evidence_eligible:
            for fid in sorted(o.fact_ids()):
                obs_by_fact.setdefault(fid, []).append((family_of(key), o))
    people = [p.id for p in world.people]
    plain = {k: [o for _, o in v] for k, v in obs_by_fact.items()}
    cands: list[Question] = []
    for b in _bridges(world, people):
        for p in _properties(world, people, plain):
            args = {"bridge": b, "property": p}
            try:
                answer, read = run_program(world, world.facts, args)
                person = _target(world, b, p)
            except (Unanswerable, KeyError):
                continue
            if len({sources.get(fid) for fid in read}) < 2:
                continue  # one family's facts: its own items ask this
            cands.append(_question(theme, world, args, answer, read, person, obs_by_fact))
    return cands


def _target(world: World, b: Mapping[str, str], p: Mapping[str, str]) -> str | None:
    """The person an item asks about (None for a place's or a day's item)."""
    if b["kind"] in places.PLACE_BRIDGES or p["kind"] == "first_after":
        return None
    return p["person"] if b["kind"] in DATE_BRIDGES else bridge_person(world.facts, b)[0]


def _question(
    theme: Theme, world: World, args: dict, answer: str, read: list[str], person: str | None,
    obs_by_fact: Mapping[str, list[tuple[str, Observation]]],
) -> Question:  # fmt: skip
    qid = f"x_{short(content_hash(args), 12)}"
    text = _ask(world, args["property"], _describe(world, args["bridge"]), args["bridge"]["kind"])
    pool = [v for v in _pool(world, world.facts, args["property"]) if v != answer]
    rng = derive_rng(world.seed, CROSS, qid)
    rng.shuffle(pool)
    options = [answer, *pool[:3]]
    at = args["property"].get("at")  # a picture's item: the picture taken then is the evidence
    dated = args["bridge"]["kind"] in DATE_BRIDGES and args["property"]["kind"] == "held_before"
    by = bridge_moment(world.facts, args["bridge"])[0] if dated else None
    evidence = []
    for fid in read:
        shown = obs_by_fact.get(fid, [])
        pick = [x for x in shown if at is not None and x[1].timestamp.isoformat() == at] or shown[:1]
        if by is not None and world.fact(fid).kind == "state":  # the last picture by the moment named
            pick = sorted((x for x in shown if x[1].timestamp <= by), key=lambda x: x[1].timestamp)[-1:]
        evidence += [o.id for _, o in pick[:1]]  # qualified ids: FAMILY:OBSERVATION
    program = Program(fn=CROSS, args=args)
    return Question(
        id=qid, family=CROSS, category=f"{args['bridge']['kind']}>{args['property']['kind']}",
        question=text, answer=answer, options=options if len(options) >= MIN_OPTIONS else None,
        rotations=rotations(world.seed, qid, len(options)) if len(options) >= MIN_OPTIONS else None,
        target_people=[person] if person else [],
        evidence=sorted(dict.fromkeys(evidence)),
        evidence_sources=sorted({e.split(":", 1)[0] for e in evidence}),
        labels={"families": ",".join(sorted({e.split(":", 1)[0] for e in evidence}))},
        facts_read=read, cutoff=None, program=program,
        lineage=Lineage(
            template=program.fn, seed=world.seed, program_hash=content_hash(program),
            world_hash=content_hash(world), answer_hash=content_hash(answer),
        ),
    )  # fmt: skip
