"""Independent oracles for every question program of every family.

Each test writes a tiny World's facts by hand and states the expected answer, worked out by hand
from those facts (never by running a program), including the edge cases a program must refuse:
ties, no evidence, stale vs updated values, an absent person. It also checks which facts the
program read, since those become the item's evidence.
"""

from __future__ import annotations

import json

import pytest

from mnemoforge.generators import cross_items as _cross  # noqa: F401  (registers)
from mnemoforge.generators.icm import change_programs as _icm_changes  # noqa: F401  (registers)
from mnemoforge.generators.icm import part_programs as _icm_parts  # noqa: F401  (registers)
from mnemoforge.generators.icm import programs as _icm_programs  # noqa: F401  (registers)
from mnemoforge.generators.icm import routine_programs as _icm_routines  # noqa: F401  (registers)
from mnemoforge.generators.memeye import programs as _memeye_programs  # noqa: F401  (registers)
from mnemoforge.generators.questions.programs import PROGRAMS, Unanswerable, join_names
from mnemoforge.generators.smm import programs as _smm_programs  # noqa: F401  (registers)
from mnemoforge.schemas.world import Fact
from tests.oracle_facts import F, at, coded, event, run, view


def test_every_registered_program_has_an_oracle_here() -> None:
    covered = {
        "event_companions", "object_brought", "meeting_place", "count_events", "frequent_companion",
        "who_brought", "usual_choice", "habit_of", "relation_to", "animal_along", "part_shown",
        "usual_place", "shared_activity", "count_together", "choice_change", "promised_item",
        "planned_place", "promise_companions", "plan_companions", "usual_activity", "closest_companion",
        "count_brought", "usual_weekday", "cross",
        "companion_change", "closest_change", "place_change", "activity_change",
        "pair_weekday", "weekday_activity", "weekday_change",  # tests/test_weekday_programs.py
        "entity_value", "member_attribute", "member_lead_profile", "latest_value", "member_latest_value",
        "preference_of", "function_call",
        "visual_attr", "visual_pair", "visual_pair_mixed", "visual_total", "visual_latest",
    }  # fmt: skip
    missing = set(PROGRAMS) - covered
    assert not missing, f"programs without a hand-computed oracle: {sorted(missing)}"


# ---------------------------------------------------------------- icm ---------------------------


def test_event_companions_lists_the_others_sorted_and_not_the_person() -> None:
    facts = event("e1", "hike", 5, "park", ["ana", "cy", "bo"]) + event(
        "e2", "hike", 6, "park", ["ana", "dee"]
    )
    v = view(*facts)
    assert (
        run("event_companions", v, person="ana", activity="hike", month="2025-05", place="park")
        == "Bo and Cy"
    )
    assert v.read == {"e1_act", "e1_att_ana", "e1_at", "e1_att_bo", "e1_att_cy"}


def test_event_companions_refuses_two_matching_events_and_a_lone_attendee() -> None:
    facts = event("e1", "hike", 5, "park", ["ana", "bo"], day=3) + event(
        "e2", "hike", 5, "park", ["ana"], day=20
    )
    with pytest.raises(Unanswerable):  # two hikes in May at the park: which one?
        run("event_companions", view(*facts), person="ana", activity="hike", month="2025-05", place="park")
    alone = event("e3", "hike", 7, "park", ["ana"])
    with pytest.raises(Unanswerable):  # nobody else came
        run("event_companions", view(*alone), person="ana", activity="hike", month="2025-07", place="park")
    with pytest.raises(Unanswerable):  # a person who was not there
        run("event_companions", view(*facts), person="dee", activity="hike", month="2025-05", place="park")


def test_object_brought_names_the_persons_object_only() -> None:
    facts = event("e1", "picnic", 4, "pier", ["ana", "bo"])
    facts += [F("b1", "brought", "ana", "kite", ev="e1"), F("b2", "brought", "bo", "flask", ev="e1")]
    assert (
        run("object_brought", view(*facts), person="ana", activity="picnic", month="2025-04")
        == "the red kite"
    )
    assert (
        run("object_brought", view(*facts), person="bo", activity="picnic", month="2025-04")
        == "the tin flask"
    )
    two = facts + [F("b3", "brought", "ana", "flask", ev="e1")]
    with pytest.raises(Unanswerable):
        run("object_brought", view(*two), person="ana", activity="picnic", month="2025-04")


def test_meeting_place_needs_both_people_at_one_event() -> None:
    facts = event("e1", "lunch", 3, "pier", ["ana", "bo"]) + event("e2", "lunch", 3, "park", ["ana", "cy"])
    assert (
        run("meeting_place", view(*facts), person="ana", other="bo", activity="lunch", month="2025-03")
        == "the pier"
    )
    assert (
        run("meeting_place", view(*facts), person="cy", other="ana", activity="lunch", month="2025-03")
        == "the park"
    )
    with pytest.raises(Unanswerable):
        run("meeting_place", view(*facts), person="bo", other="cy", activity="lunch", month="2025-03")


def test_count_events_counts_inclusive_month_range_of_the_persons_events() -> None:
    facts = (
        event("e1", "swim", 2, "park", ["ana"])
        + event("e2", "swim", 3, "park", ["ana", "bo"])
        + event("e3", "swim", 5, "pier", ["ana"])
        + event("e4", "swim", 3, "pier", ["bo"])  # not Ana's
        + event("e5", "hike", 3, "park", ["ana"])  # another activity
    )
    assert (
        run(
            "count_events",
            view(*facts),
            person="ana",
            activity="swim",
            from_month="2025-02",
            to_month="2025-05",
        )
        == "3"
    )
    v = view(*facts)
    assert (
        run("count_events", v, person="ana", activity="swim", from_month="2025-03", to_month="2025-05") == "2"
    )
    assert v.read == {"e2_act", "e3_act", "e2_att_ana", "e3_att_ana"}
    with pytest.raises(Unanswerable):  # one event is not a cross-episode count
        run(
            "count_events",
            view(*facts),
            person="ana",
            activity="swim",
            from_month="2025-05",
            to_month="2025-06",
        )


