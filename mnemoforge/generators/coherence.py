"""The coherence check of a World: rules no planned world may break, each with a code.

An incoherent World fails the build (``check_world`` raises ``IncoherentWorld`` naming the rule
and the entities) and ``theme check`` reports it. The texts realised from the World (lines,
questions, options) have their own rules in ``coherence_text.py``: an incoherent line or item is
rejected with the same codes, which the build summary's funnel counts. The codes:

=================  =====================================================================
code               what it catches
=================  =====================================================================
two_states         one subject holding two values of one attribute at one time (overlapping
                   or empty spans of a timeline; two pictures of one object disagreeing)
two_places         a person or an object in two places at one time
self_relation      a relation or an action whose two people are the same person (unless
                   the tool is declared reflexive); a line addressing or naming its speaker
weekday_mismatch   a weekday or "weekend" that disagrees with its date
empty_range        an empty or inverted range ("between April 2026 and April 2026")
outside_span       a date (a value, an option, an event) outside the theme's span
unavailable        an event outside a person's declared availability
role_conflict      a relation or a role contradicting the theme
ownership          a person said to keep or bring an object the theme gives someone else
bare_title         a title standing without its name ("Dr., say hello to Dr. for us")
unknown_holiday    a holiday that is not the theme's calendar's (no country: none at all)
stale_render       an observation expressing a value its timeline does not hold at its time
=================  =====================================================================
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Timeline, World

CODES: dict[str, str] = {
    "two_states": "one subject holds two values of one attribute at one time",
    "two_places": "a person or an object is in two places at one time",
    "self_relation": "a relation or action whose two people are the same person",
    "weekday_mismatch": "a weekday or weekend that disagrees with its date",
    "empty_range": "an empty or inverted range",
    "outside_span": "a date outside the theme's span",
    "unavailable": "an event outside a person's declared availability",
    "role_conflict": "a relation or role contradicting the theme",
    "ownership": "a person said to keep an object the theme gives to someone else",
    "bare_title": "a title standing without its name",
    "unknown_holiday": "a holiday that is not the theme's calendar's",
    "stale_render": "an observation expresses a value its timeline does not hold at its time",
}
PLACE_ATTRIBUTES = ("location",)


@dataclass(frozen=True)
class Incoherence:
    """One broken rule: its code, the entities involved, and what is wrong."""

    code: str
    entities: tuple[str, ...]
    detail: str

    def __str__(self) -> str:
        return f"{self.code}: {self.detail} [{', '.join(self.entities)}]"


class IncoherentWorld(ValueError):
    """A planned World breaks coherence rules; the message lists each (rule, entities)."""

    def __init__(self, problems: list[Incoherence]) -> None:
        self.problems = problems
        head = f"incoherent world ({len(problems)} problem{'s' if len(problems) != 1 else ''})"
        super().__init__("\n".join([head, *(f"  - {p}" for p in problems[:20])]))


def _timeline_problems(t: Timeline) -> list[Incoherence]:
    code = "two_places" if t.attribute in PLACE_ATTRIBUTES else "two_states"
    out = []
    spans = sorted(t.spans, key=lambda s: s.start)
    for s in spans:
        if s.end is not None and s.end <= s.start:
            out.append(
                Incoherence(code, (t.subject,), f"{t.attribute} {s.value!r} holds for no time at {s.start}")
            )
    for a, b in zip(spans, spans[1:], strict=False):
        if a.end is None or a.end > b.start:
            out.append(
                Incoherence(
                    code,
                    (t.subject,),
                    f"{t.attribute} is {a.value!r} and {b.value!r} at once ({b.start})",
                )
            )
    return out


def timeline_problems(world: World) -> list[Incoherence]:
    """Every timeline holds one value per interval; one timeline per (subject, attribute)."""
    out: list[Incoherence] = []
    seen: set[tuple[str, str]] = set()
    for t in world.timelines:
        if (t.subject, t.attribute) in seen:
            out.append(Incoherence("two_states", (t.subject,), f"two timelines of {t.attribute}"))
        seen.add((t.subject, t.attribute))
        out += _timeline_problems(t)
    facts = {f.id: f for f in world.facts}
    for t in world.timelines:
        for s in t.spans:
            f = facts.get(s.fact or "")
            if f is not None and f.kind in ("attribute", "state") and f.value != s.value:
                out.append(
                    Incoherence(
                        "two_states", (t.subject, f.id), f"fact says {f.value!r}, timeline says {s.value!r}"
                    )
                )
    return out


def _span_dates(world: World) -> tuple[dt.datetime, dt.datetime]:
    return dt.datetime.combine(world.start, dt.time()), dt.datetime.combine(world.end, dt.time(23, 59))


def event_problems(world: World) -> list[Incoherence]:
    """Events inside the span, with distinct people who are available, on the calendar's days."""
    lo, hi = _span_dates(world)
    people = {p.id: p for p in world.people}
    holidays = {h.date: h.name for h in world.calendar.holidays}
    out: list[Incoherence] = []
    for e in world.events:
        if not lo <= e.start <= hi:
            out.append(
                Incoherence("outside_span", (e.id,), f"starts {e.start}, outside {world.start}..{world.end}")
            )
        if len(set(e.participants)) != len(e.participants):
            out.append(Incoherence("self_relation", (e.id,), "a participant is listed twice"))
        for p in e.participants:
            av = people[p].availability if p in people else None
            if av is not None and not av.allows(e.start, world.calendar.weekend):
                out.append(Incoherence("unavailable", (e.id, p), f"{p} is not available at {e.start}"))
        day = e.start.date()
        if e.occasion not in ("ordinary day", holidays.get(day)):
            out.append(
                Incoherence(
                    "unknown_holiday",
                    (e.id,),
                    f"occasion {e.occasion!r} is no holiday of the calendar on {day}",
                )
            )
    for t in world.timelines:  # places people are at (sessions, events): their availability
        p = people.get(t.subject)
        if p is None or p.availability is None or t.attribute != "location":
            continue
        for s in t.spans:
            if not p.availability.allows(s.start, world.calendar.weekend):
                out.append(
                    Incoherence(
                        "unavailable", (p.id,), f"at {s.value!r} at {s.start}, outside their availability"
                    )
                )
    return out


