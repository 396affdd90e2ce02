"""Declared objects drawn by a part of the drawing library in album shots (issue 30: both picture
families use the same library).

An object that declares ``draws`` (``schemas/object_parts.py``: the memeye ``DrawsSpec``, one
part) stands at its ``place``. At every event there, the part shows one value, and the World
holds it: a fact ``f_<event>_shows_<object>`` (kind ``shows``: subject the object, object the
part's key, value what is drawn) and the object's timeline of that key (a step at each such
event). A board's level, a shelf's count, the place a map's pin marks change from event to event
(``CHANGE_RATE``); a colour part shows the object's colour timeline. The establishing (wide)
shot of each event at the place draws the part with the value ``World.value_at`` holds at the
shot's time, so the picture, the items and any line read one value.
"""

from __future__ import annotations

import datetime as dt
import json
import random

from mnemoforge.generators.timelines import stepped
from mnemoforge.generators.typed_values import changed_typed, typed_label
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.memeye import LABEL_RANGES
from mnemoforge.schemas.object_parts import COUNT_SPAN, OBJECT_PARTS, part_of
from mnemoforge.schemas.world import Event, Fact, Timeline, World, WorldObject

CHANGE_RATE = 0.5  # chance a drawn value differs from the one the last event at its place showed


def drawn_objects(objects: list[WorldObject]) -> list[WorldObject]:
    """The objects that declare a part, in declared order."""
    return [o for o in objects if o.draws is not None and o.place is not None]


def part_key(o: WorldObject) -> tuple[str, str]:
    """(part, World attribute) of a drawn object: ``("label", "label")``, ``("map", "marked")``..."""
    assert o.draws is not None
    part = part_of(o.draws)
    return part, OBJECT_PARTS[part]


def shows_fact_id(event: str, oid: str) -> str:
    return f"f_{event}_shows_{oid}"


def _first(o: WorldObject, part: str, rng: random.Random) -> str:
    d = o.draws
    assert d is not None
    if part == "label":
        assert d.label is not None
        return typed_label(d.label.model_dump(), rng)
    if part == "count":
        return str(rng.randint(*COUNT_SPAN))
    if part == "map":
        assert d.map is not None
        return rng.choice(d.map.places)
    return o.color


def _next(o: WorldObject, part: str, old: str, rng: random.Random) -> str:
    d = o.draws
    assert d is not None
    if part == "label":
        assert d.label is not None
        return changed_typed(d.label.type, d.label.range or LABEL_RANGES[d.label.type], old, rng)
    if part == "count":
        return str(rng.choice([n for n in range(COUNT_SPAN[0], COUNT_SPAN[1] + 1) if str(n) != old]))
    if part == "map":
        assert d.map is not None
        return rng.choice([p for p in d.map.places if p != old])
    return old  # a colour part shows the object's colour (its own timeline)


def part_facts(seed: int, objects: list[WorldObject], events: list[Event]) -> list[Fact]:
    """One ``shows`` fact per drawn object and event at its place: the value drawn there."""
    out: list[Fact] = []
    for o in drawn_objects(objects):
        part, key = part_key(o)
        rng = derive_rng(seed, "drawn_part", o.id)
        value = ""
        for e in (x for x in events if x.place == o.place):
            value = _first(o, part, rng) if not value else value
            if out and out[-1].subject == o.id and rng.random() < CHANGE_RATE:
                value = _next(o, part, value, rng)
            out.append(Fact(id=shows_fact_id(e.id, o.id), kind="shows", subject=o.id, object=key,
                            value=value, event=e.id, at=e.start))  # fmt: skip
    return out


def part_timelines(facts: list[Fact]) -> list[Timeline]:
    """The timeline of each drawn value (a colour part's is the object's ``colour`` timeline):
    each ``shows`` fact's value holds from its event until the next event at the place."""
    steps: dict[tuple[str, str], list[tuple[dt.datetime, str, str | None]]] = {}
    for f in facts:
        if f.kind == "shows" and f.object != "colour" and f.at is not None and f.value is not None:
            steps.setdefault((f.subject, f.object), []).append((f.at, f.value, f.id))
    return [stepped(s, a, st) for (s, a), st in sorted(steps.items())]


def shot_parts(world: World, place: str, composition: str) -> list[str]:
    """The drawn objects a shot at ``place`` shows: those standing there, in its wide shots."""
    if composition != "wide":
        return []
    return [o.id for o in drawn_objects(world.objects) if o.place == place]


def part_value(world: World, oid: str, when: dt.datetime) -> str:
    """The value a drawn object shows at ``when``: ``World.value_at`` of its part's key."""
    _, key = part_key(world.object(oid))
    return world.value_at(oid, key, when) or ""


def part_spec(world: World, oid: str) -> dict:
    """The declared part of a drawn object (its ``draws`` entry, as data)."""
    o = world.object(oid)
    assert o.draws is not None
    part, _ = part_key(o)
    return json.loads(getattr(o.draws, part).model_dump_json())
