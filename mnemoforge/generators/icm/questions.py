"""The identity-centric family (ICM-Bench): Recall, Cross-Episode Retrieval, Profile Inference.

Every answer is computed by a program on the World; every item records its target people,
supporting clips and shots, and its latest accessible clip (none for Profile).
"""

from __future__ import annotations

import datetime as dt

from mnemoforge.dates import month_name, weekday_name
from mnemoforge.generators.icm import change_programs, routine_programs  # noqa: F401  (register programs)
from mnemoforge.generators.icm.candidates import (  # noqa: F401  (re-exported)
    _candidates,
    _valid,
    binds_face_to_name,
)
from mnemoforge.generators.icm.forms import realise as realise_form
from mnemoforge.generators.icm.profile_options import profile_options
from mnemoforge.generators.icm.templates import FAMILY, PROFILE, RECALL, RETRIEVAL, T  # noqa: F401
from mnemoforge.generators.option_balance import stratified_targets
from mnemoforge.generators.questions.common import (
    Candidate,
    EvidenceIndex,
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


def _month_text(m: str) -> str:
    year, month = m.split("-")
    return f"{month_name(int(month))} {year}"


def _day_text(d: str) -> str:
    day = dt.date.fromisoformat(d)
    return f"{weekday_name(day)} {day.day} {month_name(day)} {day.year}"


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
    opts = {PROFILE: profile_options}  # profile answers are majorities: screened for option-only tells
    done = (opts.get(q.category, with_options)(world, q, targets[q.id]) for q in out)
    return sorted(done, key=lambda q: q.id)
