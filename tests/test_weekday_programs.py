"""The weekly-rhythm profile programs (``icm/weekday_programs``): hand-computed oracles, and their
place as reserve templates (planned only once the other profile candidates run out).

The oracle world is written out by hand; 1 May 2025 was a Thursday, so in it the 3rd, 10th, 17th,
24th and 31st of May and the 7th, 14th, 21st and 28th of June are Saturdays, the 4th of May a
Sunday, the 6th of May and the 3rd and 10th of June Tuesdays.
"""

from __future__ import annotations

from functools import cache

import pytest

from mnemoforge.generators.icm import album, candidates
from mnemoforge.generators.icm import questions as icm
from mnemoforge.generators.icm import world as world_mod
from mnemoforge.generators.icm.templates import PROFILE, RESERVE
from mnemoforge.generators.questions.common import overgenerate
from mnemoforge.generators.questions.programs import Unanswerable
from mnemoforge.schemas.world import Fact
from mnemoforge.theme_io import DEFAULT_THEME, load_theme
from tests.icm_plans import EVERY
from tests.oracle_facts import event, run, view

NOUN = {"hike": "a hike", "swim": "a swim"}


def week_world() -> list[Fact]:
    facts = (
        event("e1", "hike", 5, "park", ["ana", "bo"], day=3)  # Sat
        + event("e2", "swim", 5, "pier", ["ana", "bo", "cy"], day=10)  # Sat
        + event("e3", "hike", 5, "park", ["ana", "bo"], day=6)  # Tue
        + event("e4", "hike", 5, "park", ["ana", "cy"], day=4)  # Sun
        + event("e5", "hike", 5, "park", ["ana"], day=17)  # Sat
        + event("e6", "hike", 6, "park", ["ana", "bo"], day=3)  # Tue
        + event("e7", "hike", 6, "park", ["ana", "bo"], day=10)  # Tue
        + event("e8", "swim", 6, "pier", ["ana"], day=14)  # Sat
        + event("e9", "swim", 6, "pier", ["bo", "dee"], day=7)  # Sat, not Ana's
        + event("e10", "swim", 6, "pier", ["ana", "cy"], day=21)  # Sat
        + event("e11", "swim", 5, "pier", ["bo"], day=31)  # Sat
        + event("e12", "swim", 6, "pier", ["bo"], day=28)  # Sat
    )
    return [f.model_copy(update={"value": NOUN[f.object]}) if f.kind == "activity" else f for f in facts]


def test_pair_weekday_takes_the_day_two_people_most_often_shared() -> None:
    v = view(*week_world())
    # Ana and Bo together: e1 Sat, e2 Sat, e3 Tue, e6 Tue, e7 Tue -> Tuesday 3, Saturday 2
    assert run("pair_weekday", v, person="ana", other="bo") == "Tuesday"
    assert {"e1_act", "e3_act", "e7_act", "e1_att_ana", "e1_att_bo", "e7_att_bo"} <= v.read
    assert not {"e4_act", "e9_act", "e2_att_cy"} & v.read  # not both there; not asked about Cy
    # in May only: e1 Sat, e2 Sat, e3 Tue
    assert run("pair_weekday", view(*week_world()), person="ana", other="bo", from_month="2025-05",
               to_month="2025-05") == "Saturday"  # fmt: skip
    # Ana and Cy: e2 Sat, e4 Sun, e10 Sat -> Saturday 2
    assert run("pair_weekday", view(*week_world()), person="ana", other="cy") == "Saturday"
    with pytest.raises(Unanswerable):  # in May: e2 Sat, e4 Sun, a tie
        run("pair_weekday", view(*week_world()), person="ana", other="cy", from_month="2025-05",
            to_month="2025-05")  # fmt: skip
    with pytest.raises(Unanswerable):  # Ana and Dee never met
        run("pair_weekday", view(*week_world()), person="ana", other="dee")


