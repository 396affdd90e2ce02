"""The short form of a person's name where a line or a label needs one.

One small function so the names work (given/family/title/aliases, forms of address) can replace
its body in one place. Until then: the first word of the name that is not a title (a word ending
in a full stop: "Capt.", "Dr."), else the first declared alias, else the whole name.
"""

from __future__ import annotations

from typing import Protocol


class Named(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def aliases(self) -> list[str]: ...


def short_name(person: Named) -> str:
    """How a colleague would call ``person`` in one word (never a bare title)."""
    plain = [w for w in person.name.split() if not w.endswith(".")]
    if plain:
        return plain[0]
    return person.aliases[0] if person.aliases else person.name
