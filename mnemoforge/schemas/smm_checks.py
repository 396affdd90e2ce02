"""Checks of the ``smm:`` section that need the rest of the theme: roles of person attributes,
fixed entity values (in the pool, a cast id of the right role, a date inside the span and on the
weekday the entity's name names) and conflict routes (``smm.conflicts``). Errors are
``ValueError('smm.<path>: …')`` naming the field and what to write instead.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from mnemoforge.country_calendars import weekend_days
from mnemoforge.dates import named_days
from mnemoforge.schemas.smm_terms import CONVERSATIONAL, WEEKDAYS

if TYPE_CHECKING:
    from mnemoforge.schemas.smm import EntityKindSpec, SmmSpec
    from mnemoforge.schemas.theme import Theme


def check_values(self: SmmSpec, theme: Theme, by_kind: dict[str, EntityKindSpec]) -> None:
    """Roles of person attributes and the fixed values of entities."""
    roles = {p.role for p in theme.cast}
    people = {p.id: p for p in theme.cast}
    for i, k in enumerate(self.entity_kinds):
        for j, a in enumerate(k.attributes):
            if a.roles and a.type != "person":
                raise ValueError(
                    f"smm.entity_kinds.{i}.attributes.{j}.roles: only a person attribute has roles"
                )
            for r in a.roles:
                if r not in roles:
                    raise ValueError(
                        f"smm.entity_kinds.{i}.attributes.{j}.roles: no cast member has role {r!r}; "
                        f"roles are {sorted(roles)}"
                    )
            n = sum(p.role in a.roles for p in theme.cast)
            if a.roles and a.mutable and n < 2:
                raise ValueError(
                    f"smm.entity_kinds.{i}.attributes.{j}.roles: a mutable attribute needs two people "
                    f"with these roles (an update names someone else); add a role or a cast member"
                )
    for i, e in enumerate(self.entities):
        k = by_kind[e.kind]
        keys = {a.key: a for a in k.attributes}
        for key, v in e.values.items():
            path = f"smm.entities.{i}.values.{key}"
            if key not in keys:
                raise ValueError(f"{path}: kind {k.kind!r} has no attribute {key!r}; it has {sorted(keys)}")
            a = keys[key]
            if a.type == "person":
                if v not in people:
                    raise ValueError(f"{path}: {v!r} is not a cast id")
                if a.roles and people[v].role not in a.roles:
                    raise ValueError(f"{path}: {v!r} is a {people[v].role}, not one of {a.roles}")
            elif a.type == "date":
                try:
                    d = dt.date.fromisoformat(v)
                except ValueError:
                    raise ValueError(f"{path}: {v!r} is not an ISO date (YYYY-MM-DD)") from None
                if not theme.start <= d <= theme.end:
                    raise ValueError(f"{path}: {v} is outside the theme's span {theme.start}..{theme.end}")
                cal = theme.calendar
                weekend = weekend_days(
                    theme.start.year,
                    cal.country if cal else None,
                    cal.subdiv if cal else None,
                    list(cal.weekend) if cal and cal.weekend is not None else None,
                )
                for text in (a.label, e.name):  # a weekday or weekend its label or name says
                    wanted = named_days(text, weekend)
                    if wanted is not None and d.weekday() not in wanted:
                        days = "/".join(WEEKDAYS[x].title() for x in sorted(wanted))
                        raise ValueError(
                            f"{path}: {v} is a {WEEKDAYS[d.weekday()].title()}, but {text!r} asks for {days}"
                        )
            elif v not in a.values:
                raise ValueError(f"{path}: {v!r} is not among the attribute's values; add it to them")


def check_routes(self: SmmSpec, by_kind: dict[str, EntityKindSpec]) -> None:
    """The conflict routes: known entity, mutable key, sources whose authority lets the update win."""
    sources = {s.id: s for s in self.sources}
    ents = {e.id: e for e in self.entities}
    conv = [s.authority for s in self.sources if s.kind in CONVERSATIONAL]
    low = min(conv) if conv else 0
    seen: set[tuple[str, str]] = set()
    for i, r in enumerate(self.conflicts):
        path = f"smm.conflicts.{i}"
        if r.entity not in ents:
            raise ValueError(f"{path}.entity: unknown entity {r.entity!r}")
        k = by_kind[ents[r.entity].kind]
        a = next((a for a in k.attributes if a.key == r.key), None)
        if a is None:
            raise ValueError(f"{path}.key: kind {k.kind!r} has no attribute {r.key!r}")
        if not a.mutable:
            raise ValueError(f"{path}.key: attribute {r.key!r} is not mutable; add `mutable: true` to it")
        if (r.entity, r.key) in seen:
            raise ValueError(f"{path}: a second route for {r.entity}.{r.key}")
        seen.add((r.entity, r.key))
        for role in ("stale", "update", "rumour"):
            sid = getattr(r, role)
            if sid is None:
                continue
            if sid not in sources:
                raise ValueError(f"{path}.{role}: unknown source {sid!r}")
            if sources[sid].kind == "profile_cards":
                raise ValueError(f"{path}.{role}: a profile_cards source shows only people's profiles")
        if sources[r.update].authority < sources[r.stale].authority:
            raise ValueError(
                f"{path}.update: {r.update!r} (authority {sources[r.update].authority}) ranks below the "
                f"stale source {r.stale!r} (authority {sources[r.stale].authority}): the stale value "
                f"would win; route the update to a source of authority >= the stale one"
            )
        if r.rumour is not None:
            src = sources[r.rumour]
            if src.kind not in CONVERSATIONAL or src.authority != low:
                raise ValueError(
                    f"{path}.rumour: hearsay is said in a chat of the lowest authority ({low}); "
                    f"{r.rumour!r} is a {src.kind} of authority {src.authority}"
                )
            if src.authority >= sources[r.update].authority:
                raise ValueError(
                    f"{path}.rumour: the rumour's source must rank below the update's "
                    f"({sources[r.update].authority}); raise the update source's authority"
                )
