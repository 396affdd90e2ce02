"""The identity-centric family (ICM-Bench): Recall, Cross-Episode Retrieval, Profile Inference.

Every answer is computed by a program on the World; every item records its target people,
supporting clips and shots, and its latest accessible clip (none for Profile).
"""

from __future__ import annotations

import datetime as dt
import math

from mnemoforge.dates import month_name, weekday_name
from mnemoforge.generators.icm import change_programs, routine_programs  # noqa: F401  (register programs)
from mnemoforge.generators.icm.candidates import (  # noqa: F401  (re-exported)
    _candidates,
    _valid,
    binds_face_to_name,
)
from mnemoforge.generators.icm.forms import realise as realise_form
from mnemoforge.generators.icm.part_programs import part_fields
from mnemoforge.generators.icm.profile_options import profile_options
from mnemoforge.generators.icm.templates import FAMILY, PROFILE, RECALL, RETRIEVAL, T  # noqa: F401
from mnemoforge.generators.option_balance import RankSpread, stratified_targets
from mnemoforge.generators.questions.common import (
    Candidate,
    EvidenceIndex,
    make_question,
    person_reference,
    pronoun,
    question_id,
    recall_cutoff,
    solve_candidates,
)
from mnemoforge.generators.questions.diversity import diverse_order, features
from mnemoforge.generators.questions.fairness import fair_set, near_duplicates
from mnemoforge.generators.questions.options import COUNTED, count_ranks, program_share, with_options
from mnemoforge.hashing import content_hash
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Program, Question
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
        "species": a.get("species", ""),
        **part_fields(world, a),
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


def _question(world: World, c: Candidate, last_order: int, world_hash: str) -> Question:
    """The candidate as a question: its text in a seeded reference style, its cutoff."""
    style = derive_rng(world.seed, c.template.id, c.args, "style").choice(
        ["name", "name", "relation", "description"]
    )
    if style == "relation" and not _relation_cited(world, c):
        style = "name"  # a relation the evidence does not state cannot name a person
    q = make_question(world, FAMILY, c, _text(world, c, style), _targets(world, c), None, world_hash)
    if c.template.category != PROFILE:
        q = q.model_copy(update={"cutoff": recall_cutoff(world, q.id, c.evidence, last_order)})
    return q


def _features(c: Candidate) -> dict:
    return features(c.template.program, c.template.id, c.answer, c.args)


def generate_icm(
    world: World,
    observations: list[Observation],
    counts: dict[str, int],
    last_order: int,
    screen: bool = True,
) -> list[Question]:
    """Plan candidates per category (``counts``), answers computed. Each category's candidates are
    taken in diversity order (``questions/diversity``: programs, answer values, templates, people,
    months) and realised with options until ``counts`` are planned; a candidate whose options
    cannot be made fair (a cast prior or the question's grammar gives the answer away) or that
    repeats a planned one (``fairness.near_duplicates``) or keys an answer its program already keys
    for its share (``answer_balance``) is passed over, since the gates would
    reject it (``screen=False`` plans them too: the gates' own tests need such items). Counts take
    the answer's rank among their options in turn (``RankSpread``)."""
    index = EvidenceIndex(observations)
    pool = [c for c in solve_candidates(world, index, _candidates(world)) if _valid(c)]
    world_hash = content_hash(world)
    ids = {key(c): question_id(FAMILY, c.template, Program(fn=c.template.program, args=c.args)) for c in pool}
    targets = stratified_targets(sorted(ids.values()), world.seed)  # answer ranks spread over items
    ranks = RankSpread(world.seed)
    opts = {PROFILE: profile_options}  # profile answers are majorities: screened for option-only tells
    out: list[Question] = []
    for category, n in counts.items():
        taken: list[Question] = []
        cands = [c for c in pool if c.template.category == category]
        for c in diverse_order(cands, _features, key, world.seed, FAMILY, category):
            if len(taken) >= n:
                break
            q = _question(world, c, last_order, world_hash)
            rank = ranks.pick("counts", count_ranks(q)) if q.program.fn in COUNTED else None
            q = opts.get(category, with_options)(world, q, targets[q.id], rank=rank)
            if screen and q.options and not fair_set(q.question, q.options, world):
                continue
            if screen and near_duplicates([*out, *taken, q]):  # the planned ones repeat nothing: q would
                continue
            if screen and q.options and _over_keyed(q, taken):
                continue
            if rank is not None and q.options:
                ranks.take("counts", rank)
            taken.append(q)
        out += taken
    return sorted(out, key=lambda q: q.id)


def _over_keyed(q: Question, planned: list[Question]) -> bool:
    """``q``'s answer would be keyed for more than ``answer_balance``'s per-program share of the
    program's planned items (1/k + 5 points)."""
    same = [x for x in planned if x.program.fn == q.program.fn]
    keyed = sum(1 for x in same if x.answer == q.answer) + 1
    return keyed > max(1, math.floor(program_share(q) * (len(same) + 1) + 1e-9))


def key(c: Candidate) -> str:
    return content_hash(c.template.id, c.args)
