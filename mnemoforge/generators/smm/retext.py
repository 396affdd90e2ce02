"""Re-realise a released smm question's text (``Family.realiser``; verify compares the texts)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mnemoforge.generators.questions.common import candidate_of, capitalised
from mnemoforge.generators.smm import questions as smm_q
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import ThemeError, parse_theme, read_theme_bytes


def realiser(world: World, theme_bytes: bytes) -> Callable[[Question], list[str] | None] | None:
    try:
        theme = parse_theme(read_theme_bytes(theme_bytes), Path("theme.yaml"))
    except (ThemeError, ValueError):
        return None

    def realise(q: Question) -> list[str] | None:
        tpl = smm_q.T.get(q.lineage.template)
        if tpl is None:
            return None
        return [capitalised(smm_q.question_text(theme, world, candidate_of(tpl, q)))]

    return realise
