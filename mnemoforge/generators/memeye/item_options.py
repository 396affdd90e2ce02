"""A MemEye item's four options: World-drawn distractors (``alternatives``, ``distractors``),
the seeded sets to pick from (``option_sets``), the pick that no shortcut answers
(``with_options``) and all items at once (``options_for``, count ranks spread per program).

Option sets carry no structural tell: no near-variant centre, no addends of a total, no fixed
rank of a number, pair slots in a 2×2 grid, no majority colour group.
"""

from __future__ import annotations

import random

from mnemoforge.generators.memeye.labels import label_options
from mnemoforge.generators.memeye.option_screen import Screen, clean_sets, prefetch
from mnemoforge.generators.memeye.programs import PAIR_SEP
from mnemoforge.generators.memeye.vocab import (
    POSITIONS,
    colour_options,
    count_window,
    entity_vocab,
    rotations,
)
from mnemoforge.generators.memeye.world import COUNT_RANGE
from mnemoforge.generators.option_balance import balanced_distractors, pick_balanced
from mnemoforge.generators.questions import options as options_mod
from mnemoforge.generators.questions.fairness import screen_for
from mnemoforge.generators.rank_plan import RankSpread
from mnemoforge.generators.typed_values import typed_options
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.validators.answerers.judges import exact_match


def alternatives(
    world: World,
    scene: str,
    key: str,
    value: str,
    rng: random.Random,
    stale: str | None = None,
    rank: int | None = None,
) -> list[str]:
    """Three wrong values for one key of one scene (with ``stale``, a Y3 stale state, among them).

    Built so the answer has no structural tell: all gists / instance positions / 4 of 5 region
    items; colours in two same-group pairs; labels as the four nudges of a hidden base; counts
    as four consecutive numbers at a seeded offset (the answer's rank varies)."""
    kind = world.entity(scene).attrs["kind"]
    if key == "colour":
        return colour_options(value, stale, rng)
    if key == "label":
        tv = entity_vocab(world.entity(scene).attrs)
        if tv.label_type:  # a declared level, count or time: neighbours in its range
            return typed_options(tv.label_type, tuple(tv.label_range), value, stale, rng)  # type: ignore[arg-type]
        return label_options(kind, value, stale, rng)
    if key == "count":
        vals = [int(value)] + ([int(stale)] if stale else [])
        return [str(x) for x in count_window(vals, rng, *COUNT_RANGE, set(), rank) if x != int(value)]
    if key == "order":  # the other rotations (every state of the table is one of them)
        return [x for x in rotations(value) if x != value]
    v = entity_vocab(world.entity(scene).attrs)
    pool = {"gist": v.gists, "left": v.items, "right": v.items, "mark": POSITIONS, "presence": v.holds,
            "marked": v.map_places}[key]  # fmt: skip
    others = [x for x in pool if x not in (value, stale)]
    rng.shuffle(others)
    head = [stale] if stale else []
    if len(others) > 3 - len(head):  # a choice to make: no length or closeness tell (option_balance)
        return head + (balanced_distractors(value, others, 3 - len(head), rng, fixed=head) or [])
    return head + others[: 3 - len(head)]


def _distinct(answer: str, items: list[str]) -> list[str]:
    out: list[str] = []
    for x in items:
        if x and not exact_match(answer, x) and not any(exact_match(x, y) for y in out):
            out.append(x)
    return out


def distractors(world: World, q: Question, rng: random.Random, rank: int | None = None) -> list[str]:
    """Three wrong options; for Y3 the stale state is always one of them; ``rank``: a count's
    rank among the options (0 = smallest) where the window allows it."""
    a, fn = q.program.args, q.program.fn
    if fn == "visual_total":  # never the addends, and no option is the sum of two others
        parts = {int(f.value or 0) for f in world.facts if f.id in q.facts_read}
        n = int(q.answer)
        return [str(x) for x in count_window([n], rng, 1, 99, parts, rank) if x != n]
    if fn in ("visual_pair", "visual_pair_mixed"):  # a 2x2 grid: each slot value appears twice
        va, vb = q.answer.split(PAIR_SEP)
        sa, sb = a["scenes"]
        ka, kb = a.get("keys", [a["key"], a["key"]])
        xa = rng.choice(alternatives(world, sa, ka, va, rng))
        yb = rng.choice(alternatives(world, sb, kb, vb, rng))
        return [f"{x}{PAIR_SEP}{y}" for x in (va, xa) for y in (vb, yb) if (x, y) != (va, vb)]
    return alternatives(world, a["scene"], a["key"], q.answer, rng, _stale(world, q), rank)


