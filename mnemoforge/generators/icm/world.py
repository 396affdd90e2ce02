"""Plan a World from (theme, seed): cast, relations, places, objects, a timeline and its facts."""

from __future__ import annotations

import datetime as dt

from mnemoforge.generators.declared import assemble_world, cast_people, declared_records
from mnemoforge.generators.icm.world_rules import hour_window, pick_participants, shift_day
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.theme import ActivitySpec, Theme
from mnemoforge.schemas.world import Event, Fact, Person, Relation, World, WorldObject

WEATHER_BY_SEASON = {
    "spring": ["sunny", "cloudy", "light rain"],
    "summer": ["sunny", "hot and clear", "thunderstorm"],
    "autumn": ["cloudy", "sunny", "windy"],
    "winter": ["overcast", "snow", "clear and cold"],
}
CHOICE_RATE = 0.45  # chance a participant visibly makes a choice (a drink, a dish, a song) at an event
PREFERENCE_LOYALTY = 0.8  # chance that choice is their preference
PROMISE_RATE = 0.3  # chance a participant promises to bring their object to their next such event
PLAN_RATE = 0.25  # chance a participant says what they will do next (activity and place)
CHANGE_RATE = 0.6  # chance a person's preference switches once, mid-year, to another cast member's
OCCASIONS = {5: "Labour Day holiday", 10: "National Day week", 12: "year-end", 2: "Spring Festival"}


def season_of(d: dt.date) -> str:
    return {
        12: "winter",
        1: "winter",
        2: "winter",
        3: "spring",
        4: "spring",
        5: "spring",
        6: "summer",
        7: "summer",
        8: "summer",
    }.get(d.month, "autumn")


def plan_world(theme: Theme, seed: int, n_events: int) -> World:
    """Deterministic in (theme, seed, n_events); the seed is an explicit parameter, recorded in the World."""
    people = cast_people(theme)
    relations, _, objects = declared_records(theme)
    protagonist = theme.protagonist or theme.cast[0].id
    events = _plan_events(theme, seed, n_events, protagonist)
    changes = preference_changes(seed, people, theme.start, theme.end)
    facts = _facts(seed, people, relations, objects, events, changes, talk=theme.album.talk_density)
    return assemble_world(theme, seed, protagonist, people, facts, events)


def _plan_events(theme: Theme, seed: int, n: int, protagonist: str) -> list[Event]:
    span_days = (theme.end - theme.start).days
    rng = derive_rng(seed, "timeline")
    # spread events over the span: one per slot, jittered inside its slot
    days = sorted(min(span_days - 1, int((i + rng.random()) * span_days / n)) for i in range(n))
    owners = {o.id: o.owner for o in theme.objects}
    kinds = {p.id: p.kind for p in theme.places}
    per_month: dict[tuple[str, str], int] = {}
    events = []
    for i, slot_day in enumerate(days):
        erng = derive_rng(seed, "event", i)
        act, day = _pick_activity(theme, slot_day, span_days, per_month, erng)
        place = erng.choice(act.places)
        lo, hi = hour_window(act, kinds[place])
        date = theme.start + dt.timedelta(days=day)
        per_month[(act.id, date.strftime("%Y-%m"))] = per_month.get((act.id, date.strftime("%Y-%m")), 0) + 1
        start = dt.datetime.combine(date, dt.time(erng.randint(lo, hi), erng.choice([0, 15, 30, 45])))
        chosen = pick_participants(theme, act, protagonist, erng)
        brought = sorted(o for o, owner in owners.items() if owner in chosen and erng.random() < 0.5)
        season = season_of(date)
        events.append(
            Event(
                id=f"ev_{i:04d}",
                index=i,
                start=start,
                activity=act.id,
                verb=act.verb,
                noun=act.noun,
                place=place,
                participants=chosen,
                objects=brought,
                weather=erng.choice(WEATHER_BY_SEASON[season]),
                occasion=OCCASIONS.get(date.month, "ordinary day") if date.day <= 7 else "ordinary day",
            )
        )
    # two events on one day may draw hours out of order: number them in time order
    events.sort(key=lambda e: (e.start, e.index))
    return [e.model_copy(update={"id": f"ev_{i:04d}", "index": i}) for i, e in enumerate(events)]


def _pick_activity(
    theme: Theme, day: int, span_days: int, per_month: dict[tuple[str, str], int], rng
) -> tuple[ActivitySpec, int]:  # type: ignore[no-untyped-def]
    """A weighted activity that may happen near ``day`` (its days, its monthly cap), and the day."""
    acts = list(theme.activities)
    while acts:
        act = rng.choices(acts, weights=[a.weight for a in acts], k=1)[0]
        d = shift_day(act, day, span_days, theme.start)
        month = (theme.start + dt.timedelta(days=d)).strftime("%Y-%m") if d is not None else ""
        if d is not None and (
            act.max_per_month is None or per_month.get((act.id, month), 0) < act.max_per_month
        ):
            return act, d
        acts.remove(act)
    # every activity is capped or barred this week: the least constrained one, on its slot day
    act = min(theme.activities, key=lambda a: (bool(a.days), a.max_per_month is not None))
    return act, day


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
                    subject=owner[o] or "",
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
        out[(p.id, key)] = (d.replace(day=1), rng.choice(others))
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
            items = [o for o in same.objects if owner.get(o) == pid] if same else []
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