def test_weekday_activity_takes_what_the_person_did_most_on_that_day() -> None:
    v = view(*week_world())
    # Ana's Saturdays: e1 hike, e2 swim, e5 hike, e8 swim, e10 swim -> swim 3, hike 2
    assert run("weekday_activity", v, person="ana", weekday="Saturday") == "a swim"
    assert {"e1_act", "e2_act", "e5_act", "e8_act", "e10_act", "e8_att_ana"} <= v.read
    assert not {"e3_act", "e9_act", "e12_act"} & v.read  # a Tuesday; Saturdays without Ana
    # Ana's Saturdays in May: e1 hike, e2 swim, e5 hike -> hike 2
    assert run("weekday_activity", view(*week_world()), person="ana", weekday="Saturday",
               from_month="2025-05", to_month="2025-05") == "a hike"  # fmt: skip
    # Ana's Tuesdays: e3, e6, e7, all hikes
    assert run("weekday_activity", view(*week_world()), person="ana", weekday="Tuesday") == "a hike"
    with pytest.raises(Unanswerable):  # Ana's Sundays: e4 only, seen once
        run("weekday_activity", view(*week_world()), person="ana", weekday="Sunday")
    with pytest.raises(Unanswerable):  # Ana has no Wednesday
        run("weekday_activity", view(*week_world()), person="ana", weekday="Wednesday")
    with pytest.raises(Unanswerable):  # not a day of the week
        run("weekday_activity", view(*week_world()), person="ana", weekday="Funday")


def test_weekday_change_compares_the_usual_day_before_and_from_the_month() -> None:
    v = view(*week_world())
    # Ana's hikes before June: e1 Sat, e3 Tue, e4 Sun, e5 Sat -> Saturday 2; from June: e6, e7 Tue
    assert (
        run("weekday_change", v, person="ana", activity="hike", month="2025-06") == "from Saturday to Tuesday"
    )
    assert {"e1_act", "e4_act", "e7_act", "e5_att_ana"} <= v.read and "e2_act" not in v.read
    with pytest.raises(Unanswerable):  # Bo's swims: Saturdays before June (e2, e11) and after (e9, e12)
        run("weekday_change", view(*week_world()), person="bo", activity="swim", month="2025-06")
    with pytest.raises(Unanswerable):  # Ana's swims before June: e2 only, seen once
        run("weekday_change", view(*week_world()), person="ana", activity="swim", month="2025-06")
    with pytest.raises(Unanswerable):  # Bo's hikes before June: e1 Sat, e3 Tue, a tie
        run("weekday_change", view(*week_world()), person="bo", activity="hike", month="2025-06")


@cache
def _album() -> tuple:
    theme = load_theme(DEFAULT_THEME)
    w = world_mod.plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, obs = album.plan_album(theme, w)
    return w, obs, max(c.index for c in clips)


def test_reserve_templates_wait_until_the_other_profile_candidates_are_used_up(
    monkeypatch: pytest.MonkeyPatch, icm_plans
) -> None:  # type: ignore[no-untyped-def]
    w, obs, last = _album()  # a World of its own: the shared plan's never sees the patch below
    counts = {PROFILE: overgenerate(load_theme(DEFAULT_THEME).questions.counts()[PROFILE])}
    own = icm.generate_icm(w, obs, counts, last_order=last)  # the default album's own size
    assert own and not {q.lineage.template for q in own} & RESERVE
    many = icm_plans.every(PROFILE)  # more asked than the others give (tests/icm_plans.py)
    monkeypatch.setattr(candidates, "_weekly_candidates", lambda *a: iter(()))
    without = icm.generate_icm(w, obs, {PROFILE: EVERY}, last_order=last)
    assert len(without) < EVERY  # the other programs run out
    extra = {q.id: q for q in many}
    assert {q.id for q in without} <= set(extra)  # every item planned without the reserve is kept
    added = [extra[i] for i in set(extra) - {q.id for q in without}]
    assert added and all(q.lineage.template in RESERVE for q in added)
    assert {q.program.fn for q in added} <= {"pair_weekday", "weekday_activity", "weekday_change"}
