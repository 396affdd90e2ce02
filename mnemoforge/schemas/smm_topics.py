"""What the facts of an smm theme are about (their *topics*) and which sources may carry them
(``SourceSpec.carries``): a source shows only facts of the topics it declares, and ``theme check``
names a topic no source carries. Errors are ``ValueError('smm.<path>: …')``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemoforge.schemas.smm import SmmSpec

BUILTIN_TOPICS = (
    "schedule",
    "assignment",
    "quantity",
    "detail",
    "profile",
    "preference",
    "membership",
    "record",
)
"""What facts are about, for routing (``SourceSpec.carries``): an attribute's topic defaults by its
type (date/time: schedule, person: assignment, integer: quantity, string: detail); profile fields,
choices, memberships and record codes have their own. A theme may name more (``conditions``,
``policy``, ``correspondence``...) on its attributes and sources."""


def topics_in_use(self: SmmSpec) -> dict[str, str]:
    """topic -> where a fact of it comes from (a path in the theme), for every topic in use."""
    out: dict[str, str] = {"membership": "smm.entities", "record": "smm.entities"}
    if self.profile:
        out["profile"] = "smm.profile"
    if self.preferences:
        out["preference"] = "smm.preferences"
    used = {e.kind for e in self.entities}
    for i, k in enumerate(self.entity_kinds):
        for j, a in enumerate(k.attributes):
            if k.kind in used:
                out.setdefault(a.topic_of(), f"smm.entity_kinds.{i}.attributes.{j}")
    return out


def check_topics(self: SmmSpec, people: set[str]) -> None:
    """Contacts outside the cast, known topics, routed conflicts in sources that carry theirs, and
    a source for every topic in use (``carries``; empty: any)."""
    known = set(BUILTIN_TOPICS) | set(topics_in_use(self))
    for i, c in enumerate(self.contacts):
        if c.id in people:
            raise ValueError(f"smm.contacts.{i}.id: {c.id!r} is a cast id; a contact is outside the cast")
        for j, t in enumerate(c.topics):
            if t not in known:
                raise ValueError(
                    f"smm.contacts.{i}.topics.{j}: no fact has topic {t!r} (topics: {sorted(known)})"
                )
    for i, src in enumerate(self.sources):
        for j, t in enumerate(src.carries):
            if t not in known:
                raise ValueError(
                    f"smm.sources.{i}.carries.{j}: no fact has topic {t!r} (topics: {sorted(known)})"
                )
    by_id = {src.id: src for src in self.sources}
    kinds = {k.kind: k for k in self.entity_kinds}
    ents = {e.id: e.kind for e in self.entities}
    for i, r in enumerate(self.conflicts):  # a routed conflict's sources must carry its topic
        k = kinds.get(ents.get(r.entity, ""))
        if k is None or r.key not in {a.key for a in k.attributes}:
            continue
        topic = k.attribute(r.key).topic_of()
        for role in ("stale", "update", "rumour"):
            src = by_id.get(getattr(r, role) or "")
            if src is not None and src.carries and topic not in src.carries:
                raise ValueError(
                    f"smm.conflicts.{i}.{role}: source {src.id!r} does not carry {topic!r} facts "
                    f"(its `carries`: {src.carries}); route the {role} to a source that does"
                )
    for topic, where in topics_in_use(self).items():
        if not any(not src.carries or topic in src.carries for src in self.sources):
            raise ValueError(
                f"smm.sources: no source carries {topic!r} facts ({where}); add {topic!r} to the "
                "`carries` of a source whose purpose fits"
            )
