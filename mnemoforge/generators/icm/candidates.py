"""The icm family's candidate items: every (template, arguments) pair the World supports, and the
rules a solved candidate must meet (retrieval and profile items span clips; a face–name binding
hears the name before the face is seen)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mnemoforge.dates import weekday_name
from mnemoforge.generators.icm.part_programs import part_candidates
from mnemoforge.generators.icm.templates import PROFILE, RETRIEVAL, T
from mnemoforge.generators.icm.weekday_programs import WEEKDAYS
from mnemoforge.generators.questions.common import Candidate, Template
from mnemoforge.schemas.world import Fact, World


def _windows(months: list[str], pairs: bool = True) -> list[tuple[str, str]]:
    """Quarters and halves of the timeline, and pairs of months (``pairs``): the windows routines
    are compared over. A window of one month is no range ("between April and April"): the month
    items ask about single months."""
    two = [(q[0], q[-1]) for q in (months[i : i + 2] for i in range(0, len(months), 2))] if pairs else []
    quarters = [(q[0], q[-1]) for q in (months[i : i + 3] for i in range(0, len(months), 3))]
    half = (len(months) + 1) // 2
    halves = [(months[0], months[half - 1]), (months[half], months[-1])] if len(months) > 1 else []
    return [(lo, hi) for lo, hi in dict.fromkeys(quarters + halves + two) if lo < hi]


def _count_windows(months: list[str]) -> list[tuple[str, str]]:
    """The windows counts are asked over: the quarters and halves, and every stretch from the first
    month or to the last (so a count's answer is drawn from a range of values, not the few a
    quarter holds: ``answer_balance`` keys no value for more than its share of a program)."""
    ends = [(months[0], m) for m in months[1:]] + [(m, months[-1]) for m in months[1:-1]]
    return list(dict.fromkeys(_windows(months, pairs=False) + ends))


def _places_told(world: World) -> set[str]:
    """Events whose place text already gives away, so no where-did-they-go item asks it: an activity
    held at one place only (its lines and habits name that place's kind: "tai chi in the park"), or an
    activity and place a plan line names together ("the reading circle at X": a text-only retrieval
    matches the question's activity to it, whenever it was said)."""
    places: dict[str, set[str]] = {}
    for ev in world.events:
        places.setdefault(ev.activity, set()).add(ev.place)
    plans = [f for f in world.facts if f.kind == "planned"]
    return {
        ev.id
        for ev in world.events
        if len(places[ev.activity]) < 2
        or any(f.object == ev.activity and str(f.value) == ev.place for f in plans)
    }


def _places_of(world: World) -> dict[str, set[str]]:
    """Each activity's places over the album."""
    places: dict[str, set[str]] = {}
    for ev in world.events:
        places.setdefault(ev.activity, set()).add(ev.place)
    return places


def _read_places(world: World) -> set[str]:
    """Activities a usual-place item may ask about: held at two places or more (one place only, the
    activity names it: "shopping" at the market), each place shown by its sign (a place known by
    its spoken name alone is said in every clip there, so the transcripts would give the answer)."""
    return {a for a, ps in _places_of(world).items() if len(ps) > 1 and all(world.place(p).sign for p in ps)}


def _candidates(world: World) -> Iterator[tuple[Template, dict[str, Any]]]:
    months = sorted({e.start.strftime("%Y-%m") for e in world.events})
    windows = _windows(months)
    counted = _count_windows(months) if months else []
    span = {"from_month": months[0], "to_month": months[-1]} if months else {}
    acts: dict[str, set[str]] = {}
    told = _places_told(world)
    several = {a for a, ps in _places_of(world).items() if len(ps) > 1}
    came: dict[str, list[Fact]] = {}  # event -> the cast animals that came to it
    for f in world.facts:
        if f.kind == "accompanied":
            came.setdefault(f.object, []).append(f)
    for ev in world.events:
        month, day = ev.start.strftime("%Y-%m"), ev.start.strftime("%Y-%m-%d")
        for p in ev.participants:
            acts.setdefault(p, set()).add(ev.activity)
            base = {"person": p, "activity": ev.activity, "month": month}
            dayb = {"person": p, "activity": ev.activity, "day": day}
            yield T["recall.companions.v1"], {**base, "place": ev.place}
            yield T["recall.object.v1"], base
            yield T["recall.companions.day.v1"], {**dayb, "place": ev.place}
            yield T["recall.object.day.v1"], dayb
            for o in ev.participants:
                if o > p and ev.id not in told:
                    yield T["recall.place.v1"], {**base, "other": o}
                    yield T["recall.place.day.v1"], {**dayb, "other": o}
                if o > p:  # a count over clips: no place is read, so a told place does not matter
                    pair = {"person": p, "other": o, "activity": ev.activity}
                    for lo, hi in counted:
                        yield T["retrieval.together.v1"], {**pair, "from_month": lo, "to_month": hi}
            yield T["retrieval.count.month.v1"], {
                "person": p, "activity": ev.activity, "from_month": month, "to_month": month
            }  # fmt: skip
            for lo, hi in counted:
                window = {"person": p, "activity": ev.activity, "from_month": lo, "to_month": hi}
                yield T["retrieval.count.v1"], window
                if ev.activity in several:  # held at more than one place: counted at each
                    yield T["retrieval.count.place.v1"], {**window, "place": ev.place}
        for f in came.get(ev.id, ()):
            for p in ev.participants:
                base = {"person": p, "activity": ev.activity, "month": month, "place": ev.place}
                yield T["recall.animal.v1"], {**base, "species": str(f.value)}
        for o in ev.objects:
            yield T["retrieval.binding.v1"], {"object": o, "activity": ev.activity, "month": month}
            yield T["retrieval.binding.day.v1"], {"object": o, "activity": ev.activity, "day": day}
            owner = world.object(o).owner
            for lo, hi in counted if owner else ():  # how often the owner brought it, over the clips
                yield T["retrieval.brought.count.v1"], {
                    "person": owner, "object": o, "activity": ev.activity, "from_month": lo, "to_month": hi
                }  # fmt: skip
    yield from _statement_candidates(world)
    yield from part_candidates(world, T)  # declared parts (none: nothing yielded)
    yield from _profile_candidates(world, acts, windows, span)


def _statement_candidates(world: World) -> Iterator[tuple[Template, dict[str, Any]]]:
    """Promises and plans: recalled on the day they were said, and followed to the event they name."""
    for f in world.facts:
        if f.kind not in ("promised", "planned") or f.at is None:
            continue
        said = {"person": f.subject, "day": f.at.strftime("%Y-%m-%d")}
        if f.kind == "promised":
            yield T["recall.promise.v1"], {**said, "activity": f.value}
            yield T["retrieval.promise.v1"], {**said, "activity": f.value, "object": f.object}
        else:
            yield T["recall.plan.v1"], {**said, "activity": f.object}
            yield T["retrieval.plan.v1"], {**said, "activity": f.object, "place": f.value}


def _profile_candidates(
    world: World, acts: dict[str, set[str]], windows: list[tuple[str, str]], span: dict[str, str]
) -> Iterator[tuple[Template, dict[str, Any]]]:
    """Habits, preferences, relationships and routines over the album, and how they changed."""
    changes = {(f.subject, f.object): f for f in world.facts if f.kind == "preference" and f.at is not None}
    months = sorted({e.start.strftime("%Y-%m") for e in world.events})
    splits = months[3::3]  # each quarter's first month after the first: before it vs from it on
    many = _read_places(world)
    for p in world.people:
        for key in sorted(p.preferences):
            yield T["profile.choice.v1"], {"person": p.id, "key": key}
            for lo, hi in windows:
                yield (
                    T["profile.choice.window.v1"],
                    {"person": p.id, "key": key, "from_month": lo, "to_month": hi},
                )
            ch = changes.get((p.id, key))
            if ch is not None and ch.at is not None:
                yield T["profile.change.v1"], {"person": p.id, "key": key, "month": ch.at.strftime("%Y-%m")}
        for h in p.habits:
            yield T["profile.habit.v1"], {"person": p.id, "habit": h}
        for lo, hi in windows:  # routines across activities: what P did, and with whom, each period
            yield T["profile.activity.window.v1"], {"person": p.id, "from_month": lo, "to_month": hi}
            yield T["profile.closest.window.v1"], {"person": p.id, "from_month": lo, "to_month": hi}
        usual = _usual_company(world, p.id, None)
        if usual is not None:  # who else, apart from the one who comes to nearly everything
            yield T["profile.closest.besides.v1"], {"person": p.id, "other": usual}
            for lo, hi in windows:
                yield (
                    T["profile.closest.besides.window.v1"],
                    {"person": p.id, "other": usual, "from_month": lo, "to_month": hi},
                )
        for m in splits:  # how the person's routines changed during the year
            yield T["profile.activity_change.v1"], {"person": p.id, "month": m}
            yield T["profile.closest_change.v1"], {"person": p.id, "month": m}
            for a in sorted(acts.get(p.id, ())):
                yield T["profile.companion_change.v1"], {"person": p.id, "activity": a, "month": m}
                if a in many:
                    yield T["profile.place_change.v1"], {"person": p.id, "activity": a, "month": m}
        for a in sorted(acts.get(p.id, ())):
            base = {"person": p.id, "activity": a}
            yield T["profile.companion.v1"], base
            yield T["profile.weekday.v1"], base
            for lo, hi in windows:
                yield T["profile.weekday.window.v1"], {**base, "from_month": lo, "to_month": hi}
            yield T["profile.count.v1"], {**base, **span}
            for lo, hi in windows:
                yield T["profile.companion.window.v1"], {**base, "from_month": lo, "to_month": hi}
            usual = _usual_company(world, p.id, a)
            if usual is not None:
                yield T["profile.companion.besides.v1"], {**base, "other": usual}
                for lo, hi in windows:
                    yield (
                        T["profile.companion.besides.window.v1"],
                        {**base, "other": usual, "from_month": lo, "to_month": hi},
                    )
            if a not in many:  # see _read_places
                continue
            yield T["profile.place.v1"], base
            for lo, hi in windows:
                yield T["profile.place.window.v1"], {**base, "from_month": lo, "to_month": hi}
        for o in world.people:
            if o.id > p.id:
                yield T["profile.shared.v1"], {"person": p.id, "other": o.id}
                for lo, hi in windows:
                    yield (
                        T["profile.shared.window.v1"],
                        {"person": p.id, "other": o.id, "from_month": lo, "to_month": hi},
                    )
    for r in world.relations:
        yield T["profile.relation.v1"], {"person": r.a, "other": r.b}
    yield from _weekly_candidates(world, acts, windows, splits)


def _weekly_candidates(
    world: World, acts: dict[str, set[str]], windows: list[tuple[str, str]], splits: list[str]
) -> Iterator[tuple[Template, dict[str, Any]]]:
    """The weekly rhythm (``weekday_programs``, reserve templates): the day two people met most
    often, what a person did most often on each day of the week, over the album and each window,
    and how the day they usually did an activity changed."""
    days: dict[str, set[str]] = {}
    for ev in world.events:
        for p in ev.participants:
            days.setdefault(p, set()).add(weekday_name(ev.start.date()))
    for p in world.people:
        for o in world.people:
            if o.id > p.id:
                pair = {"person": p.id, "other": o.id}
                yield T["profile.pair_weekday.v1"], pair
                for lo, hi in windows:
                    yield T["profile.pair_weekday.window.v1"], {**pair, "from_month": lo, "to_month": hi}
        for d in (d for d in WEEKDAYS if d in days.get(p.id, ())):
            yield T["profile.weekday_activity.v1"], {"person": p.id, "weekday": d}
            for lo, hi in windows:
                yield (
                    T["profile.weekday_activity.window.v1"],
                    {"person": p.id, "weekday": d, "from_month": lo, "to_month": hi},
                )
        for m in splits:
            for a in sorted(acts.get(p.id, ())):
                yield T["profile.weekday_change.v1"], {"person": p.id, "activity": a, "month": m}


def _usual_company(world: World, person: str, activity: str | None) -> str | None:
    """Who shared the most of the person's events over the album (of ``activity``, or of all), when
    one person clearly did: the company an "apart from X" item leaves out, so that it asks who
    came next (in a protagonist's album, the protagonist joins nearly everyone's events)."""
    tally: dict[str, int] = {}
    for ev in world.events:
        if person in ev.participants and activity in (None, ev.activity):
            for o in ev.participants:
                if o != person:
                    tally[o] = tally.get(o, 0) + 1
    ranked = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ranked) < 2 or ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]


def binds_face_to_name(c: Candidate) -> bool:
    """The holder's name is heard in an earlier clip than the one where their face is seen with the object."""
    named = [o.order for o in c.evidence if o.kind == "speech"]
    seen = [o.order for o in c.evidence if o.kind == "shot"]
    return bool(named and seen) and min(named) < min(seen)


def _valid(c: Candidate) -> bool:
    clips = {o.episode for o in c.evidence}
    if c.template.category in (RETRIEVAL, PROFILE) and len(clips) < 2:
        return False
    if c.template.program in ("who_brought", "animal_along"):  # the name heard before the one seen
        return binds_face_to_name(c)
    return True
