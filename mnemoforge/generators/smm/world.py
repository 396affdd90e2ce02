"""Plan the World of a source-distributed theme: cast, entities with attributes, later updates,
memberships, profile fields and preference signals, plus the sources and tools as entities.

Every fact carries ``at``: when it becomes known (its announcement time). An update of a mutable
attribute is a second ``attribute`` fact for the same subject and key with a later ``at``
(id suffix ``_1``); some updates are followed by a **rumour** (suffix ``_r``): a still later,
unofficial value that must not override the update (authority before recency). Every entity has
a record **code** (``f_code_<entity>``, key ``code``): its attributes are filed under the code,
so reading one needs the code's owner from another source. A preference is shown by
``preference_support`` choices of the preferred value and as many contrary choices (other values),
so only the tally over several sources reveals it.
Sources (kind ``source``) and tool schemas (kind ``tool``) are recorded as World entities, so a
frozen release carries everything its gates need (source authority, tool schemas).
"""

from __future__ import annotations

import datetime as dt
import random
import re

from mnemoforge.dates import named_days
from mnemoforge.generators.declared import assemble_world, cast_people, world_calendar
from mnemoforge.generators.timelines import from_facts
from mnemoforge.hashing import canonical_json
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.smm import EntityKindSpec, EntitySpec, SmmSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Entity, Fact, World

WORK_START, WORK_END = 9 * 60, 18 * 60  # minutes of the day
CODE = "code"  # attribute key of an entity's record code
RUMOUR_PROB = 0.4


def spec(theme: Theme) -> SmmSpec:
    """The theme's smm section (an error for other families)."""
    if theme.smm is None:
        raise ValueError("theme has no smm section")
    return theme.smm


def days(theme: Theme) -> int:
    """Length of the timeline in days."""
    return (theme.end - theme.start).days