def relation_problems(theme: Theme | None, world: World) -> list[Incoherence]:
    """Relations between two people, as the theme declares them; owners as the theme gives them."""
    out: list[Incoherence] = []
    for r in world.relations:
        if r.a == r.b:
            out.append(Incoherence("self_relation", (r.a,), f"a {r.kind} relation with themselves"))
    declared = {(r.a, r.b): r for r in world.relations}
    owners = {o.id: o.owner for o in world.objects}
    loans = {(e.id, o): who for e in world.events for o, who in e.carriers.items()}
    for f in world.facts:
        if f.kind == "relation":
            r = declared.get((f.subject, f.object))
            if r is None or f.value not in (r.a_calls_b, r.kind):
                out.append(
                    Incoherence(
                        "role_conflict", (f.subject, f.object), f"relation {f.value!r} is not the theme's"
                    )
                )
        elif f.kind in ("owns", "brought", "promised") and f.object in owners:
            owner = owners[f.object]
            lent = f.kind == "brought" and loans.get((f.event or "", f.object)) == f.subject
            if owner is not None and f.subject != owner and not lent:
                out.append(
                    Incoherence(
                        "ownership", (f.subject, f.object), f"{f.kind} {f.object}, which is {owner}'s"
                    )
                )
    if theme is not None and theme.smm is not None:
        out += _smm_value_problems(theme, world)
    return out


