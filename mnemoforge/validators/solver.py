"""The symbolic answerer: runs a question's program on the facts its evidence expresses."""

from __future__ import annotations

import threading
from collections.abc import Iterable

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


def solve(question: Question, world: World, evidence: Iterable[Observation]) -> str:
    """Answer from the given observations only; raises ``Unanswerable`` if they do not suffice."""
    idx = fact_index(world)
    view = FactView.grouped(idx.visible(evidence, question.cutoff), idx.lexicon)
    return run_program(question.program.fn, view, question.program.args)
