"""The joint plan of where ordered answers stand among their options (``assign_ranks``) and the
smm release it shapes: the largest / smallest / median rules stay at chance over numeric items."""

from __future__ import annotations

from collections import Counter

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.questions import ordered as numeric
from mnemoforge.generators.rank_plan import RankSpread, assign_ranks
from mnemoforge.generators.smm.options import ranks_for, retrieval_screen, text_history
from mnemoforge.generators.smm.questions import plan_questions
from mnemoforge.schemas.questions import Question

BOUND = 0.30  # chance 0.25 + 5 points (benchmarks/shortcuts.py)

# the shape of an smm release's ordered items: a stale value before the answer and late dates
# leave several items only the largest rank, few can take the smallest; the free ones come first
# in id order, so a turn-by-turn spread spends them before it meets the constrained ones
FEASIBLE = {
    "q01": [0, 1, 2, 3],
    "q02": [0, 1, 2, 3],
    "q03": [1, 2, 3],
    "q04": [1, 2, 3],
    "q05": [0, 1, 2],
    "q06": [1, 2],
    "q07": [2, 3],
    "q08": [3],
    "q09": [3],
    "q10": [3],
    "q11": [0, 1],
    "q12": [1],
}


def test_plan_balances_what_a_turn_by_turn_spread_piles_at_the_largest() -> None:
    plan = assign_ranks(FEASIBLE)
    assert set(plan) == set(FEASIBLE) and all(plan[q] in FEASIBLE[q] for q in plan)
    assert sorted(Counter(plan.values()).values()) == [3, 3, 3, 3]
    # the old spread: each item in id order takes its program's least-used rank if feasible, else
    # (as the option draw did) the first feasible one; three forced items then sit on a used 3
    spread, got = RankSpread(7), Counter()
    for _, rs in sorted(FEASIBLE.items()):
        want = spread.pick("ordered", range(4))
        r = want if want in rs else rs[0]
        spread.take("ordered", r)
        got[r] += 1
    assert got[3] / len(FEASIBLE) > BOUND


def test_plan_ties_lean_to_the_smallest_and_skips_items_without_a_rank() -> None:
    plan = assign_ranks({"a": [0, 1, 2, 3], "b": [], "c": [2, 3], "d": [5]})
    assert plan == {"c": 2, "a": 0}  # "b" and "d" (outside 0..3) have no feasible rank
    assert assign_ranks({"x": [3, 1], "y": [1, 3]}) == {"x": 1, "y": 3}
    assert assign_ranks(FEASIBLE) == assign_ranks(dict(reversed(FEASIBLE.items())))  # order-free


def test_smm_release_numeric_items_stay_at_chance(smm_release) -> None:  # type: ignore[no-untyped-def]
    """Over the seeded office_launch build, no ordered rule picks the answer of more than the
    bound's share of the kept numeric items (before the plan: largest 5 of 17 here, 10 of 28 over
    the release set)."""
    mcq = [q.options for q in smm_release.qs if q.options and numeric.rank(q.options) is not None]
    assert len(mcq) >= 12
    ranks = Counter(numeric.rank(o) for o in mcq)
    assert max(ranks.values()) / len(mcq) <= BOUND, ranks
    for name, rule in numeric.SOLVERS.items():
        scores = [rule(o) for o in mcq]
        acc = sum(_forced(s) for s in scores if s is not None) / len(mcq)
        assert acc <= BOUND, (name, acc, ranks)


def test_smm_release_keeps_the_planned_ranks(smm_release) -> None:  # type: ignore[no-untyped-def]
    """Every kept ordered item stands at the rank the joint plan gave it, the plan being made over
    every item the gates saw (kept and rejected), from the ranks each can take."""
    from .smm_release import THEME

    rejected = [Question.model_validate(r) for r in read_jsonl(smm_release.root / "gates/rejected.jsonl")]
    seen = [q for q in [*smm_release.qs, *rejected] if q.options]
    world = smm_release.world
    cands = {(c.template.program, repr(sorted(c.args.items()))): c for c in plan_questions(THEME, world)}
    key = lambda q: (q.program.fn, repr(sorted(q.program.args.items())))  # noqa: E731
    history, by_id = text_history(smm_release.obs), smm_release.by_id
    quiet = {q.id: retrieval_screen(history, q, [by_id[e] for e in q.evidence]) for q in seen}
    feasible = {q.id: ranks_for(THEME, world, cands[key(q)], q.id, q.question, quiet[q.id]) for q in seen}
    plan = assign_ranks(feasible)
    kept = [q for q in smm_release.qs if q.options and numeric.rank(q.options) is not None]
    assert len(kept) >= 12 and all(q.id in plan for q in kept)
    assert [numeric.rank(q.options) for q in kept] == [plan[q.id] for q in kept]


def _forced(scores: list[float]) -> float:
    """The answer's (index 0) share of the best score: 1/k when k options tie for best."""
    best = max(scores)
    return (scores[0] == best) / sum(s == best for s in scores)
