"""Cross-family items: questions whose evidence spans at least two families of one World.

An item names a person by a **bridge** (a description that picks exactly one person, read from one
family's facts: "the person who weighs the silica twice", "the person whose bench is B4") and asks
for a **property** of that person read from another family's facts (their bench, a habit, which
commission they are on, what they held in a picture on a date). Both are programs over the merged
World's facts (``world_merge.py``); the answer is computed, and the evidence is the observations of
each family expressing the facts the program read (ids ``FAMILY:OBSERVATION``).

Gates (exact, each verdict with a reason, as ``validators/gates.py``'s):

- ``rederive``: the program, run again on the merged World, gives the stored answer;
- ``evidence_families``: every fact read is expressed by an observation, and the evidence comes
  from at least two families;
- ``one_family_insufficient``: the program run on each family's facts alone fails (the bridge or
  the property is not there): no family answers the item by itself;
- ``options``: four options of the answer's type, the answer once among them, no distractor that
  is also true of the bridged person, and the answer not written in the question.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from mnemoforge.generators.questions.options import rotations
from mnemoforge.hashing import content_hash, short
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import Fact, World
from mnemoforge.store.layout import RunLayout

CROSS = "cross"
GATE_VERSION = "1"
MIN_OPTIONS = 3  # the answer and at least two distractors of its type
GATES = ("rederive", "evidence_families", "one_family_insufficient", "options")


class NoAnswer(LookupError):
    """The program cannot answer on these facts (a bridge or property is missing or not unique)."""


# ---------------------------------------------------------------- bridges: facts -> one person


def _one(facts: list[Fact], what: str) -> Fact:
    if len(facts) != 1:
        raise NoAnswer(f"{what}: {len(facts)} facts")
    return facts[0]


def _bridge(facts: list[Fact], bridge: Mapping[str, str]) -> tuple[str, list[Fact]]:
    """(person id, facts read) of a bridge: ``{"kind": habit|relation|profile|role_of, ...}``."""
    kind = bridge["kind"]
    if kind == "habit":  # the one person with this habit
        f = _one([f for f in facts if f.kind == "habit" and f.object == bridge["text"]], "habit")
        return f.subject, [f]
    if kind == "relation":  # the person SUBJECT calls WORD
        rel = [f for f in facts if f.kind == "relation" and f.subject == bridge["subject"]]
        f = _one([f for f in rel if f.value == bridge["word"]], "relation")
        return f.object, [f]
    if kind == "profile":  # the one person whose KEY is VALUE (a profile attribute of a person)
        people = {f.subject for f in facts if f.kind == "name"} | set(bridge.get("people", "").split(","))
        got = [
            f for f in facts if f.kind == "attribute" and f.subject in people and f.object == bridge["key"]
        ]
        f = _one([f for f in got if f.value == bridge["value"]], "profile")
        return f.subject, [f]
    if kind == "brought":  # the person who brought OBJECT to EVENT
        got = [
            f
            for f in facts
            if f.kind == "brought" and f.object == bridge["object"] and f.event == bridge["event"]
        ]
        f = _one(got, "brought")
        return f.subject, [f]
    if kind == "role_of":  # the person an entity's attribute names ("the cutter of Wedding Goblets")
        got = [
            f
            for f in facts
            if f.kind == "attribute" and f.subject == bridge["entity"] and f.object == bridge["key"]
        ]
        f = _one(got, "role")
        return str(f.value), [f]
    raise NoAnswer(f"unknown bridge {kind!r}")


# ---------------------------------------------------------------- properties: person -> answer


def _property(
    facts: list[Fact], world: World, person: str, prop: Mapping[str, str]
) -> tuple[str, list[Fact]]:
    kind = prop["kind"]
    if kind == "habit":
        f = _one([f for f in facts if f.kind == "habit" and f.subject == person], "habit of")
        return f.object, [f]
    if kind == "profile":
        got = [f for f in facts if f.kind == "attribute" and f.subject == person and f.object == prop["key"]]
        f = _one(got, "profile of")
        return str(f.value), [f]
    if kind == "member":  # the one entity of this kind the person belongs to
        got = [
            f for f in facts if f.kind == "member" and f.subject == person and f.value == prop["entity_kind"]
        ]
        f = _one(got, "member of")
        return world.entity(f.object).name, [f]
    if kind == "preference":
        got = [f for f in facts if f.kind == "preference" and f.subject == person and f.object == prop["key"]]
        f = _one(got, "preference of")
        return str(f.value), [f]
    if kind == "holding":  # what the person drawn as entity SUBJECT holds at AT (a picture's state)
        if depicted(world, prop["subject"]) != person:
            raise NoAnswer("holding: another person")
        at = dt.datetime.fromisoformat(prop["at"])
        got = [
            f
            for f in facts
            if f.subject == prop["subject"] and f.object == prop["key"] and f.at and f.at <= at
        ]
        if not got:
            raise NoAnswer("holding: no state")
        f = max(got, key=lambda f: f.at or at)
        return str(f.value), [f]
    raise NoAnswer(f"unknown property {kind!r}")


def depicted(world: World, entity: str) -> str | None:
    """The cast person an entity draws (a picture log's drawn person: its ``draws.person.cast``)."""
    try:
        draws = json.loads(world.entity(entity).attrs.get("draws", "{}"))
    except (KeyError, ValueError):
        return None
    person = draws.get("person") if isinstance(draws, dict) else None
    return person.get("cast") if isinstance(person, dict) else None


def run_program(world: World, facts: list[Fact], args: Mapping) -> tuple[str, list[str]]:
    """(answer, fact ids read) of a cross program on ``facts`` (of ``world``); ``NoAnswer`` else."""
    person, read_b = _bridge(facts, args["bridge"])
    answer, read_p = _property(facts, world, person, args["property"])
    return answer, [f.id for f in (*read_b, *read_p)]


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
        elif f.kind == "relation" and f.value:
            out.append({"kind": "relation", "subject": f.subject, "word": f.value})
        elif f.kind == "attribute" and f.subject in people and f.value and f.object != "code":
            out.append({"kind": "profile", "key": f.object, "value": f.value, "people": ",".join(people)})
        elif f.kind == "attribute" and f.value in people:
            out.append({"kind": "role_of", "entity": f.subject, "key": f.object})
    return [dict(t) for t in dict.fromkeys(tuple(sorted(b.items())) for b in out)]


def _properties(world: World, people: list[str], obs_by_fact: Mapping[str, list[Observation]]) -> list[dict]:
    out: list[dict] = [{"kind": "habit"}]
    out += [
        {"kind": "profile", "key": k}
        for k in sorted(
            {
                f.object
                for f in world.facts
                if f.kind == "attribute" and f.subject in people and f.object != "code"
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
        if depicted(world, f.subject) and f.kind == "state":
            for o in sorted(obs_by_fact.get(f.id, []), key=lambda o: o.timestamp):
                if (f.subject, o.timestamp.date()) not in days:
                    days.add((f.subject, o.timestamp.date()))
                    out.append(
                        {
                            "kind": "holding",
                            "subject": f.subject,
                            "key": f.object,
                            "at": o.timestamp.isoformat(),
                        }
                    )
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
        thing = world.object(b["object"]).name
        thing = thing if "'s " in thing else f"the {thing}"  # "Tavita's punty", "the steel jacks"
        return f"the person who brought {thing} to the {ev.noun} on {_day(ev.start)}"
    return f"the {b['key']} of {world.entity(b['entity']).name}"


def _ask(world: World, p: Mapping[str, str], who: str) -> str:
    k = p["kind"]
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
    return f"{when:%B} {when.day}, {when.year}"


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
    holds = json.loads(world.entity(p["subject"]).attrs.get("draws", "{}")).get("person", {}).get("holds", [])
    return sorted({*holds, *(str(f.value) for f in facts if f.subject == p["subject"])})


def make(
    theme: Theme, world: World, sources: Mapping[str, str], runs: Mapping[str, RunLayout]
) -> CrossResult:
    """The cross candidates of the merged ``world`` (``sources``: fact id -> family), gated."""
    from mnemoforge.run_inputs import load_observations

    obs_by_fact: dict[str, list[tuple[str, Observation]]] = {}
    for fam, run in runs.items():
        for o in load_observations(run):
            if o.evidence_eligible:
                for fid in sorted(o.fact_ids()):
                    obs_by_fact.setdefault(fid, []).append((fam, o))
    people = [p.id for p in world.people]
    plain = {k: [o for _, o in v] for k, v in obs_by_fact.items()}
    cands: list[Question] = []
    for b in _bridges(world, people):
        for p in _properties(world, people, plain):
            args = {"bridge": b, "property": p}
            try:
                answer, read = run_program(world, world.facts, args)
                person, _ = _bridge(world.facts, b)
            except (NoAnswer, KeyError):
                continue
            fams = {sources.get(fid) for fid in read}
            if len(fams) < 2:
                continue  # one family's facts: its own items ask this
            cands.append(_question(theme, world, args, answer, read, person, obs_by_fact))
    return gate(world, sources, cands, obs_by_fact)


def _question(
    theme: Theme, world: World, args: dict, answer: str, read: list[str], person: str,
    obs_by_fact: Mapping[str, list[tuple[str, Observation]]],
) -> Question:  # fmt: skip
    qid = f"x_{short(content_hash(args), 12)}"
    text = _ask(world, args["property"], _describe(world, args["bridge"]))
    pool = [v for v in _pool(world, world.facts, args["property"]) if v != answer]
    rng = derive_rng(world.seed, CROSS, qid)
    rng.shuffle(pool)
    options = [answer, *pool[:3]]
    at = args["property"].get("at")  # a picture's item: the picture taken then is the evidence
    evidence = []
    for fid in read:
        shown = obs_by_fact.get(fid, [])
        pick = [x for x in shown if at is not None and x[1].timestamp.isoformat() == at] or shown[:1]
        evidence += [f"{fam}:{o.id}" for fam, o in pick[:1]]
    program = Program(fn=CROSS, args=args)
    return Question(
        id=qid, family=CROSS, category=f"{args['bridge']['kind']}>{args['property']['kind']}",
        question=text, answer=answer, options=options if len(options) >= MIN_OPTIONS else None,
        rotations=rotations(world.seed, qid, len(options)) if len(options) >= MIN_OPTIONS else None,
        target_people=[person],
        evidence=sorted(dict.fromkeys(evidence)),
        evidence_sources=sorted({e.split(":", 1)[0] for e in evidence}),
        labels={"families": ",".join(sorted({e.split(":", 1)[0] for e in evidence}))},
        facts_read=read, cutoff=None, program=program,
        lineage=Lineage(
            template=program.fn, seed=world.seed, program_hash=content_hash(program),
            world_hash=content_hash(world), answer_hash=content_hash(answer),
        ),
    )  # fmt: skip


# ---------------------------------------------------------------- gates


def checks(
    world: World, sources: Mapping[str, str], q: Question, evidence_ok: Callable[[str], bool]
) -> list[tuple[str, bool, str]]:
    """(gate, keep, reason) of every cross gate for ``q``; ``evidence_ok``: an evidence id resolves."""
    out = []
    try:
        answer, read = run_program(world, world.facts, q.program.args)
        ok = answer == q.answer and read == q.facts_read
        out.append(
            ("rederive", ok, "the program gives the stored answer" if ok else f"the World gives {answer!r}")
        )
    except NoAnswer as e:
        out.append(("rederive", False, f"the program fails on the World: {e}"))
    fams = {e.split(":", 1)[0] for e in q.evidence}
    missing = [e for e in q.evidence if not evidence_ok(e)]
    expressed = len(q.evidence) >= len(q.facts_read)
    ok = len(fams) >= 2 and not missing and expressed
    why = (
        f"evidence from {sorted(fams)}"
        if ok
        else f"evidence {sorted(fams)}, unresolved {missing}, {len(q.evidence)} for {len(q.facts_read)} facts"
    )
    out.append(("evidence_families", ok, why))
    alone = []
    for fam in sorted(set(sources.values())):
        facts = [f for f in world.facts if sources.get(f.id) == fam]
        try:
            got, _ = run_program(world, facts, q.program.args)
            alone.append(f"{fam} alone gives {got!r}")
        except NoAnswer:
            continue
    out.append(("one_family_insufficient", not alone, "; ".join(alone) or "no family answers it alone"))
    opts = q.options or []
    person = q.target_people[0] if q.target_people else ""
    also = _also_true(world, q, person)
    ok = (
        len(opts) >= MIN_OPTIONS
        and opts.count(q.answer) == 1
        and not also
        and q.answer.lower() not in q.question.lower()
    )
    out.append(
        ("options", ok, f"{len(opts)} options, one true" if ok else f"options {opts} (also true: {also})")
    )
    return out


def _also_true(world: World, q: Question, person: str) -> list[str]:
    """Distractors that are also true of the bridged person (another habit of theirs, ...)."""
    p = q.program.args["property"]
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


def gate(
    world: World, sources: Mapping[str, str], cands: list[Question],
    obs_by_fact: Mapping[str, list[tuple[str, Observation]]],
) -> CrossResult:  # fmt: skip
    known = {f"{fam}:{o.id}" for v in obs_by_fact.values() for fam, o in v}
    verdicts, kept, stages = [], [], {g: {"gate": g, "rejected": 0, "kept": 0} for g in GATES}
    for q in cands:
        keep = True
        for name, ok, why in checks(world, sources, q, known.__contains__):
            verdicts.append(Verdict(item=q.id, gate=name, gate_version=GATE_VERSION, keep=ok, reason=why))
            if keep:  # the funnel counts an item at the first gate that rejects it
                stages[name]["kept" if ok else "rejected"] += 1
            keep = keep and ok
        if keep:
            kept.append(q)
    funnel = {"candidates": len(cands), "kept": len(kept), "stages": list(stages.values())}
    return CrossResult(cands, verdicts, funnel, kept)