def moment(theme: Theme, rng: random.Random, lo: float, hi: float) -> dt.datetime:
    """A working-hours datetime between fractions ``lo`` and ``hi`` of the timeline."""
    n = days(theme)
    day = theme.start + dt.timedelta(days=rng.randint(int(lo * n), max(int(lo * n), int(hi * n) - 1)))
    cal = world_calendar(theme)
    while not cal.is_working_day(day) and day > theme.start:  # people post on working days
        day -= dt.timedelta(days=1)
    day = max(day, theme.start)
    minute = rng.randint(WORK_START, WORK_END - 1)
    return dt.datetime.combine(day, dt.time(minute // 60, minute % 60))


def _value(
    theme: Theme,
    rng: random.Random,
    kind: EntityKindSpec,
    key: str,
    cast: list[str],
    avoid: str | None,
    entity: EntitySpec | None = None,
) -> str:
    """A value of an attribute: a person (of the attribute's roles), a working day inside the
    theme's span (on the weekday the entity's name names, if any), or one of the pool."""
    a = kind.attribute(key)
    if a.type == "person":
        roles = {p.id: p.role for p in theme.cast}
        pool = [p for p in cast if p != avoid and (not a.roles or roles[p] in a.roles)]
    elif a.type == "date":
        n = days(theme)
        dates = [theme.start + dt.timedelta(days=d) for d in range(int(0.45 * n), n + 1)]
        pool = [d.isoformat() for d in dates if date_allowed(theme, a.label, entity, d)]
        pool = [d for d in pool if d != avoid] or pool
    else:
        pool = [v for v in a.values if v != avoid]
    return rng.choice(pool)


def date_allowed(theme: Theme, label: str, entity: EntitySpec | None, d: dt.date) -> bool:
    """Whether a date attribute may take ``d``: on the weekday or weekend the attribute's label or
    the entity's name asks for ('on-call weekend', 'Saturday shift'), else on a working day of the
    theme's calendar."""
    cal = world_calendar(theme)
    for text in (label, entity.name if entity is not None else ""):
        wanted = named_days(text, cal.weekend)
        if wanted is not None:
            return d.weekday() in wanted
    return cal.is_working_day(d)


def _memberships(theme: Theme, seed: int, s: SmmSpec) -> dict[str, list[str]]:
    """entity id -> member person ids (sorted); 'one' kinds partition the cast."""
    cast = [p.id for p in theme.cast]
    out: dict[str, list[str]] = {}
    for k in s.entity_kinds:
        ents = [e.id for e in s.entities if e.kind == k.kind]
        rng = derive_rng(seed, "smm", "members", k.kind)
        lo, hi = k.members
        if k.membership == "one":
            people = list(cast)
            rng.shuffle(people)
            sizes = [lo] * len(ents)
            extra = len(people) - sum(sizes)
            i = 0
            while extra > 0:
                if sizes[i % len(ents)] < hi:
                    sizes[i % len(ents)] += 1
                    extra -= 1
                i += 1
            pos = 0
            for e, n in zip(ents, sizes, strict=True):
                out[e] = sorted(people[pos : pos + n])
                pos += n
        else:
            for e in ents:
                out[e] = sorted(rng.sample(cast, rng.randint(lo, min(hi, len(cast)))))
    return out


def _pool(theme: Theme, kind: EntityKindSpec, key: str, cast: list[str]) -> list[str]:
    a = kind.attribute(key)
    if a.type == "person":
        roles = {p.id: p.role for p in theme.cast}
        return [p for p in cast if not a.roles or roles[p] in a.roles]
    return list(a.values)


def spread(rng: random.Random, value: str, pool: list[str], spent: set[str], add: bool = False) -> str:
    """``value``, or (when another entity or person of the kind already has it and the pool holds a
    value nobody has) a fresh one: a two-hop answer that a wrong hop also reaches tests nothing
    (``generators/smm/hops.py``)."""
    fresh = [v for v in pool if v not in spent]
    if value in spent and fresh:
        value = rng.choice(fresh)
    if add:
        spent.add(value)
    return value


def plan_world(theme: Theme, seed: int) -> World:
    """The seeded ground truth of an smm theme (deterministic in theme and seed)."""
    s = spec(theme)
    people = cast_people(theme)
    cast = [p.id for p in people]
    kinds = {k.kind: k for k in s.entity_kinds}
    facts: list[Fact] = []
    members = _memberships(theme, seed, s)
    entities = [
        Entity(id=e.id, name=e.name, kind=e.kind, attrs={"noun": kinds[e.kind].noun}) for e in s.entities
    ]
    for k in s.entity_kinds:
        ents = [e for e in s.entities if e.kind == k.kind]
        # record numbers share no token with any value (a "MEE-14" beside "2026-10-14" would be a
        # lexical shortcut): above 31 (days, months, hours) and none of the theme's numbers
        taken = {int(x) for a in k.attributes for v in a.values for x in re.findall(r"\d+", v)}
        free = [n for n in range(32, 100) if n not in taken]
        numbers = derive_rng(seed, "smm", "codes", k.kind).sample(free, len(ents))
        for e, n in zip(ents, numbers, strict=True):
            rng = derive_rng(seed, "smm", "code", e.id)
            facts.append(
                Fact(
                    id=f"f_code_{e.id}",
                    kind="attribute",
                    subject=e.id,
                    object=CODE,
                    value=f"{k.kind[:3].upper()}-{n}",
                    at=moment(theme, rng, 0.02, 0.4),
                )
            )
    spent: dict[tuple[str, str], set[str]] = {}  # values already given, per (kind, key)
    for e in s.entities:
        k = kinds[e.kind]
        for p in members[e.id]:
            rng = derive_rng(seed, "smm", "member", e.id, p)
            facts.append(
                Fact(
                    id=f"f_member_{p}_{e.id}",
                    kind="member",
                    subject=p,
                    object=e.id,
                    value=e.kind,
                    at=moment(theme, rng, 0.02, 0.45),
                )
            )
        for a in k.attributes:
            rng = derive_rng(seed, "smm", "attr", e.id, a.key)
            v0 = _value(theme, rng, k, a.key, cast, None, e)
            if k.membership == "one" and not a.mutable:  # a wrong first hop must not reach it
                v0 = spread(rng, v0, _pool(theme, k, a.key, cast), spent.setdefault((k.kind, a.key), set()))
            v0 = e.values.get(a.key, v0)  # a value the theme fixes (drawn first: seeds stay aligned)
            spent.setdefault((k.kind, a.key), set()).add(v0)
            at0 = moment(theme, rng, 0.02, 0.5)
            facts.append(
                Fact(
                    id=f"f_attr_{e.id}_{a.key}_0",
                    kind="attribute",
                    subject=e.id,
                    object=a.key,
                    value=v0,
                    at=at0,
                )
            )
            if a.mutable:
                lo, hi = s.update_days
                at1 = at0 + dt.timedelta(days=rng.randint(lo, hi), minutes=rng.randint(-90, 90))
                cal = world_calendar(theme)
                while not cal.is_working_day(at1.date()) and at1.date() < theme.end:
                    at1 += dt.timedelta(days=1)
                v1 = _value(theme, rng, k, a.key, cast, v0, e)
                routed = s.route(e.id, a.key)
                facts.append(
                    Fact(
                        id=f"f_attr_{e.id}_{a.key}_1",
                        kind="attribute",
                        subject=e.id,
                        object=a.key,
                        value=v1,
                        at=at1,
                    )
                )
                hearsay = rng.random() < RUMOUR_PROB
                if routed is not None:  # the theme says whether there is a rumour
                    hearsay = routed.rumour is not None
                if hearsay:  # a later hearsay value that must not win
                    v2 = _value(theme, rng, k, a.key, cast, v1, e)
                    tries = 6 if routed is not None else 1
                    while v2 == v0 and tries > 0:
                        v2 = _value(theme, rng, k, a.key, cast, v1, e)
                        tries -= 1
                    if v2 not in (v0, v1):
                        facts.append(
                            Fact(
                                id=f"f_attr_{e.id}_{a.key}_r",
                                kind="attribute",
                                subject=e.id,
                                object=a.key,
                                value=v2,
                                at=at1 + dt.timedelta(days=rng.randint(2, 6)),
                            )
                        )
    for p in cast:
        for f in s.profile:
            rng = derive_rng(seed, "smm", "profile", p, f.key)
            facts.append(
                Fact(
                    id=f"f_profile_{p}_{f.key}",
                    kind="attribute",
                    subject=p,
                    object=f.key,
                    value=spread(
                        rng, rng.choice(f.values), f.values, spent.setdefault(("", f.key), set()), add=True
                    ),
                    at=dt.datetime.combine(theme.start, dt.time(9, 0)),
                )
            )
        for pref in s.preferences:
            rng = derive_rng(seed, "smm", "pref", p, pref.key)
            value = rng.choice(pref.values)
            facts.append(
                Fact(id=f"f_prefers_{p}_{pref.key}", kind="prefers", subject=p, object=pref.key, value=value)
            )
            n = s.preference_support
            others = [v for v in pref.values if v != value]
            rng.shuffle(others)
            for j in range(n):  # choice 2j: the preferred value; 2j+1: a contrary one
                at = moment(theme, rng, j / n, (j + 1) / n)
                for i, v in ((2 * j, value), (2 * j + 1, others[j % len(others)])):
                    facts.append(
                        Fact(
                            id=f"f_chose_{p}_{pref.key}_{i}",
                            kind="chose",
                            subject=p,
                            object=pref.key,
                            value=v,
                            at=at + dt.timedelta(minutes=i % 2),
                        )
                    )
    entities += _environment(s)
    protagonist = theme.protagonist or cast[0]
    facts = sorted(facts, key=lambda f: f.id)
    # one value per interval for every attribute: a rumour is hearsay, never the attribute's state
    lines = from_facts(f for f in facts if not f.id.endswith("_r"))
    return assemble_world(theme, seed, protagonist, people, facts, entities=entities, timelines=lines)


def _environment(s: SmmSpec) -> list[Entity]:
    """Sources and tool schemas as entities (what the family gates read from a frozen release)."""
    out = [
        Entity(
            id=f"source_{src.id}",
            name=src.title,
            kind="source",
            attrs={
                "source": src.id,
                "kind": src.kind,
                "authority": str(src.authority),
                "purpose": src.purpose,
                "members": ",".join(src.members),
            },
        )
        for src in s.sources
    ]
    out += [
        Entity(id=f"tool_{t.name}", name=t.name, kind="tool", attrs={"schema": canonical_json(t)})
        for t in s.tools
    ]
    out.append(
        Entity(
            id="smm_settings",
            name="smm settings",
            kind="settings",
            attrs={"conflict_gap": str(s.conflict_gap)},
        )
    )
    return out


def source_authority(world: World) -> dict[str, int]:
    """source id -> declared authority (from the source entities)."""
    return {e.attrs["source"]: int(e.attrs["authority"]) for e in world.entities if e.kind == "source"}


def conflict_gap(world: World) -> int:
    """The minimum rounds between a stale value and its update."""
    return int(next(e.attrs["conflict_gap"] for e in world.entities if e.kind == "settings"))
