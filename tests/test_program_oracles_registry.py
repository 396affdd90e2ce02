"""Oracles for the shared program registry (``generators/questions/programs.py``): the World's
lexicon, the read-recording view and its forks, the registry's lazy import of other families.

The World and facts are written by hand here; the expected names, hits and read sets too.
"""

from __future__ import annotations

import datetime as dt
import sys

import pytest

import mnemoforge.generators.memeye as memeye_pkg
from mnemoforge.generators.families import import_program_modules
from mnemoforge.generators.memeye import programs as memeye_programs
from mnemoforge.generators.questions import programs as registry
from mnemoforge.generators.questions.programs import FactView, Lexicon, run_program
from mnemoforge.schemas.world import Entity, Place, World, WorldObject
from tests.oracle_facts import F, person, view


def small_world() -> World:
    return World(
        theme="t", seed=1, start=dt.date(2025, 1, 1), end=dt.date(2025, 12, 31), protagonist="ana",
        people=[person("ana", "Ana"), person("bo", "Bo")], relations=[],
        places=[Place(id="pier", name="the pier", kind="outdoor", indoor=False)],
        objects=[WorldObject(id="kite", name="the red kite", color="#c02020")],
        entities=[Entity(id="p1", name="Project Heron", kind="project")],
        events=[], facts=[],
    )  # fmt: skip


def test_lexicon_names_every_kind_of_entity() -> None:
    lex = Lexicon(small_world())
    assert [lex.name(e) for e in ("ana", "bo", "pier", "kite", "p1")] == [
        "Ana", "Bo", "the pier", "the red kite", "Project Heron",
    ]  # fmt: skip
    with pytest.raises(KeyError):
        lex.name("nobody")


def test_find_filters_by_subject_object_and_event_and_records_reads() -> None:
    facts = [
        F("h1", "habit", "ana", "swims"),
        F("h2", "habit", "ana", "reads"),
        F("h3", "habit", "bo", "swims"),
        F("b1", "brought", "ana", "kite", ev="e1"),
        F("b2", "brought", "ana", "kite", ev="e2"),
    ]
    v = view(*facts)
    assert [f.id for f in v.find("habit", subject="ana")] == ["h1", "h2"]
    assert [f.id for f in v.find("habit", obj="swims")] == ["h1", "h3"]
    assert [f.id for f in v.find("brought", event="e2")] == ["b2"]
    assert v.read == {"h1", "h2", "h3", "b2"}
    assert v.find("habit", subject="cy") == [] and v.of_kind("nothing") == []
    assert [f.id for f in v.of_kind("brought")] == [
        "b1",
        "b2",
    ] and "b1" not in v.read  # searching reads nothing


def test_fork_shares_the_index_and_memo_but_not_the_reads() -> None:
    v = view(F("h1", "habit", "ana", "swims"), F("h2", "habit", "bo", "reads"))
    v.find("habit", subject="ana")
    v.memo["k"] = 1
    f = v.fork()
    assert isinstance(f, FactView) and f.read == set() and f.memo is v.memo and f.lexicon is v.lexicon
    assert [x.id for x in f.find("habit", subject="bo")] == ["h2"]
    assert (f.read, v.read) == ({"h2"}, {"h1"})


def test_run_program_imports_a_family_whose_programs_are_not_registered_yet(monkeypatch) -> None:
    import_program_modules()  # every other family is registered for real before the swap, and stays so
    name = "mnemoforge.generators.memeye.programs"
    mine = {k: fn for k, fn in registry.PROGRAMS.items() if fn.__module__ != name}
    monkeypatch.setattr(registry, "PROGRAMS", mine)  # as if the memeye family was never imported
    monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(memeye_pkg, "programs", memeye_programs)  # restored after the re-import
    facts = [F("s1.k", "attribute", "s1", "colour", "teal")]
    assert run_program("visual_attr", view(*facts), {"scene": "s1", "key": "colour"}) == "teal"
    assert "visual_attr" in mine
    with pytest.raises(KeyError, match="unknown program 'no_such_program'"):
        run_program("no_such_program", view(), {})
