"""The identity-centric family (ICM-Bench): Recall, Cross-Episode Retrieval, Profile Inference.

Every answer is computed by a program on the World; every item records its target people,
supporting clips and shots, and its latest accessible clip (none for Profile).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from mnemoforge.dates import month_name, weekday_name
from mnemoforge.generators.icm import routine_programs  # noqa: F401  (registers its programs)
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


def _t(tid: str, category: str, prog: str, text: str, evidence: str = "first") -> Template:
    return Template(tid, category, prog, text, evidence)


T = {
    t.id: t
    for t in [
        _t(
            "recall.companions.v1",
            RECALL,
            "event_companions",
            "Who joined {person} when {subj} {verb} at {place} in {month}?",
        ),
        _t(
            "recall.object.v1",
            RECALL,
            "object_brought",
            "What did {person} bring along when {subj} {verb} in {month}?",
        ),
        _t(
            "recall.place.v1",
            RECALL,
            "meeting_place",
            "Where did {person} and {other} go when they {verb} in {month}?",
        ),
        _t(
            "recall.companions.day.v1",
            RECALL,
            "event_companions",
            "Who joined {person} when {subj} {verb} at {place} on {day}?",
        ),
        _t(
            "recall.object.day.v1",
            RECALL,
            "object_brought",
            "What did {person} bring along when {subj} {verb} on {day}?",
        ),
        _t(
            "recall.place.day.v1",
            RECALL,
            "meeting_place",
            "Where did {person} and {other} go when they {verb} on {day}?",
        ),
        _t(
            "recall.promise.v1",
            RECALL,
            "promised_item",
            "On {day}, what did {person} promise to bring to the next {noun}?",
        ),
        _t(
            "recall.plan.v1",
            RECALL,
            "planned_place",
            "On {day}, where did {person} say {subj} would go next for the {noun}?",
        ),
        _t(
            "retrieval.count.v1",
            RETRIEVAL,
            "count_events",
            "How many times did {person} take part when people {verb} between {from} and {to}?",
        ),
        _t(
            "retrieval.count.month.v1",
            RETRIEVAL,
            "count_events",
            "How many times did {person} take part when people {verb} in {from}?",
        ),
        _t(
            "retrieval.together.v1",
            RETRIEVAL,
            "count_together",
            "How many times were {person} and {other} both there when people {verb} between {from} and {to}?",
        ),
        _t(
            "retrieval.companion.v1",
            RETRIEVAL,
            "frequent_companion",
            "Across the album, who most often joined {person} when {subj} {verb}?",
        ),
        _t(
            "retrieval.binding.v1",
            RETRIEVAL,
            "who_brought",
            "What is the name of the person who brought the {object} when people {verb} in {month}?",
        ),
        _t(
            "retrieval.binding.day.v1",
            RETRIEVAL,
            "who_brought",
            "What is the name of the person who brought the {object} when people {verb} on {day}?",
        ),
        _t(
            "retrieval.promise.v1",
            RETRIEVAL,
            "promise_companions",
            "Who came along to the next {noun} after {person} promised on {day} to bring the {object}?",
        ),
        _t(
            "retrieval.plan.v1",
            RETRIEVAL,
            "plan_companions",
            "Who joined {person} at {place} for the {noun} {subj} had planned on {day}?",
        ),
        _t(
            "profile.choice.v1",
            PROFILE,
            "usual_choice",
            "Judging from the whole album, what {key} does {person} usually go for?",
            "all",
        ),
        _t(
            "profile.choice.window.v1",
            PROFILE,
            "usual_choice",
            "Between {from} and {to}, what {key} did {person} usually go for?",
            "all",
        ),
        _t(
            "profile.change.v1",
            PROFILE,
            "choice_change",
            "How did the {key} that {person} usually goes for change in {month}?",
            "all",
        ),
        _t(
            "profile.habit.v1",
            PROFILE,
            "habit_of",
            "What habit do people keep mentioning about {person}?",
            "all",
        ),
        _t("profile.relation.v1", PROFILE, "relation_to", "How is {other} related to {person}?", "all"),
        _t(
            "profile.companion.v1",
            PROFILE,
            "frequent_companion",
            "Judging from the whole album, who most often joined {person} when {subj} {verb}?",
            "all",
        ),
        _t(
            "profile.companion.window.v1",
            PROFILE,
            "frequent_companion",
            "Between {from} and {to}, who most often joined {person} when {subj} {verb}?",
            "all",
        ),
        _t(
            "profile.place.v1",
            PROFILE,
            "usual_place",
            "Judging from the whole album, where did {person} usually go when {subj} {verb}?",
            "all",
        ),
        _t(
            "profile.place.window.v1",
            PROFILE,
            "usual_place",
            "Between {from} and {to}, where did {person} usually go when {subj} {verb}?",
            "all",
        ),
        _t(
            "profile.shared.v1",
            PROFILE,
            "shared_activity",
            "Over the whole album, what did {person} and {other} most often do together?",
            "all",
        ),
        _t(
            "profile.shared.window.v1",
            PROFILE,
            "shared_activity",
            "Between {from} and {to}, what did {person} and {other} most often do together?",
            "all",
        ),
        _t(
            "profile.activity.window.v1",
            PROFILE,
            "usual_activity",
            "Between {from} and {to}, what did {person} do most often?",
            "all",
        ),
        _t(
            "profile.closest.window.v1",
            PROFILE,
            "closest_companion",
            "Between {from} and {to}, who was with {person} most often?",
            "all",
        ),
        _t(
            "profile.count.v1",
            PROFILE,
            "count_events",
            "Over the whole album, how many times did {person} take part when people {verb}?",
            "all",
        ),
    ]
}


def _month_text(m: str) -> str:
    year, month = m.split("-")
    return f"{month_name(int(month))} {year}"


def _day_text(d: str) -> str:
    day = dt.date.fromisoformat(d)
    return f"{weekday_name(day)} {day.day} {month_name(day)} {day.year}"


def _windows(months: list[str]) -> list[tuple[str, str]]:
    """Quarters and halves of the timeline: the windows routines are compared over."""
    quarters = [(q[0], q[-1]) for q in (months[i : i + 3] for i in range(0, len(months), 3))]
    half = (len(months) + 1) // 2
    halves = [(months[0], months[half - 1]), (months[half], months[-1])] if len(months) > 1 else []
    return quarters + halves


def _places_told(world: World) -> set[str]:
    """Events whose place text already gives away, so no where-did-they-go item asks it: an activity
    held at one place only (its lines and habits name that place's kind: "tai chi in the park"), or an
    activity and place a plan line names together ("the reading circle at X": a text-only retrieval
    matches the question's activity to it, whenever it was said)."""
    places: dict[str, set[str]] = {}
    for ev in world.events:
        places.setdefault(ev.activity, set()).add(ev.place)
    plans = [f for f in world.facts if f.kind == "planned"]
    return {
        ev.id
        for ev in world.events
        if len(places[ev.activity]) < 2
        or any(f.object == ev.activity and str(f.value) == ev.place for f in plans)
    }


def _candidates(world: World) -> Iterator[tuple[Template, dict[str, Any]]]:
    months = sorted({e.start.strftime("%Y-%m") for e in world.events})
    quarters = [months[i : i + 3] for i in range(0, len(months), 3)]
    windows = _windows(months)
    span = {"from_month": months[0], "to_month": months[-1]} if months else {}
    acts: dict[str, set[str]] = {}
    told = _places_told(world)
    for ev in world.events:
        month, day = ev.start.strftime("%Y-%m"), ev.start.strftime("%Y-%m-%d")
        for p in ev.participants:
            acts.setdefault(p, set()).add(ev.activity)
            base = {"person": p, "activity": ev.activity, "month": month}
            dayb = {"person": p, "activity": ev.activity, "day": day}
            yield T["recall.companions.v1"], {**base, "place": ev.place}
            yield T["recall.object.v1"], base
            yield T["recall.companions.day.v1"], {**dayb, "place": ev.place}
            yield T["recall.object.day.v1"], dayb
            for o in ev.participants:
                if o > p and ev.id not in told:
                    yield T["recall.place.v1"], {**base, "other": o}
                    yield T["recall.place.day.v1"], {**dayb, "other": o}
                    pair = {"person": p, "other": o, "activity": ev.activity}
                    for q in quarters:
                        yield T["retrieval.together.v1"], {**pair, "from_month": q[0], "to_month": q[-1]}
            yield T["retrieval.count.month.v1"], {
                "person": p, "activity": ev.activity, "from_month": month, "to_month": month
            }  # fmt: skip
            for q in quarters:
                yield (
                    T["retrieval.count.v1"],
                    {"person": p, "activity": ev.activity, "from_month": q[0], "to_month": q[-1]},
                )
        for o in ev.objects:
            yield T["retrieval.binding.v1"], {"object": o, "activity": ev.activity, "month": month}
            yield T["retrieval.binding.day.v1"], {"object": o, "activity": ev.activity, "day": day}
    yield from _statement_candidates(world)
    yield from _profile_candidates(world, acts, windows, span)


def _statement_candidates(world: World) -> Iterator[tuple[Template, dict[str, Any]]]:
    """Promises and plans: recalled on the day they were said, and followed to the event they name."""
    for f in world.facts:
        if f.kind not in ("promised", "planned") or f.at is None:
            continue
        said = {"person": f.subject, "day": f.at.strftime("%Y-%m-%d")}
        if f.kind == "promised":
            yield T["recall.promise.v1"], {**said, "activity": f.value}
            yield T["retrieval.promise.v1"], {**said, "activity": f.value, "object": f.object}
        else:
            yield T["recall.plan.v1"], {**said, "activity": f.object}
            yield T["retrieval.plan.v1"], {**said, "activity": f.object, "place": f.value}


def _profile_candidates(
    world: World, acts: dict[str, set[str]], windows: list[tuple[str, str]], span: dict[str, str]
) -> Iterator[tuple[Template, dict[str, Any]]]:
    """Habits, preferences, relationships and routines over the album, and how they changed."""
    changes = {(f.subject, f.object): f for f in world.facts if f.kind == "preference" and f.at is not None}
    for p in world.people:
        for key in sorted(p.preferences):
            yield T["profile.choice.v1"], {"person": p.id, "key": key}
            for lo, hi in windows:
                yield (
                    T["profile.choice.window.v1"],
                    {"person": p.id, "key": key, "from_month": lo, "to_month": hi},
                )
            ch = changes.get((p.id, key))
            if ch is not None and ch.at is not None:
                yield T["profile.change.v1"], {"person": p.id, "key": key, "month": ch.at.strftime("%Y-%m")}
        for h in p.habits:
            yield T["profile.habit.v1"], {"person": p.id, "habit": h}
        for lo, hi in windows:  # routines across activities: what P did, and with whom, each period
            yield T["profile.activity.window.v1"], {"person": p.id, "from_month": lo, "to_month": hi}
            yield T["profile.closest.window.v1"], {"person": p.id, "from_month": lo, "to_month": hi}
        for a in sorted(acts.get(p.id, ())):
            base = {"person": p.id, "activity": a}
            yield T["profile.companion.v1"], base
            yield T["profile.place.v1"], base
            yield T["profile.count.v1"], {**base, **span}
            for lo, hi in windows:
                yield T["profile.companion.window.v1"], {**base, "from_month": lo, "to_month": hi}
                yield T["profile.place.window.v1"], {**base, "from_month": lo, "to_month": hi}
        for o in world.people:
            if o.id > p.id:
                yield T["profile.shared.v1"], {"person": p.id, "other": o.id}
                for lo, hi in windows:
                    yield (
                        T["profile.shared.window.v1"],
                        {"person": p.id, "other": o.id, "from_month": lo, "to_month": hi},
                    )
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
        "day": _day_text(a["day"]) if "day" in a else "",
        "noun": next((e.noun for e in world.events if e.activity == a.get("activity")), ""),
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
