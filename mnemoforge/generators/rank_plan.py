"""Where an ordered answer (a count, a date) stands among its options, planned over the items so
the closest-to-mean, median, largest and smallest rules sit at chance (moved out of
``option_balance``, which draws the option sets)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mnemoforge.rng import derive_seed


class RankSpread:
    """Where the answer stands among ordered options (counts, dates: 0 = smallest), spread evenly
    per program: each item takes, of the ranks its value allows, the one its program has used
    least so far (ties by a seeded draw). So the closest-to-mean, median, largest and smallest
    rules sit at chance over a program's items, whatever values its answers take."""

    def __init__(self, seed: int, n: int = 4) -> None:
        self.seed, self.n = seed, n
        self.used: dict[str, list[int]] = {}

    def pick(self, program: str, feasible: Sequence[int]) -> int | None:
        """The rank for the next item of ``program`` among ``feasible`` (None if there is none)."""
        feasible = [r for r in feasible if 0 <= r < self.n]
        if not feasible:
            return None
        used = self.used.setdefault(program, [0] * self.n)
        low = min(used[r] for r in feasible)
        best = [r for r in feasible if used[r] == low]
        return best[derive_seed(self.seed, "rank", program, sum(used)) % len(best)]

    def take(self, program: str, rank: int) -> None:
        """Count an item of ``program`` planned with its answer at ``rank``."""
        self.used.setdefault(program, [0] * self.n)[rank] += 1


def assign_ranks(feasible: Mapping[str, Sequence[int]], n: int = 4) -> dict[str, int]:
    """A rank per item (where its answer stands among its ordered options, 0 = smallest) planned
    jointly over the items, from the ranks each can take (``feasible``): the most constrained item
    first (fewest ranks, then id), each taking of its ranks the one used least so far, ties to the
    smallest. An item free to stand anywhere so fills the ranks the constrained ones cannot (a
    turn-by-turn spread, ``RankSpread``, lets them pile up); the ties lean low because the World
    pushes answers up (a stale or rumoured value mostly lies before the answer, a date late in the
    span has little room above), so over a release set the smallest rank is the one the
    constrained items leave short. Items with no feasible rank get none."""
    ranks = {q: sorted({r for r in rs if 0 <= r < n}) for q, rs in feasible.items()}
    used = [0] * n
    out: dict[str, int] = {}
    for qid in sorted(ranks, key=lambda q: (len(ranks[q]), q)):
        if ranks[qid]:
            low = min(used[r] for r in ranks[qid])
            out[qid] = min(r for r in ranks[qid] if used[r] == low)
            used[out[qid]] += 1
    return out
