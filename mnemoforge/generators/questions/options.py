"""Mirrored multiple choice: three distractors drawn from the World by rule, and four rotations
(cyclic shifts of a seeded shuffle) that put every option, the correct one too, once at each of A–D.

Rules (every distractor): the answer's type (names for people, a name set of the answer's size
for companions, places, objects, numbers, relation words, habits, choices of the same key); never
the subject of the question or one of its targets; agreeing with the person it describes
(a "sister" is never offered for a man); never also true under the World (the item's own program
is the reference: a distractor equal to the answer as a set, or a relation word the answer implies
or that implies it — "boss" ⇒ "manager" — is refused; so is another habit of the same
person). Sets are drawn so the answer's rank by length and by closeness to the other options is
uniform over items (:mod:`mnemoforge.generators.option_balance`).
"""

from __future__ import annotations

import random
from itertools import combinations

from mnemoforge.dates import WEEKDAYS
from mnemoforge.generators.option_balance import (
    Cost,
    Screen,
    balanced_distractors,
    draw_target,
    pick_balanced,
    semantic_available,
    untold,
)
from mnemoforge.generators.questions.fairness import screen_for
from mnemoforge.generators.questions.programs import join_names
from mnemoforge.generators.questions.relations import (  # noqa: F401  (re-exported)
    RELATIONS_FILE,
    also_true_relation,
    gender_agrees,
    implied,
    relation_lexicon,
)
from mnemoforge.generators.typed_values import part_values
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.textnorm import answer_parts, normalize

N_OPTIONS = 4


PROGRAM_MARGIN = 0.05
"""How far above 1/k one answer value may be keyed within a program's items (``answer_balance``)."""


def program_share(q: Question) -> float:
    """The most of a program's items one answer may key: 1/k + :data:`PROGRAM_MARGIN`."""
    return 1.0 / max(1, len(q.options or [])) + PROGRAM_MARGIN


def rotations(seed: int, qid: str, n: int = N_OPTIONS) -> list[list[int]]:
    """Option orders (indices into ``options``, whose item 0 is correct): the ``n`` cyclic shifts of
    one seeded shuffle, so every option moves one letter on from each rotation to the next and each
    option (the answer too) stands once at every letter. Nothing in the lists marks the answer: all
    options are in every list and all move alike, and the answer's letter in the first list is the
    shuffle's (spread evenly over a release's kept items at freeze: ``key_letters.spread``)."""
    base = list(range(n))
    derive_rng(seed, qid, "rotations").shuffle(base)
    return [base[n - r :] + base[: n - r] for r in range(n)]


def _excluded_people(world: World, q: Question) -> set[str]:
    """Names a person-valued distractor may never be: the question's subject and targets."""
    ids = {q.program.args.get("person"), q.program.args.get("other"), *q.target_people}
    return {world.person(i).name for i in ids if i and any(p.id == i for p in world.people)}


def _name_sets(world: World, q: Question, rng: random.Random) -> list[str]:
    """Name sets of the answer's size, from the cast minus the subject (never the answer set)."""
    subject = world.person(q.program.args["person"]).name
    size = len(answer_parts(q.answer))
    names = sorted(p.name for p in world.people if p.name != subject)
    sets = [join_names(c) for c in combinations(names, size)]
    rng.shuffle(sets)
    return sets


COUNTED = {"count_events", "count_together", "count_brought"}
"""Programs answering a count (their options are four consecutive numbers)."""


def count_ranks(q: Question) -> list[int]:
    """The ranks a count's answer can take among four counts that never go below 0 (and where it
    is not the one sum of two others)."""
    return [r for r in range(N_OPTIONS) if _count_sets(int(q.answer), r)]


def _sole_sum(values: list[int], i: int) -> bool:
    """``values[i]`` is the one option equal to the sum of two others (the ``sum_of_two`` prior)."""

    def is_sum(k: int) -> bool:
        rest = [v for j, v in enumerate(values) if j != k]
        return any(a + b == values[k] for a, b in combinations(rest, 2))

    return is_sum(i) and not any(is_sum(k) for k in range(len(values)) if k != i)


