"""The ``cross`` program: a bridge picks one person (or a moment, or a place) from one family's
facts, a property of it is read from another family's facts (``cross_items.py`` plans the
items; ``cross_bridges.py`` adds the place and dated-record bridges). ``run_program`` runs it on
any set of facts (the whole merged World, or one family's alone, which the gates require to
fail); the registered ``cross`` program is what the symbolic answerer runs.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from typing import Any

from mnemoforge.generators import cross_bridges as places
from mnemoforge.generators.cross_bridges import NoAnswer
from mnemoforge.generators.questions.programs import FactView, Lexicon, program
from mnemoforge.schemas.world import Fact, World

CROSS = "cross"
DATE_BRIDGES = ("when_brought", "when_due")  # bridges that name a moment, not a person


# ---------------------------------------------------------------- bridges: facts -> one person


def _one(facts: list[Fact], what: str) -> Fact:
    if len(facts) != 1:
        raise NoAnswer(f"{what}: {len(facts)} facts")
    return facts[0]


def bridge_person(facts: list[Fact], bridge: Mapping[str, str]) -> tuple[str, list[Fact]]:
    """(person id, facts read) of a bridge: ``{"kind": habit|relation|profile|role_of, ...}``."""
    kind = bridge["kind"]
    if kind == "habit":  # the one person with this habit
        f = _one([f for f in facts if f.kind == "habit" and f.object == bridge["text"]], "habit")
        return f.subject, [f]
    if kind == "relation":  # the person SUBJECT calls WORD
        rel = [f for f in facts if f.kind == "relation" and f.subject == bridge["subject"]]
        f = _one([f for f in rel if f.value == bridge["word"]], "relation")
        return f.object, [f]
    if kind == "profile":  # the one person whose KEY is VALUE (a profile attribute of a person)
        people = {f.subject for f in facts if f.kind == "name"} | set(bridge.get("people", "").split(","))
        got = [
            f for f in facts if f.kind == "attribute" and f.subject in people and f.object == bridge["key"]
        ]
        f = _one([f for f in got if f.value == bridge["value"]], "profile")
        return f.subject, [f]
    if kind == "brought":  # the person who brought OBJECT to EVENT
        got = [
            f
            for f in facts
            if f.kind == "brought" and f.object == bridge["object"] and f.event == bridge["event"]
        ]
        f = _one(got, "brought")
        return f.subject, [f]
    if kind == "role_of":  # the person an entity's attribute names ("the cutter of Wedding Goblets")
        got = [
            f
            for f in facts
            if f.kind == "attribute" and f.subject == bridge["entity"] and f.object == bridge["key"]
        ]
        f = _one(got, "role")
        return str(f.value), [*places.filed(facts, bridge), f]
    raise NoAnswer(f"unknown bridge {kind!r}")


def bridge_moment(facts: list[Fact], bridge: Mapping[str, str]) -> tuple[dt.datetime, list[Fact]]:
    """(moment, facts read) of a date bridge: ``{"kind": "when_brought", "subject", "object"}``,
    the one time SUBJECT brought OBJECT somewhere, or ``when_due`` (``cross_bridges``)."""
    if bridge["kind"] == "when_due":
        return places.when_due(facts, bridge)
    if bridge["kind"] != "when_brought":
        raise NoAnswer(f"not a date bridge {bridge['kind']!r}")
    got = [
        f
        for f in facts
        if f.kind == "brought" and f.subject == bridge["subject"] and f.object == bridge["object"] and f.at
    ]
    f = _one(got, "when brought")
    if f.at is None:  # not reached: ``got`` holds dated facts only
        raise NoAnswer("when brought: no time")
    return f.at, [f]


def _state_then(facts: list[Fact], when: dt.datetime, prop: Mapping[str, str]) -> tuple[str, list[Fact]]:
    """What a picture log's drawn person holds in its last picture at or before ``when``: the
    latest state of entity SUBJECT's KEY by then (``{"kind": "held_before", ...}``)."""
    if prop["kind"] != "held_before":
        raise NoAnswer(f"not a property of a moment {prop['kind']!r}")
    got = [f for f in facts if f.kind == "state" and f.subject == prop["subject"] and f.object == prop["key"]]
    got = [f for f in got if f.at and f.at <= when]
    if not got:
        raise NoAnswer("held before: no picture by then")
    f = max(got, key=lambda f: f.at or when)
    return str(f.value), [f]


