"""Question programs of the identity-centric album family (registered on import)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mnemoforge.generators.questions.programs import FactView, Unanswerable, join_names, program
from mnemoforge.schemas.world import Fact


@dataclass
class EventIndex:
    """Event facts by event, activity and person (built once per fact set; reads nothing)."""

    activity: dict[str, Fact] = field(default_factory=dict)  # event -> its activity fact
    by_activity: dict[str, list[Fact]] = field(default_factory=dict)  # activity -> activity facts
    events_of: dict[str, set[str]] = field(default_factory=dict)  # person -> events attended
    attendees: dict[str, list[Fact]] = field(default_factory=dict)  # event -> attended facts
    places: dict[str, list[Fact]] = field(default_factory=dict)  # event -> at_place facts
    attendance: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (event, person) -> fact ids


def index(view: FactView) -> EventIndex:
    """The view's :class:`EventIndex` (shared by its forks: a program at ICM-Bench scale would
    otherwise scan every attendance fact for each of tens of thousands of candidates). A view of
    a base view's facts less a few (a masked context) derives it from the base's
    (:func:`_derived`)."""
    ix = view.memo.get("icm_events")
    if ix is None:
        base = view.base
        ix = view.memo["icm_events"] = _built(view) if base is None else _derived(index(base), view)
    return ix


def _built(view: FactView) -> EventIndex:
    ix = EventIndex()
    for f in view.of_kind("activity"):
        ix.activity[f.subject] = f
        ix.by_activity.setdefault(f.object, []).append(f)
    for f in view.of_kind("attended"):
        ix.events_of.setdefault(f.subject, set()).add(f.object)
        ix.attendees.setdefault(f.object, []).append(f)
        ix.attendance.setdefault((f.object, f.subject), []).append(f.id)
    for f in view.of_kind("at_place"):
        ix.places.setdefault(f.subject, []).append(f)
    return ix


def _derived(base: EventIndex, view: FactView) -> EventIndex:
    """:func:`_built` of ``view`` (the base's facts less ``view.dropped``) from the base's index:
    only the entries a dropped fact belongs to are computed again, the others shared (nothing
    mutates an index). Equal to a built index entry for entry; programs look entries up and
    never walk the dicts, so their key order (which a built index would give differently where
    a key's first fact is dropped) does not matter."""
    gone, ids = view.dropped, view.dropped_ids
    acts, att, at = gone.get("activity", []), gone.get("attended", []), gone.get("at_place", [])
    if not (acts or att or at):
        return base
    ix = EventIndex(
        dict(base.activity),
        dict(base.by_activity),
        dict(base.events_of),
        dict(base.attendees),
        dict(base.places),
        dict(base.attendance),
    )

    def refill(d: dict, key: Any, kept: list | set) -> None:
        if kept:
            d[key] = kept
        else:
            d.pop(key, None)

    for event in {f.subject for f in acts}:
        last = None
        for f in view.of_kind("activity"):
            if f.subject == event:
                last = f  # the last one, as _built overwrites
        if last is None:
            ix.activity.pop(event, None)
        else:
            ix.activity[event] = last
    for activity in {f.object for f in acts}:
        refill(ix.by_activity, activity, [f for f in base.by_activity[activity] if f.id not in ids])
    for event in {f.object for f in att}:
        refill(ix.attendees, event, [f for f in base.attendees[event] if f.id not in ids])
    absent: dict[str, set[str]] = {}  # person -> events none of whose attendance facts is left
    for key in {(f.object, f.subject) for f in att}:
        refill(ix.attendance, key, [i for i in base.attendance[key] if i not in ids])
        if key not in ix.attendance:
            absent.setdefault(key[1], set()).add(key[0])
    for person, events in absent.items():  # the same members (programs sort them or test them)
        refill(ix.events_of, person, base.events_of[person] - events)
    for event in {f.subject for f in at}:
        refill(ix.places, event, [f for f in base.places[event] if f.id not in ids])
    return ix


def attended(view: FactView, person: str, event: str) -> None:
    """Record the read of the person's attendance fact for the event (as ``find`` would)."""
    ix = view.memo.get("icm_events") or index(view)  # (asked millions of times at ICM scale)
    ids = ix.attendance.get((event, person))
    if ids:
        view.read.update(ids)


def attendees(view: FactView, event: str) -> list[Fact]:
    """Every attendance fact of the event, read."""
    facts = index(view).attendees.get(event, [])
    view.mark(facts)
    return facts


_MONTHS: dict[object, str] = {}


def _month(f: Fact) -> str:
    """The fact's month, ``2025-07`` (memoised per date: programs ask it millions of times at
    ICM-Bench scale)."""
    at = f.at
    assert at is not None
    m = _MONTHS.get(at)
    if m is None:
        if len(_MONTHS) > 1 << 16:
            _MONTHS.clear()
        m = _MONTHS[at] = at.strftime("%Y-%m")
    return m


def on(f: Fact, when: str) -> bool:
    """The fact's date falls in ``when``: a month (``2025-07``) or a day (``2025-07-12``)."""
    assert f.at is not None
    return f.at.strftime("%Y-%m-%d").startswith(when)


def when_of(args: dict[str, Any]) -> str:
    """The period an item names its event by: a ``day`` where given, else a ``month``."""
    return args.get("day") or args["month"]


def in_window(f: Fact, args: dict[str, Any]) -> bool:
    """Inside the optional ``from_month``..``to_month`` window (inclusive; open ends allowed)."""
    if "from_month" not in args and "to_month" not in args:
        return True
    m = _month(f)
    return args.get("from_month", m) <= m <= args.get("to_month", m)


def _unique_event(
    view: FactView, people: list[str], activity: str, month: str, place: str | None = None
) -> str:
    """The one event with this activity (and place) in this month or day that all ``people`` attended."""
    ix = index(view)
    acts = {f.subject: f for f in ix.by_activity.get(activity, []) if on(f, month)}
    candidates = set(acts)
    for p in people:
        candidates &= ix.events_of.get(p, set())
    if place is not None:
        candidates = {e for e in candidates if any(f.object == place for f in ix.places.get(e, []))}
    if len(candidates) != 1:
        raise Unanswerable(f"{len(candidates)} events match {activity} in {month} with {people}")
    ev = candidates.pop()
    view.mark([acts[ev]])
    for p in people:  # participation facts that identify the event
        attended(view, p, ev)
    if place is not None:
        view.mark(ix.places.get(ev, []))
    return ev


@program
def event_companions(view: FactView, args: dict[str, Any]) -> str:
    """Who else took part in the person's (activity, place, month) event."""
    ev = _unique_event(view, [args["person"]], args["activity"], when_of(args), args["place"])
    others = [f.subject for f in attendees(view, ev) if f.subject != args["person"]]
    if not others:
        raise Unanswerable("no companions visible")
    return join_names(view.lexicon.name(p) for p in others)


@program
def animal_along(view: FactView, args: dict[str, Any]) -> str:
    """Which cast animal of a species came to the person's (activity, place, month) event: the
    animal is seen there, and its name is the one heard when its companion called it."""
    ev = _unique_event(view, [args["person"]], args["activity"], when_of(args), args["place"])
    came = [f for f in view.find("accompanied", event=ev) if f.value == args["species"]]
    if len(came) != 1:
        raise Unanswerable(f"{len(came)} animals of the species came")
    view.mark(came)
    named = view.find("name", subject=came[0].subject)  # the name heard binds the drawn animal
    if not named:
        raise Unanswerable(f"{came[0].subject}'s name is never heard")
    return named[0].object


@program
def object_brought(view: FactView, args: dict[str, Any]) -> str:
    """What the person brought to their (activity, month) event."""
    ev = _unique_event(view, [args["person"]], args["activity"], when_of(args))
    objs = [f.object for f in view.find("brought", event=ev) if f.subject == args["person"]]
    if len(objs) != 1:
        raise Unanswerable(f"{len(objs)} objects brought")
    return view.lexicon.name(objs[0])


@program
def meeting_place(view: FactView, args: dict[str, Any]) -> str:
    """Where two people did an activity together in a month."""
    ev = _unique_event(view, [args["person"], args["other"]], args["activity"], when_of(args))
    places = index(view).places.get(ev, [])
    view.mark(places)
    if len(places) != 1:
        raise Unanswerable("place not visible")
    return view.lexicon.name(places[0].object)


def _events_with(view: FactView, person: str, activity: str) -> dict[str, Fact]:
    """Events of ``activity`` the person attended: event id -> its activity fact (no reads recorded)."""
    ix = index(view)
    return {
        e: ix.activity[e] for e in sorted(ix.events_of.get(person, ())) if e in ix.activity
        and ix.activity[e].object == activity
    }  # fmt: skip


@program
def count_events(view: FactView, args: dict[str, Any]) -> str:
    """How many times the person did an activity between two months (inclusive), at ``place``
    where the item names one (each counted event's place is then read: where it is established)."""
    ix = index(view)
    place = args.get("place")
    evs = {
        e: f
        for e, f in _events_with(view, args["person"], args["activity"]).items()
        if args["from_month"] <= _month(f) <= args["to_month"]
        and (place is None or any(p.object == place for p in ix.places.get(e, [])))
    }
    if len(evs) < 2:
        raise Unanswerable(f"{len(evs)} events: not a cross-episode count")
    view.mark(evs.values())
    for e in evs:
        attended(view, args["person"], e)
        if place is not None:
            view.mark(ix.places.get(e, []))
    return str(len(evs))


@program
def frequent_companion(view: FactView, args: dict[str, Any]) -> str:
    """Who most often joined the person for an activity (a unique maximum over several events),
    over the whole album or inside an optional ``from_month``..``to_month`` window; with ``other``,
    who most often apart from that person (the protagonist joins nearly everything)."""
    evs = {
        e: f for e, f in _events_with(view, args["person"], args["activity"]).items() if in_window(f, args)
    }
    counts: dict[str, int] = {}
    left_out = (args["person"], args.get("other"))  # "who apart from {other}": the usual company left out
    for e in evs:
        for f in index(view).attendees.get(e, []):
            if f.subject not in left_out:
                counts[f.subject] = counts.get(f.subject, 0) + 1
    if not counts:
        raise Unanswerable("no companions")
    best = max(counts.values())
    top = [p for p, n in counts.items() if n == best]
    if len(top) != 1 or best < 2:
        raise Unanswerable(f"no unique companion seen at least twice ({top}, {best})")
    view.mark(evs.values())
    for e in evs:
        attended(view, args["person"], e)
        attended(view, top[0], e)
    return view.lexicon.name(top[0])


@program
def who_brought(view: FactView, args: dict[str, Any]) -> str:
    """Who brought an object to an (activity, month or day) event: the face seen with it, named by voice.

    The answer needs face-name binding: the holder is one of the faces at the event, and each of
    them is named only where someone says the name aloud in some clip (the calibration clip is no
    evidence). Every participant's name must have been heard, so the names of all the faces
    present are among the evidence, not the holder's alone.
    """
    acts = {f.subject: f for f in index(view).by_activity.get(args["activity"], []) if on(f, when_of(args))}
    hits = [f for f in view.of_kind("brought") if f.object == args["object"] and f.event in acts]
    if len(hits) != 1:
        raise Unanswerable(f"{len(hits)} matching events")
    ev = hits[0].event
    view.mark([hits[0], acts[ev]])
    present = [f.subject for f in attendees(view, ev)]
    if len(present) < 2:
        raise Unanswerable("one face present: nothing to bind")
    names = {p: view.find("name", subject=p) for p in present}
    if not all(names.values()):
        raise Unanswerable(f"never heard: {sorted(p for p, n in names.items() if not n)}")
    return names[hits[0].subject][0].object


@program
def usual_choice(view: FactView, args: dict[str, Any]) -> str:
    """What the person usually picks for a preference key: the clear majority of their choices
    (over the album, or inside an optional ``from_month``..``to_month`` window)."""
    picks = [
        f
        for f in view.of_kind("chose")
        if f.subject == args["person"] and f.object == args["key"] and in_window(f, args)
    ]
    tally: dict[str, int] = {}
    for f in picks:
        tally[f.value or ""] = tally.get(f.value or "", 0) + 1
    if len(picks) < 2 or not tally:
        raise Unanswerable(f"{len(picks)} choices seen")
    best = max(tally.values())
    top = [v for v, n in tally.items() if n == best]
    if len(top) != 1 or best < 2:
        raise Unanswerable(f"no clear habit among {tally}")
    view.mark(picks)
    return top[0]


@program
def habit_of(view: FactView, args: dict[str, Any]) -> str:
    """A recurring habit of the person, as mentioned in conversation."""
    habits = view.find("habit", subject=args["person"], obj=args["habit"])
    if not habits:
        raise Unanswerable("habit never mentioned")
    return habits[0].object


@program
def relation_to(view: FactView, args: dict[str, Any]) -> str:
    """How one person refers to another ("wife", "manager")."""
    rel = view.find("relation", subject=args["person"], obj=args["other"])
    if len(rel) != 1 or not rel[0].value:
        raise Unanswerable("relation never stated")
    return rel[0].value