def test_count_events_at_a_place_counts_there_only_and_reads_the_places() -> None:
    facts = (
        event("e1", "swim", 2, "park", ["ana"])
        + event("e2", "swim", 3, "park", ["ana", "bo"])
        + event("e3", "swim", 4, "pier", ["ana"])  # another place
        + event("e4", "swim", 4, "park", ["bo"])  # not Ana's
    )
    span = {"from_month": "2025-02", "to_month": "2025-05"}
    v = view(*facts)
    assert run("count_events", v, person="ana", activity="swim", place="park", **span) == "2"  # e1, e2
    assert v.read == {"e1_act", "e2_act", "e1_att_ana", "e2_att_ana", "e1_at", "e2_at"}
    with pytest.raises(Unanswerable):  # one swim at the pier
        run("count_events", view(*facts), person="ana", activity="swim", place="pier", **span)


def test_frequent_companion_needs_a_unique_maximum_of_at_least_two() -> None:
    facts = (
        event("e1", "run", 1, "park", ["ana", "bo", "cy"])
        + event("e2", "run", 2, "park", ["ana", "bo"])
        + event("e3", "run", 3, "park", ["ana", "cy", "bo"])
    )
    assert run("frequent_companion", view(*facts), person="ana", activity="run") == "Bo"  # Bo 3, Cy 2
    tie = event("e1", "run", 1, "park", ["ana", "bo", "cy"]) + event(
        "e2", "run", 2, "park", ["ana", "bo", "cy"]
    )
    with pytest.raises(Unanswerable):
        run("frequent_companion", view(*tie), person="ana", activity="run")
    once = event("e1", "run", 1, "park", ["ana", "bo"])
    with pytest.raises(Unanswerable):  # seen only once
        run("frequent_companion", view(*once), person="ana", activity="run")


def test_who_brought_binds_the_face_to_a_heard_name() -> None:
    facts = event("e1", "party", 8, "pier", ["ana", "dee"]) + [
        F("b1", "brought", "dee", "kite", ev="e1"),
        F("n1", "name", "dee", "Dee"),
        F("n2", "name", "ana", "Ana"),
    ]
    v = view(*facts)
    assert run("who_brought", v, object="kite", activity="party", month="2025-08") == "Dee"
    assert run("who_brought", view(*facts), object="kite", activity="party", day="2025-08-03") == "Dee"
    # the holder's face and every other face present were bound to a heard name
    assert {"b1", "e1_act", "n1", "n2", "e1_att_ana", "e1_att_dee"} <= v.read
    unnamed = [f for f in facts if f.kind != "name"]
    with pytest.raises(Unanswerable):  # the name is never heard
        run("who_brought", view(*unnamed), object="kite", activity="party", month="2025-08")
    with pytest.raises(Unanswerable):  # Ana's face was never named: which face is Dee is open
        run("who_brought", view(*facts[:-1]), object="kite", activity="party", month="2025-08")
    with pytest.raises(Unanswerable):  # no event of that day
        run("who_brought", view(*facts), object="kite", activity="party", day="2025-08-04")
    alone = event("e2", "party", 9, "pier", ["dee"]) + [F("b2", "brought", "dee", "kite", ev="e2"), facts[-2]]
    with pytest.raises(Unanswerable):  # one face: nothing to tell apart
        run("who_brought", view(*alone), object="kite", activity="party", month="2025-09")


def test_animal_along_names_the_one_animal_of_the_species_by_its_heard_name() -> None:
    facts = event("e1", "drill", 1, "hut", ["ana", "gian"]) + [
        F("w1", "accompanied", "rocco", "e1", v="dog", ev="e1"),
        F("w2", "accompanied", "mia", "e1", v="cat", ev="e1"),
        F("n1", "name", "rocco", "Rocco"),
    ]
    args = {"person": "ana", "activity": "drill", "month": "2025-01", "place": "hut"}
    assert run("animal_along", view(*facts), species="dog", **args) == "Rocco"
    with pytest.raises(Unanswerable):  # the cat's name is never heard
        run("animal_along", view(*facts), species="cat", **args)
    two = [*facts, F("w3", "accompanied", "bella", "e1", v="dog", ev="e1"), F("n3", "name", "bella", "Bella")]
    with pytest.raises(Unanswerable):  # two dogs came: "which dog" has no one answer
        run("animal_along", view(*two), species="dog", **args)
    with pytest.raises(Unanswerable):  # no such event that month
        run("animal_along", view(*facts), species="dog", **{**args, "month": "2025-02"})


