"""Profile programs over the weekly rhythm of a person's life (registered on import).

Each reads the dated clips (the day of the week of an event is its date's) and answers a clear
majority (a unique top value, seen at least twice: ``routine_programs._unique_top``):

- ``pair_weekday``: the day of the week two people most often spent together;
- ``weekday_activity``: what the person most often did on one day of the week;
- ``weekday_change``: how the day of the week the person usually did an activity changed at
  ``month`` (``from A to B``, as ``change_programs``).

They are *reserve* programs of the profile category (``templates.RESERVE``): drawn on only once
the other profile programs' candidates run out (an ICM-Bench-scale album), so a small album's
items stay what they were.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from mnemoforge.dates import weekday_name
from mnemoforge.generators.icm.change_programs import _changed, _halves
from mnemoforge.generators.icm.programs import _events_with, attended
from mnemoforge.generators.icm.routine_programs import _mark_shared, _mine, _shared, _unique_top
from mnemoforge.generators.questions.programs import FactView, Unanswerable, program
from mnemoforge.schemas.world import Fact

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _weekday(f: Fact) -> str:
    assert f.at is not None
    return weekday_name(f.at.date())


@program
def pair_weekday(view: FactView, args: dict[str, Any]) -> str:
    """The day of the week ``person`` and ``other`` were most often together (over the events both
    attended, optionally inside a ``from_month``..``to_month`` window)."""
    evs = _shared(view, args)
    best = _unique_top(Counter(_weekday(f) for f in evs.values()), "weekday together")
    _mark_shared(view, args, evs)
    return best


@program
def weekday_activity(view: FactView, args: dict[str, Any]) -> str:
    """What the person most often did on ``weekday`` (an English day name), over their events of
    that day of the week (optionally inside a window): the activity's noun."""
    if args["weekday"] not in WEEKDAYS:
        raise Unanswerable(f"not a day of the week: {args['weekday']!r}")
    evs = {e: f for e, f in _mine(view, args).items() if _weekday(f) == args["weekday"]}
    best = _unique_top(Counter(f.object for f in evs.values()), f"{args['weekday']} activity")
    view.mark(evs.values())
    for e in evs:
        attended(view, args["person"], e)
    return next(f.value for f in evs.values() if f.object == best) or best


@program
def weekday_change(view: FactView, args: dict[str, Any]) -> str:
    """How the day of the week the person usually did an activity changed at ``month``: the clear
    majority of their events of it before ``month`` and from ``month`` on, which differ."""
    evs = _events_with(view, args["person"], args["activity"])
    before, after = _halves(args, evs)
    a = _unique_top(Counter(_weekday(evs[e]) for e in before), "earlier weekday")
    b = _unique_top(Counter(_weekday(evs[e]) for e in after), "later weekday")
    _changed(a, b)
    view.mark(evs.values())
    for e in evs:
        attended(view, args["person"], e)
    return f"from {a} to {b}"