# ---------------------------------------------------------------- properties: person -> answer


def _property(
    facts: list[Fact], name: Callable[[str], str], person: str, prop: Mapping[str, str]
) -> tuple[str, list[Fact]]:
    kind = prop["kind"]
    if kind == "habit":
        f = _one([f for f in facts if f.kind == "habit" and f.subject == person], "habit of")
        return f.object, [f]
    if kind == "profile":
        got = [f for f in facts if f.kind == "attribute" and f.subject == person and f.object == prop["key"]]
        f = _one(got, "profile of")
        return str(f.value), [f]
    if kind == "member":  # the one entity of this kind the person belongs to
        got = [
            f for f in facts if f.kind == "member" and f.subject == person and f.value == prop["entity_kind"]
        ]
        f = _one(got, "member of")
        return name(f.object), [f]
    if kind == "preference":
        got = [f for f in facts if f.kind == "preference" and f.subject == person and f.object == prop["key"]]
        f = _one(got, "preference of")
        return str(f.value), [f]
    if kind == "holding":  # what the person drawn as entity SUBJECT holds at AT (a picture's state)
        if prop["person"] != person:  # the cast person the picture log draws
            raise NoAnswer("holding: another person")
        at = dt.datetime.fromisoformat(prop["at"])
        got = [
            f
            for f in facts
            if f.subject == prop["subject"] and f.object == prop["key"] and f.at and f.at <= at
        ]
        if not got:
            raise NoAnswer("holding: no state")
        f = max(got, key=lambda f: f.at or at)
        return str(f.value), [f]
    raise NoAnswer(f"unknown property {kind!r}")


def depicted(world: World, entity: str) -> str | None:
    """The cast person an entity draws (a picture log's drawn person: its ``draws.person.cast``)."""
    try:
        draws = json.loads(world.entity(entity).attrs.get("draws", "{}"))
    except (KeyError, ValueError):
        return None
    person = draws.get("person") if isinstance(draws, dict) else None
    return person.get("cast") if isinstance(person, dict) else None


def _run(facts: list[Fact], name: Callable[[str], str], args: Mapping) -> tuple[str, list[str]]:
    b, p = args["bridge"], args["property"]
    if b["kind"] in DATE_BRIDGES:  # a moment, then what a picture showed by then or came next
        when, read_b = bridge_moment(facts, b)
        if p["kind"] == "held_before":
            answer, read_p = _state_then(facts, when, p)
        else:
            answer, read_p = places.first_after(facts, name, when, p)
        return answer, [f.id for f in (*read_b, *read_p)]
    if b["kind"] in places.PLACE_BRIDGES:  # a place, then what another family says of it
        where, read_b = places.place_of(facts, name, b)
        answer, read_p = places.at_place(facts, name, where, p)
        return answer, [f.id for f in (*read_b, *read_p)]
    person, read_b = bridge_person(facts, args["bridge"])
    answer, read_p = _property(facts, name, person, args["property"])
    return answer, [f.id for f in (*read_b, *read_p)]


def run_program(world: World, facts: list[Fact], args: Mapping) -> tuple[str, list[str]]:
    """(answer, fact ids read) of a cross program on ``facts`` (of ``world``); ``NoAnswer`` else."""
    return _run(facts, Lexicon(world).name, args)


@program
def cross(view: FactView, args: dict[str, Any]) -> str:
    """The cross program as the symbolic answerer runs it (``validators/solver.py``: on the facts
    an item's evidence expresses)."""
    facts = [f for fs in view.by_kind.values() for f in fs]
    answer, read = _run(facts, view.lexicon.name, args)
    view.mark(f for f in facts if f.id in read)
    return answer
