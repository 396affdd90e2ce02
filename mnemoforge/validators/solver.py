"""The symbolic answerer: runs a question's program on the facts its evidence expresses."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from mnemoforge.generators.questions.programs import FactView, Lexicon, run_program
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import Fact, World


class FactIndex:
    """A World's facts by id with their positions, built once per World: a view of some fact ids
    lists them in World order without scanning every fact of the World."""

    def __init__(self, world: World) -> None:
        self.world, self.facts = world, world.facts
        self.n = len(world.facts)
        self.position = {f.id: i for i, f in enumerate(world.facts)}
        self.lexicon = Lexicon(world)  # the World's names, built once (not once per solve)
        # an observation's fact positions, kept per observation object (held, so its id is not
        # reused): the gates solve the same evidence under tens of thousands of masks
        self._of_obs: dict[int, tuple[Observation, dict[str, tuple[int, ...]]]] = {}
        # the views of the contexts masked views derive from (their observations held, by identity)
        self._bases: dict[tuple, _Base] = {}
        self._bases_lock = threading.Lock()

    def fresh_for(self, world: World) -> bool:
        return self.world is world and self.facts is world.facts and self.n == len(world.facts)

    def positions(self, o: Observation) -> dict[str, tuple[int, ...]]:
        """The World positions of the facts ``o`` expresses, by fact kind (unknown facts left out)."""
        hit = self._of_obs.get(id(o))
        if hit is not None and hit[0] is o:
            return hit[1]
        pos, facts = self.position, self.facts
        found: dict[str, set[int]] = {}
        for e in o.expresses:
            i = pos.get(e.fact)
            if i is not None:
                found.setdefault(facts[i].kind, set()).add(i)
        grouped = {k: tuple(v) for k, v in found.items()}
        if len(self._of_obs) > 1 << 16:
            self._of_obs.clear()
        self._of_obs[id(o)] = (o, grouped)
        return grouped

    def visible(self, evidence: Iterable[Observation], cutoff: int | None) -> dict[str, list[Fact]]:
        """The facts the observations up to ``cutoff`` express, by kind, each kind in World order."""
        seen: dict[str, set[int]] = {}
        for o in evidence:
            if cutoff is None or o.order <= cutoff:
                for kind, ps in self.positions(o).items():
                    got = seen.get(kind)
                    if got is None:
                        seen[kind] = set(ps)
                    else:
                        got.update(ps)
        facts = self.facts
        return {k: [facts[i] for i in sorted(ps)] for k, ps in seen.items()}

    def _base(self, base: Sequence[Observation], cutoff: int | None) -> _Base:
        """What masked views of ``base`` derive from (built once per base context and kept)."""
        key = (tuple(map(id, base)), cutoff)
        with self._bases_lock:
            hit = self._bases.get(key)
        if hit is not None:
            return hit
        rank: dict[int, int] = {}
        of: dict[int, list[dict[str, tuple[int, ...]]]] = {}
        holders: dict[str, list[tuple[int, tuple[int, int]]]] = {}
        count: dict[int, int] = {}
        for n, o in enumerate(base):
            rank.setdefault(id(o), n)
            if cutoff is None or o.order <= cutoff:
                grouped = self.positions(o)
                of.setdefault(id(o), []).append(grouped)
                for k, (kind, ps) in enumerate(grouped.items()):
                    holders.setdefault(kind, []).append((id(o), (n, k)))
                    for p in ps:
                        count[p] = count.get(p, 0) + 1
        view = FactView.grouped(self.visible(base, cutoff), self.lexicon)
        pos = self.position
        at = {pos[f.id]: i for fs in view.by_kind.values() for i, f in enumerate(fs)}
        first = frozenset(hs[0][0] for hs in holders.values())
        entry = _Base(tuple(base), rank, of, holders, first, count, view, at)
        with self._bases_lock:
            if len(self._bases) > 256:
                self._bases.clear()
            self._bases[key] = entry
        return entry

    def masked_view(
        self, base: Sequence[Observation], evidence: Sequence[Observation], cutoff: int | None
    ) -> FactView | None:
        """The view of ``evidence`` (some of the observation objects of ``base``, in its order: a
        context with units masked) derived from the base's: its facts less those that only the
        missing observations express, each kind in World order and the kinds in the order
        :meth:`visible` gives them, so the same view a fresh :meth:`visible` gives. It keeps the
        base view (``FactView.base``) and what it lacks (``dropped``) for a family's index to be
        derived. None when ``evidence`` is not so drawn from ``base``."""
        b = self._base(base, cutoff)
        try:
            ranks = list(map(b.rank.__getitem__, map(id, evidence)))
        except KeyError:  # not one of the base's observations
            return None
        if ranks != sorted(ranks):  # not in the base's order
            return None
        kept = set(map(id, evidence))
        missing = b.rank.keys() - kept
        lost: dict[int, int] = {}
        for oid in missing:
            for grouped in b.of.get(oid, ()):
                for ps in grouped.values():
                    for p in ps:
                        lost[p] = lost.get(p, 0) + 1
        dropped: dict[str, list[Fact]] = {}
        cut: dict[str, list[int]] = {}  # per kind, where the dropped facts sit in the base's list
        count, facts, at = b.count, self.facts, b.at
        for p in sorted(p for p, n in lost.items() if count[p] == n):  # no kept unit expresses it
            dropped.setdefault(facts[p].kind, []).append(facts[p])
            cut.setdefault(facts[p].kind, []).append(at[p])
        ids = frozenset(f.id for fs in dropped.values() for f in fs)
        order: Iterable[str] = b.view.by_kind  # every kind still first seen where it was
        if not b.first.isdisjoint(missing):  # the kinds in the order the kept units show them first
            first: dict[str, tuple[int, int]] = {}
            for kind, hs in b.holders.items():
                for oid, where in hs:
                    if oid in kept:
                        first[kind] = where
                        break
            order = sorted(first, key=first.__getitem__)
        by_kind: dict[str, list[Fact]] = {}
        for kind in order:
            got = b.view.by_kind[kind]
            if kind in cut:  # the base's list less the dropped places (in order), in slices
                parts, start = [], 0
                for i in cut[kind]:
                    parts.append(got[start:i])
                    start = i + 1
                parts.append(got[start:])
                got = list(chain.from_iterable(parts))
            by_kind[kind] = got
        out = FactView.grouped(by_kind, self.lexicon)
        out.base, out.dropped, out.dropped_ids = b.view, dropped, ids
        return out


@dataclass(frozen=True)
class _Base:
    """A base context's view and what its masked views need: its observations (held, so their
    ids stay theirs); each one's place (first, by id); the fact positions by kind of each visible
    one; per kind, the units showing it in order with where (unit place, kind's place in the
    unit); the units where some kind is first seen; how many visible units express each position;
    the view; each position's place in its kind's list of the view."""

    observations: tuple[Observation, ...]
    rank: dict[int, int]
    of: dict[int, list[dict[str, tuple[int, ...]]]]
    holders: dict[str, list[tuple[int, tuple[int, int]]]]
    first: frozenset[int]
    count: dict[int, int]
    view: FactView
    at: dict[int, int]


_LAST: list[FactIndex] = []
_LOCK = threading.Lock()


def fact_index(world: World) -> FactIndex:
    """The :class:`FactIndex` of ``world`` (the last World asked about is kept; a World whose fact
    list was replaced or grown is indexed again)."""
    with _LOCK:
        if _LAST and _LAST[0].fresh_for(world):
            return _LAST[0]
        idx = FactIndex(world)
        _LAST[:] = [idx]
        return idx


def view_of(world: World, evidence: Iterable[Observation], cutoff: int | None) -> FactView:
    """The facts ``evidence`` expresses up to ``cutoff``, as the view :func:`solve` runs a program
    on; one view may serve many programs through :func:`solve_in`."""
    idx = fact_index(world)
    return FactView.grouped(idx.visible(evidence, cutoff), idx.lexicon)


def solve_in(question: Question, view: FactView) -> str:
    """:func:`solve` on a view already made (a fork of it: the reads are this program's own, the
    indexes built over its facts are shared)."""
    return run_program(question.program.fn, view.fork(), question.program.args)


def solve(
    question: Question,
    world: World,
    evidence: Iterable[Observation],
    within: Sequence[Observation] | None = None,
) -> str:
    """Answer from the given observations only; raises ``Unanswerable`` if they do not suffice.

    ``within``: observations ``evidence`` was masked from (the same objects, a few left out): the
    view is then derived from theirs (:meth:`FactIndex.masked_view`), the same facts in the same
    order, without a new scan; a gate masking each of an item's units solves them all so."""
    idx = fact_index(world)
    view = None
    if within is not None:
        evidence = list(evidence)
        view = idx.masked_view(within, evidence, question.cutoff)
    if view is None:
        view = view_of(world, evidence, question.cutoff)
    return run_program(question.program.fn, view, question.program.args)
