"""Place bridges and dated-record bridges of the cross items (``cross_items.py``; docs/cross-family.md).

A **place bridge** names a place by one family's facts and asks a property of that place read
from another family's facts:

- ``place_label``: the place where a picture log's written label reads a value ("the place where
  the number on the bay sign reads K77"); the log's place is its entity's ``place`` (carried in the
  args, as a picture log's drawn person is, and checked against the label's subject);
- ``place_room``: the place an entity's attribute names ("the room of Hot End Rota": an attribute
  whose value is the place's name);
- ``place_brought``: the place of the one event where a person brought an object (a clip).

Properties of a place: ``area_value`` (an attribute of the one entity whose attribute names the
place: its rule, its keeper), ``count_at`` (how many events of an activity were held there),
``brought_to`` (who brought an object there, the one such event).

A **dated-record bridge** names a moment by a date attribute's current value (``when_due``: "the
due date of Wedding Goblets"; authority, then recency: a rumour never overrides an official value,
among official values the latest wins), and ``first_after`` asks who attended the first event of
an activity after that day (the picture log's ``held_before`` is ``cross_items``' own).

Everything here reads facts only; which family a fact comes from is never spelled out (the gates
run the program on each family's facts alone).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping

from mnemoforge.english import plural
from mnemoforge.generators.questions.programs import Unanswerable, join_names
from mnemoforge.schemas.world import Fact, World

PLACE_BRIDGES = ("place_label", "place_room", "place_brought")
PLACE_PROPERTIES = ("area_value", "count_at", "brought_to")
LABEL = "label"  # the key of a picture's written label (a sign's number, a tag's text)
CODE = "code"  # the key of an entity's record code (``smm/world.py``: values are filed under it)
NOT_ASKED = (CODE,)  # record codes are filing, not properties


class NoAnswer(Unanswerable):
    """A cross program cannot answer on these facts (a bridge or property is missing or not unique)."""


def _one(facts: list[Fact], what: str) -> Fact:
    if len(facts) != 1:
        raise NoAnswer(f"{what}: {len(facts)} facts")
    return facts[0]


def _name(name: Callable[[str], str], ident: str) -> str | None:
    try:
        return name(ident)
    except KeyError:
        return None


def filed(facts: list[Fact], b: Mapping[str, str]) -> list[Fact]:
    """The record code a bridge naming an entity reads (``"filed": "1"``): its evidence writes
    the entity's values under the code, so naming the entity needs the fact that gives its code."""
    if not b.get("filed"):
        return []
    got = [f for f in facts if f.kind == "attribute" and f.subject == b["entity"] and f.object == CODE]
    return [_one(got, "record code")]


def filing(world: World, entity: str) -> dict[str, str]:
    """``{"filed": "1"}`` when the World files ``entity``'s values under a record code."""
    has = any(f.kind == "attribute" and f.subject == entity and f.object == CODE for f in world.facts)
    return {"filed": "1"} if has else {}


def hearsay(f: Fact) -> bool:
    """A rumour (id suffix ``_r``): an unofficial value that never overrides an official one."""
    return f.id.endswith("_r")


# ---------------------------------------------------------------- place bridges


def place_of(facts: list[Fact], name: Callable[[str], str], b: Mapping[str, str]) -> tuple[str, list[Fact]]:
    """(place id, facts read) of a place bridge."""
    kind = b["kind"]
    if kind == "place_label":  # the one label reading VALUE, on the log entity of PLACE
        f = _one(
            [f for f in facts if f.kind == "attribute" and f.object == LABEL and f.value == b["value"]], LABEL
        )
        if f.subject != b["subject"]:
            raise NoAnswer("label: another picture log")
        return b["place"], [f]
    if kind == "place_room":  # the place an entity's attribute names
        f = _one(
            [f for f in facts if f.kind == "attribute" and f.subject == b["entity"] and f.object == b["key"]],
            "room",
        )
        if f.value != _name(name, b["place"]):
            raise NoAnswer("room: names another place")
        return b["place"], [*filed(facts, b), f]
    if kind == "place_brought":  # the place of the one event where SUBJECT brought OBJECT
        got = [
            f for f in facts if f.kind == "brought" and f.subject == b["subject"] and f.object == b["object"]
        ]
        f = _one([f for f in got if f.event], "brought")
        at = _one([g for g in facts if g.kind == "at_place" and g.subject == f.event], "event place")
        return at.object, [f, at]
    raise NoAnswer(f"not a place bridge {kind!r}")


