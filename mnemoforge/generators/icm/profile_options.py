"""Option sets for Profile items that no option-only rule reads.

A Profile answer is a majority over a period: the protagonist, the most frequent activity, a
family member. Drawn at the item's stratified target (``option_balance``), a quarter of the sets
put the answer first by length or centrality, and on a pool of six names or seven activity nouns
that often makes it *decisively* the shortest, the one sharing a family name with the question, or
the MiniLM centroid; the ``option_only`` gate then rejects the item. Here the target's set is kept
unless such a rule picks its answer; then the first of the other targets' sets (in a fixed order)
that none picks is taken. Same-type distractors from the World either way; the gates stay as
they are and still check every item.
"""

from __future__ import annotations

from itertools import permutations

from mnemoforge.generators.icm.weekday_programs import WEEKDAYS
from mnemoforge.generators.option_balance import (
    Cost,
    balanced_distractors,
    cost,
    question_cost,
    semantic_available,
)
from mnemoforge.generators.questions.distractor_grammar import ruled_out
from mnemoforge.generators.questions.fairness import screen_for
from mnemoforge.generators.questions.options import N_OPTIONS, rotations, with_options
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.validators.answerers.option_solvers import option_tell

CHANGES = {"companion_change", "closest_change", "place_change", "activity_change", "weekday_change"}
"""Programs answering ``from A to B`` (``change_programs``)."""


def _values(world: World, q: Question) -> list[str]:
    """What a ``from A to B`` answer's parts range over: the cast but the person, the places, or the
    activities' nouns (same type as the answer's parts, from the World)."""
    fn = q.program.fn
    if fn == "place_change":
        return [p.name for p in world.places]
    if fn == "activity_change":
        return sorted({e.noun for e in world.events})
    if fn == "weekday_change":
        return list(WEEKDAYS)
    return [p.name for p in world.people if p.id != q.program.args["person"]]


def change_options(
    world: World, q: Question, target: tuple[int, int], close: bool | None = None, extra: Cost | None = None
) -> Question:
    """Options of a ``from A to B`` item as a cycle A→B, B→C, C→D, D→A over two further values of
    the answer's type: every value stands once first and once second, so no option holds the
    majority of a slot and none is the others' centre. Of the (C, D) draws no option-only rule
    reads, the one whose length and centrality ranks come closest to ``target`` (and whose answer
    is closest in meaning to the question as ``close`` asks, ``option_balance.question_cost``)."""
    a, b = q.answer.removeprefix("from ").split(" to ", 1)
    rest = [v for v in _values(world, q) if v not in (a, b)]
    pairs = list(permutations(rest, 2))
    if not pairs:
        return q
    derive_rng(world.seed, q.id, "options").shuffle(pairs)
    semantic = semantic_available()
    sets = [[f"from {b} to {c}", f"from {c} to {d}", f"from {d} to {a}"] for c, d in pairs[:24]]
    fair = screen_for(q.question, world)
    clean = [d for d in sets if not option_tell(q.question, [q.answer, *d], semantic)] or sets
    clean = [d for d in clean if fair([q.answer, *d])] or clean
    pick = min(
        clean,
        key=lambda d: round(
            cost([q.answer, *d], target, semantic)
            + question_cost(q.question if close is not None else "", [q.answer, *d], target, close)
            + (extra([q.answer, *d]) if extra else 0.0),
            6,
        ),
    )
    return q.model_copy(update={"options": [q.answer, *pick], "rotations": rotations(world.seed, q.id)})


RIVALS = 2
"""At most this many of an item's distractors are the answer's rivals in the World."""
SAME_TARGET = 3
"""Draws at the item's own target before another target is tried."""


def _tries(world: World, q: Question, target: tuple[int, int]) -> list[tuple[int, int]]:
    """The item's target (:data:`SAME_TARGET` times), then every other target in a seeded order:
    a set moved off its target lands on any rank alike, so over a release each rule stays at chance."""
    others = [(a, b) for a in range(N_OPTIONS) for b in range(N_OPTIONS) if (a, b) != tuple(target)]
    derive_rng(world.seed, q.id, "option_targets").shuffle(others)
    return [tuple(target)] * SAME_TARGET + others  # type: ignore[list-item]


