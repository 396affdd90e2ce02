"""Re-realise a released question's text from its template, program and arguments (for verify).

Each family's generator renders text from (template, program arguments, World); this rebuilds
the candidate and calls the same function, so a question text edited in a release (say, to name
another person) no longer matches. A family without a ``Family.realiser`` (a
plugin that has none) is skipped: ``realiser`` returns None and verify says nothing about text.
"""

from __future__ import annotations

from collections.abc import Callable

from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World

Realise = Callable[[Question], list[str] | None]  # the texts the generator could have written


def realiser(family: str, theme_bytes: bytes, world: World) -> Realise | None:
    """A function giving each question's expected text (None where it cannot be rebuilt): the
    family's own (``Family.realiser``); None for a family without one or not installed."""
    from mnemoforge.generators.families import get_family

    try:
        base = get_family(family).realiser(theme_bytes, world)
    except (KeyError, ImportError, AttributeError):
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
