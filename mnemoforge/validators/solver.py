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
        seq = [(id(o), self.positions(o)) for o in base if cutoff is None or o.order <= cutoff]
        count: dict[int, int] = {}
        first: dict[str, int] = {}
        for oid, grouped in seq:
            for kind, ps in grouped.items():
                first.setdefault(kind, oid)
                for p in ps:
                    count[p] = count.get(p, 0) + 1
        view = FactView.grouped(self.visible(base, cutoff), self.lexicon)
        pos = self.position
        at = {pos[f.id]: i for fs in view.by_kind.values() for i, f in enumerate(fs)}
        entry = _Base(tuple(base), frozenset(key[0]), seq, count, first, view, at)
        with self._bases_lock:
            if len(self._bases) > 256:
                self._bases.clear()
            self._bases[key] = entry
        return entry

    def masked_view(
        self, base: Sequence[Observation], evidence: Sequence[Observation], cutoff: int | None
    ) -> FactView | None:
        """The view of ``evidence`` (some of the observation objects of ``base``: a context with
        units masked) derived from the base's: its facts less those that only the missing
        observations express, each kind in World order and the kinds in the order
        :meth:`visible` gives them, so the same view a fresh :meth:`visible` gives. It keeps the
        base view (``FactView.base``) and what it lacks (``dropped``) for a family's index to be
        derived. None when ``evidence`` is not drawn from ``base``."""
        kept = set(map(id, evidence))
        b = self._base(base, cutoff)
        if not kept <= b.ids:
            return None
        lost: dict[int, int] = {}
        for oid, grouped in b.seq:
            if oid not in kept:
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
        if all(oid in kept for oid in b.first.values()):  # every kind still first seen where it was
            order: Iterable[str] = b.view.by_kind
        else:  # the kinds in the order the kept units show them first
            seen: dict[str, None] = {}
            for oid, grouped in b.seq:
                if oid in kept:
                    seen.update(dict.fromkeys(grouped))
            order = seen
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
    ids stay theirs), their ids, each visible one's fact positions by kind in order, how many
    visible units express each position, the unit where each kind is first seen, the view."""

    observations: tuple[Observation, ...]
    ids: frozenset[int]
    seq: list[tuple[int, dict[str, tuple[int, ...]]]]
    count: dict[int, int]
    first: dict[str, int]
    view: FactView
    at: dict[int, int]
    """World position -> the fact's place in its kind's list of the view."""


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
        view = FactView.grouped(idx.visible(evidence, question.cutoff), idx.lexicon)
    return run_program(question.program.fn, view, question.program.args)