def _smm_value_problems(theme: Theme, world: World) -> list[Incoherence]:
    """Person values of the roles an attribute admits; date values inside the span, on the days
    their label or entity name asks for."""
    from mnemoforge.dates import named_days, weekday_name

    assert theme.smm is not None
    roles = {p.id: p.role for p in theme.cast}
    attrs = {(k.kind, a.key): a for k in theme.smm.entity_kinds for a in k.attributes}
    kind_of = {e.id: e for e in world.entities}
    out: list[Incoherence] = []
    for f in world.facts:
        ent = kind_of.get(f.subject)
        a = attrs.get((ent.kind, f.object)) if ent is not None and f.kind == "attribute" else None
        if a is None or f.value is None or f.id.endswith("_r"):
            continue
        if a.type == "person" and a.roles and roles.get(f.value) not in a.roles:
            out.append(
                Incoherence("role_conflict", (f.subject, f.value), f"{a.label} must be one of {a.roles}")
            )
        if a.type == "date":
            d = dt.date.fromisoformat(f.value)
            if not world.start <= d <= world.end:
                out.append(Incoherence("outside_span", (f.subject, f.id), f"{a.label} {d} outside the span"))
            for text in (a.label, ent.name if ent is not None else ""):
                want = named_days(text, world.calendar.weekend)
                if want is not None and d.weekday() not in want:
                    out.append(
                        Incoherence(
                            "weekday_mismatch", (f.subject, f.id), f"{text!r} on {d} ({weekday_name(d)})"
                        )
                    )
                    break
    return out


def calendar_problems(world: World) -> list[Incoherence]:
    """Every holiday is the declared country's (from the library) or the theme's own."""
    from mnemoforge.country_calendars import country_days

    cal = world.calendar
    out: list[Incoherence] = []
    known: set[tuple[dt.date, str]] = set()
    if cal.country is not None:
        found, _, _ = country_days(cal.country, cal.subdiv, world.start.year, world.end.year)
        known = set(found)
    for h in cal.holidays:
        if h.source == "country" and (h.date, h.name) not in known:
            out.append(
                Incoherence(
                    "unknown_holiday", (h.date.isoformat(),), f"{h.name!r} is not a holiday of {cal.country}"
                )
            )
        if not world.start <= h.date <= world.end:
            out.append(
                Incoherence("outside_span", (h.date.isoformat(),), f"holiday {h.name!r} outside the span")
            )
    return out


def world_problems(world: World, theme: Theme | None = None) -> list[Incoherence]:
    """Every rule of the World (timelines, events, relations and owners, calendar)."""
    return (
        timeline_problems(world)
        + event_problems(world)
        + relation_problems(theme, world)
        + calendar_problems(world)
    )


def check_world(world: World, theme: Theme | None = None) -> World:
    """``world`` if it is coherent; else ``IncoherentWorld`` naming each rule and its entities."""
    problems = world_problems(world, theme)
    if problems:
        raise IncoherentWorld(problems)
    return world


def observation_problems(world: World, observations: Iterable[Observation]) -> list[Incoherence]:
    """Observations agree with the timelines: a fact an observation expresses is what its
    timeline holds at the observation's time, and the pictures of one object taken on one day
    show one value (``two_states``) unless the object changed in between."""
    from mnemoforge.generators.timelines import TimelineIndex

    index = TimelineIndex(world)
    facts = {f.id: f for f in world.facts}
    stated = {s.fact for t in world.timelines for s in t.spans if s.fact}  # hearsay is no state
    out: list[Incoherence] = []
    for o in observations:
        for e in o.expresses:
            f = facts.get(e.fact)
            if f is None or f.kind not in ("attribute", "state") or f.id not in stated:
                continue
            t = index.get(f.subject, f.object)
            if t is None:
                continue
            held = t.value_at(o.timestamp)
            if held is not None and held != f.value:
                out.append(
                    Incoherence(
                        "stale_render",
                        (o.id, f.subject),
                        f"shows {f.object} {f.value!r} at {o.timestamp}, the timeline holds {held!r}",
                    )
                )
    return out
