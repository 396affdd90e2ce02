"""English agreement for generated text: indefinite articles and plurals (on ``inflect``).

One helper for every family and renderer, so "an hour", "a university lecturer", "an HR manager"
and "a user researcher" come out right for any theme's nouns.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from types import ModuleType
from typing import Any


def _import_inflect() -> ModuleType:
    """``inflect`` imported without ``typeguard``'s run-time checks: its ``@typechecked``
    decorators re-parse the module's source at import, about 3 s of CPU in every process that
    builds or collects the tests. Only argument type checks are skipped; results are the same."""
    if "inflect" in sys.modules:
        return sys.modules["inflect"]
    try:
        import typeguard
    except ImportError:  # pragma: no cover - inflect without typeguard
        import inflect

        return inflect
    original = typeguard.typechecked

    def passthrough(target: Any = None, **_: Any) -> Any:
        return target if target is not None else (lambda t: t)

    typeguard.typechecked = passthrough  # type: ignore[assignment]
    try:
        import inflect
    finally:
        typeguard.typechecked = original
    return inflect


_ENGINE = _import_inflect().engine()


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


_ARTICLE_WORD = re.compile(r"(?<![\w'-])(an?|An?)\s+(?=([\w][\w'-]*))")


def fix_articles(text: str) -> str:
    """Re-choose every ``a``/``an`` in ``text`` for the word after it (``"a iron kettle"`` →
    ``"an iron kettle"``, ``"an user"`` → ``"a user"``); a capital ``A`` counts as an article only
    at the start of a sentence (so "plan A is" is left alone)."""

    def repl(m: re.Match[str]) -> str:
        word, nxt = m.group(1), m.group(2)
        start = text[: m.start()].rstrip()
        if word[0] == "A" and start and start[-1] not in ".!?:\"'(":
            return m.group(0)
        new = article(nxt)
        return (new.capitalize() if word[0] == "A" else new) + m.group(0)[len(word) :]

    return _ARTICLE_WORD.sub(repl, text)
