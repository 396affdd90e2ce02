"""Question programs over routines, promises, plans and change over time (registered on import).

Fact shapes they read (planned in ``icm/world.py``):

- ``activity``: subject event, object activity id, value the activity's noun ("swim");
- ``promised``: subject person, object the object they promise to bring, value the activity of the
  next event they will bring it to, event where it was said;
- ``planned``: subject person, object the activity they plan next, value its place, event where it
  was said.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from mnemoforge.dates import weekday_name
from mnemoforge.generators.icm.programs import (
    _events_with,
    attended,
    attendees,
    in_window,
    index,
    on,
    when_of,
)
from mnemoforge.generators.questions.programs import FactView, Unanswerable, join_names, program
from mnemoforge.schemas.world import Fact


def _unique_top(tally: Counter[str], what: str) -> str:
    """The single most frequent value, seen at least twice."""
    if not tally:
        raise Unanswerable(f"no {what} seen")
    best = max(tally.values())
    top = [v for v, n in tally.items() if n == best]
    if len(top) != 1 or best < 2:
        raise Unanswerable(f"no clear {what} among {dict(tally)}")
    return top[0]


@program
def usual_place(view: FactView, args: dict[str, Any]) -> str:
    """Where the person usually does an activity (a unique majority over their events, optionally
    inside a ``from_month``..``to_month`` window)."""
    evs = {
        e: f for e, f in _events_with(view, args["person"], args["activity"]).items() if in_window(f, args)
    }
    ix = index(view)
    places = {e: f for e in evs for f in ix.places.get(e, [])}
    best = _unique_top(Counter(f.object for f in places.values()), "place")
    view.mark(evs.values())
    view.mark(places.values())
    for e in evs:
        attended(view, args["person"], e)
    return view.lexicon.name(best)


def _shared(view: FactView, args: dict[str, Any]) -> dict[str, Fact]:
    """Events both ``person`` and ``other`` attended (inside the optional window): id -> activity fact."""
    ix = index(view)
    both = ix.events_of.get(args["person"], set()) & ix.events_of.get(args["other"], set())
    return {
        e: f
        for e in sorted(both)
        if (f := ix.activity.get(e)) is not None and in_window(f, args)
        and ("activity" not in args or f.object == args["activity"])
    }  # fmt: skip


def _mark_shared(view: FactView, args: dict[str, Any], evs: dict[str, Fact]) -> None:
    view.mark(evs.values())
    attendance, read = index(view).attendance, view.read  # attended(), for every shared event
    person, other = args["person"], args["other"]
    for e in evs:
        for p in (person, other):
            if ids := attendance.get((e, p)):
                read.update(ids)


@program
def shared_activity(view: FactView, args: dict[str, Any]) -> str:
    """What two people most often do together (a unique majority, seen at least twice)."""
    evs = _shared(view, args)
    best = _unique_top(Counter(f.object for f in evs.values()), "shared activity")
    _mark_shared(view, args, evs)
    noun = next(f.value for f in evs.values() if f.object == best)
    return noun or best


@program
def count_together(view: FactView, args: dict[str, Any]) -> str:
    """How many times two people did an activity together between two months (inclusive)."""
    evs = _shared(view, args)
    if len(evs) < 2:
        raise Unanswerable(f"{len(evs)} shared events: not a cross-episode count")
    _mark_shared(view, args, evs)
    return str(len(evs))


@program
def choice_change(view: FactView, args: dict[str, Any]) -> str:
    """How the person's usual pick for a key changed at ``month``: 'from A to B' (each a clear
    majority of the choices before and from that month on, and different)."""
    picks = [f for f in view.of_kind("chose") if f.subject == args["person"] and f.object == args["key"]]
    before = [f for f in picks if f.at is not None and f.at.strftime("%Y-%m") < args["month"]]
    after = [f for f in picks if f.at is not None and f.at.strftime("%Y-%m") >= args["month"]]
    a = _unique_top(Counter(f.value or "" for f in before), "earlier habit")
    b = _unique_top(Counter(f.value or "" for f in after), "later habit")
    if a == b:
        raise Unanswerable(f"no change: {a} throughout")
    view.mark(picks)
    return f"from {a} to {b}"


def _said_on(view: FactView, kind: str, args: dict[str, Any]) -> Fact:
    """The one ``kind`` statement (promise, plan) the person made on the item's day, about the
    item's ``activity`` (and its ``object`` or ``place``) where the item names them."""
    want = (
        {"activity": "value", "object": "object"}
        if kind == "promised"
        else {"activity": "object", "place": "value"}
    )
    hits = [
        f
        for f in view.of_kind(kind)
        if f.subject == args["person"] and on(f, when_of(args))
        and all(getattr(f, field) == args[a] for a, field in want.items() if a in args)
    ]  # fmt: skip
    if len(hits) != 1:
        raise Unanswerable(f"{len(hits)} {kind} statements by {args['person']} then")
    view.mark(hits)
    return hits[0]


