"""Pick items so a release spreads over programs, answer values, templates, people and times.

One greedy order serves planning (which candidates to realise) and the ``category_quota`` gate
(which survivors to keep): the next item is the one whose features have been picked least so far,
compared feature by feature in :data:`FEATURES` order (program first, then its template, its
answer value, an ordered answer's rank among its options, the people it is about, its time), ties
broken by a seeded hash of the item's key. So the first n of the order hold every program and
template before any repeats, no answer value of a program repeats while another is unused,
ordered answers (counts, dates) stand at every rank among their options alike, and people and
months spread the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from mnemoforge.rng import derive_seed

T = TypeVar("T")

FEATURES = ("program", "template", "answer", "rank", "person", "time")


def features(
    fn: str,
    template: str,
    answer: str,
    args: dict[str, Any],
    people: Iterable[str] = (),
    options: Sequence[str] | None = None,
) -> dict:
    """The features of one item: its program, its answer within the program, where an ordered
    answer stands among its ``options`` (counts, dates), its template, the people it names
    (arguments and targets) and the period it asks about."""
    from mnemoforge.generators.questions.ordered import rank

    at = rank(options) if options else None
    who = sorted({str(args[k]) for k in ("person", "other") if args.get(k)} | set(people))
    when = args.get("day") or args.get("month") or args.get("from_month") or "whole"
    return {
        "program": fn,
        "answer": f"{fn}\x1f{answer}",
        "rank": [] if at is None else [str(at)],
        "template": template,
        "person": who,
        "time": [str(when)],
    }


def diverse_order(
    items: Sequence[T], feats: Callable[[T], dict], key: Callable[[T], str], seed: int, *salt: object
) -> Iterator[T]:
    """``items`` in greedy diversity order (see the module docstring), lazily. The first two
    features (program, template) take one value an item, so items are grouped by them and each
    pick scans only the groups whose program and template are least used so far (the same order
    as scanning every item, at a fraction of the cost on a large pool). Deterministic for a seed."""
    keys = {id(x): key(x) for x in items}  # a key is a content hash: computed once an item
    rank = {k: derive_seed(seed, "diversity", *salt, k) for k in keys.values()}
    got: dict[str, dict[str, int]] = {f: {} for f in FEATURES}
    vals = {keys[id(x)]: [_values(feats(x).get(name)) for name in FEATURES] for x in items}
    groups: dict[tuple[str, ...], list[T]] = {}
    for x in sorted(items, key=lambda x: rank[keys[id(x)]]):
        v = vals[keys[id(x)]]
        groups.setdefault((v[0][0] if v[0] else "", v[1][0] if v[1] else ""), []).append(x)
    head, tail = FEATURES[:2], FEATURES[2:]

    def tail_cost(x: T) -> tuple:
        k = keys[id(x)]
        seen = (
            max((got[n].get(v, 0) for v in vs), default=0) for n, vs in zip(tail, vals[k][2:], strict=True)
        )
        return (*seen, rank[k])

    while groups:
        lead = {g: tuple(got[n].get(v, 0) for n, v in zip(head, g, strict=True)) for g in groups}
        low = min(lead.values())
        best_g, best_i, best_c = None, -1, None
        for g in sorted(g for g, c in lead.items() if c == low):
            for i, x in enumerate(groups[g]):
                c = tail_cost(x)
                if best_c is None or c < best_c:
                    best_g, best_i, best_c = g, i, c
        assert best_g is not None
        x = groups[best_g].pop(best_i)
        if not groups[best_g]:
            del groups[best_g]
        for name, vs in zip(FEATURES, vals[keys[id(x)]], strict=True):
            for v in vs:
                got[name][v] = got[name].get(v, 0) + 1
        yield x


def _values(v: object) -> list[str]:
    if v is None:
        return []
    return [str(x) for x in v] if isinstance(v, list) else [str(v)]
