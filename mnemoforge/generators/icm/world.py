"""Plan a World from (theme, seed): cast, relations, places, objects, a timeline and its facts.

The calendar (holidays, weekend, seasons, daylight) is the theme's (``generators/calendar.py``):
an event's occasion is the holiday on its date, its weather a word of its season, and an outdoor
event starts in daylight. Every event holds its participants and the objects they bring at its
place from ``start`` to ``end`` (``EVENT_MINUTES``), and nobody is at two events at once
(``timelines``: one location per person and object per time).
"""

from __future__ import annotations

import datetime as dt

from mnemoforge.generators.declared import assemble_world, cast_people, declared_records, world_calendar
from mnemoforge.generators.icm.drawn_parts import part_facts, part_timelines
from mnemoforge.generators.icm.event_plan import (  # noqa: F401  (re-exported: the World's calendar words)
    EVENT_MINUTES,
    LEND_RATE,
    ORDINARY,
    START_MINUTES,
    occasion_of,
    plan_events,
    season_of,
)
from mnemoforge.generators.timelines import stepped, windows
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.calendar import WorldCalendar
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Entity, Event, Fact, Person, Relation, Span, Timeline, World, WorldObject

CHOICE_RATE = 0.45  # chance a participant visibly makes a choice (a drink, a dish, a song) at an event
PREFERENCE_LOYALTY = 0.8  # chance that choice is their preference
PROMISE_RATE = 0.3  # chance a participant promises to bring their object to their next such event
PLAN_RATE = 0.25  # chance a participant says what they will do next (activity and place)
CHANGE_RATE = 0.6  # chance a person's preference switches once, mid-year, to another cast member's


def plan_world(theme: Theme, seed: int, n_events: int) -> World:
    """Deterministic in (theme, seed, n_events); the seed is an explicit parameter, recorded in the World."""
    protagonist = theme.protagonist or theme.cast[0].id
    cal = world_calendar(theme)
    events = plan_events(theme, seed, n_events, protagonist, cal)
    return finish_world(theme, seed, protagonist, events, cal)


def finish_world(
    theme: Theme, seed: int, protagonist: str, events: list[Event], cal: WorldCalendar | None = None
) -> World:
    """The World around planned events: facts, routine changes and timelines (also used when a
    model proposes the events, ``generators/icm/model_plan.py``)."""
    people = cast_people(theme)
    relations, _, objects = declared_records(theme)
    changes = preference_changes(seed, people, theme.start, theme.end)
    facts = _facts(seed, people, relations, objects, events, changes, talk=theme.album.talk_density)
    facts += animal_facts(theme, events)
    facts += part_facts(seed, objects, events)  # declared parts' values (none: no fact added)
    lines = timelines(theme, people, objects, events, facts) + part_timelines(facts)
    animals = [
        Entity(
            id=a.id,
            name=a.name,
            kind="animal",
            attrs={"species": a.species, "companions": ",".join(a.companions)},
        )
        for a in theme.animals  # fmt: skip
    ]
    return assemble_world(
        theme, seed, protagonist, people, facts, events, timelines=lines, calendar=cal, entities=animals
    )


def animal_facts(theme: Theme, events: list[Event]) -> list[Fact]:
    """Each cast animal's name, and every event it came to (one of its companions took part)."""
    out = []
    for a in theme.animals:
        out.append(Fact(id=f"f_name_{a.id}", kind="name", subject=a.id, object=a.name))
        for e in events:
            if set(a.companions) & set(e.participants):
                out.append(Fact(id=f"f_{e.id}_with_{a.id}", kind="accompanied", subject=a.id, object=e.id,
                                value=a.species, event=e.id, at=e.start))  # fmt: skip
    return out