def test_part_shown_reads_the_value_the_part_showed_at_that_event() -> None:
    facts = event("e1", "round", 9, "office", ["ana", "bo"], day=8)
    facts += event("e2", "round", 9, "office", ["ana"], day=18)
    facts += [
        F("s1", "shows", "board", "label", v="2", ev="e1", when=at(9, 8)),
        F("s2", "shows", "board", "label", v="5", ev="e2", when=at(9, 18)),
        F("s3", "shows", "chart", "marked", v="Fish Quay", ev="e2", when=at(9, 18)),
    ]
    v = view(*facts)
    assert run("part_shown", v, person="bo", activity="round", day="2025-09-08", object="board") == "2"
    assert v.read == {"e1_act", "e1_att_bo", "s1"}  # the event, and the value seen in its shot
    second = {"person": "ana", "activity": "round", "day": "2025-09-18"}
    assert run("part_shown", view(*facts), object="board", **second) == "5"
    assert run("part_shown", view(*facts), object="chart", **second) == "Fish Quay"
    with pytest.raises(Unanswerable):  # the chart was not shown at the first round
        run("part_shown", view(*facts), person="bo", activity="round", day="2025-09-08", object="chart")
    with pytest.raises(Unanswerable):  # Bo was not at the second round
        run("part_shown", view(*facts), person="bo", activity="round", day="2025-09-18", object="board")


def test_usual_choice_is_the_clear_majority() -> None:
    picks = [
        F(f"c{i}", "chose", "bo", "drink", v) for i, v in enumerate(["tea", "coffee", "tea", "juice", "tea"])
    ]
    assert run("usual_choice", view(*picks), person="bo", key="drink") == "tea"
    tie = [F(f"c{i}", "chose", "bo", "drink", v) for i, v in enumerate(["tea", "coffee", "tea", "coffee"])]
    with pytest.raises(Unanswerable):
        run("usual_choice", view(*tie), person="bo", key="drink")
    with pytest.raises(Unanswerable):  # one choice is no habit
        run("usual_choice", view(picks[0]), person="bo", key="drink")


def test_habit_and_relation_read_the_stated_fact() -> None:
    facts = [F("h1", "habit", "cy", "cycles to work"), F("r1", "relation", "bo", "ana", "sister")]
    assert run("habit_of", view(*facts), person="cy", habit="cycles to work") == "cycles to work"
    assert run("relation_to", view(*facts), person="bo", other="ana") == "sister"
    with pytest.raises(Unanswerable):
        run("habit_of", view(*facts), person="ana", habit="cycles to work")
    with pytest.raises(Unanswerable):  # the reverse relation was never stated
        run("relation_to", view(*facts), person="ana", other="bo")


def test_join_names_is_sorted_and_deduplicated() -> None:
    assert join_names(["Cy", "Ana", "Bo", "Ana"]) == "Ana, Bo and Cy"
    assert join_names(["Dee"]) == "Dee"


# ---------------------------------------------------------------- smm ---------------------------


def test_entity_value_needs_the_record_code_and_one_value() -> None:
    facts = [coded("p1", "PRO-11"), F("p1_room", "attribute", "p1", "room", "B2", when=at(2))]
    v = view(*facts)
    assert run("entity_value", v, entity="p1", key="room") == "B2"
    assert v.read == {"p1_code", "p1_room"}
    with pytest.raises(Unanswerable):  # the value without its code
        run("entity_value", view(facts[1]), entity="p1", key="room")
    two = facts + [F("p1_room2", "attribute", "p1", "room", "C4", when=at(3))]
    with pytest.raises(Unanswerable):  # two different values: a single-hop item cannot pick
        run("entity_value", view(*two), entity="p1", key="room")


def test_entity_value_shows_person_valued_attributes_by_name() -> None:
    facts = [coded("p2", "PRO-22"), F("p2_lead", "attribute", "p2", "lead", "cy")]
    assert run("entity_value", view(*facts), entity="p2", key="lead") == "Cy"


def test_member_attribute_and_lead_profile_follow_the_hops() -> None:
    facts = [
        F("m_ana", "member", "ana", "p1", "project"),
        F("m_bo", "member", "bo", "p2", "project"),
        coded("p1", "PRO-11"),
        coded("p2", "PRO-22"),
        F("p1_budget", "attribute", "p1", "budget", "4000"),
        F("p2_budget", "attribute", "p2", "budget", "9000"),
        F("p1_lead", "attribute", "p1", "lead", "dee"),
        F("dee_city", "attribute", "dee", "city", "Porto"),
    ]
    assert run("member_attribute", view(*facts), person="ana", kind="project", key="budget") == "4000"
    assert run("member_attribute", view(*facts), person="bo", kind="project", key="budget") == "9000"
    v = view(*facts)
    assert run("member_lead_profile", v, person="ana", kind="project", via="lead", key="city") == "Porto"
    assert v.read == {"m_ana", "p1_code", "p1_lead", "dee_city"}
    with pytest.raises(Unanswerable):  # a person with no project
        run("member_attribute", view(*facts), person="cy", kind="project", key="budget")


def test_latest_value_authority_then_recency() -> None:
    stale = F("p1_room_0", "attribute", "p1", "room", "B2", when=at(2))
    update = F("p1_room_1", "attribute", "p1", "room", "C4", when=at(4))
    rumour = F("p1_room_2_r", "attribute", "p1", "room", "D9", when=at(6))  # later, but hearsay
    v = view(coded("p1", "PRO-11"), stale, update)
    assert run("latest_value", v, entity="p1", key="room") == "C4"
    assert v.read == {"p1_code", "p1_room_0", "p1_room_1"}  # the answer and the stale value it beats
    v = view(coded("p1", "PRO-11"), stale, update, rumour)
    assert run("latest_value", v, entity="p1", key="room") == "C4"  # a rumour never wins
    assert v.read == {"p1_code", "p1_room_1", "p1_room_2_r"}  # the answer and the rumour it beats
    with pytest.raises(Unanswerable):  # no conflict visible
        run("latest_value", view(coded("p1", "PRO-11"), update), entity="p1", key="room")
    # relaxed (the single_source gate): the current value alone is enough
    assert (
        run("latest_value", view(coded("p1", "PRO-11"), update), entity="p1", key="room", relaxed=True)
        == "C4"
    )
    same_time = F("p1_room_x", "attribute", "p1", "room", "E1", when=at(4))
    with pytest.raises(Unanswerable):
        run("latest_value", view(coded("p1", "PRO-11"), stale, update, same_time), entity="p1", key="room")


