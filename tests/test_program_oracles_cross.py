"""Hand-computed oracles of the cross program's place bridges and dated-record bridges
(``generators/cross_bridges.py``): every expected answer is worked out by hand from facts written
here, with the facts each family would hold kept apart so that one family alone is shown to fail."""

from __future__ import annotations

import pytest

from mnemoforge.generators import cross_items as _cross  # noqa: F401  (registers)
from mnemoforge.generators.questions.programs import Unanswerable
from tests.oracle_facts import NAMES, F, at, event, run, view

PLACES = {"hall": "the furnace hall", "shop": "the cold shop", "room_a": "Hot End", "room_b": "Cold End"}


@pytest.fixture(autouse=True)
def _place_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(NAMES, "hall", PLACES["hall"])
    monkeypatch.setitem(NAMES, "shop", PLACES["shop"])
    monkeypatch.setitem(NAMES, "room_a", PLACES["room_a"])
    monkeypatch.setitem(NAMES, "room_b", PLACES["room_b"])


# a picture log's sign in the furnace hall (one family), the work areas' records (another) and
# clips of events (a third)
PICTURES = [
    F("l1", "attribute", "hall_sign", "label", "K77"),
    F("l2", "attribute", "shop_tag", "label", "28/4"),
]
RECORDS = [
    F("r1", "attribute", "room_a", "room", "the furnace hall"),
    F("r2", "attribute", "room_a", "rule", "goggles on"),
    F("r3", "attribute", "room_a", "keeper", "bo"),
    F("r4", "attribute", "room_b", "room", "the cold shop"),
    F("r5", "attribute", "room_b", "rule", "no drinks"),
]
CLIPS = (
    event("e1", "kiln_check", 2, "hall", ["ana", "bo"], day=3)
    + event("e2", "kiln_check", 2, "hall", ["ana", "cy"], day=9)
    + event("e3", "kiln_check", 2, "shop", ["ana", "dee"], day=14)
    + event("e4", "goblets", 3, "hall", ["ana", "cy"], day=9)
    + [F("b1", "brought", "cy", "kite", ev="e2", when=at(2, 9)), F("b2", "brought", "bo", "kite", ev="e3")]
)
SIGN = {"kind": "place_label", "subject": "hall_sign", "value": "K77", "place": "hall"}


def test_a_sign_in_a_picture_names_the_place_whose_record_gives_the_rule() -> None:
    rule = {"bridge": SIGN, "property": {"kind": "area_value", "key": "rule"}}
    v = view(*PICTURES, *RECORDS, *CLIPS)
    assert run("cross", v, **rule) == "goggles on"  # K77 is the furnace hall's sign; room_a is there
    assert v.read == {"l1", "r1", "r2"}
    keeper = {"bridge": SIGN, "property": {"kind": "area_value", "key": "keeper"}}
    assert run("cross", view(*PICTURES, *RECORDS), **keeper) == "Bo"  # a person's id reads as a name
    with pytest.raises(Unanswerable):  # the pictures alone: no record of the furnace hall
        run("cross", view(*PICTURES), **rule)
    with pytest.raises(Unanswerable):  # the records alone: no sign reads K77
        run("cross", view(*RECORDS), **rule)
    with pytest.raises(Unanswerable):  # two pictures read K77: the sign names no one place
        run("cross", view(*PICTURES, *RECORDS, F("l3", "attribute", "shop_tag", "label", "K77")), **rule)
    with pytest.raises(Unanswerable):  # the cold shop's area states no keeper
        shop = SIGN | {"subject": "shop_tag", "value": "28/4", "place": "shop"}
        run("cross", view(*PICTURES, *RECORDS), bridge=shop, property={"kind": "area_value", "key": "keeper"})


def test_a_place_counts_and_who_brought_what_there_come_from_the_clips() -> None:
    count = {"bridge": SIGN, "property": {"kind": "count_at", "activity": "kiln_check"}}
    v = view(*PICTURES, *CLIPS)
    assert run("cross", v, **count) == "2"  # e1 and e2 in the hall; e3 was in the cold shop
    assert v.read == {"l1", "e1_act", "e1_at", "e2_act", "e2_at"}
    room = {"kind": "place_room", "entity": "room_b", "key": "room", "place": "shop"}
    assert run("cross", view(*RECORDS, *CLIPS), bridge=room, property=count["property"]) == "1"  # e3
    brought = {"kind": "brought_to", "object": "kite"}
    assert run("cross", view(*RECORDS, *CLIPS), bridge=room, property=brought) == "Bo"  # b2 at e3
    wrong = room | {"place": "hall"}  # room_b's record names the cold shop, not the hall
    with pytest.raises(Unanswerable):
        run("cross", view(*RECORDS, *CLIPS), bridge=wrong, property=brought)
    with pytest.raises(Unanswerable):  # no kiln inspection ever seen in the hall: nothing to count
        run("cross", view(*PICTURES, *CLIPS[6:]), **count)


