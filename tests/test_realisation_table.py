# ruff: noqa: E501  (the table holds whole sentences, one row a line)
"""Every question program of every family realised over three themes per family (accented, titled,
non-Latin and one-word names among them), compared with sentences written out by hand.

Each row fixes a theme, a template (hence its program) and the program's arguments; the text is
what the family's generator writes for them (the surface form is drawn from the seed and the
arguments, so it is fixed too). A row that changes is a wording change to review, not noise.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from mnemoforge.english import broken_patterns
from mnemoforge.generators.icm.questions import T as ICM_T
from mnemoforge.generators.icm.questions import _text as icm_text
from mnemoforge.generators.icm.world import plan_world as icm_world
from mnemoforge.generators.memeye import questions as memeye_q
from mnemoforge.generators.memeye import world as memeye_world
from mnemoforge.generators.questions.common import Candidate, Template
from mnemoforge.generators.smm import questions as smm_q
from mnemoforge.generators.smm import world as smm_world
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import THEMES_DIR, load_theme

TESTS = Path(__file__).resolve().parent / "themes"
THEME_FILES = {
    "glassworks_icm": TESTS / "glassworks_icm.yaml",
    "fjord_vet_icm": TESTS / "fjord_vet_icm.yaml",
    "harbour_office_icm": TESTS / "harbour_office_icm.yaml",
    "life_album": THEMES_DIR / "life_album.yaml",
    "backstage": THEMES_DIR / "backstage_sao_paulo.yaml",
    "glassworks_smm": TESTS / "glassworks_smm.yaml",
    "ferry_crew": TESTS / "ferry_crew.yaml",
    "office_launch": THEMES_DIR / "office_launch.yaml",
    "glassworks_memeye": TESTS / "glassworks_memeye.yaml",
    "quay_watch": TESTS / "quay_watch.yaml",
    "visual_diary": THEMES_DIR / "visual_diary.yaml",
}
ICM_ARGS: dict[str, dict[str, str]] = {
    "harbour_office_icm": {"person": "roisin", "activity": "berth_round", "day": "2026-10-10",
                           "object": "swell_board"},
    "fjord_vet_icm": {"person": "hakon", "activity": "farm_call", "place": "skala_pasture", "month": "2027-01",
                      "species": "horse"},
    "glassworks_icm": {"person": "amina", "other": "tavita", "activity": "kiln_check", "place": "cold_shop",
                       "object": "tavita_punty", "month": "2027-02", "day": "2027-02-05",
                       "from_month": "2027-02", "to_month": "2027-03", "key": "tea"},
    "life_album": {"person": "chen_yu", "other": "li_guo", "activity": "family_dinner", "place": "apartment",
                   "object": "sketchbook", "month": "2025-06", "day": "2025-06-07", "from_month": "2025-06",
                   "to_month": "2025-09", "key": "drink"},
    "backstage": {"person": "beatriz", "other": "lucia", "activity": "costume_fitting", "place": "dressing_room",
                  "object": "sewing_basket", "month": "2025-08", "day": "2025-08-12", "from_month": "2025-08",
                  "to_month": "2025-10", "key": "snack"},
}  # fmt: skip
ICM_EXTRA: dict[str, dict[str, str]] = {  # arguments only some templates take (others' forms stay put)
    "profile.weekday_activity.v1": {"weekday": "Friday"},
    "profile.weekday_activity.window.v1": {"weekday": "Friday"},
}


@cache
def _theme(name: str) -> Theme:
    return load_theme(THEME_FILES[name])


@cache
def _world(name: str) -> World:
    t = _theme(name)
    if t.family == "icm":
        return icm_world(t, t.seed, t.album.clips - 1)
    if t.family == "smm":
        return smm_world.plan_world(t, t.seed)
    return memeye_world.plan_world(t, t.seed)


def _cand(tpl: Template, args: dict[str, Any]) -> Candidate:
    return Candidate(tpl, dict(args), "", set(), [])


# fmt: off
ICM = [  # (theme, template, text) with ICM_ARGS[theme]
    ("glassworks_icm", "profile.activity.window.v1", "Between February 2027 and March 2027, what did Dr. أمينة حداد do most often?"),
    ("glassworks_icm", "profile.activity_change.v1", "How did what Dr. أمينة حداد did most often change in February 2027?"),
    ("glassworks_icm", "profile.change.v1", "How did the tea that Dr. أمينة حداد usually goes for change in February 2027?"),
    ("glassworks_icm", "profile.choice.v1", "Judging from the whole album, what tea does Dr. أمينة حداد usually go for?"),
    ("glassworks_icm", "profile.choice.window.v1", "Between February 2027 and March 2027, what tea did Dr. أمينة حداد usually go for?"),
    ("glassworks_icm", "profile.closest.window.v1", "Between February 2027 and March 2027, who was with Dr. أمينة حداد most often?"),
    ("glassworks_icm", "profile.closest_change.v1", "How did the person who was with Dr. أمينة حداد most often change in February 2027?"),
    ("glassworks_icm", "profile.companion.v1", "Judging from the whole album, who most often joined Dr. أمينة حداد when she had a kiln inspection?"),
    ("glassworks_icm", "profile.companion.window.v1", "Between February 2027 and March 2027, who most often joined Dr. أمينة حداد when she had a kiln inspection?"),
    ("glassworks_icm", "profile.companion_change.v1", "How did the person who most often joined Dr. أمينة حداد when she had a kiln inspection change in February 2027?"),
    ("glassworks_icm", "profile.weekday.v1", "Judging from the whole album, on which day of the week did Dr. أمينة حداد most often have a kiln inspection?"),
    ("glassworks_icm", "profile.weekday.window.v1", "Between February 2027 and March 2027, on which day of the week did Dr. أمينة حداد most often have a kiln inspection?"),
    ("glassworks_icm", "profile.companion.besides.v1", "Over the whole album, who apart from Tavita most often joined Dr. أمينة حداد when she had a kiln inspection?"),
    ("glassworks_icm", "profile.companion.besides.window.v1", "Between February 2027 and March 2027, who apart from Tavita most often joined Dr. أمينة حداد when she had a kiln inspection?"),
    ("glassworks_icm", "profile.closest.besides.v1", "Judging from the whole album, who apart from Tavita was with Dr. أمينة حداد most often?"),
    ("glassworks_icm", "profile.closest.besides.window.v1", "Between February 2027 and March 2027, who apart from Tavita was with Dr. أمينة حداد most often?"),
    ("glassworks_icm", "profile.pair_weekday.v1", "Judging from the whole album, on which weekday were Dr. أمينة حداد and Tavita most often together?"),
    ("glassworks_icm", "profile.pair_weekday.window.v1", "Between February 2027 and March 2027, on which weekday were Dr. أمينة حداد and Tavita most often together?"),
    ("glassworks_icm", "profile.weekday_activity.v1", "Judging from the whole album, what did Dr. أمينة حداد do most often on Fridays?"),
    ("glassworks_icm", "profile.weekday_activity.window.v1", "Between February 2027 and March 2027, what did Dr. أمينة حداد do most often on Fridays?"),
    ("glassworks_icm", "profile.weekday_change.v1", "How did the day of the week when Dr. أمينة حداد most often had a kiln inspection change in February 2027?"),
    ("glassworks_icm", "profile.count.v1", "Over the whole album, how many times did Dr. أمينة حداد take part when people had a kiln inspection?"),
    ("glassworks_icm", "profile.habit.v1", "What do people keep saying Dr. أمينة حداد does?"),
    ("glassworks_icm", "profile.place.v1", "Judging from the whole album, where did Dr. أمينة حداد usually go when she had a kiln inspection?"),
    ("glassworks_icm", "profile.place.window.v1", "Between February 2027 and March 2027, where did Dr. أمينة حداد usually go when she had a kiln inspection?"),
    ("glassworks_icm", "profile.place_change.v1", "How did the place Dr. أمينة حداد usually went to when she had a kiln inspection change in February 2027?"),
    ("glassworks_icm", "profile.relation.v1", "How is Tavita related to Dr. أمينة حداد?"),
    ("glassworks_icm", "profile.shared.v1", "Over the whole album, what did Dr. أمينة حداد and Tavita most often do together?"),
    ("glassworks_icm", "profile.shared.window.v1", "Between February 2027 and March 2027, what did Dr. أمينة حداد and Tavita most often do together?"),
    ("glassworks_icm", "recall.companions.day.v1", "Who came along when Dr. أمينة حداد had a kiln inspection at the cold shop on Friday 5 February 2027?"),
    ("harbour_office_icm", "recall.part.v1", "What was the swell level on the board when Roisin Mulvenna planned the berth round on Saturday 10 October 2026?"),
    ("fjord_vet_icm", "recall.animal.v1", "Which horse came along when Håkon Brekke made a farm call at the Skåla pasture in January 2027?"),
    ("glassworks_icm", "recall.companions.v1", "Who joined Dr. أمينة حداد when she had a kiln inspection at the cold shop in February 2027?"),
    ("glassworks_icm", "recall.object.day.v1", "When Dr. أمينة حداد had a kiln inspection on Friday 5 February 2027, what did she bring?"),
    ("glassworks_icm", "recall.object.v1", "What did Dr. أمينة حداد bring along when she had a kiln inspection in February 2027?"),
    ("glassworks_icm", "recall.place.day.v1", "When Dr. أمينة حداد and Tavita had a kiln inspection on Friday 5 February 2027, where were they?"),
    ("glassworks_icm", "recall.place.v1", "In February 2027, Dr. أمينة حداد and Tavita had a kiln inspection. Where did that happen?"),
    ("glassworks_icm", "recall.plan.v1", "On Friday 5 February 2027, where did Dr. أمينة حداد say she would go next for the kiln inspection?"),
    ("glassworks_icm", "recall.promise.v1", "On Friday 5 February 2027, what did Dr. أمينة حداد promise to bring to the next kiln inspection?"),
    ("glassworks_icm", "retrieval.binding.day.v1", "On Friday 5 February 2027, when people had a kiln inspection, who had Tavita's punty with them?"),
    ("glassworks_icm", "retrieval.binding.v1", "What is the name of the person who brought Tavita's punty when people had a kiln inspection in February 2027?"),
    ("glassworks_icm", "retrieval.brought.count.v1", "From February 2027 to March 2027, how many times did Dr. أمينة حداد have Tavita's punty when people had a kiln inspection?"),
    ("glassworks_icm", "retrieval.companion.v1", "Over the whole album, who was with Dr. أمينة حداد most often when she had a kiln inspection?"),
    ("glassworks_icm", "retrieval.count.month.v1", "How many times did Dr. أمينة حداد take part when people had a kiln inspection in February 2027?"),
    ("glassworks_icm", "retrieval.count.place.v1", "How many times did Dr. أمينة حداد have a kiln inspection at the cold shop between February 2027 and March 2027?"),
    ("glassworks_icm", "retrieval.count.v1", "From February 2027 to March 2027, how often was Dr. أمينة حداد there when people had a kiln inspection?"),
    ("glassworks_icm", "retrieval.plan.v1", "Who joined Dr. أمينة حداد at the cold shop for the kiln inspection she had planned on Friday 5 February 2027?"),
    ("glassworks_icm", "retrieval.promise.v1", "Who came along to the next kiln inspection after Dr. أمينة حداد promised on Friday 5 February 2027 to bring Tavita's punty?"),
    ("glassworks_icm", "retrieval.together.v1", "How many times were Dr. أمينة حداد and Tavita both there when people had a kiln inspection between February 2027 and March 2027?"),
    ("life_album", "profile.choice.v1", "What drink does Chen Yu usually pick, judging from the album?"),
    ("life_album", "profile.relation.v1", "How is Li Guo related to Chen Yu?"),
    ("life_album", "recall.companions.v1", "Who came along when Chen Yu had a family dinner at the apartment in June 2025?"),
    ("life_album", "recall.object.v1", "In June 2025, Chen Yu had a family dinner. What did she have with her?"),
    ("life_album", "retrieval.binding.v1", "In June 2025, when people had a family dinner, who had the sketchbook with them?"),
    ("life_album", "retrieval.count.place.v1", "How many times did Chen Yu have a family dinner at the apartment between June 2025 and September 2025?"),
    ("backstage", "profile.habit.v1", "What do people keep saying Beatriz Costa does?"),
    ("backstage", "recall.object.day.v1", "Which thing did Beatriz Costa bring when she had a costume fitting on Tuesday 12 August 2025?"),
    ("backstage", "retrieval.brought.count.v1", "How many times did Beatriz Costa bring the sewing basket when people had a costume fitting between August 2025 and October 2025?"),
    ("backstage", "retrieval.count.place.v1", "How many times did Beatriz Costa have a costume fitting in the dressing room between August 2025 and October 2025?"),
]
SMM = [  # (theme, template, program arguments, text without the function-call tail)
    ("ferry_crew", "cr.member.v1", {"kind": "crossing", "key": "berth", "person": "ines_moura"}, "For the crossing Ines Moura works on, what is the berth?"),
    ("glassworks_smm", "cr.member.v1", {"kind": "commission", "key": "due", "person": "tavita"}, "What is the due date of Tavita's commission?"),
    ("glassworks_smm", "mh.member.v1", {"kind": "commission", "key": "cutter", "person": "tavita"}, "Who is Tavita's commission engraved by?"),
    ("glassworks_smm", "sh.value.v1", {"entity": "crucible_sets", "key": "cutter"}, "Who engraved Crucible sets?"),
    ("glassworks_smm", "cr.entity.v1", {"entity": "lamp_order", "key": "due"}, "What is the due date of Harbour Lamp Order?"),
    ("glassworks_smm", "cr.entity.v1", {"entity": "goblet_order", "key": "due"}, "Do you remember the due date of Wedding Goblets?"),
    ("glassworks_smm", "mh.lead.v1", {"key": "bench", "kind": "commission", "person": "amina", "via": "cutter"}, "Do you remember the bench of whoever Dr. أمينة حداد's commission is engraved by?"),
    ("glassworks_smm", "mh.lead.v1", {"key": "bench", "kind": "commission", "person": "wang_fang", "via": "cutter"}, "What is the bench of the person 王芳's commission is engraved by?"),
    ("glassworks_smm", "mh.member.v1", {"key": "piece", "kind": "commission", "person": "amina"}, "Dr. أمينة حداد is on a commission. What is its piece?"),
    ("glassworks_smm", "mh.member.v1", {"key": "cutter", "kind": "commission", "person": "amina"}, "Who is Dr. أمينة حداد's commission engraved by?"),
    ("glassworks_smm", "pr.choice.v1", {"key": "tea", "person": "amina", "support": 3}, "Judging from what Dr. أمينة حداد does, which tea does she prefer?"),
    ("glassworks_smm", "pr.choice.v1", {"key": "tea", "person": "wang_fang", "support": 3}, "Judging from what 王芳 does, which tea does she prefer?"),
    ("glassworks_smm", "sh.value.v1", {"entity": "lamp_order", "key": "piece"}, "What is the piece of Harbour Lamp Order?"),
    ("glassworks_smm", "sh.value.v1", {"entity": "lamp_order", "key": "cutter"}, "Do you remember who Harbour Lamp Order is engraved by?"),
    ("ferry_crew", "cr.entity.v1", {"entity": "islet_crossing", "key": "sailing"}, "What sailing date is on record for Islet Crossing?"),
    ("ferry_crew", "mh.lead.v1", {"key": "cabin", "kind": "crossing", "person": "ines_moura", "via": "mate"}, "Do you remember the cabin of whoever is the first mate of Ines Moura's crossing?"),
    ("ferry_crew", "mh.member.v1", {"key": "vessel", "kind": "crossing", "person": "ines_moura"}, "Do you remember the vessel of the crossing Ines Moura is part of?"),
    ("ferry_crew", "pr.choice.v1", {"key": "bunk", "person": "ines_moura", "support": 3}, "Judging from what Ines Moura does, which bunk does she prefer?"),
    ("ferry_crew", "sh.value.v1", {"entity": "islet_crossing", "key": "vessel"}, "What vessel is on record for Islet Crossing?"),
    ("office_launch", "cr.entity.v1", {"entity": "atlas", "key": "deadline"}, "What is the deadline of Atlas Dashboard?"),
    ("office_launch", "fc.entity.v1", {"entity": "readiness_review", "steps": [{"bindings": {"attendees": "meeting.members", "date": "meeting.date", "room": "meeting.room", "time": "meeting.time", "title": "meeting.name"}, "tool": "schedule_meeting", "types": {"attendees": "array", "date": "date", "room": "string", "time": "time", "title": "string"}}], "subject": "meeting"}, "Which tool call should be made to put a meeting in everyone's calendar for Launch Readiness Review?"),
    ("office_launch", "fc.person.v1", {"person": "ana_lima", "steps": [{"bindings": {"date": "trip.date", "destination": "trip.city", "origin": "profile.office", "passenger": "person", "seat": "preference.seat"}, "tool": "book_flight", "types": {"date": "date", "destination": "string", "origin": "string", "passenger": "string", "seat": "string"}}], "subject": "trip", "support": 3}, "Which tool calls should be made to book a one-way flight for a passenger for Ana Lima's customer trip?"),
    ("office_launch", "mh.lead.v1", {"key": "office", "kind": "project", "person": "ana_lima", "via": "lead"}, "For the project Ana Lima works on, what is the lead's office?"),
    ("office_launch", "mh.member.v1", {"key": "lead", "kind": "project", "person": "ana_lima"}, "For the project Ana Lima works on, who is the lead?"),
    ("office_launch", "pr.choice.v1", {"key": "seat", "person": "ana_lima", "support": 3}, "Judging from what Ana Lima does, which flight seat does she prefer?"),
    ("office_launch", "sh.value.v1", {"entity": "atlas", "key": "lead"}, "Do you remember who the lead of Atlas Dashboard is?"),
]
MEMEYE = [  # (theme, template, program arguments, text)
    ("glassworks_memeye", "memeye.visual_attr.gist.v1", {"key": "gist", "scene": "furnace_log_sc1"}, "Which weather does the picture show at the glory hole bay now?"),
    ("glassworks_memeye", "memeye.visual_latest.presence.v1", {"key": "presence", "scene": "furnace_log_sc1"}, "Going by the pictures you were shown, what is أمينة holding at the glory hole bay now?"),
    ("glassworks_memeye", "memeye.visual_pair.gist.v1", {"key": "gist", "scenes": ["furnace_log_sc1", "furnace_log_sc2"]}, "Based on what the photos showed, which weather does the picture show at the glory hole bay and at the annealing bay, respectively?"),
    ("glassworks_memeye", "memeye.visual_pair_mixed.gist_colour.v1", {"key": "gist+colour", "keys": ["gist", "colour"], "scenes": ["furnace_log_sc1", "furnace_log_sc2"]}, "Thinking back to the photos, which weather does the picture show at the glory hole bay, and what colour is the door at the annealing bay?"),
    ("glassworks_memeye", "memeye.visual_total.count.v1", {"key": "count", "scenes": ["furnace_log_sc1", "furnace_log_sc2"]}, "Thinking back to the photos, how many traffic cones in the bottom row are there at the glory hole bay and at the annealing bay combined?"),
    ("quay_watch", "memeye.visual_attr.gist.v1", {"key": "gist", "scene": "slip_log_sc1"}, "From the images shared in the chats, which weather does the picture show at the north slip at the moment?"),
    ("quay_watch", "memeye.visual_latest.colour.v1", {"key": "colour", "scene": "slip_log_sc1"}, "Going by the pictures you were shown, what colour is the quay van at the north slip at the moment?"),
    ("quay_watch", "memeye.visual_pair.gist.v1", {"key": "gist", "scenes": ["slip_log_sc1", "slip_log_sc2"]}, "Thinking back to the photos, which weather does the picture show at the north slip and at the fuel pontoon now, respectively?"),
    ("quay_watch", "memeye.visual_pair_mixed.right_label.v1", {"key": "right+label", "keys": ["right", "label"], "scenes": ["slip_log_sc1", "slip_log_sc2"]}, "Based on what the photos showed, what stands in the right part of the north slip, and what is the number on the berth sign at the fuel pontoon currently?"),
    ("quay_watch", "memeye.visual_total.count.v1", {"key": "count", "scenes": ["slip_log_sc1", "slip_log_sc2"]}, "Based on what the photos showed, how many traffic cones in the bottom row are there at the north slip and at the fuel pontoon combined?"),
    ("visual_diary", "memeye.visual_attr.right.v1", {"key": "right", "scene": "home_renovation_sc1"}, "Thinking back to the photos, what stands in the right part of the spare room?"),
    ("visual_diary", "memeye.visual_latest.gist.v1", {"key": "gist", "scene": "home_renovation_sc1"}, "From the images shared in the chats, what kind of room is the spare room set up as now?"),
    ("visual_diary", "memeye.visual_pair.right.v1", {"key": "right", "scenes": ["home_renovation_sc1", "home_renovation_sc2"]}, "Thinking back to the photos, what stands in the right part of the spare room and the attic currently, respectively?"),
    ("visual_diary", "memeye.visual_pair_mixed.right_label.v1", {"key": "right+label", "keys": ["right", "label"], "scenes": ["home_renovation_sc1", "home_renovation_sc2"]}, "What stands in the right part of the spare room, and what is the price on the hanging tag in the attic currently?"),
    ("visual_diary", "memeye.visual_total.count.v1", {"key": "count", "scenes": ["home_renovation_sc1", "home_renovation_sc3"]}, "Going by the pictures you were shown, how many red books standing on the floor are there in the spare room and in the hallway combined now?"),
]
# fmt: on


def _names(world: World) -> list[str]:
    return [p.name for p in world.people]


@pytest.mark.parametrize(("theme", "template", "expected"), ICM, ids=[f"{t}:{x}" for t, x, _ in ICM])
def test_icm_question_text(theme: str, template: str, expected: str) -> None:
    args = ICM_ARGS[theme] | ICM_EXTRA.get(template, {})
    text = icm_text(_world(theme), _cand(ICM_T[template], args), "name")
    assert text == expected
    assert not broken_patterns(text, _names(_world(theme)))


@pytest.mark.parametrize(("theme", "template", "args", "expected"), SMM, ids=[f"{r[0]}:{r[1]}" for r in SMM])
def test_smm_question_text(theme: str, template: str, args: dict[str, Any], expected: str) -> None:
    text = smm_q.question_text(_theme(theme), _world(theme), _cand(smm_q.T[template], args))
    assert text.replace(" " + smm_q.FILL, "") == expected
    assert not broken_patterns(text, _names(_world(theme)))


@pytest.mark.parametrize(("theme", "template", "args", "expected"), MEMEYE, ids=[f"{r[0]}:{r[1]}" for r in MEMEYE])
def test_memeye_question_text(theme: str, template: str, args: dict[str, Any], expected: str) -> None:
    _, program, _, _ = template.split(".")
    tpl = Template(id=template, category="", program=program, text="")
    text = memeye_q._text(_world(theme), _cand(tpl, args))
    assert text == expected
    assert not broken_patterns(text, _names(_world(theme)))


def test_every_program_is_in_the_table() -> None:
    """Each family's every program has a row (a new program needs a hand-written sentence)."""
    icm = {ICM_T[t].program for _, t, _ in ICM}
    assert icm == {t.program for t in ICM_T.values()}
    smm = {smm_q.T[t].program for _, t, *_ in SMM}
    assert smm == {t.program for t in smm_q.T.values()}
    memeye = {t.split(".")[1] for _, t, *_ in MEMEYE}
    assert memeye == {"visual_attr", "visual_latest", "visual_pair", "visual_total", "visual_pair_mixed"}
    assert {r[0] for r in ICM} | {r[0] for r in SMM} | {r[0] for r in MEMEYE} == set(THEME_FILES)