def test_member_latest_value_goes_through_membership() -> None:
    facts = [
        F("m_bo", "member", "bo", "p2", "project"),
        coded("p2", "PRO-22"),
        F("p2_due_0", "attribute", "p2", "due", "2025-03-01", when=at(1)),
        F("p2_due_1", "attribute", "p2", "due", "2025-04-15", when=at(2)),
    ]
    assert run("member_latest_value", view(*facts), person="bo", kind="project", key="due") == "2025-04-15"


def test_preference_of_needs_support_and_a_unique_top() -> None:
    picks = [
        F(f"c{i}", "chose", "ana", "seat", v) for i, v in enumerate(["aisle", "window", "aisle", "aisle"])
    ]
    assert run("preference_of", view(*picks), person="ana", key="seat", support=3) == "aisle"
    with pytest.raises(Unanswerable):  # three aisle picks do not reach a support of 4
        run("preference_of", view(*picks), person="ana", key="seat", support=4)
    tie = [F(f"c{i}", "chose", "ana", "seat", v) for i, v in enumerate(["aisle", "window"])]
    with pytest.raises(Unanswerable):
        run("preference_of", view(*tie), person="ana", key="seat", support=1, relaxed=True)


def test_function_call_gathers_typed_arguments_from_the_world() -> None:
    facts = [
        F("m_ana", "member", "ana", "m1", "meeting"),
        coded("m1", "MTG-3"),
        F("m1_room", "attribute", "m1", "room", "B2"),
        F("m_bo", "member", "bo", "m1", "meeting"),
        F("c1", "chose", "ana", "seat", "aisle"),
        F("c2", "chose", "ana", "seat", "aisle"),
    ]
    steps = [
        {
            "tool": "book_room",
            "bindings": {"who": "person", "room": "meeting.room", "title": "meeting.name",
                         "guests": "meeting.members", "seat": "preference.seat"},
            "types": {"who": "string", "room": "string", "title": "string",
                      "guests": "array", "seat": "string"},
        }
    ]  # fmt: skip
    got = json.loads(
        run("function_call", view(*facts), person="ana", subject="meeting", steps=steps, support=2)
    )
    assert got == [
        {
            "step": 1,
            "calls": [
                {
                    "name": "book_room",
                    "arguments": {"who": "Ana", "room": "B2", "title": "the Monday review",
                                  "guests": ["Ana", "Bo"], "seat": "aisle"},
                }
            ],
        }
    ]  # fmt: skip


# ---------------------------------------------------------------- memeye ------------------------


def test_visual_programs_read_stable_facts() -> None:
    facts = [
        F("s1.a", "attribute", "s1", "gist", "a workshop"),
        F("s2.a", "attribute", "s2", "gist", "a pantry"),
        F("s1.c", "attribute", "s1", "count", "4"),
        F("s2.c", "attribute", "s2", "count", "7"),
        F("s2.k", "attribute", "s2", "colour", "teal"),
    ]
    assert run("visual_attr", view(*facts), scene="s2", key="colour") == "teal"
    assert run("visual_pair", view(*facts), scenes=["s2", "s1"], key="gist") == "a pantry / a workshop"
    assert (
        run("visual_pair_mixed", view(*facts), scenes=["s1", "s2"], keys=["gist", "colour"])
        == "a workshop / teal"
    )
    assert run("visual_total", view(*facts), scenes=["s1", "s2"], key="count") == "11"
    with pytest.raises(Unanswerable):
        run("visual_pair", view(*facts), scenes=["s1", "s1"], key="gist")
    with pytest.raises(Unanswerable):  # the colour of s1 is never shown
        run("visual_attr", view(*facts), scene="s1", key="colour")


def test_visual_latest_is_the_newest_of_two_states() -> None:
    old = F("s1.x0", "state", "s1", "colour", "red", when=at(2))
    new = F("s1.x1", "state", "s1", "colour", "green", when=at(5))
    assert run("visual_latest", view(new, old), scene="s1", key="colour") == "green"
    with pytest.raises(Unanswerable):  # the change is not visible without the stale picture
        run("visual_latest", view(new), scene="s1", key="colour")


# ------------------------------------------------- edge cases the mutation check asked for -------


def test_frequent_companion_counts_only_the_persons_own_events() -> None:
    facts = (
        event("e1", "run", 1, "park", ["ana", "bo"])
        + event("e2", "run", 2, "park", ["ana", "bo"])
        + event("e3", "run", 3, "park", ["cy", "dee"])  # Ana was not there: Cy and Dee do not count
        + event("e4", "run", 4, "park", ["cy", "dee"])
        + event("e5", "run", 5, "park", ["cy", "dee"])
    )
    assert run("frequent_companion", view(*facts), person="ana", activity="run") == "Bo"


def test_usual_choice_reads_only_this_persons_choices_of_this_key() -> None:
    mine = [F("c1", "chose", "bo", "drink", "tea"), F("c2", "chose", "bo", "drink", "tea")]
    others = [F(f"x{i}", "chose", "cy", "drink", "coffee") for i in range(5)]
    other_key = [F(f"k{i}", "chose", "bo", "food", "soup") for i in range(5)]
    v = view(*mine, *others, *other_key)
    assert run("usual_choice", v, person="bo", key="drink") == "tea"  # exactly two picks suffice
    assert v.read == {"c1", "c2"}
    two_to_one = mine + [F("c3", "chose", "bo", "drink", "juice")]
    assert run("usual_choice", view(*two_to_one), person="bo", key="drink") == "tea"