def _stale(world: World, q: Question) -> str | None:
    """A Y3 item's earlier state (always among its distractors), None for the others."""
    if q.program.fn != "visual_latest":
        return None
    read = sorted((f for f in world.facts if f.id in q.facts_read), key=lambda f: (f.at, f.id))
    return next(f.value for f in read if f.value != q.answer)


def count_ranks(world: World, q: Question) -> list[int]:
    """The ranks (0 = smallest) a count answer can take in a window of four consecutive counts
    inside the drawn range that also holds the stale count of a Y3 item."""
    n = int(q.answer)
    lo, hi = (1, 99) if q.program.fn == "visual_total" else COUNT_RANGE
    vals = [n] + ([int(x)] if (x := _stale(world, q)) and x.isdigit() else [])
    return [
        r for r in range(4) if lo <= n - r and n - r + 3 <= hi and all(n - r <= v <= n - r + 3 for v in vals)
    ]


OPTION_DRAWS = 16


def option_sets(world: World, q: Question, rank: int | None = None) -> tuple[random.Random, list[list[str]]]:
    """The item's seeded draws of distractor sets (several: ``with_options`` picks the one whose
    length and centrality tells match a drawn rank, ``option_balance``), and the generator the
    pick goes on with; ``rank``: a count's rank among its options."""
    rng = derive_rng(world.seed, q.id, "options")
    sets: list[list[str]] = []
    for _ in range(OPTION_DRAWS):
        d = _distinct(q.answer, distractors(world, q, rng, rank))[:3]
        if len(d) == options_mod.N_OPTIONS - 1 and sorted(d) not in [sorted(x) for x in sets]:
            sets.append(d)
    return rng, sets


def with_options(
    world: World,
    q: Question,
    target: tuple[int, int] | None = None,
    text: Screen | None = None,
    drawn: tuple[random.Random, list[list[str]]] | None = None,
) -> Question:
    """``q`` with four options; ``target``: the answer's rank by length and by centrality
    (``option_balance.stratified_targets``), met among the sets no shortcut answers
    (``option_screen``; ``text``: the text-retrieval check); ``drawn``: ``option_sets(world, q)``."""
    rng, sets = drawn or option_sets(world, q)
    if not sets:
        return q
    central = None if target is None else target[1] == 0
    fair = screen_for(q.question, world)  # no cast prior picks the answer, no distractor ruled out
    d = pick_balanced(q.answer, clean_sets(q, sets, text, central), rng, target, screen=fair) or []
    rng.shuffle(d)
    return q.model_copy(
        update={"options": [q.answer, *d], "rotations": options_mod.rotations(world.seed, q.id)}
    )


def options_for(
    world: World, qs: list[Question], targets: dict[str, tuple[int, int]], text: Screen | None
) -> list[Question]:
    """:func:`with_options` for every item; with the text screen, every text the screens embed is
    encoded first in one call (an item's own call would hold one or two new texts)."""
    spread = RankSpread(world.seed)  # counts take each rank among their options in turn, per program
    ranks: dict[str, int | None] = {}
    for q in sorted(qs, key=lambda q: q.id):
        prog = "counts"  # every count item takes the ranks in turn
        if (
            q.program.args.get("key") == "count"
            and (r := spread.pick(prog, count_ranks(world, q))) is not None
        ):
            ranks[q.id] = r
            spread.take(prog, r)
    drawn = [option_sets(world, q, ranks.get(q.id)) for q in qs]
    if text is not None:
        prefetch([(q, sets) for q, (_, sets) in zip(qs, drawn, strict=True)])
    return [with_options(world, q, targets[q.id], text, d) for q, d in zip(qs, drawn, strict=True)]
