"""Re-realise a released memeye question's text (``Family.realiser``; verify compares the texts)."""

from __future__ import annotations

from collections.abc import Callable

from mnemoforge.generators.memeye import questions as mq
from mnemoforge.generators.questions.common import Template, candidate_of, capitalised
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World


def realiser(world: World) -> Callable[[Question], list[str] | None]:
    def realise(q: Question) -> list[str] | None:
        tpl = Template(id=q.lineage.template, category=q.category, program=q.program.fn, text="")
        return [capitalised(mq._text(world, candidate_of(tpl, q)))]

    return realise
