"""The coherence check (generators/coherence.py, coherence_text.py): one test per rule, each with a
World (or a text, or an item) that breaks it, asserting the rule's code and the entities named;
and the planned worlds of the test themes pass every rule."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import yaml

from mnemoforge.generators.coherence import (
    IncoherentWorld,
    check_world,
    observation_problems,
    world_problems,
)
from mnemoforge.generators.coherence_text import LineFilter, item_problems, line_problems, text_problems
from mnemoforge.generators.families import get_family
from mnemoforge.schemas.calendar import AvailabilitySpec, Holiday
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.schemas.world import Fact, Relation, Span, Timeline, World
from mnemoforge.theme_io import load_theme

from .conftest import TEST_THEMES

ICM = load_theme(TEST_THEMES / "tea_estate_icm.yaml")
SMM = load_theme(TEST_THEMES / "pilot_station_smm.yaml")
MEMEYE = load_theme(TEST_THEMES / "fjord_hut_memeye.yaml")


@pytest.fixture(scope="module")
def icm() -> World:
    return get_family("icm").plan(ICM, ICM.seed)


@pytest.fixture(scope="module")
def smm() -> World:
    return get_family("smm").plan(SMM, SMM.seed)


@pytest.fixture(scope="module")
def memeye() -> World:
    return get_family("memeye").plan(MEMEYE, MEMEYE.seed)


def _codes(problems: list) -> set[str]:
    return {p.code for p in problems}


def _item(world: World, **kw: object) -> Question:
    base = dict(
        id="q1", family="smm", category="single_hop", question="What is it?", answer="x", target_people=[],
        evidence=["o1"], facts_read=[], cutoff=None, program=Program(fn="entity_value", args={}),
        lineage=Lineage(template="t", seed=0, program_hash="", world_hash="", answer_hash=""),
    )  # fmt: skip
    return Question.model_validate(base | kw)


def test_the_planned_worlds_are_coherent(icm: World, smm: World, memeye: World) -> None:
    for theme, world in ((ICM, icm), (SMM, smm), (MEMEYE, memeye)):
        assert world_problems(world, theme) == [], theme.name
        assert world.timelines and check_world(world, theme) is world


def test_two_states_an_object_with_two_values_at_once(memeye: World) -> None:
    """The hut dog's collar drawn in two colours at once: two overlapping spans of one timeline."""
    t = memeye.timeline("trail_log_colour", "colour")
    assert t is not None
    start = t.spans[0].start
    bad = Timeline(
        subject=t.subject,
        attribute="colour",
        spans=[
            Span(start=start, value="teal"),
            Span(start=start + dt.timedelta(minutes=8), value="brick red"),
        ],
    )
    world = memeye.model_copy(update={"timelines": [*memeye.timelines[:0], bad]})
    with pytest.raises(IncoherentWorld) as e:
        check_world(world, MEMEYE)
    assert "two_states" in str(e.value) and "trail_log_colour" in str(e.value)
    # and a scene copy of a shared object: one subject's fact disagrees with its timeline
    f = next(f for f in memeye.facts if f.subject == "trail_log_colour")
    wrong = f.model_copy(update={"value": "plum" if f.value != "plum" else "teal"})
    world = memeye.model_copy(update={"facts": [wrong if x.id == f.id else x for x in memeye.facts]})
    problems = world_problems(world, MEMEYE)
    assert "two_states" in _codes(problems) and any(f.id in p.entities for p in problems)


def test_two_places_a_person_at_two_events_at_once(icm: World) -> None:
    e = icm.events[0]
    p = e.participants[0]
    other = next(pl.id for pl in icm.places if pl.id != e.place)
    clash = e.model_copy(
        update={"id": "ev_clash", "place": other, "start": e.start + dt.timedelta(minutes=10)}
    )
    t = icm.timeline(p, "location")
    assert t is not None
    spans = [*t.spans, Span(start=clash.start, end=clash.start + dt.timedelta(hours=1), value=other)]
    lines = [x for x in icm.timelines if x is not t] + [t.model_copy(update={"spans": spans})]
    problems = world_problems(icm.model_copy(update={"timelines": lines}), ICM)
    assert any(x.code == "two_places" and x.entities == (p,) for x in problems)