@program
def promised_item(view: FactView, args: dict[str, Any]) -> str:
    """What the person promised (on the item's day) to bring to their next event of an activity."""
    return view.lexicon.name(_said_on(view, "promised", args).object)


@program
def planned_place(view: FactView, args: dict[str, Any]) -> str:
    """Where the person said (on the item's day) they would go next for the activity they planned."""
    return view.lexicon.name(str(_said_on(view, "planned", args).value))


def _next_event(view: FactView, person: str, activity: str, after: Fact, place: str | None = None) -> str:
    """The person's first event of ``activity`` (at ``place``) after the statement ``after``."""
    assert after.at is not None
    ix = index(view)
    later = sorted(
        (f.at, e)
        for e in ix.events_of.get(person, ())
        if (f := ix.activity.get(e)) is not None and f.object == activity and f.at is not None
        and f.at > after.at and e != after.event
        and (place is None or any(p.object == place for p in ix.places.get(e, [])))
    )  # fmt: skip
    if not later:
        raise Unanswerable("no later event")
    ev = later[0][1]
    view.mark([ix.activity[ev]])
    if place is not None:
        view.mark(ix.places.get(ev, []))
    attended(view, person, ev)
    return ev


def _companions(view: FactView, ev: str, person: str) -> str:
    others = [f.subject for f in attendees(view, ev) if f.subject != person]
    if not others:
        raise Unanswerable("nobody else came")
    return join_names(view.lexicon.name(p) for p in others)


@program
def promise_companions(view: FactView, args: dict[str, Any]) -> str:
    """Who else came to the next event the person had promised (on the item's day) to bring an object to."""
    said = _said_on(view, "promised", args)
    ev = _next_event(view, args["person"], str(said.value), said)
    return _companions(view, ev, args["person"])


@program
def plan_companions(view: FactView, args: dict[str, Any]) -> str:
    """Who joined the person at the event they had said (on the item's day) they planned next."""
    said = _said_on(view, "planned", args)
    ev = _next_event(view, args["person"], said.object, said, place=str(said.value))
    return _companions(view, ev, args["person"])


@program
def count_brought(view: FactView, args: dict[str, Any]) -> str:
    """How many of the person's events of an activity (between two months, inclusive) they brought
    the object to: counted over the clips where it is seen with them."""
    ix = index(view)
    hits = [
        f
        for f in view.of_kind("brought")
        if f.subject == args["person"] and f.object == args["object"] and f.event in ix.activity
        and ix.activity[f.event].object == args["activity"] and in_window(ix.activity[f.event], args)
    ]  # fmt: skip
    if len(hits) < 2:
        raise Unanswerable(f"{len(hits)} events with it: not a cross-episode count")
    view.mark(hits)
    view.mark(ix.activity[f.event] for f in hits)
    for f in hits:
        attended(view, args["person"], str(f.event))
    return str(len(hits))


def _mine(view: FactView, args: dict[str, Any]) -> dict[str, Fact]:
    """The person's events (inside the optional window): id -> activity fact."""
    ix = index(view)
    return {
        e: f
        for e in sorted(ix.events_of.get(args["person"], ()))
        if (f := ix.activity.get(e)) is not None and in_window(f, args)
    }


@program
def usual_activity(view: FactView, args: dict[str, Any]) -> str:
    """What the person did most often (a unique majority of their events, optionally in a window)."""
    evs = _mine(view, args)
    best = _unique_top(Counter(f.object for f in evs.values()), "activity")
    view.mark(evs.values())
    for e in evs:
        attended(view, args["person"], e)
    return next(f.value for f in evs.values() if f.object == best) or best


@program
def closest_companion(view: FactView, args: dict[str, Any]) -> str:
    """Who was with the person most often, over every activity (a unique majority, optionally in a
    window; with ``other``, apart from that person)."""
    evs = _mine(view, args)
    ix = index(view)
    left_out = (args["person"], args.get("other"))  # "who apart from {other}"
    tally = Counter(f.subject for e in evs for f in ix.attendees.get(e, []) if f.subject not in left_out)
    best = _unique_top(tally, "companion")
    view.mark(evs.values())
    for e in evs:
        attended(view, args["person"], e)
        attended(view, best, e)
    return view.lexicon.name(best)


@program
def usual_weekday(view: FactView, args: dict[str, Any]) -> str:
    """The day of the week the person most often did an activity (a unique majority of their
    events of it, optionally inside a window): a weekly routine read from the dated clips."""
    evs = {
        e: f for e, f in _events_with(view, args["person"], args["activity"]).items() if in_window(f, args)
    }
    days = {e: weekday_name(f.at.date()) for e, f in evs.items() if f.at is not None}
    best = _unique_top(Counter(days.values()), "weekday")
    view.mark(evs.values())
    for e in evs:
        attended(view, args["person"], e)
    return best
