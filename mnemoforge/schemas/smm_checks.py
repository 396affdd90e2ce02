"""Checks of the ``smm:`` section: what the section alone can check (``check_local``: unique ids,
ranges), and what needs the rest of the theme (``check_section``): members, roles of person attributes,
fixed entity values (in the pool, a cast id of the right role, a date inside the span and on the
weekday the entity's name names) and conflict routes (``smm.conflicts``). Errors are
``ValueError('smm.<path>: …')`` naming the field and what to write instead.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from mnemoforge.country_calendars import weekend_days
from mnemoforge.dates import named_days
from mnemoforge.schemas.limits import MAX_CAST, MAX_DAYS_GAP, MAX_ROUNDS
from mnemoforge.schemas.smm_terms import CONVERSATIONAL, WEEKDAYS
from mnemoforge.schemas.smm_topics import check_topics

if TYPE_CHECKING:
    from mnemoforge.schemas.smm import EntityKindSpec, PreferenceSpec, ProfileFieldSpec, SmmSpec
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


def check_local(self: SmmSpec) -> None:
    """Ids unique, entities of declared kinds, ranges and counts the section alone can check
    (paths relative to the section: pydantic puts the error under ``smm``)."""
    for name, ids in (
        ("sources", [s.id for s in self.sources]),
        ("entity_kinds", [k.kind for k in self.entity_kinds]),
        ("entities", [e.id for e in self.entities]),
        ("tools", [t.name for t in self.tools]),
        ("contacts", [c.id for c in self.contacts]),
        ("profile", [f.key for f in self.profile]),
        ("preferences", [p.key for p in self.preferences]),
    ):
        for i, x in enumerate(ids):
            if x in ids[:i]:
                raise ValueError(f"{name}.{i}: duplicate id {x!r}")
    kinds = {k.kind for k in self.entity_kinds}
    for i, e in enumerate(self.entities):
        if e.kind not in kinds:
            raise ValueError(f"entities.{i}.kind: unknown entity kind {e.kind!r}")
    for i, k in enumerate(self.entity_kinds):
        lo, hi = k.members
        if not 1 <= lo <= hi <= MAX_CAST:
            raise ValueError(
                f"entity_kinds.{i}.members: expected 1 <= lo <= hi <= {MAX_CAST}, got {k.members}"
            )
        for j, a in enumerate(k.attributes):
            if a.type in ("string", "time", "integer") and len(a.values) < 4:
                raise ValueError(f"entity_kinds.{i}.attributes.{j}.values: need >= 4 values for a {a.type}")
            if a.type == "integer" and not all(v.lstrip("-").isdigit() for v in a.values):
                raise ValueError(f"entity_kinds.{i}.attributes.{j}.values: not all integers")
    if sum(self.tasks.counts().values()) == 0:
        raise ValueError("tasks: the theme asks for no questions (a release needs at least one)")
    lo, hi = self.update_days
    if not 1 <= lo <= hi <= MAX_DAYS_GAP:
        raise ValueError(
            f"update_days: expected [lo, hi] with 1 <= lo <= hi <= {MAX_DAYS_GAP}, got [{lo}, {hi}]"
        )
    if self.target_sources_per_question > len(self.sources):
        raise ValueError(
            f"target_sources_per_question: {self.target_sources_per_question} is more than the "
            f"{len(self.sources)} declared sources"
        )
    for i, t in enumerate(self.tools):
        names = [a.name for a in t.arguments]
        for j, n in enumerate(names):
            if n in names[:j]:
                raise ValueError(f"tools.{i}.arguments.{j}.name: duplicate argument {n!r}")


def check_section(self: SmmSpec, theme: Theme) -> None:
    """References the section alone cannot check: members, pack, sources, values, routes, topics, calls."""
    people = {p.id for p in theme.cast}
    days = (theme.end - theme.start).days
    rounds = days * self.rounds_per_day
    if rounds > MAX_ROUNDS:
        raise ValueError(
            f"smm.rounds_per_day: {self.rounds_per_day:g} a day over {days} days "
            f"is {rounds:.0f} rounds; at most {MAX_ROUNDS} (every round is written and indexed)"
        )
    for i, s in enumerate(self.sources):
        for j, m in enumerate(s.members):
            if m not in people:
                raise ValueError(f"smm.sources.{i}.members.{j}: unknown person {m!r}")
        need = {"group_chat": 3, "dm": 2, "assistant_chat": 1}.get(s.kind, 0)
        if s.kind == "dm" and len(s.members) != 2:
            raise ValueError(f"smm.sources.{i}.members: a dm has exactly 2 members, got {len(s.members)}")
        if len(s.members) < need:
            raise ValueError(f"smm.sources.{i}.members: a {s.kind} needs at least {need} members")
    if self.pack is not None:
        from mnemoforge.schemas.packs import load_pack

        try:
            load_pack(self.pack)
        except ValueError as e:
            raise ValueError(f"smm.pack: {e}") from None
    if self.paraphrase_turns and not theme.text.backend:
        raise ValueError("smm.paraphrase_turns: needs a text.backend")
    if not any(s.kind in CONVERSATIONAL for s in self.sources):
        raise ValueError("smm.sources: at least one group_chat, dm or assistant_chat is required")
    by_kind = {k.kind: k for k in self.entity_kinds}
    for i, k in enumerate(self.entity_kinds):
        n = sum(e.kind == k.kind for e in self.entities)
        if k.membership == "one" and n * k.members[1] < len(theme.cast):
            raise ValueError(
                f"smm.entity_kinds.{i}.members: {n} {k.kind} entities of at most {k.members[1]} "
                f"members cannot hold all {len(theme.cast)} people"
            )
        for j, a in enumerate(k.attributes):
            if a.type == "person" and a.values:
                raise ValueError(
                    f"smm.entity_kinds.{i}.attributes.{j}.values: person values come from the cast"
                )
    check_values(self, theme, by_kind)
    check_routes(self, by_kind)
    check_topics(self, people)
    tools = {t.name: t for t in self.tools}
    for i, c in enumerate(self.calls):
        if c.tool not in tools:
            raise ValueError(f"smm.calls.{i}.tool: unknown tool {c.tool!r}")
        if c.subject not in by_kind:
            raise ValueError(f"smm.calls.{i}.subject: unknown entity kind {c.subject!r}")
        args = {a.name: a for a in tools[c.tool].arguments}
        for name, src in c.arguments.items():
            if name not in args:
                raise ValueError(f"smm.calls.{i}.arguments.{name}: tool {c.tool!r} has no such argument")
            _check_binding(
                f"smm.calls.{i}.arguments.{name}", src, c.subject, by_kind, self.profile, self.preferences
            )
        missing = [a.name for a in tools[c.tool].arguments if a.required and a.name not in c.arguments]
        if missing:
            raise ValueError(f"smm.calls.{i}.arguments: required arguments {missing} are not bound")


def _check_binding(
    path: str,
    src: str,
    subject: str,
    kinds: dict[str, EntityKindSpec],
    profile: list[ProfileFieldSpec],
    preferences: list[PreferenceSpec],
) -> None:
    head, _, key = src.partition(".")
    if head in ("person", "profile") and kinds[subject].membership != "one":
        raise ValueError(
            f"{path}: {src!r} needs one person per call, but subject {subject!r} has `membership: many` "
            f"(several people per entity); bind {subject}.members, {subject}.name or an attribute, "
            f"or use a subject kind with `membership: one`"
        )
    if src == "person":
        return
    if head == "preference":
        if key not in {p.key for p in preferences}:
            raise ValueError(f"{path}: unknown preference {key!r}")
        if kinds[subject].membership != "one":
            raise ValueError(f"{path}: a preference needs a person, so subject {subject!r} must be 'one'")
        return
    if head == "profile":
        if key not in {f.key for f in profile}:
            raise ValueError(f"{path}: unknown profile field {key!r}")
        return
    if head != subject:
        raise ValueError(f"{path}: {src!r} must read the call's subject kind {subject!r}, person or profile")
    if key in ("name", "members"):
        return
    if key not in {a.key for a in kinds[head].attributes}:
        raise ValueError(f"{path}: kind {head!r} has no attribute {key!r}")