def timelines(
    theme: Theme, people: list[Person], objects: list[WorldObject], events: list[Event], facts: list[Fact]
) -> list[Timeline]:
    """Where each person and object is during each event, each object's colour and holder, and each
    person's preferences (one value per interval)."""
    t0 = dt.datetime.combine(theme.start, dt.time())
    where: dict[tuple[str, str], list[Span]] = {}
    for e in events:
        end = e.end or e.start + dt.timedelta(minutes=EVENT_MINUTES)
        for p in e.participants:
            span = Span(start=e.start, end=end, value=e.place, fact=f"f_{e.id}_att_{p}")
            where.setdefault((p, "location"), []).append(span)
        for o in e.objects:
            span = Span(start=e.start, end=end, value=e.place, fact=f"f_{e.id}_brought_{o}")
            where.setdefault((o, "location"), []).append(span)
    out = [windows(s, a, spans) for (s, a), spans in sorted(where.items())]
    owner = {o.id: o.owner for o in objects}
    loans: dict[str, list[tuple[dt.datetime, str, str | None]]] = {}
    for e in events:  # a lent object is held by its carrier for the event, then by its owner again
        end = e.end or e.start + dt.timedelta(minutes=EVENT_MINUTES)
        for o, who in e.carriers.items():
            loans.setdefault(o, []).append((e.start, who, f"f_{e.id}_brought_{o}"))
            loans[o].append((end, owner[o] or who, None))
    for o in objects:
        out.append(stepped(o.id, "colour", [(t0, o.color, None)]))
        if o.owner:
            own = f"f_owns_{o.owner}_{o.id}"
            steps = [(t0, o.owner, own), *((at, v, f or own) for at, v, f in loans.get(o.id, []))]
            out.append(stepped(o.id, "holder", steps))
    prefs: dict[tuple[str, str], list[tuple[dt.datetime, str, str | None]]] = {}
    for f in facts:
        if f.kind == "preference" and f.value is not None:
            prefs.setdefault((f.subject, f"preference.{f.object}"), []).append((f.at or t0, f.value, f.id))
    out += [stepped(s, a, steps) for (s, a), steps in sorted(prefs.items())]
    return out


def _facts(
    seed: int,
    people: list[Person],
    relations: list[Relation],
    objects: list[WorldObject],
    events: list[Event],
    changes: dict[tuple[str, str], tuple[dt.date, str]] | None = None,
    *,
    talk: float = 1.0,
) -> list[Fact]:
    """Every fact of the World; ``talk`` (``album.talk_density``) scales how often choices, promises
    and plans are made (and so spoken): the same draws, compared with a scaled rate."""
    changes = changes or {}
    facts: list[Fact] = []
    for p in people:
        facts.append(Fact(id=f"f_name_{p.id}", kind="name", subject=p.id, object=p.name))
        for i, h in enumerate(p.habits):
            facts.append(Fact(id=f"f_habit_{p.id}_{i}", kind="habit", subject=p.id, object=h))
        for key, val in sorted(p.preferences.items()):
            facts.append(
                Fact(id=f"f_pref_{p.id}_{key}", kind="preference", subject=p.id, object=key, value=val)
            )
    for (pid, key), (day, val) in sorted(changes.items()):  # a routine change (read to plan items)
        when = dt.datetime.combine(day, dt.time(0, 0))
        facts.append(
            Fact(
                id=f"f_pref_{pid}_{key}_change",
                kind="preference",
                subject=pid,
                object=key,
                value=val,
                at=when,
            )
        )
    for r in relations:
        facts.append(
            Fact(
                id=f"f_rel_{r.a}_{r.b}", kind="relation", subject=r.a, object=r.b, value=r.a_calls_b or r.kind
            )
        )
    owner = {o.id: o.owner for o in objects}
    for o in objects:
        if o.owner:
            facts.append(Fact(id=f"f_owns_{o.owner}_{o.id}", kind="owns", subject=o.owner, object=o.id))
    for e in events:
        at = e.start
        facts.append(
            Fact(
                id=f"f_{e.id}_activity", kind="activity", subject=e.id, object=e.activity, value=e.noun, at=at
            )
        )
        facts.append(Fact(id=f"f_{e.id}_place", kind="at_place", subject=e.id, object=e.place, at=at))
        for p in e.participants:
            facts.append(
                Fact(id=f"f_{e.id}_att_{p}", kind="attended", subject=p, object=e.id, event=e.id, at=at)
            )
        for o in e.objects:
            facts.append(
                Fact(
                    id=f"f_{e.id}_brought_{o}",
                    kind="brought",
                    subject=e.brought_by(o, owner[o]) or "",
                    object=o,
                    event=e.id,
                    at=at,
                )
            )
        facts += _choices(seed, people, e, changes, talk)
    facts += statements(seed, events, owner, talk)
    return facts


