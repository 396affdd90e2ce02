"""Known broken patterns in generated question text, for every family's templates.

A realised question must not contain a determiner before a proper name ("the Ode Varga"), a noun
phrase of itself ("the host of the host visit"), a doubled word ("the the"), an empty slot
(doubled spaces, a space before punctuation, a leftover ``{field}``) or a function-call tail
("an optional argument whose value ..."). :func:`broken_patterns` lists what it finds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_DOUBLED = re.compile(r"\b(\w+)\s+\1\b", re.I)
_SELF_OF = re.compile(r"\bthe (\w+) of the \1\b", re.I)
_EMPTY = re.compile(r"\s{2,}|\s[?,.;:!]|\{\w*\}|\(\s*\)")


def broken_patterns(text: str, proper_names: Iterable[str] = ()) -> list[str]:
    """Every known broken pattern in ``text``; ``proper_names`` are names that take no article."""
    found = []
    m = _DOUBLED.search(text)
    if m:
        found.append(f"doubled word {m.group(0)!r}")
    m = _SELF_OF.search(text)
    if m:
        found.append(f"'the X of the X': {m.group(0)!r}")
    if _EMPTY.search(text):
        found.append("empty slot or stray spacing")
    for name in proper_names:
        if name and name[0].isupper() and re.search(rf"\b(the|a|an)\s+{re.escape(name)}\b", text, re.I):
            found.append(f"determiner before the proper name {name!r}")
    return found
