"""Re-realise a released question's text from its template, program and arguments (for verify).

Each family's generator renders text from (template, program arguments, World); this rebuilds
the candidate and calls the same function, so a question text edited in a release (say, to name
another person) no longer matches. A family whose text functions are not found (renamed, or a
plugin) is skipped: ``realiser`` returns None and verify says nothing about text.
"""

from __future__ import annotations

from collections.abc import Callable

from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World

Realise = Callable[[Question], list[str] | None]  # the texts the generator could have written


def _candidate(template: object, q: Question) -> object:
    from mnemoforge.generators.questions.common import Candidate

    return Candidate(template, dict(q.program.args), q.answer, set(q.facts_read), [])  # type: ignore[arg-type]


def _cap(text: str) -> str:
    return text[0].upper() + text[1:] if text else text


def _icm(world: World) -> Realise:
    from mnemoforge.generators.icm import questions as icm

    def realise(q: Question) -> list[str] | None:
        tpl = icm.T.get(q.lineage.template)
        if tpl is None:
            return None
        c = _candidate(tpl, q)
        # the reference style was drawn from the arguments in generation order, which the stored
        # (sorted) arguments do not keep: any style is accepted, each one naming this person only
        styles = ("name", "relation", "description")
        return sorted({_cap(icm._text(world, c, st)) for st in styles})  # type: ignore[arg-type]

    return realise


def _smm(world: World, theme_bytes: bytes) -> Realise | None:
    from pathlib import Path

    from mnemoforge.generators.smm import questions as smm_q
    from mnemoforge.theme_io import ThemeError, parse_theme, read_theme_bytes

    try:
        theme = parse_theme(read_theme_bytes(theme_bytes), Path("theme.yaml"))
    except (ThemeError, ValueError):
        return None

    def realise(q: Question) -> list[str] | None:
        tpl = smm_q.T.get(q.lineage.template)
        if tpl is None:
            return None
        return [_cap(smm_q.question_text(theme, world, _candidate(tpl, q)))]  # type: ignore[arg-type]

    return realise


def _memeye(world: World) -> Realise:
    from mnemoforge.generators.memeye import questions as mq
    from mnemoforge.generators.questions.common import Template

    def realise(q: Question) -> list[str] | None:
        tpl = Template(id=q.lineage.template, category=q.category, program=q.program.fn, text="")
        return [_cap(mq._text(world, _candidate(tpl, q)))]  # type: ignore[arg-type]

    return realise


def realiser(family: str, theme_bytes: bytes, world: World) -> Realise | None:
    """A function giving each question's expected text (None where it cannot be rebuilt)."""
    try:
        if family == "icm":
            base: Realise | None = _icm(world)
        elif family == "smm":
            base = _smm(world, theme_bytes)
        elif family == "memeye":
            base = _memeye(world)
        else:
            return None
    except (ImportError, AttributeError):
        return None
    if base is None:
        return None
    inner = base

    def safe(q: Question) -> list[str] | None:
        try:
            return inner(q)
        except (KeyError, ValueError, AttributeError, IndexError, StopIteration, TypeError):
            return None  # arguments the text functions cannot take: reported by the program checks

    return safe
