"""An activity's rules (who, when, how often) applied when planning events, and checked afterwards."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter

from mnemoforge.dates import weekday_name
from mnemoforge.schemas.calendar import DEFAULT_WEEKEND
from mnemoforge.schemas.icm_rules import WEEKDAYS
from mnemoforge.schemas.theme import ActivitySpec, Theme
from mnemoforge.schemas.world import World

PLACE_HOURS = {
    "outdoor": (8, 17),
    "home": (9, 21),
    "work": (9, 18),
    "venue": (10, 21),
    "shop": (9, 19),
    "transit": (7, 20),
    "room": (8, 19),
    "vehicle": (7, 20),
    "street": (8, 20),
    "coast": (8, 18),
    "mountain": (8, 15),
    "forest": (8, 16),
    "field": (8, 17),
    "airfield": (7, 19),
    "helipad": (7, 19),
}
WITH_PROTAGONIST = 0.7  # chance an optional protagonist takes part


def related(theme: Theme, a: str, b: str) -> set[str]:
    """Relation kinds between two cast members, in either direction."""
    return {r.kind for r in theme.relations if {r.a, r.b} == {a, b}}


def eligible(theme: Theme, act: ActivitySpec, protagonist: str) -> list[str]:
    """Cast members other than the protagonist whom ``act`` admits, in cast order."""
    who = act.who
    out = []
    for p in theme.cast:
        if p.id == protagonist or p.id in who.exclude:
            continue
        filtered = bool(who.relations or who.roles or who.people)
        ok = (
            not filtered
            or p.id in who.people
            or p.id in who.required
            or p.role in who.roles
            or bool(related(theme, protagonist, p.id) & set(who.relations))
        )
        if ok:
            out.append(p.id)
    return out


def day_allowed(
    act: ActivitySpec, d: dt.date, weekend: list[int] | tuple[int, ...] = DEFAULT_WEEKEND
) -> bool:
    """Whether ``act``'s ``days`` admit ``d`` ("weekend": the calendar's weekend days)."""
    if not act.days:
        return True
    name = WEEKDAYS[d.weekday()]
    kind = "weekend" if d.weekday() in weekend else "weekday"
    return name in act.days or kind in act.days


def hour_window(act: ActivitySpec, place_kind: str) -> tuple[int, int]:
    return act.hours if act.hours is not None else PLACE_HOURS.get(place_kind, (9, 20))


def shift_day(
    act: ActivitySpec,
    day: int,
    span_days: int,
    start: dt.date,
    weekend: list[int] | tuple[int, ...] = DEFAULT_WEEKEND,
) -> int | None:
    """The nearest day to ``day`` (within a week, inside the span) that ``act`` allows."""
    for off in (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6):
        d = day + off
        if 0 <= d < span_days and day_allowed(act, start + dt.timedelta(days=d), weekend):
            return d
    return None


def pick_participants(
    theme: Theme, act: ActivitySpec, protagonist: str, rng: random.Random, away: set[str] | None = None
) -> list[str]:
    """Participants obeying ``act.who`` and the people counts, in cast order; nobody in ``away``
    (unavailable or at another event then) unless the activity requires them (the protagonist,
    ``who.required``)."""
    away = away or set()
    must = [p for p in act.who.required if p != protagonist]  # come even when busy, as a required protagonist
    pool = [p for p in eligible(theme, act, protagonist) if p not in away and p not in must]
    mode = "required" if protagonist in act.who.required else act.who.protagonist
    if mode == "optional" and protagonist in away:
        mode = "excluded"
    hi = min(act.max_people, len(pool) + len(must) + (mode != "excluded"))
    lo = min(act.min_people, hi)
    k = rng.randint(lo, hi)
    if mode == "required":
        with_p = True
    elif mode == "excluded" or not pool:
        with_p = mode != "excluded"
    else:
        with_p = rng.random() < WITH_PROTAGONIST or k > len(pool) + len(must)
    chosen = ([protagonist] if with_p else []) + must
    if act.who.linked:
        left = list(pool)
        while len(chosen) < k and left:
            links = [q for q in left if not chosen or any(related(theme, q, c) for c in chosen)]
            if not links:
                break
            q = rng.choice(links)
            chosen.append(q)
            left.remove(q)
    else:
        chosen += rng.sample(pool, max(0, min(len(pool), k - len(chosen))))
    order = {p.id: j for j, p in enumerate(theme.cast)}
    return sorted(chosen, key=order.__getitem__)


def slot_reason(act: ActivitySpec, chosen: list[str], away: set[str]) -> str:
    """Why a try at an event slot found nobody to hold it (``chosen``, ``away``: the try's draw)."""
    busy = sorted(set(chosen) & away)
    if busy:
        return f"{', '.join(busy)} (required) unavailable or at another event"
    return f"fewer than min_people {act.min_people} of the people it admits free"


def dropped_slot_line(index: int, act: ActivitySpec, day: dt.date, why: list[str]) -> str:
    """The shortfall line of an event slot no day could hold (the album has one event fewer)."""
    reason = Counter(why).most_common(1)[0][0] if why else "no day of the slot lies in the span"
    return (
        f"shortfall: events: slot {index} ({act.id} on {day:%Y-%m-%d}) left out: on that day and the same "
        f"weekday 1-3 weeks either way, {reason}; widen the activity's `who` or the cast's "
        "`availability`, or lower album.clips"
    )


def world_problems(theme: Theme, world: World) -> list[str]:
    """Events breaking their activity's rules (the coherence check), each naming the event."""
    acts = {a.id: a for a in theme.activities}
    kinds = {p.id: p.kind for p in theme.places}
    out: list[str] = []
    per_month: Counter[tuple[str, str]] = Counter()
    for e in world.events:
        act = acts[e.activity]
        where = f"{e.id} ({act.id})"
        allowed = set(eligible(theme, act, world.protagonist))
        bad = [p for p in e.participants if p != world.protagonist and p not in allowed]
        if bad:
            out.append(f"{where}: participants {bad} are excluded by the activity's who-rules")
        if act.who.protagonist == "required" and world.protagonist not in e.participants:
            out.append(f"{where}: the protagonist must take part")
        missing = [p for p in act.who.required if p not in e.participants]
        if missing:
            out.append(f"{where}: required people {missing} do not take part")
        if act.who.protagonist == "excluded" and world.protagonist in e.participants:
            out.append(f"{where}: the protagonist may not take part")
        if not act.min_people <= len(e.participants) <= act.max_people:
            out.append(
                f"{where}: {len(e.participants)} participants, outside [{act.min_people}, {act.max_people}]"
            )
        if e.place not in act.places:
            out.append(f"{where}: place {e.place!r} not among the activity's places")
        lo, hi = hour_window(act, kinds[e.place])
        if not lo <= e.start.hour <= hi:
            out.append(f"{where}: starts at {e.start:%H:%M}, outside the hours {lo}-{hi}")
        if not day_allowed(act, e.start.date(), world.calendar.weekend):
            out.append(f"{where}: on a {weekday_name(e.start)}, not among the days {act.days}")
        per_month[(act.id, e.start.strftime("%Y-%m"))] += 1
    for (aid, month), n in sorted(per_month.items()):
        cap = acts[aid].max_per_month
        if cap is not None and n > cap:
            out.append(f"{aid}: {n} events in {month}, more than max_per_month {cap}")
    return out
