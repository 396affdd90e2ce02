"""The symbolic answerer: runs a question's program on the facts its evidence expresses."""

from __future__ import annotations

from collections.abc import Iterable

from mnemoforge.generators.questions.programs import FactView, Lexicon, run_program
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World


def solve(question: Question, world: World, evidence: Iterable[Observation]) -> str:
    """Answer from the given observations only; raises ``Unanswerable`` if they do not suffice."""
    visible = set()
    for o in evidence:
        if question.cutoff is None or o.order <= question.cutoff:
            visible |= o.fact_ids()
    view = FactView((f for f in world.facts if f.id in visible), Lexicon(world))
    return run_program(question.program.fn, view, question.program.args)
