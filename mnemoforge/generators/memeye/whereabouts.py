"""Where the people of a visual diary are, and when they can be there: the user (and a scenario's
drawn cast person) is at the scenario's place during each session (``location`` timelines), and a
session moves to a time their declared ``availability`` allows."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from mnemoforge.generators.declared import world_calendar
from mnemoforge.generators.timelines import windows
from mnemoforge.schemas.memeye import MemEyeSpec, ScenarioSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Span, Timeline

if TYPE_CHECKING:
    from mnemoforge.generators.memeye.world import SessionPlan

SESSION_MINUTES = 60  # how long the user (and a drawn person) is at a session's place


def available_time(theme: Theme, sc: ScenarioSpec, when: dt.datetime) -> dt.datetime:
    """``when``, or the nearest time (within three days, 9:00-19:00, inside the span) at which the
    user and the scenario's drawn person are available (their declared ``availability``)."""
    spec = theme.memeye
    assert spec is not None
    ids = [spec.user or theme.protagonist or theme.cast[0].id]
    ids += [sc.draws.person.cast] if sc.draws.person is not None else []
    rules = [p.availability for p in theme.cast if p.id in ids and p.availability is not None]
    if not rules:
        return when
    weekend = world_calendar(theme).weekend
    for off in (0, 1, -1, 2, -2, 3, -3):
        for h in sorted(range(9, 20), key=lambda h: (abs(h - when.hour), h)):
            t = (when + dt.timedelta(days=off)).replace(hour=h)
            if theme.start <= t.date() < theme.end and all(r.allows(t, weekend) for r in rules):
                return t
    return when  # nobody free nearby: the coherence check names the rule and the person


def whereabouts(spec: MemEyeSpec, sessions: list[SessionPlan], user: str) -> list[Timeline]:
    """Where the user, and a scenario's drawn cast person, are during each session: the scenario's
    place (else the scenario id), for ``SESSION_MINUTES``."""
    by_id = {sc.id: sc for sc in spec.scenarios}
    spans: dict[str, list[Span]] = {}
    for s in sessions:
        sc = by_id[s.scenario]
        where = sc.place or sc.id
        end = s.start + dt.timedelta(minutes=SESSION_MINUTES)
        people = [user] + ([sc.draws.person.cast] if sc.draws.person is not None else [])
        for p in dict.fromkeys(people):
            spans.setdefault(p, []).append(Span(start=s.start, end=end, value=where, fact=None))
    return [windows(p, "location", sp) for p, sp in sorted(spans.items())]