def test_latest_value_reads_every_stale_value_and_ties_on_two() -> None:
    vals = [
        F("r0", "attribute", "p1", "room", "A1", when=at(1)),
        F("r1", "attribute", "p1", "room", "B2", when=at(2)),
        F("r2", "attribute", "p1", "room", "C3", when=at(3)),
    ]
    v = view(coded("p1", "PRO-11"), *vals)
    assert run("latest_value", v, entity="p1", key="room") == "C3"
    assert v.read == {"p1_code", "r0", "r1", "r2"}  # the answer and both values it beats
    twin = [vals[2], F("r3", "attribute", "p1", "room", "D4", when=at(3))]
    with pytest.raises(Unanswerable):  # two official values at the same time
        run("latest_value", view(coded("p1", "PRO-11"), *twin), entity="p1", key="room", relaxed=True)
    undated = [F("u0", "attribute", "p1", "room", "Z9"), vals[0]]  # no time: older than any dated value
    assert run("latest_value", view(coded("p1", "PRO-11"), *undated), entity="p1", key="room") == "A1"


def test_member_latest_value_relaxed_needs_no_stale_value() -> None:
    facts = [
        F("m_bo", "member", "bo", "p2", "project"),
        coded("p2", "PRO-22"),
        F("p2_due_1", "attribute", "p2", "due", "2025-04-15", when=at(2)),
    ]
    with pytest.raises(Unanswerable):
        run("member_latest_value", view(*facts), person="bo", kind="project", key="due")
    assert (
        run("member_latest_value", view(*facts), person="bo", kind="project", key="due", relaxed=True)
        == "2025-04-15"
    )


def test_preference_relaxed_takes_one_choice_and_ignores_other_people() -> None:
    one = [F("c1", "chose", "ana", "seat", "window")]
    noise = [F(f"n{i}", "chose", "bo", "seat", "aisle") for i in range(3)]
    noise += [F(f"m{i}", "chose", "ana", "meal", "aisle") for i in range(3)]
    assert (
        run("preference_of", view(*one, *noise), person="ana", key="seat", support=3, relaxed=True)
        == "window"
    )
    with pytest.raises(Unanswerable):
        run("preference_of", view(*one, *noise), person="ana", key="seat", support=3)


def test_function_call_profile_and_relaxed_preference_bindings() -> None:
    facts = [
        F("ana_city", "attribute", "ana", "city", "Porto"),  # a profile card value (no record code)
        F("c1", "chose", "ana", "seat", "window"),
    ]
    steps = [
        {
            "tool": "book_trip",
            "bindings": {"city": "profile.city", "seat": "preference.seat"},
            "types": {"city": "string", "seat": "string"},
        }
    ]
    args = {"person": "ana", "subject": "trip", "steps": steps, "support": 2}
    with pytest.raises(Unanswerable):  # one choice does not reach a support of 2
        run("function_call", view(*facts), **args)
    got = json.loads(run("function_call", view(*facts), **args, relaxed=True))
    assert got == [
        {"step": 1, "calls": [{"name": "book_trip", "arguments": {"city": "Porto", "seat": "window"}}]}
    ]


# ------------------------------------------- routines, promises, plans, change over time -------


def test_event_programs_name_the_event_by_day() -> None:
    facts = event("e1", "hike", 5, "park", ["ana", "bo"], day=3) + event(
        "e2", "hike", 5, "pier", ["ana", "cy"], day=17
    )
    with pytest.raises(Unanswerable):  # two May hikes: the month does not pick one
        run("event_companions", view(*facts), person="ana", activity="hike", month="2025-05", place=None)
    assert (
        run("event_companions", view(*facts), person="ana", activity="hike", day="2025-05-17", place=None)
        == "Cy"
    )
    assert (
        run("meeting_place", view(*facts), person="ana", other="bo", activity="hike", day="2025-05-03")
        == "the park"
    )


def test_windows_restrict_companion_and_choice_to_their_months() -> None:
    facts = (
        event("e1", "run", 1, "park", ["ana", "bo"])
        + event("e2", "run", 2, "park", ["ana", "bo"])
        + event("e3", "run", 7, "park", ["ana", "cy"])
        + event("e4", "run", 8, "park", ["ana", "cy"])
        + event("e5", "run", 9, "park", ["ana", "cy"])
    )
    assert run("frequent_companion", view(*facts), person="ana", activity="run") == "Cy"  # 3 vs 2
    early = {"from_month": "2025-01", "to_month": "2025-06"}
    assert run("frequent_companion", view(*facts), person="ana", activity="run", **early) == "Bo"
    picks = [
        F(f"c{m}", "chose", "bo", "drink", v, when=at(m))
        for m, v in [(1, "tea"), (2, "tea"), (7, "milk"), (8, "milk"), (9, "milk")]
    ]
    assert run("usual_choice", view(*picks), person="bo", key="drink") == "milk"
    assert run("usual_choice", view(*picks), person="bo", key="drink", **early) == "tea"
    with pytest.raises(Unanswerable):  # one pick in the window
        run("usual_choice", view(*picks), person="bo", key="drink", from_month="2025-02", to_month="2025-06")