def test_the_place_where_a_person_brought_an_object_and_its_record() -> None:
    where = {"kind": "place_brought", "subject": "cy", "object": "kite"}
    v = view(*RECORDS, *CLIPS)
    assert run("cross", v, bridge=where, property={"kind": "area_value", "key": "rule"}) == "goggles on"
    assert v.read == {"b1", "e2_at", "r1", "r2"}  # Cy brought the kite to e2, in the hall
    with pytest.raises(Unanswerable):  # the clips alone: no record of the hall
        run("cross", view(*CLIPS), bridge=where, property={"kind": "area_value", "key": "rule"})


DUE = [
    F("d0", "attribute", "p1", "due", "2025-03-08", when=at(2, 20)),  # first set to March 8
    F("d1", "attribute", "p1", "due", "2025-03-04", when=at(3, 1)),  # moved to March 4 (official)
    F("d_r", "attribute", "p1", "due", "2025-03-20", when=at(3, 2)),  # a later rumour: not official
]
LOG = [
    F("s1", "state", "log", "presence", "blowpipe", when=at(3, 2, 11)),
    F("s2", "state", "log", "presence", "batch scoop", when=at(3, 4, 10)),  # the due day itself
    F("s3", "state", "log", "presence", "marver paddle", when=at(3, 6, 9)),
]
DAYS = (
    event("g1", "goblets", 3, "hall", ["ana", "bo"], day=4)  # on the due day: not after it
    + event("g2", "goblets", 3, "hall", ["cy", "ana"], day=9)
    + event("g3", "goblets", 3, "hall", ["dee"], day=22)
)


def test_a_due_date_read_from_the_records_picks_the_picture_of_that_day() -> None:
    args = {
        "bridge": {"kind": "when_due", "entity": "p1", "key": "due"},
        "property": {"kind": "held_before", "subject": "log", "key": "presence", "person": "ana"},
    }
    v = view(*DUE, *LOG)
    assert run("cross", v, **args) == "batch scoop"  # due March 4 (not the rumoured 20th): that day's
    assert v.read == {"d1", "s2"}
    with pytest.raises(Unanswerable):  # the records alone: no pictures
        run("cross", view(*DUE), **args)
    with pytest.raises(Unanswerable):  # the pictures alone: no due date
        run("cross", view(*LOG), **args)
    with pytest.raises(Unanswerable):  # only the rumour: no official value
        run("cross", view(DUE[2], *LOG), **args)
    with pytest.raises(Unanswerable):  # two official values at one time: which is current?
        run("cross", view(*DUE, F("d2", "attribute", "p1", "due", "2025-03-05", when=at(3, 1)), *LOG), **args)


def test_a_due_date_picks_the_first_event_after_that_day() -> None:
    args = {
        "bridge": {"kind": "when_due", "entity": "p1", "key": "due"},
        "property": {"kind": "first_after", "activity": "goblets"},
    }
    v = view(*DUE, *DAYS)
    assert run("cross", v, **args) == "Ana and Cy"  # March 4 is due; g1 is that day, g2 (9th) is next
    assert v.read == {"d1", "g2_act", "g2_att_cy", "g2_att_ana"}
    stale = view(DUE[0], *DAYS)  # before the move (due March 8), g2 is still the first after
    assert run("cross", stale, **args) == "Ana and Cy"
    late = view(F("d9", "attribute", "p1", "due", "2025-03-10", when=at(3, 1)), *DAYS)
    assert run("cross", late, **args) == "Dee"  # due the 10th: g3 on the 22nd
    with pytest.raises(Unanswerable):  # nothing after the day
        run("cross", view(F("d9", "attribute", "p1", "due", "2025-03-30", when=at(3, 1)), *DAYS), **args)
    with pytest.raises(Unanswerable):  # the clips alone: no due date
        run("cross", view(*DAYS), **args)


def test_a_record_named_by_its_name_needs_its_record_code() -> None:
    """A record's values are written under its code ("ARE-58 room: the furnace hall"): a bridge that
    names the record ("the room of Hot End", "the due date of Project Heron") reads the code too."""
    code = F("c1", "attribute", "room_a", "code", "ARE-58")
    room = {"kind": "place_room", "entity": "room_a", "key": "room", "place": "hall", "filed": "1"}
    count = {"kind": "count_at", "activity": "kiln_check"}
    v = view(code, *RECORDS, *CLIPS)
    assert run("cross", v, bridge=room, property=count) == "2"  # e1 and e2 in the hall
    assert v.read == {"c1", "r1", "e1_act", "e1_at", "e2_act", "e2_at"}
    with pytest.raises(Unanswerable):  # without the code the record's name is not linked to its values
        run("cross", view(*RECORDS, *CLIPS), bridge=room, property=count)
    due = {"kind": "when_due", "entity": "p1", "key": "due", "filed": "1"}
    days = view(F("c2", "attribute", "p1", "code", "COM-7"), *DUE, *DAYS)
    assert (
        run("cross", days, bridge=due, property={"kind": "first_after", "activity": "goblets"})
        == "Ana and Cy"
    )
    assert "c2" in days.read
    with pytest.raises(Unanswerable):
        run("cross", view(*DUE, *DAYS), bridge=due, property={"kind": "first_after", "activity": "goblets"})