def test_self_relation_in_the_world_an_item_and_a_line(smm: World) -> None:
    world = smm.model_copy(
        update={"relations": [*smm.relations, Relation(a="okafor", b="okafor", kind="friend")]}
    )
    assert any(p.code == "self_relation" and p.entities == ("okafor",) for p in world_problems(world, SMM))
    args = {"pilot": "Capt. Amara Okafor", "relief": "Capt. Amara Okafor", "boarding": "Bar Boarding"}
    plan = [{"step": 1, "calls": [{"name": "swap_relief", "arguments": args}]}]
    q = _item(smm, category="function_calling", answer=json.dumps(plan), structured_answer=plan,
              program=Program(fn="function_call", args={}))  # fmt: skip
    problems = item_problems(smm, q)
    assert _codes(problems) == {"self_relation"} and "okafor" in problems[0].entities
    said = line_problems(smm, "okafor", "Amara, say hello to Hemi for us.")
    assert _codes(said) == {"self_relation"}
    assert line_problems(smm, "parata", "Amara, say hello to Lili for us.") == []
    assert line_problems(smm, "okafor", "Hi, I'm Capt. Amara Okafor.", self_intro=True) == []
    # addressing oneself is refused even in a self-introduction, in any form of the name
    for line in ("Capt. Okafor, say hello to Hemi for us.", "Thanks, Amara.", "Hey Amara Okafor, got it?"):
        assert _codes(line_problems(smm, "okafor", line, self_intro=True)) == {"self_relation"}, line
    assert line_problems(smm, "parata", "Thanks, Capt. Okafor.") == []


def test_bare_title_in_a_line_and_an_item(smm: World) -> None:
    said = line_problems(smm, "parata", "Capt., say hello to Dr. for us.")
    assert _codes(said) == {"bare_title"}
    assert {p.detail.split(" (")[0] for p in said} == {"bare title 'Capt.'", "bare title 'Dr.'"}
    assert line_problems(smm, "parata", "Capt. Okafor, say hello to Dr. Tupou for us.") == []
    q = _item(smm, question="What is Capt. holding at the hangar apron currently?")
    assert _codes(item_problems(smm, q)) == {"bare_title"}


def test_weekday_mismatch_in_text_values_and_items(smm: World) -> None:
    assert _codes(text_problems("See you on Wednesday 13 February 2027.", smm)) == {"weekday_mismatch"}
    assert text_problems("See you on Saturday 13 February 2027.", smm) == []
    f = next(f for f in smm.facts if f.object == "oncall" and f.value)
    wednesday = "2027-02-10"
    world = smm.model_copy(
        update={
            "facts": [x.model_copy(update={"value": wednesday}) if x.id == f.id else x for x in smm.facts]
        }
    )
    problems = world_problems(world, SMM)
    assert any(p.code == "weekday_mismatch" and f.id in p.entities for p in problems)
    q = _item(smm, question="What is the on-call weekend of Bar Boarding?", answer=wednesday)
    assert _codes(item_problems(smm, q)) == {"weekday_mismatch"}


def test_empty_range(smm: World) -> None:
    for text in ("How often between February 2027 and February 2027?", "From March 2027 to January 2027?"):
        assert _codes(text_problems(text, smm)) == {"empty_range"}, text
    assert text_problems("How often between January 2027 and February 2027?", smm) == []


def test_outside_span_dates_and_options(smm: World, icm: World) -> None:
    q = _item(smm, answer="2027-02-14", options=["2027-02-14", "2027-02-21", "2027-03-28", "2027-02-07"])
    assert _codes(item_problems(smm, q)) == {"outside_span"}
    late = icm.events[-1].model_copy(update={"start": dt.datetime(2026, 8, 1, 10)})
    world = icm.model_copy(update={"events": [*icm.events[:-1], late]})
    assert any(p.code == "outside_span" and late.id in p.entities for p in world_problems(world, ICM))


