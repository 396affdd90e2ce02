"""The album's event slots: which activity, on which day and hour, with whom, at which place.

Each slot takes a day the calendar allows for its activity, an hour in the day's daylight for an
outdoor one, and participants free for the whole event (``EVENT_MINUTES``); a slot nobody can
attend moves to the same weekday a week or more away, and one no day can hold is left out with a
shortfall line (``world_rules``). ``world.plan_world`` turns the events into the World.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import random

from mnemoforge.generators.calendar import weather_pool
from mnemoforge.generators.icm.world_rules import (
    dropped_slot_line,
    hour_window,
    pick_participants,
    shift_day,
    slot_reason,
)
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.calendar import WorldCalendar
from mnemoforge.schemas.theme import ActivitySpec, Theme
from mnemoforge.schemas.world import Event

log = logging.getLogger("mnemoforge.plan")

LEND_RATE = 0.3  # chance an object brought to an event is carried by another participant for its owner
EVENT_MINUTES = 60  # how long an event holds its people and the objects they bring at its place
START_MINUTES = (0, 15, 30, 45)  # the minutes an event starts at
ORDINARY = "ordinary day"  # the occasion of a day that is no holiday of the theme's calendar


def season_of(cal: WorldCalendar, d: dt.date) -> str:
    """The day's season in the theme's calendar ('' where the theme declares no latitude)."""
    return cal.season(d) or ""


def occasion_of(cal: WorldCalendar, d: dt.date) -> str:
    """The holiday on ``d`` in the theme's calendar, else an ordinary day (nothing is invented)."""
    return cal.holiday_on(d) or ORDINARY


def plan_events(theme: Theme, seed: int, n: int, protagonist: str, cal: WorldCalendar) -> list[Event]:
    span_days = (theme.end - theme.start).days
    rng = derive_rng(seed, "timeline")
    # spread events over the span: one per slot, jittered inside its slot
    days = sorted(min(span_days - 1, int((i + rng.random()) * span_days / n)) for i in range(n))
    owners = {o.id: o.owner for o in theme.objects}
    places = {p.id: p for p in theme.places}
    per_month: dict[tuple[str, str], int] = {}
    busy: dict[str, list[tuple[dt.datetime, dt.datetime]]] = {}
    events = []
    for i, slot_day in enumerate(days):
        erng = derive_rng(seed, "event", i)
        act, day = _pick_activity(theme, slot_day, span_days, per_month, erng, cal.weekend)
        place = erng.choice(act.places)
        # the slot's day, or the same weekday a week or more away when nobody can come that day or a
        # person the activity requires is busy then: the first try makes the same draws as ever
        why: list[str] = []
        for shift in (0, *(w * s for w in (7, 14, 21) for s in (1, -1))):
            if not 0 <= day + shift < span_days:
                continue
            date = theme.start + dt.timedelta(days=day + shift)
            lo, hi = _hours(act, places[place].kind, places[place].indoor, cal, date)
            start = dt.datetime.combine(date, dt.time(erng.randint(lo, hi), erng.choice(START_MINUTES)))
            start, away = _free_start(theme, act, protagonist, start, lo, hi, busy, cal)
            chosen = pick_participants(theme, act, protagonist, erng, away)
            if chosen and not set(chosen) & away:  # a required person busy then is not free either
                break
            why.append(slot_reason(act, chosen, away))
        else:  # no such week in the span: the slot holds no event, and the build says why
            log.warning(dropped_slot_line(i, act, theme.start + dt.timedelta(days=day), why))
            continue
        per_month[(act.id, date.strftime("%Y-%m"))] = per_month.get((act.id, date.strftime("%Y-%m")), 0) + 1
        end = start + dt.timedelta(minutes=EVENT_MINUTES)
        for p in chosen:
            busy.setdefault(p, []).append((start, end))
        brought = sorted(o for o, owner in owners.items() if owner in chosen and erng.random() < 0.5)
        # a loan, from a private draw (the other draws stay as they were): who brought an object
        # is then a fact of that event, not a guess from who owns it
        lend = derive_rng(seed, "lend", i)
        carriers = {}
        for o in brought:
            others = [p for p in chosen if p != owners[o]]
            if others and lend.random() < LEND_RATE:
                carriers[o] = lend.choice(others)
        events.append(
            Event(
                id=f"ev_{i:04d}",
                index=i,
                start=start,
                end=end,
                activity=act.id,
                verb=act.verb,
                noun=act.noun,
                place=place,
                participants=chosen,
                objects=brought,
                carriers=carriers,
                weather=erng.choice(weather_pool(cal, date)),
                occasion=occasion_of(cal, date),
            )
        )
    # two events on one day may draw hours out of order: number them in time order
    events.sort(key=lambda e: (e.start, e.index))
    return [e.model_copy(update={"id": f"ev_{i:04d}", "index": i}) for i, e in enumerate(events)]


