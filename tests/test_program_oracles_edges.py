"""More hand-computed oracles: the edge cases the mutation check (``benchmarks/mutation.py``)
found unguarded in the icm programs, the routine, promise, plan and change programs and the smm
conflict rule.

As in ``test_program_oracles.py``, every World here is a handful of facts written in the test and
every expected answer (and read set, which becomes the item's evidence) is worked out by hand.
"""

from __future__ import annotations

import pytest

from mnemoforge.generators.icm import programs as _icm_programs  # noqa: F401  (registers)
from mnemoforge.generators.icm import routine_programs as _icm_routines  # noqa: F401  (registers)
from mnemoforge.generators.questions.programs import Unanswerable
from mnemoforge.generators.smm import programs as _smm_programs  # noqa: F401  (registers)
from mnemoforge.schemas.world import Fact
from tests.oracle_facts import F, at, coded, event, run, view


def early_bo_late_cy() -> list[Fact]:
    """Ana ran with Bo in January and February, with Cy in July, August and September."""
    return (
        event("e1", "run", 1, "park", ["ana", "bo"])
        + event("e2", "run", 2, "park", ["ana", "bo"])
        + event("e3", "run", 7, "park", ["ana", "cy"])
        + event("e4", "run", 8, "park", ["ana", "cy"])
        + event("e5", "run", 9, "park", ["ana", "cy"])
    )


def test_a_window_with_one_open_end_still_restricts() -> None:
    facts = early_bo_late_cy()
    assert run("frequent_companion", view(*facts), person="ana", activity="run") == "Cy"  # Cy 3, Bo 2
    # only an upper end: January..June, where Bo ran with Ana twice and Cy never
    assert run("frequent_companion", view(*facts), person="ana", activity="run", to_month="2025-06") == "Bo"
    picks = [
        F(f"c{m}", "chose", "bo", "drink", v, when=at(m))
        for m, v in [(1, "tea"), (2, "tea"), (3, "tea"), (7, "milk"), (8, "milk")]
    ]
    assert run("usual_choice", view(*picks), person="bo", key="drink") == "tea"  # tea 3, milk 2
    # only a lower end: July on, milk twice
    v = view(*picks)
    assert run("usual_choice", v, person="bo", key="drink", from_month="2025-07") == "milk"
    assert v.read == {"c7", "c8"}


def test_window_ends_are_inclusive_months() -> None:
    facts = early_bo_late_cy()
    # Bo's February run falls in the last month of the window: two runs with Bo
    assert (
        run("frequent_companion", view(*facts), person="ana", activity="run", from_month="2025-01",
            to_month="2025-02")
        == "Bo"
    )  # fmt: skip
    # Cy's August run falls in the first month: two runs with Cy
    assert (
        run("frequent_companion", view(*facts), person="ana", activity="run", from_month="2025-08",
            to_month="2025-09")
        == "Cy"
    )  # fmt: skip
    span = {"from_month": "2025-02", "to_month": "2025-07"}  # one run with Bo, one with Cy
    with pytest.raises(Unanswerable):
        run("frequent_companion", view(*facts), person="ana", activity="run", **span)


def test_object_brought_reads_only_the_named_events_objects() -> None:
    facts = event("e1", "picnic", 5, "park", ["ana", "bo"]) + event("e2", "picnic", 6, "pier", ["ana", "bo"])
    facts += [F("b1", "brought", "ana", "kite", ev="e1"), F("b2", "brought", "ana", "flask", ev="e2")]
    v = view(*facts)
    assert run("object_brought", v, person="ana", activity="picnic", month="2025-05") == "the red kite"
    assert v.read == {"e1_act", "e1_att_ana", "b1"}
    assert (
        run("object_brought", view(*facts), person="ana", activity="picnic", month="2025-06")
        == "the tin flask"
    )
    with pytest.raises(Unanswerable):  # Ana brought nothing in July: no such event
        run("object_brought", view(*facts), person="ana", activity="picnic", month="2025-07")


def test_choice_change_reads_only_this_persons_picks_of_this_key() -> None:
    mine = [
        F(f"c{m}", "chose", "bo", "drink", v, when=at(m))
        for m, v in [(1, "tea"), (2, "tea"), (7, "milk"), (8, "milk")]
    ]
    others = [F(f"x{m}", "chose", "cy", "drink", "milk", when=at(m)) for m in (1, 2, 3)]  # Cy's drinks
    other_key = [F(f"k{m}", "chose", "bo", "food", "soup", when=at(m)) for m in (7, 8, 9)]  # Bo's food
    v = view(*mine, *others, *other_key)
    assert run("choice_change", v, person="bo", key="drink", month="2025-06") == "from tea to milk"
    assert v.read == {"c1", "c2", "c7", "c8"}


def test_choice_change_counts_the_change_month_as_after() -> None:
    picks = [
        F("c1", "chose", "bo", "drink", "tea", when=at(1)),
        F("c2", "chose", "bo", "drink", "tea", when=at(2)),
        F("c5", "chose", "bo", "drink", "milk", when=at(5)),
        F("c6a", "chose", "bo", "drink", "milk", when=at(6, 3)),  # in the change month itself
        F("c6b", "chose", "bo", "drink", "milk", when=at(6, 20)),
        F("c8", "chose", "bo", "drink", "tea", when=at(8)),
    ]
    # before June: tea 2, milk 1 -> tea; June on: milk 2, tea 1 -> milk
    assert run("choice_change", view(*picks), person="bo", key="drink", month="2025-06") == "from tea to milk"
    undated = [*picks, F("cu", "chose", "bo", "drink", "juice")]  # no date: on neither side
    assert (
        run("choice_change", view(*undated), person="bo", key="drink", month="2025-06") == "from tea to milk"
    )


