"""Re-realise a released icm question's text (``Family.realiser``; verify compares the texts)."""

from __future__ import annotations

from collections.abc import Callable

from mnemoforge.generators.icm import questions as icm
from mnemoforge.generators.questions.common import candidate_of, capitalised
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World


def realiser(world: World) -> Callable[[Question], list[str] | None]:
    def realise(q: Question) -> list[str] | None:
        tpl = icm.T.get(q.lineage.template)
        if tpl is None:
            return None
        c = candidate_of(tpl, q)
        # the reference style was drawn from the arguments in generation order, which the stored
        # (sorted) arguments do not keep: any style is accepted, each one naming this person only
        styles = ("name", "relation", "description")
        return sorted({capitalised(icm._text(world, c, st)) for st in styles})

    return realise