def test_unavailable_an_event_while_away(icm: World) -> None:
    e = icm.events[0]
    p = e.participants[0]
    away = AvailabilitySpec.model_validate({"away": [{"from": e.start.date(), "to": e.start.date()}]})
    people = [x.model_copy(update={"availability": away}) if x.id == p else x for x in icm.people]
    problems = world_problems(icm.model_copy(update={"people": people}), ICM)
    assert any(x.code == "unavailable" and x.entities == (e.id, p) for x in problems)


def test_the_planner_keeps_declared_availability(icm: World) -> None:
    """Otieno is away 8-14 June and Achieng comes on weekdays 8-16 only (the theme says so)."""
    for e in icm.events:
        if "otieno" in e.participants:
            assert not dt.date(2026, 6, 8) <= e.start.date() <= dt.date(2026, 6, 14)
        if "achieng" in e.participants:
            assert e.start.weekday() < 5 and 8 <= e.start.hour <= 16


def test_role_conflict_a_relation_the_theme_does_not_declare(icm: World, smm: World) -> None:
    fact = Fact(id="f_rel_x", kind="relation", subject="wanjiru", object="kiprop", value="my sister")
    problems = world_problems(icm.model_copy(update={"facts": [*icm.facts, fact]}), ICM)
    assert any(p.code == "role_conflict" and p.entities == ("wanjiru", "kiprop") for p in problems)
    f = next(f for f in smm.facts if f.object == "relief" and f.id.endswith("_0"))
    medic = smm.model_copy(
        update={"facts": [x.model_copy(update={"value": "tupou"}) if x.id == f.id else x for x in smm.facts]}
    )
    assert any(p.code == "role_conflict" and "tupou" in p.entities for p in world_problems(medic, SMM))


def test_ownership_in_the_world_and_in_a_line(icm: World, memeye: World) -> None:
    e = icm.events[0]
    fact = Fact(
        id="f_x_brought", kind="brought", subject="kiprop", object="tally_notebook", event=e.id, at=e.start
    )
    problems = world_problems(icm.model_copy(update={"facts": [*icm.facts, fact]}), ICM)
    assert any(p.code == "ownership" and p.entities == ("kiprop", "tally_notebook") for p in problems)
    said = line_problems(memeye, "solveig", "I keep the splint kit close by these days.")
    assert _codes(said) == {"ownership"}  # the theme gives it to the doctor
    assert line_problems(memeye, "solveig", "I keep the guest book close by these days.") == []


def test_unknown_holiday_from_a_country_the_theme_did_not_name(icm: World) -> None:
    invented = Holiday(date=dt.date(2026, 6, 2), name="Spring Festival")
    cal = icm.calendar.model_copy(update={"holidays": [*icm.calendar.holidays, invented]})
    problems = world_problems(icm.model_copy(update={"calendar": cal}), ICM)
    assert any(p.code == "unknown_holiday" and p.entities == ("2026-06-02",) for p in problems)
    e = icm.events[0].model_copy(update={"occasion": "National Day week"})
    world = icm.model_copy(update={"events": [e, *icm.events[1:]]})
    assert any(p.code == "unknown_holiday" and e.id in p.entities for p in world_problems(world, ICM))


def test_stale_render_an_observation_showing_a_value_not_held(memeye: World) -> None:
    t = memeye.timeline("trail_log_colour", "colour")
    assert t is not None and len(t.spans) == 2  # it changes once (declared `after`)
    stale = t.spans[0].fact
    late = t.spans[1].start + dt.timedelta(days=1)
    o = Observation(
        id="o1", source="trail_log", episode="s99", kind="street_photo", timestamp=late, order=0,
        expresses=[Expression(fact=stale or "", channel=Channel.pixel, granularity="X4")],
    )  # fmt: skip
    problems = observation_problems(memeye, [o])
    assert _codes(problems) == {"stale_render"} and problems[0].entities == ("o1", "trail_log_colour")


def test_line_filter_counts_rejections_by_code(smm: World) -> None:
    lf = LineFilter(smm)
    assert lf.ok("parata", "Anyone at the launch jetty today?")
    assert not lf.ok("okafor", "Amara, say hello to Hemi for us.")
    assert not lf.ok("okafor", "Meet on Wednesday 13 February 2027.")
    assert lf.summary() == {"rejected": 2, "reasons": {"self_relation": 1, "weekday_mismatch": 1}}