def test_next_event_is_strictly_after_the_statement() -> None:
    said = at(5, 3)
    facts = event("e1", "picnic", 5, "park", ["ana", "bo"], day=3) + [
        F("p1", "promised", "ana", "kite", "picnic", ev="e1", when=said),
    ]
    # another picnic at the very moment of the promise is not the *next* one
    facts += [
        F("e9_act", "activity", "e9", "picnic", ev="e9", when=said),
        F("e9_att_ana", "attended", "ana", "e9", ev="e9", when=said),
        F("e9_att_dee", "attended", "dee", "e9", ev="e9", when=said),
    ]
    facts += event("e2", "picnic", 5, "pier", ["ana", "cy"], day=10)
    assert run("promise_companions", view(*facts), person="ana", day="2025-05-03") == "Cy"


def test_promise_and_plan_companions_read_exactly_what_they_need() -> None:
    facts = (
        event("e1", "picnic", 5, "park", ["ana", "bo"], day=3)
        + event("e2", "picnic", 5, "pier", ["ana", "cy"], day=10)
        + event("e3", "picnic", 5, "park", ["ana", "dee"], day=20)
        + [
            F("p1", "promised", "ana", "kite", "picnic", ev="e1", when=at(5, 3)),
            F("q1", "planned", "ana", "picnic", "park", ev="e1", when=at(5, 3)),
        ]
    )
    v = view(*facts)
    # the promise names no place: the next picnic (e2), who came, and nothing about where
    assert run("promise_companions", v, person="ana", day="2025-05-03", object="kite") == "Cy"
    assert v.read == {"p1", "e2_act", "e2_att_ana", "e2_att_cy"}
    v = view(*facts)
    # the plan names the park: the next picnic *there* is e3, and its place is part of the evidence
    assert run("plan_companions", v, person="ana", day="2025-05-03") == "Dee"
    assert v.read == {"q1", "e3_act", "e3_at", "e3_att_ana", "e3_att_dee"}
    with pytest.raises(Unanswerable):  # Bo promised nothing
        run("promise_companions", view(*facts), person="bo", day="2025-05-03")


def test_latest_value_a_rumour_at_the_same_time_does_not_tie() -> None:
    official = F("p1_room_1", "attribute", "p1", "room", "C4", when=at(4))
    rumour = F("p1_room_2_r", "attribute", "p1", "room", "D9", when=at(4))  # hearsay, same moment
    v = view(coded("p1", "PRO-11"), official, rumour)
    assert run("latest_value", v, entity="p1", key="room") == "C4"  # authority first: no tie to break
    assert v.read == {"p1_code", "p1_room_1", "p1_room_2_r"}


def test_latest_value_reads_every_rumour_it_beats() -> None:
    official = F("p1_room_0", "attribute", "p1", "room", "B2", when=at(2))
    rumours = [
        F("p1_room_1_r", "attribute", "p1", "room", "D9", when=at(5)),
        F("p1_room_2_r", "attribute", "p1", "room", "E7", when=at(6)),
    ]
    v = view(coded("p1", "PRO-11"), official, *rumours)
    assert run("latest_value", v, entity="p1", key="room") == "B2"  # both rumours are later, and lose
    assert v.read == {"p1_code", "p1_room_0", "p1_room_1_r", "p1_room_2_r"}


def test_visual_latest_reads_this_scene_and_key_only() -> None:
    mine = [
        F("s1.x0", "state", "s1", "colour", "red", when=at(2)),
        F("s1.x1", "state", "s1", "colour", "green", when=at(5)),
    ]
    noise = [
        F("s2.x0", "state", "s2", "colour", "blue", when=at(7)),  # another scene, later
        F("s1.y0", "state", "s1", "size", "large", when=at(8)),  # another key of this scene, later
    ]
    v = view(*mine, *noise)
    assert run("visual_latest", v, scene="s1", key="colour") == "green"
    assert v.read == {"s1.x0", "s1.x1"}
    with pytest.raises(Unanswerable):  # one state of s2: no change to see
        run("visual_latest", view(*mine, *noise), scene="s2", key="colour")


def test_visual_latest_on_a_schedule_reads_the_last_change_only() -> None:
    states = [
        F("s1.x0", "state", "s1", "colour", "red", when=at(2)),
        F("s1.x1", "state", "s1", "colour", "green", when=at(4)),
        F("s1.x2", "state", "s1", "colour", "red", when=at(6)),  # the last change: green -> red
        F("s1.x3", "state", "s1", "colour", "red", when=at(8)),
    ]
    v = view(*reversed(states))  # stored order does not matter: time does
    assert run("visual_latest", v, scene="s1", key="colour") == "red"
    # the state just before the last change and every picture of the current state since;
    # the first red (before the green) is not needed
    assert v.read == {"s1.x1", "s1.x2", "s1.x3"}