def test_choice_change_needs_two_different_clear_majorities() -> None:
    picks = [
        F(f"c{m}", "chose", "bo", "drink", v, when=at(m))
        for m, v in [(1, "tea"), (2, "tea"), (3, "milk"), (7, "milk"), (8, "milk"), (9, "tea")]
    ]
    v = view(*picks)
    assert (
        run("choice_change", v, person="bo", key="drink", month="2025-06") == "from tea to milk"
    )  # 2:1, then 2:1
    assert v.read == {f.id for f in picks}
    with pytest.raises(Unanswerable):  # from March on a single pick: no habit to change to
        run("choice_change", view(*picks[:2], *picks[-1:]), person="bo", key="drink", month="2025-03")
    same = [F(f"s{m}", "chose", "bo", "drink", "tea", when=at(m)) for m in (1, 2, 7, 8)]
    with pytest.raises(Unanswerable):  # tea before and after: no change
        run("choice_change", view(*same), person="bo", key="drink", month="2025-06")


def test_usual_place_and_shared_activity_and_count_together() -> None:
    facts = (
        event("e1", "swim", 1, "pier", ["ana", "bo"])
        + event("e2", "swim", 2, "pier", ["ana"])
        + event("e3", "swim", 3, "park", ["ana", "bo"])
        + event("e4", "hike", 4, "park", ["ana", "bo"])
        + event("e5", "swim", 5, "pier", ["bo", "cy"])  # not Ana's
    )
    facts = [f.model_copy(update={"value": f.object + "ing"}) if f.kind == "activity" else f for f in facts]
    v = view(*facts)
    assert run("usual_place", v, person="ana", activity="swim") == "the pier"  # pier 2, park 1
    assert {"e1_at", "e2_at", "e3_at"} <= v.read and "e5_at" not in v.read
    with pytest.raises(Unanswerable):  # one hike: no routine
        run("usual_place", view(*facts), person="ana", activity="hike")
    assert (
        run("shared_activity", view(*facts), person="ana", other="bo") == "swiming"
    )  # swim 2, hike 1 (the noun)
    with pytest.raises(Unanswerable):  # Ana and Cy never met
        run("shared_activity", view(*facts), person="ana", other="cy")
    span = {"from_month": "2025-01", "to_month": "2025-04"}
    assert run("count_together", view(*facts), person="ana", other="bo", activity="swim", **span) == "2"
    with pytest.raises(Unanswerable):  # a single shared hike is no cross-episode count
        run("count_together", view(*facts), person="ana", other="bo", activity="hike", **span)


def test_count_brought_counts_the_owners_events_with_the_object_in_the_window() -> None:
    facts = (
        event("e1", "swim", 1, "pier", ["ana", "bo"])
        + event("e2", "swim", 2, "pier", ["ana"])
        + event("e3", "swim", 3, "park", ["ana", "bo"])
        + event("e4", "hike", 3, "park", ["ana"], day=9)  # a hike: not counted for swims
        + event("e5", "swim", 6, "pier", ["ana"])  # outside the window
        + [
            F("b1", "brought", "ana", "kite", ev="e1", when=at(1, 3)),
            F("b3", "brought", "ana", "kite", ev="e3", when=at(3, 3)),
            F("b3f", "brought", "bo", "flask", ev="e3", when=at(3, 3)),  # Bo's, not Ana's kite
            F("b4", "brought", "ana", "kite", ev="e4", when=at(3, 9)),
            F("b5", "brought", "ana", "kite", ev="e5", when=at(6, 3)),
        ]
    )
    span = {"from_month": "2025-01", "to_month": "2025-03"}
    v = view(*facts)
    assert run("count_brought", v, person="ana", object="kite", activity="swim", **span) == "2"  # e1, e3
    assert v.read == {"b1", "b3", "e1_act", "e3_act", "e1_att_ana", "e3_att_ana"}
    with pytest.raises(Unanswerable):  # brought once to a hike: no cross-episode count
        run("count_brought", view(*facts), person="ana", object="kite", activity="hike", **span)
    with pytest.raises(Unanswerable):  # Bo brought the flask once
        run("count_brought", view(*facts), person="bo", object="flask", activity="swim", **span)


def change_world() -> list[Fact]:
    """Ana's year: swims with Bo at the pier until May, then with Cy at the park, and hikes late on."""
    facts = (
        event("e1", "swim", 1, "pier", ["ana", "bo"])
        + event("e2", "swim", 2, "pier", ["ana", "bo", "cy"])
        + event("e3", "swim", 3, "park", ["ana", "bo"])
        + event("e4", "swim", 6, "park", ["ana", "cy"])
        + event("e5", "swim", 7, "park", ["ana", "cy", "bo"])
        + event("e6", "hike", 8, "park", ["ana", "cy"])
        + event("e7", "hike", 9, "pier", ["ana", "dee"])
        + event("e8", "hike", 10, "park", ["ana", "cy"])
        + event("e9", "swim", 6, "pier", ["bo", "dee"])  # not Ana's
    )
    return [f.model_copy(update={"value": f.object + "ing"}) if f.kind == "activity" else f for f in facts]


def test_companion_change_compares_clear_majorities_before_and_from_the_month() -> None:
    v = view(*change_world())
    # swims before June: Bo 3, Cy 1; from June: Cy 2, Bo 1
    assert run("companion_change", v, person="ana", activity="swim", month="2025-06") == "from Bo to Cy"
    assert {"e1_att_ana", "e1_att_bo", "e4_att_cy", "e5_att_cy"} <= v.read
    assert "e9_att_bo" not in v.read and "e5_att_bo" not in v.read  # Bo's later swim is not the answer
    with pytest.raises(Unanswerable):  # before March Bo 2, Cy 1; from March on Bo 2, Cy 2 (a tie)
        run("companion_change", view(*change_world()), person="ana", activity="swim", month="2025-03")
    with pytest.raises(Unanswerable):  # hikes: nothing before August
        run("companion_change", view(*change_world()), person="ana", activity="hike", month="2025-08")


