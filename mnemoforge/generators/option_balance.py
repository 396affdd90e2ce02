"""Drawing distractor sets that no option-only rule can read: the answer's rank by length and by
closeness to the other options is drawn uniformly per item, and the set whose ranks come closest
is kept. Over many items the longest, shortest, centroid and odd-one-out solvers then sit at
chance, whatever the pools look like.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from mnemoforge.validators.answerers.option_solvers import lexical_similarity

TRIES = 48


def _rank(values: Sequence[float], i: int) -> float:
    """0 = the largest; ties share the mean rank."""
    above = sum(v > values[i] for v in values)
    tied = sum(v == values[i] for v in values) - 1
    return above + tied / 2


def ranks(options: Sequence[str]) -> tuple[float, float]:
    """The first option's rank by length and by closeness to the others (0 = longest / central)."""
    lengths = [float(len(" ".join(o.split()))) for o in options]
    sim = lexical_similarity(options)
    cent = [sum(sim[i][j] for j in range(len(options)) if j != i) for i in range(len(options))]
    return _rank(lengths, 0), _rank(cent, 0)


def balanced_distractors(
    answer: str, pool: Sequence[str], k: int, rng: random.Random, fixed: Sequence[str] = ()
) -> list[str] | None:
    """``k`` distractors from ``pool`` (answer excluded) whose set, with the ``fixed`` distractors
    always offered, puts the answer at a drawn rank by length and by centrality; None when the pool
    is too small."""
    pool = [p for p in dict.fromkeys(pool) if p != answer and p not in fixed]
    if len(pool) < k:
        return None
    n = k + len(fixed)
    want_len, want_cent = rng.randrange(n + 1), rng.randrange(n + 1)
    best: tuple[float, list[str]] | None = None
    for _ in range(TRIES if len(pool) > k else 1):
        pick = rng.sample(pool, k)
        r_len, r_cent = ranks([answer, *fixed, *pick])
        cost = abs(r_len - want_len) + abs(r_cent - want_cent)
        if best is None or cost < best[0]:
            best = (cost, pick)
        if cost == 0:
            break
    assert best is not None
    return best[1]
