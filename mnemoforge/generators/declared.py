"""The theme's declared records (cast, relations, places, objects) as World records, and the
World assembled around a family's own facts: shared by every family's planner."""

from __future__ import annotations

from collections.abc import Sequence

from mnemoforge.generators.calendar import build_calendar
from mnemoforge.generators.names import parts
from mnemoforge.generators.timelines import sort_timelines
from mnemoforge.schemas.calendar import WorldCalendar
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import (
    Entity,
    Event,
    Fact,
    Person,
    Place,
    Relation,
    Timeline,
    World,
    WorldObject,
)


def cast_people(theme: Theme) -> list[Person]:
    """The cast as World people, in theme order, with their name parts resolved (``names.parts``)."""
    out = []
    for p in theme.cast:
        n = parts(p)
        fields = p.model_dump(exclude={"appearance", "voice", "given", "family", "title"})
        out.append(Person(**fields, given=n.given, family=n.family, title=n.title, appearance=p.appearance,
                          voice=p.voice))  # fmt: skip
    return out


def declared_records(theme: Theme) -> tuple[list[Relation], list[Place], list[WorldObject]]:
    """Relations, places and objects exactly as the theme declares them."""
    return (
        [Relation(**r.model_dump()) for r in theme.relations],
        [Place(**p.model_dump()) for p in theme.places],
        [WorldObject(**o.model_dump(exclude={"shape"})) for o in theme.objects],
    )


def assemble_world(
    theme: Theme,
    seed: int,
    protagonist: str,
    people: list[Person],
    facts: list[Fact],
    events: Sequence[Event] = (),
    entities: Sequence[Entity] = (),
    timelines: Sequence[Timeline] = (),
    calendar: WorldCalendar | None = None,
) -> World:
    """A World of the theme's declared records plus a family's people, events, facts, entities
    and timelines, with the theme's calendar (``world_calendar``) unless one is given."""
    relations, places, objects = declared_records(theme)
    return World(
        theme=theme.name,
        seed=seed,
        start=theme.start,
        end=theme.end,
        protagonist=protagonist,
        people=people,
        relations=relations,
        places=places,
        objects=objects,
        events=list(events),
        facts=facts,
        entities=list(entities),
        calendar=calendar if calendar is not None else world_calendar(theme),
        timelines=sort_timelines(timelines),
    )


def world_calendar(theme: Theme) -> WorldCalendar:
    """The theme's calendar over its span (``generators/calendar.py``)."""
    return build_calendar(theme.calendar, theme.start, theme.end)
