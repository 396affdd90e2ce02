"""The identity-centric family (ICM-Bench): Recall, Cross-Episode Retrieval, Profile Inference.

Every answer is computed by a program on the World; every item records its target people,
supporting clips and shots, and its latest accessible clip (none for Profile).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mnemoforge.dates import month_name
from mnemoforge.generators.icm.forms import realise as realise_form
from mnemoforge.generators.option_balance import stratified_targets
from mnemoforge.generators.questions.common import (
    Candidate,
    EvidenceIndex,
    Template,
    make_question,
    person_reference,
    pronoun,
    recall_cutoff,
    select,
    solve_candidates,
)
from mnemoforge.generators.questions.options import with_options
from mnemoforge.hashing import content_hash
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World

FAMILY = "icm"
RECALL, RETRIEVAL, PROFILE = "identity_recall", "cross_episode_retrieval", "profile_inference"

T = {
    t.id: t
    for t in [
        Template(
            "recall.companions.v1",
            RECALL,
            "event_companions",
            "Who joined {person} when {subj} {verb} at {place} in {month}?",
        ),
        Template(
            "recall.object.v1",
            RECALL,
            "object_brought",
            "What did {person} bring along when {subj} {verb} in {month}?",
        ),
        Template(
            "recall.place.v1",
            RECALL,
            "meeting_place",
            "Where did {person} and {other} go when they {verb} in {month}?",
        ),
        Template(
            "retrieval.count.v1",
            RETRIEVAL,
            "count_events",
            "How many times did {person} take part when people {verb} between {from} and {to}?",
        ),
        Template(
            "retrieval.companion.v1",
            RETRIEVAL,
            "frequent_companion",
            "Across the album, who most often joined {person} when {subj} {verb}?",
        ),
        Template(
            "retrieval.binding.v1",
            RETRIEVAL,
            "who_brought",
            "What is the name of the person who brought the {object} when people {verb} in {month}?",
        ),
        Template(
            "profile.choice.v1",
            PROFILE,
            "usual_choice",
            "Judging from the whole album, what {key} does {person} usually go for?",
            "all",
        ),
        Template(
            "profile.habit.v1",
            PROFILE,
            "habit_of",
            "What habit do people keep mentioning about {person}?",
            "all",
        ),
        Template("profile.relation.v1", PROFILE, "relation_to", "How is {other} related to {person}?", "all"),
    ]
}


def _month_text(m: str) -> str:
    year, month = m.split("-")
    return f"{month_name(int(month))} {year}"


def _candidates(world: World) -> Iterator[tuple[Template, dict[str, Any]]]:
    months = sorted({e.start.strftime("%Y-%m") for e in world.events})
    quarters = [months[i : i + 3] for i in range(0, len(months), 3)]
    for ev in world.events:
        month = ev.start.strftime("%Y-%m")
        for p in ev.participants:
            base = {"person": p, "activity": ev.activity, "month": month}
            yield T["recall.companions.v1"], {**base, "place": ev.place}
            yield T["recall.object.v1"], base
            for o in ev.participants:
                if o > p:
                    yield T["recall.place.v1"], {**base, "other": o}
            yield T["retrieval.companion.v1"], {"person": p, "activity": ev.activity}
            for q in quarters:
                yield (
                    T["retrieval.count.v1"],
                    {"person": p, "activity": ev.activity, "from_month": q[0], "to_month": q[-1]},
                )
        for o in ev.objects:
            yield T["retrieval.binding.v1"], {"object": o, "activity": ev.activity, "month": month}
    for p in world.people:
        for key in sorted(p.preferences):
            yield T["profile.choice.v1"], {"person": p.id, "key": key}
        for h in p.habits:
            yield T["profile.habit.v1"], {"person": p.id, "habit": h}
    for r in world.relations:
        yield T["profile.relation.v1"], {"person": r.a, "other": r.b}


def binds_face_to_name(c: Candidate) -> bool:
    """The holder's name is heard in an earlier clip than the one where their face is seen with the object."""
    named = [o.order for o in c.evidence if o.kind == "speech"]
    seen = [o.order for o in c.evidence if o.kind == "shot"]
    return bool(named and seen) and min(named) < min(seen)


def _valid(c: Candidate) -> bool:
    clips = {o.episode for o in c.evidence}
    if c.template.category in (RETRIEVAL, PROFILE) and len(clips) < 2:
        return False
    if c.template.program == "who_brought":
        return binds_face_to_name(c)
    return True


def _text(world: World, c: Candidate, style: str) -> str:
    a = c.args
    verb = next((e.verb for e in world.events if e.activity == a.get("activity")), "")
    who = a.get("person")
    fields = {
        "person": person_reference(world, who, style) if who else "",
        "subj": pronoun(world, who) if who else "",
        "verb": verb,
        "place": world.place(a["place"]).name if "place" in a else "",
        "month": _month_text(a["month"]) if "month" in a else "",
        "other": world.person(a["other"]).name if "other" in a else "",
        "object": world.object(a["object"]).name if "object" in a else "",
        "from": _month_text(a["from_month"]) if "from_month" in a else "",
        "to": _month_text(a["to_month"]) if "to_month" in a else "",
        "key": a.get("key", ""),
    }
    return realise_form(c.template.id, c.template.text, fields, world.seed, a)[1]  # surface forms


def _relation_cited(world: World, c: Candidate) -> bool:
    """The protagonist's relation to the item's person is among the facts the evidence expresses."""
    who = c.args.get("person")
    cited = {f for o in c.evidence for f in o.fact_ids()}
    return any(
        r.a == world.protagonist and r.b == who and f"f_rel_{r.a}_{r.b}" in cited for r in world.relations
    )


def _targets(world: World, c: Candidate) -> list[str]:
    if c.template.program == "who_brought":
        return sorted({f.subject for f in world.facts if f.id in c.read and f.kind == "brought"})
    return sorted(p for p in (c.args.get("person"), c.args.get("other")) if p)


def generate_icm(
    world: World, observations: list[Observation], counts: dict[str, int], last_order: int
) -> list[Question]:
    """Plan candidates per category (``counts``), answers computed, selection seeded and stratified."""
    index = EvidenceIndex(observations)
    pool = [c for c in solve_candidates(world, index, _candidates(world)) if _valid(c)]
    world_hash = content_hash(world)
    out: list[Question] = []
    for category, n in counts.items():
        for c in select(world, [c for c in pool if c.template.category == category], n, FAMILY, category):
            style = derive_rng(world.seed, c.template.id, c.args, "style").choice(
                ["name", "name", "relation", "description"]
            )
            if style == "relation" and not _relation_cited(world, c):
                style = "name"  # a relation the evidence does not state cannot name a person
            text = _text(world, c, style)
            q = make_question(world, FAMILY, c, text, _targets(world, c), None, world_hash)
            if category != PROFILE:
                q = q.model_copy(update={"cutoff": recall_cutoff(world, q.id, c.evidence, last_order)})
            out.append(q)
    targets = stratified_targets([q.id for q in out], world.seed)  # answer ranks spread over items
    return sorted((with_options(world, q, targets[q.id]) for q in out), key=lambda q: q.id)