def args_disagree(world: World, b: Mapping[str, str]) -> str | None:
    """What a place bridge's args say that the World does not (the place a picture log is in,
    carried in the args): None when they agree."""
    if b["kind"] != "place_label":
        return None
    try:
        where = world.entity(b["subject"]).attrs.get("place")
    except KeyError:
        return f"no picture log {b['subject']!r}"
    return None if where == b["place"] else f"{b['subject']} is in {where!r}, not {b['place']!r}"


# ---------------------------------------------------------------- place properties


def _events_at(facts: list[Fact], place: str, activity: str) -> list[tuple[Fact, Fact]]:
    """(activity fact, place fact) of every event of ``activity`` held at ``place``."""
    where = {f.subject: f for f in facts if f.kind == "at_place" and f.object == place}
    return [
        (f, where[f.subject])
        for f in facts
        if f.kind == "activity" and f.object == activity and f.subject in where
    ]


def at_place(
    facts: list[Fact], name: Callable[[str], str], place: str, p: Mapping[str, str]
) -> tuple[str, list[Fact]]:
    """(answer, facts read) of a property of ``place``."""
    kind = p["kind"]
    if kind == "area_value":  # KEY of the one entity whose attribute names the place
        room = _one([f for f in facts if f.kind == "attribute" and f.value == _name(name, place)], "area")
        f = _one(
            [
                f
                for f in facts
                if f.kind == "attribute" and f.subject == room.subject and f.object == p["key"]
            ],
            p["key"],
        )
        return _name(name, str(f.value)) or str(f.value), [room, f]
    if kind == "count_at":  # how many events of ACTIVITY were held at the place
        got = _events_at(facts, place, p["activity"])
        if not got:
            raise NoAnswer("count: none there")
        return str(len(got)), [f for pair in got for f in pair]
    if kind == "brought_to":  # who brought OBJECT to the place (one such event)
        where = {f.subject: f for f in facts if f.kind == "at_place" and f.object == place}
        f = _one(
            [f for f in facts if f.kind == "brought" and f.object == p["object"] and f.event in where],
            "brought to",
        )
        return name(f.subject), [f, where[str(f.event)]]
    raise NoAnswer(f"not a property of a place {kind!r}")


# ---------------------------------------------------------------- dated records


def day_of(value: str | None) -> dt.date | None:
    """The date an attribute value names (``YYYY-MM-DD``), else None."""
    try:
        return dt.date.fromisoformat(value or "")
    except ValueError:
        return None


def when_due(facts: list[Fact], b: Mapping[str, str]) -> tuple[dt.datetime, list[Fact]]:
    """(the end of the day, facts read) of ENTITY's KEY date: its current value (authority, then
    recency); the day is over at its end, so "after the day" starts the next morning."""
    got = [f for f in facts if f.kind == "attribute" and f.subject == b["entity"] and f.object == b["key"]]
    official = sorted((f for f in got if not hearsay(f) and f.at), key=lambda f: f.at or dt.datetime.min)
    if not official:
        raise NoAnswer("due: no official value")
    if len(official) > 1 and official[-1].at == official[-2].at:
        raise NoAnswer("due: two values at one time")
    day = day_of(official[-1].value)
    if day is None:
        raise NoAnswer("due: not a date")
    return dt.datetime.combine(day, dt.time.max), [*filed(facts, b), official[-1]]


def first_after(
    facts: list[Fact], name: Callable[[str], str], when: dt.datetime, p: Mapping[str, str]
) -> tuple[str, list[Fact]]:
    """Who attended the first event of ACTIVITY after ``when`` (its activity and attendance facts)."""
    if p["kind"] != "first_after":
        raise NoAnswer(f"not a property of a day {p['kind']!r}")
    later = sorted(
        (f for f in facts if f.kind == "activity" and f.object == p["activity"] and f.at and f.at > when),
        key=lambda f: f.at or when,
    )
    if not later or (len(later) > 1 and later[0].at == later[1].at):
        raise NoAnswer("first after: no single next event")
    came = sorted(
        (f for f in facts if f.kind == "attended" and f.object == later[0].subject), key=lambda f: f.id
    )
    if not came:
        raise NoAnswer("first after: nobody seen there")
    return join_names(name(f.subject) for f in came), [later[0], *came]


# ---------------------------------------------------------------- candidates and wording


