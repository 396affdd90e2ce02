"""Who an email is from and to: the inbox's owners receive it; a declared outside contact (a
supplier, an owner, an agency) who writes about its topic sends it, else a colleague."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mnemoforge.generators.smm.injection import answer_words
from mnemoforge.schemas.smm import SourceSpec

if TYPE_CHECKING:
    from mnemoforge.generators.smm.scaffold import Lookup


def email_parties(
    lk: Lookup, src: SourceSpec, rng: Any, topic: str | None = None, forbidden: set[str] | None = None
) -> tuple[str, list[str]]:
    """(sender, recipients) of an email in inbox ``src``: the recipients are the inbox's owners
    (its members, else the protagonist); the sender is a declared outside contact who writes about
    the topic, else a cast member who is no recipient. Nobody whose name is (part of) an answer the
    email supports is chosen (a name in a header would give the answer away)."""
    forbidden = forbidden or set()
    owners = list(src.members) or [lk.world.protagonist]
    names = {p.id: p.name for p in lk.world.people}
    spec = lk.theme.smm
    declared = spec.contacts if spec else []
    contacts = [c.name for c in declared if topic is None or not c.topics or topic in c.topics]
    cast = [names[p] for p in names if p not in owners]
    pool = [n for n in contacts or cast or list(names.values()) if not answer_words(n) & forbidden]
    sender = rng.choice(pool or contacts or cast or list(names.values()))
    return sender, [names.get(p, p) for p in owners]