def _theme_dict(name: str) -> dict:
    from mnemoforge import yaml_io

    return yaml_io.safe_load((TEST_THEMES / name).read_text(encoding="utf-8"))


def test_theme_check_names_a_fact_topic_no_source_carries(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.theme_checks import check_theme
    from mnemoforge.theme_io import ThemeError

    data = _theme_dict("pilot_station_smm.yaml")
    for src in data["smm"]["sources"]:  # nobody carries the bar conditions any more
        src["carries"] = [t for t in src.get("carries", []) if t != "conditions"] or ["schedule", "detail"]
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(
        ThemeError, match=r"conflicts.0.stale: source 'station_chat' does not carry 'conditions'"
    ):
        check_theme(path)  # the routed conflict first
    data["smm"]["conflicts"] = []
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(
        ThemeError, match=r"no source carries 'conditions' facts \(smm.entity_kinds.1.attributes"
    ):
        check_theme(path)
    data["smm"]["sources"][0]["carries"] = ["nonsense"]
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ThemeError, match=r"smm.sources.0.carries.0: no fact has topic 'nonsense'"):
        check_theme(path)


def test_theme_check_rejects_split_copies_of_one_memeye_object(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.theme_io import ThemeError, load_theme

    data = _theme_dict("fjord_hut_memeye.yaml")
    data["memeye"]["scenarios"][0]["changes"][0]["scenes"] = [
        0
    ]  # the one collar, changed at the car park only
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ThemeError, match=r"changes.0.scenes: `draws.colour` is one object"):
        load_theme(path)
    data = _theme_dict("fjord_hut_memeye.yaml")
    data["memeye"]["scenarios"][1]["draws"]["person"] = {"cast": "eirik", "holds": ["a", "b", "c", "d"]}
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ThemeError, match=r"draws.person.cast: 'eirik' is drawn in scenario 0 too"):
        load_theme(path)


def test_an_incoherent_world_fails_theme_check_naming_rule_and_person(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The guide is away the whole winter, yet drawn in every trail picture: no session time fits."""
    from mnemoforge.theme_checks import check_theme
    from mnemoforge.theme_io import ThemeError

    data = _theme_dict("fjord_hut_memeye.yaml")
    data["cast"][1]["availability"] = {"away": [{"from": "2026-11-01", "to": "2027-04-30"}]}
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ThemeError, match=r"unavailable: eirik is not available|unavailable: at 'trailhead'"):
        check_theme(path)


def test_an_unroutable_conflict_is_dropped_with_a_reason() -> None:
    """Only the bar bulletin (a document, authority 4) carries the harbour's conditions, so a
    rumour about a bar check's swell (hearsay: said in a lowest-authority chat) has nowhere to go: its
    conflict item is not asked, and the stream says why (the funnel's ``unrouted``)."""
    from mnemoforge.generators.smm import questions, stream
    from mnemoforge.generators.smm import world as smm_world
    from mnemoforge.schemas.theme import Theme

    data = SMM.model_dump(mode="json", by_alias=True)
    for src in data["smm"]["sources"]:
        if src["id"] != "bar_bulletin":
            src["carries"] = [t for t in src["carries"] or ["schedule", "assignment", "detail", "membership",
                              "record", "preference", "profile"] if t != "conditions"]  # fmt: skip
    data["smm"]["conflicts"] = []
    theme = Theme.model_validate(data)
    world = smm_world.plan_world(theme, 18)  # this seed draws a rumour about a bar check's swell
    st = stream.build_stream(theme, world)
    assert st.unrouted["items"] >= 1 and st.unrouted["reasons"]
    rumours = sorted(st.unrouted["facts"])  # the rumours a planned item reads
    assert rumours and all(f.endswith("_swell_r") for f in rumours)
    assert all("'conditions'" in st.unrouted["facts"][f] for f in rumours)
    made = questions.make_questions(theme, world, st.observations)
    assert not [q for q in made if set(rumours) & set(q.facts_read)]
