"""Profile programs over how a person's routines changed during the year (registered on import).

Each compares the person's events before ``month`` with those from ``month`` on and answers
``from A to B``: the clear majority (a unique top value, seen at least twice) of each period, and
the two differ. What is compared is what the clips show: who came along (faces), where it was (a
sign, or the place's own establishing line), what the person was doing (the scene).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from mnemoforge.generators.icm.programs import _events_with, _month, attended, index
from mnemoforge.generators.icm.routine_programs import _mine, _unique_top
from mnemoforge.generators.questions.programs import FactView, Unanswerable, program
from mnemoforge.schemas.world import Fact


def _halves(args: dict[str, Any], evs: dict[str, Fact]) -> tuple[list[str], list[str]]:
    """The events before ``month`` and those from ``month`` on (ids in order)."""
    before = [e for e, f in evs.items() if _month(f) < args["month"]]
    after = [e for e, f in evs.items() if _month(f) >= args["month"]]
    return before, after


def _changed(a: str, b: str) -> None:
    if a == b:
        raise Unanswerable(f"no change: {a} throughout")


def _companions(view: FactView, person: str, events: list[str]) -> Counter[str]:
    ix = index(view)
    return Counter(f.subject for e in events for f in ix.attendees.get(e, []) if f.subject != person)


def _mark_with(view: FactView, args: dict[str, Any], evs: dict[str, Fact], who: dict[str, str]) -> None:
    """Read the events' activity facts, the person's attendance, and each period's top companion's."""
    view.mark(evs.values())
    for e in evs:
        attended(view, args["person"], e)
        if e in who:
            attended(view, who[e], e)


def _companion_change(view: FactView, args: dict[str, Any], evs: dict[str, Fact]) -> str:
    """The person's most frequent companion over ``evs`` before ``month`` and from it on."""
    before, after = _halves(args, evs)
    a = _unique_top(_companions(view, args["person"], before), "earlier companion")
    b = _unique_top(_companions(view, args["person"], after), "later companion")
    _changed(a, b)
    _mark_with(view, args, evs, {**dict.fromkeys(before, a), **dict.fromkeys(after, b)})
    return f"from {view.lexicon.name(a)} to {view.lexicon.name(b)}"


@program
def companion_change(view: FactView, args: dict[str, Any]) -> str:
    """How the person's most frequent companion for an activity changed at ``month``."""
    return _companion_change(view, args, _events_with(view, args["person"], args["activity"]))


@program
def closest_change(view: FactView, args: dict[str, Any]) -> str:
    """How the person who was with them most often, over every activity, changed at ``month``."""
    return _companion_change(view, args, _mine(view, args))


@program
def place_change(view: FactView, args: dict[str, Any]) -> str:
    """How the place where the person usually did an activity changed at ``month``."""
    evs = _events_with(view, args["person"], args["activity"])
    before, after = _halves(args, evs)
    ix = index(view)
    places = {e: f for e in evs for f in ix.places.get(e, [])}
    a = _unique_top(Counter(places[e].object for e in before if e in places), "earlier place")
    b = _unique_top(Counter(places[e].object for e in after if e in places), "later place")
    _changed(a, b)
    _mark_with(view, args, evs, {})
    view.mark(places.values())
    return f"from {view.lexicon.name(a)} to {view.lexicon.name(b)}"


@program
def activity_change(view: FactView, args: dict[str, Any]) -> str:
    """How what the person did most often changed at ``month`` (activity nouns)."""
    evs = _mine(view, args)
    before, after = _halves(args, evs)
    a = _unique_top(Counter(evs[e].object for e in before), "earlier activity")
    b = _unique_top(Counter(evs[e].object for e in after), "later activity")
    _changed(a, b)
    _mark_with(view, args, evs, {})
    noun = {f.object: f.value or f.object for f in evs.values()}
    return f"from {noun[a]} to {noun[b]}"