def _rivals(world: World, q: Question) -> tuple[list[str], list[str]]:
    """(rivals, pool) of a usual-place or companion item: the other places its activity is held at,
    or the people who shared the person's events (of its activity); and every value of that type
    a distractor may take (places; the cast but the person and the item's targets)."""
    fn, args = q.program.fn, q.program.args
    person = args["person"]
    if fn == "usual_place":
        pool = [p.name for p in world.places]
        rivals = {world.place(e.place).name for e in world.events if e.activity == args["activity"]}
    else:
        banned = {person, args.get("other"), *q.target_people}
        pool = [p.name for p in world.people if p.id not in banned]
        rivals = {
            world.person(p).name
            for e in world.events
            if person in e.participants and args.get("activity") in (None, e.activity)
            for p in e.participants
            if p not in banned
        }
    rivals -= {q.answer}
    return sorted(rivals), [v for v in pool if v != q.answer]


def rival_options(
    world: World, q: Question, target: tuple[int, int], close: bool | None = None, extra: Cost | None = None
) -> Question | None:
    """Options of a usual-place or companion item holding up to :data:`RIVALS` of the answer's
    rivals (where P also held that activity, who else came along: the alternatives a guess would
    weigh, not a place of another activity), the rest balanced at ``target``; of the
    targets tried in turn (:func:`_tries`), the first set no option-only rule reads. None if the
    pool is too small."""
    rng = derive_rng(world.seed, q.id, "options")
    rivals, pool = _rivals(world, q)
    rng.shuffle(rivals)
    fixed = rivals[:RIVALS]
    semantic = semantic_available()
    k = N_OPTIONS - 1 - len(fixed)
    tries = _tries(world, q, target)
    first: list[str] | None = None
    fair = screen_for(q.question, world)
    out = ruled_out(q.question, q.answer, [q.answer, *fixed], world)  # a pronoun rules a rival out
    if out:
        fixed = [r for r in fixed if r not in out]
        k = N_OPTIONS - 1 - len(fixed)
    for t in tries:
        rest = balanced_distractors(
            q.answer, pool, k, rng, fixed, t, semantic, fair, q.question, close, extra
        )  # type: ignore[arg-type]
        if rest is None:
            return None
        got = [*fixed, *rest]
        first = first or got
        if not option_tell(q.question, [q.answer, *got], semantic) and fair([q.answer, *got]):
            break
    else:
        got = first or []
    rng.shuffle(got)
    return q.model_copy(update={"options": [q.answer, *got], "rotations": rotations(world.seed, q.id)})


def profile_options(
    world: World,
    q: Question,
    target: tuple[int, int],
    rank: int | None = None,
    close: bool | None = None,
    extra: Cost | None = None,
) -> Question:
    """``q`` with options: the set drawn at ``target``, or where an option-only rule reads its
    answer, the first set drawn at another target that none reads (the target's set if none);
    ``close``: whether the answer should be the option closest in meaning to the question;
    ``extra``: a further cost of a set (``option_balance.ValueShare.cost``)."""
    if q.program.fn in CHANGES:
        return change_options(world, q, target, close, extra)
    if q.program.fn in ("usual_place", "frequent_companion", "closest_companion"):
        got = rival_options(world, q, target, close, extra)
        if got is not None:
            return got
    first = with_options(world, q, target, rank, close, extra)
    semantic = semantic_available()
    fair = screen_for(q.question, world)
    if not first.options or (not option_tell(q.question, first.options, semantic) and fair(first.options)):
        return first
    for t in _tries(world, q, target)[SAME_TARGET:]:
        alt = with_options(world, q, t, rank, close, extra)
        if alt.options and not option_tell(q.question, alt.options, semantic) and fair(alt.options):
            return alt
    return first
