"""The LoCoMo export's words about the World: fact sentences, event and session summaries, the
temporal (2) and adversarial (5) questions, and appearance references rephrased by name.

Everything here is rendered from World records (people, places, objects, events, facts); the
only fixed words are sentence frames ("brought", "went for", "had a conversation on"), as in
the question templates. A LoCoMo *sample* is the protagonist and one interlocutor; its sessions
are the events the interlocutor attended (see :mod:`.locomo`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from mnemoforge.dates import month_name
from mnemoforge.schemas.world import Event, Fact, World

NOT_MENTIONED = "Not mentioned in the conversation"
"""The reply LoCoMo's scorer accepts for an adversarial question (it checks for 'not mentioned')."""


class SessionEvent(NamedTuple):
    """One session of a sample: its number, the event, and the dia_id of its first image turn."""

    number: int
    event: Event
    first_image: str
    image_of: dict[str, str]  # person id -> dia_id of the first image turn showing them


def locomo_date(d: dt.date | dt.datetime) -> str:
    """LoCoMo's answer/summary date style: ``7 May 2023``."""
    return f"{d.day} {month_name(d)} {d.year}"


def summary_date(d: dt.date | dt.datetime) -> str:
    """LoCoMo's event_summary ``date`` style: ``8 May, 2023``."""
    return f"{d.day} {month_name(d)}, {d.year}"


def _name(world: World, pid: str) -> str:
    try:
        return world.person(pid).name
    except KeyError:
        return pid


def _place(world: World, pid: str) -> str:
    try:
        return world.place(pid).name
    except KeyError:
        return pid


def _object(world: World, oid: str) -> str:
    try:
        return world.object(oid).name
    except KeyError:
        return oid


def fact_sentence(world: World, fact: Fact) -> str | None:
    """One fact as a sentence (None for kinds a conversation already shows, names and activities,
    and for a fact whose event is not in the World)."""
    try:
        return _sentence(world, fact)
    except KeyError:
        return None


def _sentence(world: World, fact: Fact) -> str | None:
    s = _name(world, fact.subject)
    if fact.kind == "attended":
        e = world.event(fact.object)
        return f"{s} {e.verb} at {_place(world, e.place)} on {locomo_date(e.start)}."
    if fact.kind == "brought":
        noun = world.event(fact.event).noun if fact.event else "outing"
        return f"{s} brought the {_object(world, fact.object)} to the {noun}."
    if fact.kind == "chose":
        return f"{s} went for {fact.value} ({fact.object})."
    if fact.kind == "relation":
        return f"{_name(world, fact.object)} is {s}'s {fact.value}."
    if fact.kind == "habit":
        return f"{s} {fact.object}."
    if fact.kind == "preference":
        return f"{s}'s usual {fact.object} is {fact.value}."
    if fact.kind == "owns":
        return f"{s} owns the {_object(world, fact.object)}."
    if fact.kind == "at_place":
        return f"The {world.event(fact.subject).noun} was at {_place(world, fact.object)}."
    return None


def event_facts(world: World, event: Event) -> list[Fact]:
    """The World's facts about one event, in World order."""
    return [f for f in world.facts if f.event == event.id or f.subject == event.id]


def person_events(world: World, event: Event, person: str) -> list[str]:
    """LoCoMo ``event_summary`` entries for one speaker: what they did at the event (empty if
    they were not there)."""
    if person not in event.participants:
        return []
    others = [_name(world, p) for p in event.participants if p != person]
    with_ = f" with {_join(others)}" if others else ""
    out = [f"{_name(world, person)} {event.verb} at {_place(world, event.place)}{with_}."]
    for f in event_facts(world, event):
        if f.subject == person and f.kind in ("brought", "chose"):
            out.append(str(fact_sentence(world, f)))
    return out


def session_summary(world: World, event: Event, a: str, b: str, when: dt.datetime) -> str:
    """LoCoMo ``session_summary``: who talked when, and the event's facts in sentences."""
    hour = when.hour % 12 or 12
    clock = f"{hour}:{when.minute:02d} {'am' if when.hour < 12 else 'pm'}"
    head = f"{_name(world, a)} and {_name(world, b)} had a conversation on {locomo_date(when)} at {clock}."
    people = _join([_name(world, p) for p in event.participants])
    body = [f"{people} {event.verb} at {_place(world, event.place)} ({event.occasion}, {event.weather})."]
    for f in event_facts(world, event):
        if f.kind in ("brought", "chose"):
            body.append(str(fact_sentence(world, f)))
    return " ".join([head, *body])


def _join(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def rephrase_by_name(world: World, text: str) -> str:
    """Replace each appearance-only reference (a person's name-free description, e.g. "the
    short-haired man wearing glasses") with the person's name; descriptions two people share
    are left alone (they name nobody)."""
    by_desc: dict[str, list[str]] = {}
    for p in world.people:
        by_desc.setdefault(p.description(), []).append(p.name)
    for desc in sorted(by_desc, key=len, reverse=True):  # longest first: "... and a necklace"
        if len(by_desc[desc]) != 1:
            continue
        body = re.escape(desc.removeprefix("the "))
        text = re.sub(rf"\b[Tt]he {body}\b", by_desc[desc][0], text)
    return text


def appearance_references(world: World, text: str) -> list[str]:
    """The name-free person descriptions still in ``text`` (case-insensitive)."""
    low = text.lower()
    return [p.description() for p in world.people if p.description().lower() in low]


def temporal_items(
    world: World, protagonist: str, other: str, sessions: Iterable[SessionEvent]
) -> list[dict]:
    """LoCoMo category 2: "When did X and Y attend the <event> at <place>?" for each session whose
    (activity, place) no other session of the sample shares (so the question names one event);
    the answer is the event date in LoCoMo's style, the evidence the session's first image turn."""
    sessions = list(sessions)
    key = {s.number: (s.event.activity, s.event.place) for s in sessions}
    seen = Counter(key.values())
    out = []
    for s in sessions:
        if seen[key[s.number]] != 1:
            continue
        who = _name(world, other)
        if protagonist in s.event.participants:
            who = f"{_name(world, protagonist)} and {who}"
        out.append(
            {
                "question": f"When did {who} attend the {s.event.noun} at {_place(world, s.event.place)}?",
                "answer": locomo_date(s.event.start),
                "evidence": [s.first_image],
                "category": 2,
            }
        )
    return out


def adversarial_items(world: World, pair: tuple[str, str], sessions: Iterable[SessionEvent]) -> list[dict]:
    """LoCoMo category 5: a question about a thing that did not happen. For an event both of the
    pair attended where one brought an object and the other brought nothing, ask what the other
    brought; the trap (``adversarial_answer``) is what the first brought, and the reply LoCoMo
    scores correct is an abstention ("not mentioned")."""
    out = []
    for s in sessions:
        if not set(pair) <= set(s.event.participants):
            continue
        brought: dict[str, list[str]] = {p: [] for p in pair}
        for f in event_facts(world, s.event):
            if f.kind == "brought" and f.subject in brought:
                brought[f.subject].append(_object(world, f.object))
        for giver, asked in (pair, pair[::-1]):
            if brought[giver] and not brought[asked]:
                trap = brought[giver][0]
                evidence = s.image_of.get(giver, s.first_image)
                out.append(
                    {
                        "question": f"What did {_name(world, asked)} bring to the {s.event.noun} at "
                        f"{_place(world, s.event.place)} on {locomo_date(s.event.start)}?",
                        "adversarial_answer": trap,
                        "answer": trap,
                        "evidence": [evidence],
                        "category": 5,
                    }
                )
    return out
