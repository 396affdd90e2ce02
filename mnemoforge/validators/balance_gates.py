"""Family-level gates over what the earlier gates kept: answer balance within a category and the
requested split (category quotas).

Both read figures of the whole survivor set (which ids stay balanced, each category's scaled quota
and each item's place in id order); those are computed once per run and kept on the gate context,
so each item's check is a look-up rather than a pass over every candidate.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

from mnemoforge.generators.questions.diversity import diverse_order, features
from mnemoforge.generators.questions.options import program_share
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.validators.gates import GateContext, verdict

T = TypeVar("T")
_MEMO_LOCK = threading.Lock()


class AnswerBalance:
    """CLEVR-style, over the items every earlier gate kept: within a program no answer is keyed for
    more than 1/k + ``PROGRAM_MARGIN`` of its multiple-choice items (k options), and within a
    category no answer holds more than ``max_answer_share`` of the kept items (at most
    ``floor(share * kept)``, at least one; the surplus, by id order, is rejected until the shares
    hold over what remains); MCQ rotations place the answer evenly on A–D. A value-prior solver
    (the answer most often keyed among the other items) then sits near chance: each verdict
    reports its hit on the item (``prior``, leave-one-out over the program's kept items)."""

    name, version = "answer_balance", "3"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        if q.rotations and sorted(r.index(0) for r in q.rotations) != list(range(len(q.rotations))):
            return verdict(self, q, False, "unbalanced rotations: the answer does not visit every letter")
        survivors = ctx.survivors if ctx.survivors is not None else {x.id for x in ctx.questions}
        if q.id not in survivors:
            return verdict(self, q, True, "not counted: rejected by an earlier gate", share=0.0)
        key = ("answer_balance", q.category)
        by_prog, kept, answers = _per_run(ctx, survivors, key, lambda: _balanced(ctx, q, survivors))
        same = answers.get(q.answer, 0)
        share = same / max(1, len(kept))
        prior = _prior_hit(q, [x for x in ctx.questions if x.id in kept and x.program.fn == q.program.fn])
        if q.id not in by_prog:
            cap = program_share(q)
            return verdict(
                self,
                q,
                False,
                f"over-represented answer: {q.answer!r} would exceed {cap:.0%} of the kept "
                f"{q.program.fn} items",
                share=share,
            )
        if q.id not in kept:
            return verdict(
                self,
                q,
                False,
                f"over-represented answer: {q.answer!r} would exceed {ctx.max_answer_share:.0%} of the "
                f"kept {q.category} items ({same} of {len(kept)} kept)",
                share=share,
            )
        return verdict(
            self, q, True, "answer within its program's and category's share", share=share, prior=prior
        )


def _prior_hit(q: Question, group: list[Question]) -> float:
    """The value-prior solver's forced-choice hit on ``q``: each option scored by how often it is
    the answer of the other items in ``group`` (1/t when the answer ties t options for best)."""
    if not q.options:
        return 0.0
    counts = Counter(x.answer for x in group if x.id != q.id)
    scores = [counts.get(o, 0) for o in q.options]
    top = max(scores)
    winners = [i for i, v in enumerate(scores) if v == top]
    return round(1.0 / len(winners), 4) if q.options.index(q.answer) in winners else 0.0


def _per_run(ctx: GateContext, survivors: set[str], key: tuple, make: Callable[[], T]) -> T:
    """``make()``, computed once per (candidate list, survivor set, settings, ``key``) and kept on
    the context: a family-level gate reads the same figures for every item. The memo holds the list
    and the set it was computed on, so their ids cannot be reused by other objects meanwhile."""
    fp = (
        len(ctx.questions),
        len(survivors),
        ctx.max_answer_share,
        repr(ctx.quotas),
        ctx.keep_split,
        len(ctx.review_excluded),
    )
    memo = ctx.__dict__.setdefault("_family_memo", {})
    with _MEMO_LOCK:
        got = memo.get(key)
        if got is None or got[0] is not ctx.questions or got[1] is not survivors or got[2] != fp:
            got = memo[key] = (ctx.questions, survivors, fp, make())
    return got[3]


def _balanced(ctx: GateContext, q: Question, survivors: set[str]) -> tuple[set[str], set[str], Counter[str]]:
    """The ids the per-program caps keep in ``q``'s category, the ids ``balanced_ids`` then keeps
    over the category, and how many of those give each answer."""
    items = [x for x in ctx.questions if x.category == q.category and x.id in survivors]
    by_prog: dict[str, list[Question]] = {}
    for x in items:
        by_prog.setdefault(x.program.fn, []).append(x)
    prog_kept: set[str] = set()
    for xs in by_prog.values():
        mcq = [x for x in xs if x.options]
        prog_kept |= {x.id for x in xs if not x.options}
        if mcq:
            prog_kept |= balanced_ids(mcq, program_share(mcq[0]))
    kept = balanced_ids([x for x in items if x.id in prog_kept], ctx.max_answer_share)
    return prog_kept, kept, Counter(x.answer for x in ctx.questions if x.id in kept)


def balanced_ids(items: list[Question], max_share: float) -> set[str]:
    """The ids kept when surplus items (latest id first) are dropped until no answer holds more
    than ``max(1, floor(max_share * n))`` of the ``n`` items that remain."""
    kept = sorted(items, key=lambda x: x.id)
    while kept:
        cap = max(1, math.floor(max_share * len(kept) + 1e-9))
        by_answer: dict[str, list[Question]] = {}
        for x in kept:
            by_answer.setdefault(x.answer, []).append(x)
        over = [xs[cap:] for xs in by_answer.values() if len(xs) > cap]
        if not over:
            break
        drop = {x.id for xs in over for x in xs[-1:]}  # one surplus item per answer, then re-check
        kept = [x for x in kept if x.id not in drop]
    return {x.id for x in kept}


class CategoryQuota:
    """The requested split met after the gates: a family that over-generates candidates per
    category keeps, of the items every earlier gate kept, the first ``quota`` in diversity order
    (``generators/questions/diversity``: programs, then each program's answer values, templates,
    people and times, ties by a seeded hash), so a surplus survivor is one that repeats what the
    kept ones already cover; its verdict says what. For a family that asks for a split
    (``keep_split``: icm's 400 : 500 : 317), when some category has fewer survivors than its quota
    every quota is scaled down to that category's ratio (allowing :data:`SPLIT_TOLERANCE` above
    it), so the shares still match the request."""

    name, version = "category_quota", "4"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        survivors = ctx.survivors if ctx.survivors is not None else {x.id for x in ctx.questions}
        quotas, rank = _per_run(ctx, survivors, ("category_quota",), lambda: _quota_ranks(ctx, survivors))
        quota = quotas.get(q.category)
        if quota is None or q.id not in survivors:
            return verdict(self, q, True, "no quota for this category (or already rejected)")
        if rank[q.id] >= quota:
            asked = (ctx.quotas or {})[q.category]
            why = "" if quota == asked else f" (scaled from {asked} to keep the requested split)"
            kept = [x for x in ctx.questions if x.id in survivors and x.category == q.category]
            kept = [x for x in kept if rank[x.id] < quota]
            return verdict(
                self,
                q,
                False,
                f"surplus: the {q.category} target of {quota}{why} is met; {_repeats(q, kept)}",
                rank=float(rank[q.id]),
            )
        return verdict(self, q, True, f"within the {q.category} target of {quota}", rank=float(rank[q.id]))


def _repeats(q: Question, kept: list[Question]) -> str:
    """What the kept items already cover of ``q``: its program, its answer in that program, its
    template, its people."""
    same = [x for x in kept if x.program.fn == q.program.fn]
    said = [f"{len(same)} kept {q.program.fn} items"]
    answer = sum(1 for x in same if x.answer == q.answer)
    if answer:
        said.append(f"{answer} of them keyed {q.answer!r}")
    people = set(q.target_people)
    if people:
        shared = sum(1 for x in kept if people & set(x.target_people))
        said.append(f"{shared} kept items about {', '.join(sorted(people))}")
    return "more diverse survivors kept (" + "; ".join(said) + ")"


def _features(q: Question) -> dict:
    return features(q.program.fn, q.lineage.template, q.answer, q.program.args, q.target_people, q.options)


def _quota_ranks(ctx: GateContext, survivors: set[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Each category's (scaled) quota, and each survivor's place in diversity order within its
    category."""
    quotas = ctx.quotas or {}
    if ctx.keep_split:  # scaled over the survivors before the human review (see GateContext)
        quotas = scaled_quotas(quotas, ctx.questions, survivors | ctx.review_excluded)
    by_cat: dict[str, list[Question]] = {}
    for x in ctx.questions:
        if x.id in survivors:
            by_cat.setdefault(x.category, []).append(x)
    seed = ctx.world.seed
    rank = {}
    for cat, xs in by_cat.items():
        order = diverse_order(xs, _features, lambda x: x.id, seed, "quota", cat)
        rank |= {x.id: n for n, x in enumerate(order)}
    return quotas, rank


SPLIT_TOLERANCE = 0.1


def scaled_quotas(quotas: dict[str, int], questions: list[Question], survivors: set[str]) -> dict[str, int]:
    """Each category's quota, scaled by the scarcest category's survivors-to-quota ratio."""
    if not quotas:
        return {}
    have = {c: sum(1 for x in questions if x.category == c and x.id in survivors) for c in quotas}
    # a category with no survivors at all cannot be met by scaling: it is reported short, not a reason
    # to empty the release
    ratio = min([1.0] + [have[c] / n for c, n in quotas.items() if n > 0 and have[c] > 0])
    fallback = {
        c: min(n, have[c], max(1, math.floor(n * ratio * (1 + SPLIT_TOLERANCE) + 1e-9)))
        for c, n in quotas.items()
    }
    # the largest release whose rounded split stays within the tolerance of every requested share
    # (floors alone drift a small category well below its share)
    asked = sum(quotas.values())
    share = {c: n / asked for c, n in quotas.items()} if asked else {}
    live = [c for c in quotas if have[c] > 0 and quotas[c] > 0]
    for total in range(min(asked, sum(have[c] for c in live)), 0, -1):
        pick = {c: min(quotas[c], have[c], math.floor(share[c] * total + 0.5)) for c in live}
        got = sum(pick.values())
        if (
            got
            and all(pick[c] >= 1 for c in live)
            and all(abs(pick[c] / got - share[c]) <= SPLIT_TOLERANCE * share[c] for c in live)
        ):
            return {c: pick.get(c, fallback[c]) for c in quotas}
    return fallback
