"""Mirrored multiple choice: three distractors drawn from the World, and four rotations that
put the correct option once at each of A–D (for option-only and shortcut gates)."""

from __future__ import annotations

import random
from collections.abc import Iterable

from mnemoforge.generators.questions.programs import join_names
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World

N_OPTIONS = 4
RELATION_WORDS = [
    "colleague",
    "neighbour",
    "cousin",
    "brother",
    "sister",
    "friend",
    "father",
    "wife",
    "manager",
]


def rotations(n: int = N_OPTIONS) -> list[list[int]]:
    """Option orders (indices into ``options``, whose item 0 is correct): rotation r puts it at r."""
    others = list(range(1, n))
    return [others[:r] + [0] + others[r:] for r in range(n)]


def _names_variants(world: World, answer: str, rng: random.Random) -> list[str]:
    names = sorted(p.name for p in world.people)
    chosen = [n for n in names if n in answer]
    out = []
    for _ in range(40):
        pick = list(chosen)
        outside = [n for n in names if n not in pick]
        move = rng.choice(["swap", "swap", "drop", "add"])
        if move == "swap" and pick and outside:
            pick[rng.randrange(len(pick))] = rng.choice(outside)
        elif move == "drop" and len(pick) > 1:
            pick.pop(rng.randrange(len(pick)))
        elif outside:
            pick.append(rng.choice(outside))
        out.append(join_names(pick))
    return out


def _pool(world: World, q: Question, rng: random.Random) -> Iterable[str]:
    fn, args = q.program.fn, q.program.args
    if fn == "event_companions":
        return _names_variants(world, q.answer, rng)
    if fn in ("frequent_companion", "who_brought"):
        return [p.name for p in world.people]
    if fn == "object_brought":
        return [o.name for o in world.objects]
    if fn == "meeting_place":
        return [p.name for p in world.places]
    if fn == "count_events":
        n = int(q.answer)
        return [str(x) for x in (n + 1, n - 1, n + 2, n + 3, n - 2) if x > 0]
    if fn == "usual_choice":
        key, person = args["key"], args["person"]
        own = [f.value for f in world.facts if f.kind == "chose" and f.subject == person and f.object == key]
        return [v for v in own if v] + [p.preferences[key] for p in world.people if key in p.preferences]
    if fn == "habit_of":
        return [h for p in world.people for h in p.habits]
    if fn == "relation_to":
        return [r.a_calls_b or r.kind for r in world.relations] + RELATION_WORDS
    return []


def with_options(world: World, q: Question) -> Question:
    """The same item with four options (correct first) and its four rotations.

    Distractors are plausible by construction: the person's own minority choices, companions
    swapped for other cast members, other places and objects of the World, near counts.
    """
    rng = derive_rng(world.seed, q.id, "options")
    pool: list[str] = []
    for x in _pool(world, q, rng):
        if x != q.answer and x not in pool:
            pool.append(x)
    if len(pool) < N_OPTIONS - 1:
        return q  # too few plausible distractors: the item stays open-ended only
    own_first = pool[:1] if q.program.fn == "usual_choice" else []  # the stale habit is always offered
    rest = [x for x in pool if x not in own_first]
    distractors = own_first + rng.sample(rest, N_OPTIONS - 1 - len(own_first))
    rng.shuffle(distractors)
    return q.model_copy(update={"options": [q.answer, *distractors], "rotations": rotations()})