def _counts(q: Question, rng: random.Random, rank: int | None = None) -> list[str]:
    """Three counts (never below 0) around the answer with the answer at ``rank`` (0 = smallest;
    the program's turn, ``rank_plan.RankSpread``), else at a drawn feasible rank: the set is
    placed by the rank, so neither its centre nor its ends sit on the answer more than chance.
    The tightest set (four consecutive counts where possible) on which the answer is not the one
    sum of two others (an option prior reads that)."""
    n = int(q.answer)
    ranks = count_ranks(q) or [0]
    r = rank if rank in ranks else rng.choice(ranks)
    sets = _count_sets(n, r) or [[n + 1, n + 2, n + 3]]
    return [str(x) for x in sets[0]]


def _count_sets(n: int, r: int) -> list[list[int]]:
    """Distractor counts putting ``n`` at rank ``r``, tightest first, on which ``n`` is not the one
    sum of two others."""
    below = [list(c) for c in combinations(range(max(0, n - 6), n), r)]
    above = [list(c) for c in combinations(range(n + 1, n + 7), N_OPTIONS - 1 - r)]
    sets = sorted(
        ([*lo, *hi] for lo in below for hi in above), key=lambda d: (max([n, *d]) - min([n, *d]), d)
    )
    return [d for d in sets if not _sole_sum([n, *d], 0)]


def _relations(world: World, q: Question) -> list[str]:
    other = world.person(q.program.args["other"])
    words = set(relation_lexicon()) | {r.a_calls_b or r.kind for r in world.relations}
    true_words = {
        f.value for f in world.facts if f.kind == "relation" and f.subject == q.program.args["person"]
        and f.object == other.id and f.value
    }  # fmt: skip
    return sorted(
        w
        for w in words
        if gender_agrees(w, other.gender)
        and not any(also_true_relation(t, w) for t in true_words | {q.answer})
    )


# icm programs whose answers take another program's distractor pool (routines, promises, plans)
SAME_POOL = {
    "usual_place": "meeting_place",
    "planned_place": "meeting_place",
    "promised_item": "object_brought",
    "promise_companions": "event_companions",
    "plan_companions": "event_companions",
    "count_together": "count_events",
    "count_brought": "count_events",
    "usual_activity": "shared_activity",
    "closest_companion": "frequent_companion",
    "pair_weekday": "usual_weekday",
    "weekday_activity": "shared_activity",
}


def _changes(world: World, q: Question) -> list[str]:
    """'from A to B' pairs over the values of the item's key (the reverse change among them)."""
    key = q.program.args["key"]
    values = sorted({p.preferences[key] for p in world.people if key in p.preferences})
    chosen = {str(f.value) for f in world.facts if f.kind == "chose" and f.object == key}
    values += sorted(chosen - set(values))
    return [f"from {a} to {b}" for a in values for b in values if a != b]


def _pool(world: World, q: Question, rng: random.Random) -> list[str]:
    fn, args = SAME_POOL.get(q.program.fn, q.program.fn), q.program.args
    if fn == "shared_activity":
        return sorted({e.noun for e in world.events})
    if fn == "choice_change":
        return _changes(world, q)
    if fn == "event_companions":
        return _name_sets(world, q, rng)
    if fn in ("frequent_companion", "who_brought"):
        banned = _excluded_people(world, q) - {q.answer}
        return [p.name for p in world.people if p.name not in banned]
    if fn == "object_brought":  # things people bring (not a board or a shelf standing at a place)
        return [o.name for o in world.objects if o.place is None]
    if fn == "meeting_place":
        return [p.name for p in world.places]
    if fn == "usual_choice":
        key, person = args["key"], args["person"]
        own = [f.value for f in world.facts if f.kind == "chose" and f.subject == person and f.object == key]
        return [v for v in own if v] + [p.preferences[key] for p in world.people if key in p.preferences]
    if fn == "usual_weekday":
        return list(WEEKDAYS)
    if fn == "habit_of":
        own = set(world.person(args["person"]).habits)
        return [h for p in world.people for h in p.habits if h not in own]
    if fn == "relation_to":
        return _relations(world, q)
    if fn == "part_shown":  # a declared part's other values: levels, counts, a map's places
        return part_values(world.object(args["object"]).draws)
    return []