def place_bridges(world: World) -> list[dict]:
    """Every place and dated-record bridge the World's facts offer."""
    places = {p.name: p.id for p in world.places}
    ents = {e.id: e for e in world.entities}
    out: list[dict] = []
    for f in world.facts:
        e = ents.get(f.subject)
        if f.kind == "attribute" and f.object == LABEL and e is not None and e.attrs.get("place"):
            out.append(
                {
                    "kind": "place_label",
                    "subject": f.subject,
                    "value": str(f.value),
                    "place": e.attrs["place"],
                }
            )
        elif f.kind == "attribute" and f.value in places and e is not None:
            room = {"kind": "place_room", "entity": f.subject, "key": f.object, "place": places[str(f.value)]}
            out.append(room | filing(world, f.subject))
        elif f.kind == "attribute" and e is not None and day_of(f.value) is not None:
            out.append({"kind": "when_due", "entity": f.subject, "key": f.object} | filing(world, f.subject))
        elif f.kind == "brought" and f.event:
            out.append({"kind": "place_brought", "subject": f.subject, "object": f.object})
    return out


def place_properties(world: World) -> list[dict]:
    """Every property of a place or of a day the World's facts offer."""
    places = {p.name for p in world.places}
    rooms = {f.subject for f in world.facts if f.kind == "attribute" and f.value in places}
    keys = {
        f.object
        for f in world.facts
        if f.kind == "attribute" and f.subject in rooms and f.value not in places
    }
    activities = sorted({f.object for f in world.facts if f.kind == "activity"})
    out = [{"kind": "area_value", "key": k} for k in sorted(keys - set(NOT_ASKED))]
    out += [{"kind": "count_at", "activity": a} for a in activities]
    out += [{"kind": "first_after", "activity": a} for a in activities]
    out += [
        {"kind": "brought_to", "object": o}
        for o in sorted({f.object for f in world.facts if f.kind == "brought"})
    ]
    return out


def _noun(world: World, activity: str) -> str:
    return next((e.noun for e in world.events if e.activity == activity), activity)


def describe(world: World, b: Mapping[str, str], thing: Callable[[str], str]) -> str:
    """The words of a place or dated-record bridge."""
    if b["kind"] == "place_label":
        e = world.entity(b["subject"])
        noun = e.name if e.kind != "scene" else f"{_label_noun(e.attrs)} at {e.name}"
        return f"the place where {noun} reads {b['value']}"
    if b["kind"] == "place_room":
        return f"the {b['key']} of {world.entity(b['entity']).name}"
    if b["kind"] == "place_brought":
        return f"the place where {world.person(b['subject']).name} brought {thing(b['object'])}"
    return f"the {b['key']} date of {world.entity(b['entity']).name}"  # when_due


def _label_noun(attrs: Mapping[str, str]) -> str:
    return str(json.loads(attrs.get("vocab", "{}")).get("label_noun") or "the label")


def ask(world: World, p: Mapping[str, str], where: str, thing: Callable[[str], str]) -> str:
    """The question of a place or day property, ``where`` the bridge's words."""
    k = p["kind"]
    if k == "area_value":
        people = {q.id for q in world.people}
        values = {f.value for f in world.facts if f.kind == "attribute" and f.object == p["key"]}
        noun = _area_noun(world)
        if values and values <= people:
            return f"Who is the {p['key']} of the {noun} at {where}?"
        return f"What is the {p['key']} of the {noun} at {where}?"
    if k == "count_at":
        return f"How many {plural(_noun(world, p['activity']))} were held at {where}?"
    if k == "brought_to":
        return f"Who brought {thing(p['object'])} to {where}?"
    return f"Who was at the first {_noun(world, p['activity'])} after {where}?"  # first_after


def _area_noun(world: World) -> str:
    places = {p.name for p in world.places}
    rooms = sorted({f.subject for f in world.facts if f.kind == "attribute" and f.value in places})
    nouns = {world.entity(r).attrs.get("noun", "") for r in rooms}
    return nouns.pop() if len(nouns) == 1 and "" not in nouns else "record"


def pool(world: World, p: Mapping[str, str]) -> list[str]:
    """Values of a place or day property's answer type (distractors are drawn from them)."""
    k = p["kind"]
    lex = {q.id: q.name for q in world.people}
    if k == "area_value":
        got = {str(f.value) for f in world.facts if f.kind == "attribute" and f.object == p["key"]}
        return sorted(lex.values()) if got <= set(lex) else sorted(got)
    if k == "count_at":
        return [str(n) for n in range(1, 6)]
    if k == "brought_to":
        return sorted(lex.values())
    came: dict[str, set[str]] = {}
    for f in world.facts:
        if f.kind == "attended":
            came.setdefault(f.object, set()).add(lex.get(f.subject, f.subject))
    return sorted({join_names(v) for v in came.values()})