def _hours(act: ActivitySpec, kind: str, indoor: bool, cal: WorldCalendar, d: dt.date) -> tuple[int, int]:
    """The activity's start hours at this place: its declared ``hours`` (the theme's word: a
    dawn tai chi stays at dawn); else the place kind's window, outdoors narrowed to hours at which
    the whole event (any start minute, ``EVENT_MINUTES`` long) is in the day's daylight, where the
    calendar knows it and the two overlap."""
    lo, hi = hour_window(act, kind)
    light = None if indoor or act.hours is not None else cal.daylight(d)
    if light is not None:
        first = math.ceil(light[0])
        last = math.floor(light[1] - (EVENT_MINUTES + max(START_MINUTES)) / 60)
        if max(lo, first) <= min(hi, last):
            return max(lo, first), min(hi, last)
    return lo, hi


def unavailable(
    theme: Theme,
    start: dt.datetime,
    busy: dict[str, list[tuple[dt.datetime, dt.datetime]]],
    cal: WorldCalendar,
) -> set[str]:
    """Cast members who cannot come to an event starting at ``start``: away or outside their
    declared availability, or at another event then."""
    end = start + dt.timedelta(minutes=EVENT_MINUTES)
    out = set()
    for p in theme.cast:
        if p.availability is not None and not p.availability.allows(start, cal.weekend):
            out.add(p.id)
        elif any(s < end and start < e for s, e in busy.get(p.id, [])):
            out.add(p.id)
    return out


def _free_start(
    theme: Theme,
    act: ActivitySpec,
    protagonist: str,
    start: dt.datetime,
    lo: int,
    hi: int,
    busy: dict[str, list[tuple[dt.datetime, dt.datetime]]],
    cal: WorldCalendar,
) -> tuple[dt.datetime, set[str]]:
    """``start``, or the nearest hour of the window at which the activity can still be held (a
    required protagonist free, enough people free); and who cannot come then."""
    from mnemoforge.generators.icm.world_rules import eligible

    pool = set(eligible(theme, act, protagonist))
    hours = sorted(range(lo, hi + 1), key=lambda h: (abs(h - start.hour), h))
    for h in hours:
        t = start.replace(hour=h)
        away = unavailable(theme, t, busy, cal)
        need_p = act.who.protagonist == "required"
        free = len(pool - away) + (act.who.protagonist != "excluded" and protagonist not in away)
        must = set(act.who.required)  # named people who must come are free then too
        if (not need_p or protagonist not in away) and free >= act.min_people and not away & must:
            return t, away
    return start, unavailable(theme, start, busy, cal)


def _pick_activity(
    theme: Theme,
    day: int,
    span_days: int,
    per_month: dict[tuple[str, str], int],
    rng: random.Random,
    weekend: list[int],
) -> tuple[ActivitySpec, int]:
    """A weighted activity that may happen near ``day`` (its days, its monthly cap), and the day."""
    acts = list(theme.activities)
    while acts:
        act = rng.choices(acts, weights=[a.weight for a in acts], k=1)[0]
        d = shift_day(act, day, span_days, theme.start, weekend)
        month = (theme.start + dt.timedelta(days=d)).strftime("%Y-%m") if d is not None else ""
        if d is not None and (
            act.max_per_month is None or per_month.get((act.id, month), 0) < act.max_per_month
        ):
            return act, d
        acts.remove(act)
    # every activity is capped or barred this week: the least constrained one, on its slot day
    act = min(theme.activities, key=lambda a: (bool(a.days), a.max_per_month is not None))
    return act, day
