"""World: the seeded ground truth every observation and question derives from."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer

from mnemoforge.schemas.calendar import AvailabilitySpec, WorldCalendar
from mnemoforge.schemas.memeye import DrawsSpec
from mnemoforge.schemas.theme import AppearanceSpec, VoiceSpec


class Record(BaseModel):
    """Base for generated records: unknown keys rejected, values immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Person(Record):
    id: str
    name: str
    given: str = ""
    family: str = ""
    title: str = ""
    name_order: Literal["given_first", "family_first"] = "given_first"
    aliases: list[str] = Field(default_factory=list)
    spoken: str | None = None
    role: str
    gender: str
    age: int
    appearance: AppearanceSpec
    voice: VoiceSpec
    signature_object: str | None = None
    habits: list[str] = Field(default_factory=list)
    preferences: dict[str, str] = Field(default_factory=dict)
    availability: AvailabilitySpec | None = None

    def description(self) -> str:
        """A name-free description usable where a face is seen but no name is given."""
        a = self.appearance
        hair = "bald" if a.hair_style == "bald" else f"{a.hair_style}-haired"
        noun = {"female": "woman", "male": "man"}.get(self.gender, "person")
        extra = f" wearing {_with_article(a.accessories[0])}" if a.accessories else ""
        return f"the {hair} {noun}{extra}"


def _with_article(item: str) -> str:
    return item if item.endswith("s") else f"a {item}"


class Relation(Record):
    a: str
    b: str
    kind: str
    a_calls_b: str | None = None
    address: str | None = None


class Place(Record):
    id: str
    name: str
    kind: str
    indoor: bool
    sign: str | None = None
    palette: list[str] = Field(default_factory=list)
    props: list[str] = Field(default_factory=list)
    altitude_m: int | None = None

    @model_serializer(mode="wrap")
    def _drop_new_defaults(self, handler: Any) -> dict[str, Any]:  # worlds before them dump as they did
        out = handler(self)
        for key in ("props", "altitude_m"):
            if out.get(key) in (None, []):
                out.pop(key, None)
        return out


class WorldObject(Record):
    id: str
    name: str
    owner: str | None = None
    color: str
    label: str | None = None
    place: str | None = None  # where a drawn object stands (``schemas/object_parts.py``)
    draws: DrawsSpec | None = None  # the drawing library's part that draws it (one part)

    @model_serializer(mode="wrap")
    def _drop_no_part(self, handler: Any) -> dict[str, Any]:  # objects before parts dump as they did
        out = handler(self)
        for key in ("place", "draws"):
            if out.get(key) is None:
                out.pop(key, None)
        return out


class Entity(Record):
    """A named thing of a non-album family: a project, meeting, trip, document, room, product."""

    id: str
    name: str
    kind: str
    attrs: dict[str, str] = Field(default_factory=dict)


class Event(Record):
    """One dated happening on the timeline; clips are planned from events."""

    id: str
    index: int
    start: dt.datetime
    end: dt.datetime | None = Field(default=None, description="when it ends (its people are there until)")
    activity: str
    verb: str
    noun: str
    place: str
    participants: list[str]
    objects: list[str] = Field(default_factory=list)
    carriers: dict[str, str] = Field(
        default_factory=dict,
        description="object id -> the participant who brought it for its owner (a loan for this event); "
        "an object not listed is brought by its owner",
    )
    weather: str
    occasion: str

    def brought_by(self, obj: str, owner: str | None) -> str | None:
        """Who brought ``obj`` (owned by ``owner``) to this event."""
        return self.carriers.get(obj, owner)


FactKind = Literal[
    "attended",
    "at_place",
    "activity",
    "brought",
    "owns",
    "relation",
    "habit",
    "preference",
    "chose",
    "name",
    "attribute",
    "state",
    "member",
    "prefers",
    "promised",
    "planned",
    "accompanied",
    "shows",
]


class Fact(Record):
    """An atomic, id'd statement (subject, predicate, object[, value]) true from ``at`` on.

    ``value`` carries an attribute: the chosen item of a ``chose`` fact (object = preference key),
    or how the subject refers to the object in a ``relation`` fact ("wife", "manager").

    Kinds used by the other families: ``attribute`` (subject entity, object = key, value; a later
    ``at`` for the same subject and key is an update that overrides it), ``state`` (a visual
    state of an entity at a time, same shape), ``accompanied`` (subject a cast animal, object the
    event it came to with a companion, value its species), ``shows`` (subject a declared object drawn
by a library part, object its key: label, count, marked, colour; value what it shows at the
fact's event), ``member`` (subject person belongs to / attends
    object entity), ``prefers`` (subject person, object = preference key, value).
    """

    id: str
    kind: FactKind
    subject: str
    object: str
    value: str | None = None
    event: str | None = None
    at: dt.datetime | None = None


class Span(Record):
    """One value of a timeline, held from ``start`` (inclusive) to ``end`` (exclusive; None: until
    the end of the World); ``fact`` is the fact stating it, where one does."""

    start: dt.datetime
    end: dt.datetime | None = None
    value: str
    fact: str | None = None


class Timeline(Record):
    """Every value one attribute of one subject (an object, a person, a scene, an entity) takes,
    one per time interval: the spans are in time order and never overlap. A gap is a time the
    World says nothing about (an object left at home between outings). Attributes: ``colour``,
    ``count``, ``label``, ``level``, ``location``, ``holder``, ``presence`` (what a person holds),
    an entity's attribute key, ``preference.<key>`` (docs/world.md)."""

    subject: str
    attribute: str
    spans: list[Span]

    def value_at(self, when: dt.datetime) -> str | None:
        for s in self.spans:
            if s.start <= when and (s.end is None or when < s.end):
                return s.value
        return None


class World(Record):
    theme: str
    seed: int
    start: dt.date
    end: dt.date
    protagonist: str
    people: list[Person]
    relations: list[Relation]
    places: list[Place]
    objects: list[WorldObject]
    events: list[Event]
    facts: list[Fact]
    entities: list[Entity] = Field(default_factory=list)
    calendar: WorldCalendar = Field(default_factory=WorldCalendar)
    timelines: list[Timeline] = Field(default_factory=list)

    def timeline(self, subject: str, attribute: str) -> Timeline | None:
        return next((t for t in self.timelines if t.subject == subject and t.attribute == attribute), None)

    def value_at(self, subject: str, attribute: str, when: dt.datetime) -> str | None:
        """The value ``attribute`` of ``subject`` holds at ``when`` (None: the World says none)."""
        t = self.timeline(subject, attribute)
        return t.value_at(when) if t is not None else None

    def person(self, pid: str) -> Person:
        return _index(self.people, pid)

    def place(self, pid: str) -> Place:
        return _index(self.places, pid)

    def object(self, oid: str) -> WorldObject:
        return _index(self.objects, oid)

    def event(self, eid: str) -> Event:
        return _index(self.events, eid)

    def entity(self, eid: str) -> Entity:
        return _index(self.entities, eid)

    def fact(self, fid: str) -> Fact:
        return _index(self.facts, fid)


def _index(items: list, key: str):  # type: ignore[no-untyped-def]
    for it in items:
        if it.id == key:
            return it
    raise KeyError(key)
