"""Hand-written fact helpers shared by the oracle tests (``tests/test_program_oracles*.py``).

Nothing here runs a program's logic: it only spells facts, a lexicon and a view, so every
expected answer in those tests is worked out by hand from facts written in the test itself.
"""

from __future__ import annotations

import datetime as dt

from mnemoforge.generators.questions.programs import FactView, run_program
from mnemoforge.generators.smm.world import CODE
from mnemoforge.schemas.theme import AppearanceSpec, Outfit, VoiceSpec
from mnemoforge.schemas.world import Fact, Person

NAMES = {
    "ana": "Ana",
    "bo": "Bo",
    "cy": "Cy",
    "dee": "Dee",
    "park": "the park",
    "pier": "the pier",
    "kite": "the red kite",
    "flask": "the tin flask",
    "p1": "Project Heron",
    "p2": "Project Ibis",
    "m1": "the Monday review",
}


class _Lex:
    """The lexicon a program sees: entity id -> surface name (hand-written, no World needed)."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = dict(names)

    def name(self, entity: str) -> str:
        return self.names[entity]


def view(*facts: Fact) -> FactView:
    return FactView(facts, _Lex(NAMES))  # type: ignore[arg-type]


def at(month: int, day: int = 1, hour: int = 12) -> dt.datetime:
    return dt.datetime(2025, month, day, hour)


def F(fid: str, kind: str, s: str, o: str, v: str | None = None, ev: str | None = None, when=None) -> Fact:  # noqa: N802
    return Fact(id=fid, kind=kind, subject=s, object=o, value=v, event=ev, at=when)  # type: ignore[arg-type]


def event(eid: str, activity: str, month: int, place: str, people: list[str], day: int = 3) -> list[Fact]:
    """Hand-written facts of one event: its activity, place and attendance."""
    when = at(month, day)
    out = [F(f"{eid}_act", "activity", eid, activity, ev=eid, when=when)]
    out.append(F(f"{eid}_at", "at_place", eid, place, ev=eid, when=when))
    out += [F(f"{eid}_att_{p}", "attended", p, eid, ev=eid, when=when) for p in people]
    return out


def coded(entity: str, code: str) -> Fact:
    """The record-code fact an smm entity's attributes are filed under."""
    return F(f"{entity}_code", "attribute", entity, CODE, code)


def run(name: str, v: FactView, **args) -> str:
    return run_program(name, v, args)


def person(pid: str, name: str) -> Person:
    """A World person with a fixed look and voice (only the id and name matter to a program)."""
    return Person(
        id=pid,
        name=name,
        role="friend",
        gender="female",
        age=30,
        appearance=AppearanceSpec(
            face_shape="oval",
            skin_tone="#a0704a",
            hair_style="short",
            hair_color="#202020",
            eye_color="#402010",
            signature_outfit=Outfit(
                id="o1", label="a grey shirt", top_style="shirt", top_color="#808080", bottom_color="#202040"
            ),
        ),  # fmt: skip
        voice=VoiceSpec(),
    )