def _clean(q: Question, pool: list[str]) -> list[str]:
    """Distinct distractors that are not the answer in another spelling or order."""
    ans, ans_norm = answer_parts(q.answer), normalize(q.answer)
    out: list[str] = []
    for x in pool:
        if x and x not in out and answer_parts(x) != ans and normalize(x) != ans_norm:
            out.append(x)
    return out


def _faces_present(world: World, q: Question) -> list[str]:
    """Names of the people whose name facts a binding item read, the answer's excepted."""
    read = set(q.facts_read)
    return [p.name for p in world.people if f"f_name_{p.id}" in read and p.name != q.answer]


def _with_one_of(
    answer: str,
    faces: list[str],
    pool: list[str],
    rng: random.Random,
    target: tuple[int, int] | None,
    semantic: bool,
    screen: Screen | None = None,
    question: str = "",
    close: bool | None = None,
    extra: Cost | None = None,
) -> list[str] | None:
    """Distractors holding at least one of ``faces`` (all of the pool when there is none): of the sets
    that fix each face in turn and balance the rest, the one closest to ``target`` (so the faces, often
    one family's names, do not leave the answer at the centre of the set)."""
    if not faces:
        return balanced_distractors(
            answer,
            pool,
            N_OPTIONS - 1,
            rng,
            target=target,
            semantic=semantic,
            screen=screen,
            question=question,
            close=close,
            extra=extra,
        )
    target = target or draw_target(rng, N_OPTIONS)
    sets = [
        [f, *rest]
        for f in faces
        if (
            rest := balanced_distractors(
                answer, pool, N_OPTIONS - 2, rng, [f], target, semantic, screen, question, close, extra
            )
        )
        is not None
    ]
    return pick_balanced(answer, sets, rng, target, semantic, screen, question, close, extra)


def with_options(
    world: World,
    q: Question,
    target: tuple[int, int] | None = None,
    rank: int | None = None,
    close: bool | None = None,
    extra: Cost | None = None,
) -> Question:
    """The same item with four options (correct first) and its four rotations; too few
    distractors under the rules leaves it open-ended only. ``target``: the answer's rank by length
    and by centrality (``option_balance.stratified_targets``; else drawn per item); ``rank``: a
    count's rank among its options (0 = smallest); ``close``: whether the answer should be the
    option closest in meaning to the question (``option_balance.QuestionShare``,
    ``option_balance.question_cost``; None: no such cost); ``extra``: a further cost of a set
    (``option_balance.ValueShare.cost``)."""
    rng = derive_rng(world.seed, q.id, "options")
    semantic = semantic_available()  # the default panel's MiniLM centroid reads these sets too
    question = q.question if close is not None else ""  # the closeness cost only when asked
    # no cast prior picks the answer, no distractor is ruled out, no option-only rule reads the set
    screen = untold(q.question, semantic, screen_for(q.question, world))
    if SAME_POOL.get(q.program.fn, q.program.fn) == "count_events":
        distractors = _counts(q, rng, rank)
    else:
        pool = _clean(q, _pool(world, q, rng))
        if q.program.fn == "who_brought":  # another face present, whose name the evidence binds too
            faces = [x for x in _faces_present(world, q) if x in pool]
            got = _with_one_of(q.answer, faces, pool, rng, target, semantic, screen, question, close, extra)
        else:
            fixed = pool[:1] if q.program.fn == "usual_choice" else []  # the stale habit is always offered
            k = N_OPTIONS - 1 - len(fixed)
            rest = balanced_distractors(
                q.answer, pool, k, rng, fixed, target, semantic, screen, question, close, extra
            )
            got = None if rest is None else fixed + rest
        if got is None:
            return q
        distractors = got
    rng.shuffle(distractors)
    return q.model_copy(
        update={"options": [q.answer, *distractors], "rotations": rotations(world.seed, q.id)}
    )