def preference_changes(
    seed: int, people: list[Person], start: dt.date, end: dt.date
) -> dict[tuple[str, str], tuple[dt.date, str]]:
    """(person, key) -> (first day of the month the habit changes, the new value): a routine change.

    The new value is another cast member's preference for the same key, so it is a word of the
    theme; the change falls in the middle third of the timeline, on the first of a month.
    """
    out: dict[tuple[str, str], tuple[dt.date, str]] = {}
    span = (end - start).days
    for p in people:
        rng = derive_rng(seed, "change", p.id)
        keys = sorted(p.preferences)
        if not keys or rng.random() >= CHANGE_RATE:
            continue
        key = rng.choice(keys)
        others = sorted({q.preferences[key] for q in people if key in q.preferences} - {p.preferences[key]})
        if not others:
            continue
        d = start + dt.timedelta(days=rng.randint(span // 3, 2 * span // 3))
        value = rng.choice(others)
        if d.replace(day=1) > start:  # a change on the first day would leave the old value no time
            out[(p.id, key)] = (d.replace(day=1), value)
    return out


def preference_at(p: Person, key: str, d: dt.date, changes: dict) -> str:
    """The person's preference for ``key`` on day ``d`` (after its change, if any)."""
    ch = changes.get((p.id, key))
    return ch[1] if ch is not None and d >= ch[0] else p.preferences[key]


def statements(seed: int, events: list[Event], owner: dict[str, str | None], talk: float = 1.0) -> list[Fact]:
    """Promises and plans said at events, each true of the speaker's next events by construction.

    A promise: the participant's object goes with them to their next event of the same activity,
    so they say at this one that they will bring it. A plan: the participant's next event (any
    activity), announced with its place.
    """
    mine: dict[str, list[Event]] = {}
    for e in events:
        for p in e.participants:
            mine.setdefault(p, []).append(e)
    out: list[Fact] = []
    for pid, evs in sorted(mine.items()):
        for i, e in enumerate(evs):
            rng = derive_rng(seed, "say", e.id, pid)
            nxt = evs[i + 1] if i + 1 < len(evs) else None
            same = next((x for x in evs[i + 1 :] if x.activity == e.activity), None)
            # their own object, which they bring themselves (not one carried for them that time)
            items = [o for o in (same.objects if same else []) if owner.get(o) == pid]
            items = [o for o in items if same and same.brought_by(o, pid) == pid]
            if same is not None and items and rng.random() < PROMISE_RATE * talk:
                out.append(
                    Fact(
                        id=f"f_{e.id}_promise_{pid}",
                        kind="promised",
                        subject=pid,
                        object=items[0],
                        value=e.activity,
                        event=e.id,
                        at=e.start,
                    )
                )
            if nxt is not None and nxt.start.date() > e.start.date() and rng.random() < PLAN_RATE * talk:
                out.append(
                    Fact(
                        id=f"f_{e.id}_plan_{pid}",
                        kind="planned",
                        subject=pid,
                        object=nxt.activity,
                        value=nxt.place,
                        event=e.id,
                        at=e.start,
                    )
                )
    return out


def _choices(
    seed: int, people: list[Person], e: Event, changes: dict | None = None, talk: float = 1.0
) -> list[Fact]:
    """Behaviour instances: what each participant chose at this event, mostly their preference.

    Preferences are never stated outright; they are inferred from these scattered choices.
    """
    by_id = {p.id: p for p in people}
    out = []
    for pid in e.participants:
        prefs = by_id[pid].preferences
        rng = derive_rng(seed, "chose", e.id, pid)
        if not prefs or rng.random() >= CHOICE_RATE * talk:
            continue
        key = rng.choice(sorted(prefs))
        usual = preference_at(by_id[pid], key, e.start.date(), changes or {})
        others = sorted({q.preferences[key] for q in people if key in q.preferences} - {usual})
        value = usual if rng.random() < PREFERENCE_LOYALTY or not others else rng.choice(others)
        out.append(
            Fact(
                id=f"f_{e.id}_chose_{pid}_{key}",
                kind="chose",
                subject=pid,
                object=key,
                value=value,
                event=e.id,
                at=e.start,
            )
        )
    return out