def test_closest_change_counts_every_activity() -> None:
    v = view(*change_world())
    # before June (e1-e3): Bo 3, Cy 1; from June (e4-e8): Cy 4, Bo 1, Dee 1
    assert run("closest_change", v, person="ana", month="2025-06") == "from Bo to Cy"
    assert {"e6_act", "e6_att_cy", "e8_att_ana"} <= v.read
    with pytest.raises(Unanswerable):  # Dee before July: Bo once (no companion seen twice)
        run("closest_change", view(*change_world()), person="dee", month="2025-07")


def test_place_change_and_activity_change() -> None:
    v = view(*change_world())
    # Ana's swims before June: pier 2, park 1; from June: park 2
    assert (
        run("place_change", v, person="ana", activity="swim", month="2025-06") == "from the pier to the park"
    )
    assert {"e1_at", "e2_at", "e4_at", "e5_at"} <= v.read and "e9_at" not in v.read
    with pytest.raises(Unanswerable):  # no swim of Ana's from August on
        run("place_change", view(*change_world()), person="ana", activity="swim", month="2025-08")
    # before August: swim 5; from August: hike 3 (the activity nouns)
    assert (
        run("activity_change", view(*change_world()), person="ana", month="2025-08")
        == "from swiming to hikeing"
    )
    assert (
        run("activity_change", view(*change_world()), person="ana", month="2025-06")
        == "from swiming to hikeing"
    )
    with pytest.raises(Unanswerable):  # Bo swims before June (3) and from June on (2): no change
        run("activity_change", view(*change_world()), person="bo", month="2025-06")


def promise_world() -> list[Fact]:
    return (
        event("e1", "picnic", 5, "park", ["ana", "bo"], day=3)
        + event("e2", "picnic", 5, "pier", ["ana", "cy"], day=10)  # the next picnic: Cy came
        + event("e3", "picnic", 5, "park", ["ana", "dee"], day=20)
        + [
            F("p1", "promised", "ana", "kite", "picnic", ev="e1", when=at(5, 3)),
            F("q1", "planned", "ana", "picnic", "pier", ev="e1", when=at(5, 3)),
        ]
    )


def test_promised_item_and_planned_place_read_what_was_said_that_day() -> None:
    facts = promise_world()
    v = view(*facts)
    assert run("promised_item", v, person="ana", day="2025-05-03") == "the red kite"
    assert v.read == {"p1"}  # said aloud: nothing else is needed
    assert run("planned_place", view(*facts), person="ana", day="2025-05-03", activity="picnic") == "the pier"
    with pytest.raises(Unanswerable):  # Ana promised nothing that day
        run("promised_item", view(*facts), person="ana", day="2025-05-10")
    with pytest.raises(Unanswerable):  # Bo made no promise
        run("promised_item", view(*facts), person="bo", day="2025-05-03")


def test_promise_and_plan_companions_follow_to_the_next_event() -> None:
    facts = promise_world()
    v = view(*facts)
    assert run("promise_companions", v, person="ana", day="2025-05-03", object="kite") == "Cy"  # e2, not e3
    assert {"p1", "e2_act", "e2_att_ana", "e2_att_cy"} <= v.read and "e3_act" not in v.read
    assert run("plan_companions", view(*facts), person="ana", day="2025-05-03", place="pier") == "Cy"
    replanned = [f.model_copy(update={"value": "park"}) if f.id == "q1" else f for f in facts]
    # the next picnic at the park after the plan is e3 (e1 is where it was said)
    assert run("plan_companions", view(*replanned), person="ana", day="2025-05-03") == "Dee"
    without_next = [f for f in facts if not f.id.startswith(("e2", "e3"))]
    with pytest.raises(Unanswerable):
        run("promise_companions", view(*without_next), person="ana", day="2025-05-03")


def test_usual_activity_and_closest_companion_span_every_activity() -> None:
    facts = (
        event("e1", "swim", 1, "pier", ["ana", "bo"])
        + event("e2", "hike", 2, "park", ["ana", "cy"])
        + event("e3", "swim", 3, "pier", ["ana", "cy"])
        + event("e4", "read", 4, "park", ["ana", "cy"])
        + event("e5", "hike", 8, "park", ["ana", "bo"])
        + event("e6", "hike", 9, "park", ["ana", "bo"])
    )
    facts = [f.model_copy(update={"value": "a " + f.object}) if f.kind == "activity" else f for f in facts]
    v = view(*facts)
    assert run("usual_activity", v, person="ana") == "a hike"  # hike 3, swim 2, read 1 (the noun)
    assert v.read >= {"e1_act", "e6_act", "e1_att_ana", "e6_att_ana"}
    early = {"from_month": "2025-01", "to_month": "2025-04"}
    assert run("usual_activity", view(*facts), person="ana", **early) == "a swim"  # swim 2, hike 1, read 1
    assert (
        run("closest_companion", view(*facts), person="ana", **early) == "Cy"
    )  # Cy 3, Bo 1: across activities
    with pytest.raises(Unanswerable):  # Bo 3, Cy 3 over the year: no single closest companion
        run("closest_companion", view(*facts), person="ana")
    with pytest.raises(Unanswerable):  # one event each in the window: no routine
        run("usual_activity", view(*facts), person="ana", from_month="2025-02", to_month="2025-04")


