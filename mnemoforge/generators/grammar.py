"""English agreement for generated text: indefinite articles and plurals (on ``inflect``).

One helper for every family and renderer, so "an hour", "a university lecturer", "an HR manager"
and "a user researcher" come out right for any theme's nouns.
"""

from __future__ import annotations

from functools import lru_cache

import inflect

_ENGINE = inflect.engine()


@lru_cache(maxsize=4096)
def article(phrase: str) -> str:
    """The indefinite article ``a`` or ``an`` for ``phrase`` (by its pronunciation)."""
    phrase = phrase.strip()
    if not phrase:
        return "a"
    return _ENGINE.a(phrase).split(" ", 1)[0]


def with_article(phrase: str) -> str:
    """``phrase`` with its indefinite article: ``with_article("hour") == "an hour"``."""
    phrase = phrase.strip()
    return f"{article(phrase)} {phrase}"


@lru_cache(maxsize=4096)
def plural(noun: str, count: int = 2) -> str:
    """The plural of ``noun`` when ``count`` is not 1 (``plural("box") == "boxes"``)."""
    return noun if count == 1 else _ENGINE.plural_noun(noun) or noun


def count_noun(count: int, noun: str) -> str:
    """``"1 box"``, ``"3 boxes"``."""
    return f"{count} {plural(noun, count)}"
