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

    def fresh_for(self, world: World) -> bool:
        return self.world is world and self.facts is world.facts and self.n == len(world.facts)

    def in_order(self, ids: Iterable[str]) -> list[Fact]:
        """The facts of ``ids`` that the World holds, in World order (unknown ids ignored)."""
        pos = self.position
        return [self.facts[i] for i in sorted({pos[x] for x in ids if x in pos})]


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
    cut = question.cutoff
    visible = {e.fact for o in evidence if cut is None or o.order <= cut for e in o.expresses}
    idx = fact_index(world)
    view = FactView(idx.in_order(visible), idx.lexicon)
    return run_program(question.program.fn, view, question.program.args)