def test_usual_weekday_takes_a_unique_majority_of_the_persons_days() -> None:
    # 1 May 2025 was a Thursday: the 3rd and 10th are Saturdays, the 6th a Tuesday
    facts = (
        event("e1", "hike", 5, "park", ["ana", "bo"], day=3)
        + event("e2", "hike", 5, "park", ["ana"], day=10)
        + event("e3", "hike", 5, "park", ["ana", "bo"], day=6)
        + event("e4", "swim", 5, "pier", ["ana"], day=6)  # another activity: not counted
        + event("e5", "hike", 7, "park", ["bo"], day=5)  # not ana's
    )
    v = view(*facts)
    assert run("usual_weekday", v, person="ana", activity="hike") == "Saturday"  # Sat 2, Tue 1
    assert {"e1_act", "e2_act", "e3_act", "e1_att_ana", "e3_att_ana"} <= v.read and "e4_act" not in v.read
    with pytest.raises(Unanswerable):  # bo in May: Saturday the 3rd, Tuesday the 6th, no majority
        run(
            "usual_weekday",
            view(*facts),
            person="bo",
            activity="hike",
            from_month="2025-05",
            to_month="2025-05",
        )


def test_companions_apart_from_someone_leave_that_person_out() -> None:
    facts = (
        event("e1", "hike", 5, "park", ["ana", "bo", "cy"])
        + event("e2", "hike", 6, "park", ["ana", "bo", "dee"])
        + event("e3", "hike", 7, "park", ["ana", "bo", "cy"])
        + event("e4", "swim", 8, "pier", ["ana", "bo", "dee"])
    )
    assert run("frequent_companion", view(*facts), person="ana", activity="hike") == "Bo"  # Bo 3, Cy 2
    v = view(*facts)
    assert run("frequent_companion", v, person="ana", activity="hike", other="bo") == "Cy"  # Cy 2, Dee 1
    assert {"e1_att_cy", "e3_att_cy"} <= v.read
    assert (
        run(
            "closest_companion",
            view(*facts),
            person="ana",
            from_month="2025-05",
            to_month="2025-07",
            other="bo",
        )
        == "Cy"
    )
    with pytest.raises(Unanswerable):  # over every activity, apart from Bo: Cy 2, Dee 2
        run("closest_companion", view(*facts), person="ana", other="bo")


def test_cross_bridges_a_person_from_one_family_to_a_property_from_another() -> None:
    facts = [
        F("h1", "habit", "ana", "weighs the silica twice"),  # a line in the album
        F("h2", "habit", "bo", "hums at the kiln"),
        F("a1", "attribute", "bo", "bench", "B4"),  # a profile card in the mailbox
        F("a2", "attribute", "ana", "bench", "B7"),
        F("m1", "member", "ana", "p1", "commission"),
    ]
    v = view(*facts)
    habit_to_bench = {
        "bridge": {"kind": "habit", "text": "weighs the silica twice"},
        "property": {"kind": "profile", "key": "bench"},
    }
    assert run("cross", v, **habit_to_bench) == "B7"  # Ana weighs the silica; her bench is B7
    assert v.read == {"h1", "a2"}
    bench_to_habit = {
        "bridge": {"kind": "profile", "key": "bench", "value": "B4", "people": "ana,bo"},
        "property": {"kind": "habit"},
    }
    assert run("cross", view(*facts), **bench_to_habit) == "hums at the kiln"  # bench B4 is Bo's
    member = {
        "bridge": {"kind": "habit", "text": "weighs the silica twice"},
        "property": {"kind": "member", "entity_kind": "commission"},
    }
    assert run("cross", view(*facts), **member) == "Project Heron"
    with pytest.raises(Unanswerable):  # two people weigh the silica twice: the bridge names nobody
        run("cross", view(*facts, F("h3", "habit", "cy", "weighs the silica twice")), **habit_to_bench)
    with pytest.raises(Unanswerable):  # one family's facts alone: the habit without the benches
        run("cross", view(*facts[:2]), **habit_to_bench)


def test_cross_date_bridge_reads_the_last_picture_before_a_moment() -> None:
    when = at(3, 12, 18)  # Bo brought the red kite on March 12, 18:00 (a clip)
    facts = [
        F("b1", "brought", "bo", "kite", ev="e1", when=when),
        F("b2", "brought", "cy", "kite", ev="e2", when=at(4, 2)),
        F("s1", "state", "log", "presence", "blowpipe", when=at(3, 2, 11)),  # pictures of one log
        F("s2", "state", "log", "presence", "marver paddle", when=at(3, 11, 10)),
        F("s3", "state", "log", "presence", "jack tweezers", when=at(3, 20, 14)),
    ]
    args = {
        "bridge": {"kind": "when_brought", "subject": "bo", "object": "kite"},
        "property": {"kind": "held_before", "subject": "log", "key": "presence", "person": "ana"},
    }
    v = view(*facts)
    assert run("cross", v, **args) == "marver paddle"  # March 11 is the last picture before March 12
    assert v.read == {"b1", "s2"}
    cy = args | {"bridge": {"kind": "when_brought", "subject": "cy", "object": "kite"}}
    assert run("cross", view(*facts), **cy) == "jack tweezers"  # April 2: the March 20 picture
    with pytest.raises(Unanswerable):  # one family's facts alone: the clip without the pictures
        run("cross", view(*facts[:2]), **args)
    with pytest.raises(Unanswerable):  # ... or the pictures without the clip
        run("cross", view(*facts[2:]), **args)
    with pytest.raises(Unanswerable):  # no picture before the moment
        run("cross", view(facts[0], facts[4]), **args)
    with pytest.raises(Unanswerable):  # Bo brought the kite twice: the moment is not one
        run("cross", view(*facts, F("b3", "brought", "bo", "kite", ev="e3", when=at(5, 1))), **args)
