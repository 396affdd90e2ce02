"""Pieces of the smm family without a build: theme errors, the call scorer, gates, the grammar."""

from __future__ import annotations

import copy
import logging
from pathlib import Path

import pytest
import yaml

from mnemoforge import yaml_io
from mnemoforge.generators.questions.programs import FactView, Lexicon, Unanswerable, run_program
from mnemoforge.generators.smm import conversation, questions, stream
from mnemoforge.generators.smm.gates import ConflictOrder, SingleSource, SourceSpan, ToolSchema
from mnemoforge.generators.smm.paraphrase import check_turn
from mnemoforge.generators.smm.scaffold import Lookup, fact_sentence
from mnemoforge.generators.smm.world import plan_world
from mnemoforge.generators.tool_calls import normalise_value, score_calls, tools_of, validate_calls
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.theme import Theme
from mnemoforge.theme_io import THEMES_DIR, ThemeError, load_theme
from mnemoforge.validators.gates import GateContext

THEME_PATH = THEMES_DIR / "office_launch.yaml"
DATA = yaml_io.safe_load(THEME_PATH.read_text())
THEME = load_theme(THEME_PATH)


@pytest.fixture(scope="module")
def planned():
    world = plan_world(THEME, THEME.seed)
    st = stream.build_stream(THEME, world)
    qs = questions.make_questions(THEME, world, st.observations)
    return world, st, qs


def _write(tmp_path: Path, data: dict) -> Path:
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(data, sort_keys=False))
    return p


@pytest.mark.parametrize(
    ("edit", "field", "words"),
    [
        (
            lambda d: d["smm"]["sources"][0]["members"].__setitem__(1, "zed"),
            "smm.sources.0.members.1",
            "unknown person 'zed'",
        ),
        (
            lambda d: d["smm"]["tools"][0]["arguments"][0].__setitem__("type", "strnig"),
            "smm.tools.0.arguments.0.type",
            "strnig",
        ),
        (
            lambda d: d["smm"]["calls"][0]["arguments"].__setitem__("seat_row", "person"),
            "smm.calls.0.arguments.seat_row",
            "no such argument",
        ),
        (
            lambda d: d["smm"]["entities"][0].__setitem__("kind", "spaceship"),
            "smm.entities.0.kind",
            "unknown entity kind",
        ),
        (
            lambda d: d["smm"]["sources"][2]["members"].append("ben_okafor"),
            "smm.sources.2.members",
            "exactly 2",
        ),
    ],
)
def test_malformed_smm_section_names_the_field(tmp_path: Path, edit, field: str, words: str) -> None:
    data = copy.deepcopy(DATA)
    edit(data)
    with pytest.raises(ThemeError) as err:
        load_theme(_write(tmp_path, data))
    assert len(err.value.problems) == 1
    got_field, msg = err.value.problems[0]
    assert got_field == field and words in msg, err.value.problems


def test_smm_section_is_required_for_the_family(tmp_path: Path) -> None:
    data = copy.deepcopy(DATA)
    del data["smm"]
    with pytest.raises(ThemeError, match="smm: section required"):
        load_theme(_write(tmp_path, data))


def test_score_calls_normalises_arguments() -> None:
    tools = tools_of(plan_world(THEME, THEME.seed))
    gold = [
        {
            "step": 1,
            "calls": [
                {
                    "name": "book_flight",
                    "arguments": {
                        "passenger": "Ana Lima",
                        "origin": "Madrid",
                        "destination": "Oslo",
                        "date": "2026-11-13",
                    },
                }
            ],
        },
        {
            "step": 2,
            "calls": [
                {
                    "name": "book_hotel",
                    "arguments": {
                        "guest": "Ana Lima",
                        "city": "Oslo",
                        "hotel": "Harbour Inn",
                        "check_in": "2026-11-13",
                        "nights": 2,
                    },
                }
            ],
        },
    ]
    pred = [
        {
            "step": 1,
            "calls": [
                {
                    "name": "book_flight",
                    "arguments": {
                        "destination": " oslo ",
                        "passenger": "ANA  LIMA",
                        "date": "13 Nov 2026",
                        "origin": "madrid",
                        "seat": "any",
                    },
                }
            ],
        },
        {
            "step": 2,
            "calls": [
                {
                    "name": "book_hotel",
                    "arguments": {
                        "guest": "Ana Lima",
                        "city": "Oslo",
                        "hotel": "harbour inn",
                        "check_in": "November 13, 2026",
                        "nights": "2.0",
                    },
                }
            ],
        },
    ]
    assert score_calls(pred, gold, tools) == 1.0
    assert score_calls(pred[::-1], gold, tools) == 0.0  # step order matters
    off_by_one = copy.deepcopy(pred)
    off_by_one[0]["calls"][0]["arguments"]["date"] = "2026-11-14"
    assert score_calls(off_by_one, gold, tools) == 0.0
    extra = copy.deepcopy(pred)
    extra[1]["calls"][0]["arguments"]["nights"] = 3  # a non-default value is not ignored
    assert score_calls(extra, gold, tools) == 0.0
    assert score_calls("not json", gold, tools) == 0.0
    meeting = [
        {
            "step": 1,
            "calls": [{"name": "schedule_meeting", "arguments": {"attendees": ["B", "A"], "time": "9:30"}}],
        }
    ]
    same = [
        {
            "step": 1,
            "calls": [{"name": "schedule_meeting", "arguments": {"attendees": ["a", "b"], "time": "09:30"}}],
        }
    ]
    assert score_calls(same, meeting, tools) == 1.0
    assert normalise_value("1,000") == normalise_value(1000) == normalise_value("1000.0")


def test_validate_calls_checks_names_required_and_types() -> None:
    tools = tools_of(plan_world(THEME, THEME.seed))
    ok = [
        {
            "step": 1,
            "calls": [
                {
                    "name": "book_hotel",
                    "arguments": {"guest": "A", "city": "B", "hotel": "C", "check_in": "2026-11-02"},
                }
            ],
        }
    ]
    assert validate_calls(ok, tools) == []
    bad = [
        {
            "step": 1,
            "calls": [
                {
                    "name": "book_hotel",
                    "arguments": {
                        "guest": "A",
                        "city": "B",
                        "check_in": "next week",
                        "nights": "two",
                        "pets": True,
                    },
                }
            ],
        }
    ]
    problems = validate_calls(bad, tools)
    assert any("missing required argument 'hotel'" in p for p in problems)
    assert any("check_in='next week' is not a valid date" in p for p in problems)
    assert any("nights='two' is not a valid integer" in p for p in problems)
    assert any("unknown argument 'pets'" in p for p in problems)
    assert validate_calls([{"step": 1, "calls": [{"name": "launch_rocket", "arguments": {}}]}], tools)


def test_background_talk_is_generated_without_the_questions() -> None:
    data = copy.deepcopy(DATA)
    data["smm"]["tasks"] = {
        "single_hop": 1,
        "multi_hop": 0,
        "conflict_resolution": 0,
        "preference": 0,
        "function_calling": 0,
    }
    other = Theme.model_validate(data)
    a, b = conversation.background(THEME, 11), conversation.background(other, 11)
    assert [(t.source, t.at, t.speaker, t.text) for t in a] == [
        (t.source, t.at, t.speaker, t.text) for t in b
    ]
    values = {f.value for f in plan_world(THEME, 11).facts if f.kind in ("attribute", "chose") and f.value}
    texts = " ".join(t.text for t in a)
    assert not [v for v in values if len(v) > 3 and f" {v} " in f" {texts} "]
    assert {t.speaker for t in a if t.source == "assistant"} == {"Ana Lima", conversation.ASSISTANT}


def test_gates_reject_broken_items(planned) -> None:
    world, st, qs = planned
    obs = {o.id: o for o in st.observations}
    ctx = GateContext(world, obs, qs)
    q = next(
        q
        for q in qs
        if q.labels["task"] == "conflict_resolution" and any(f.endswith("_0") for f in q.facts_read)
    )
    assert all(g.check(q, ctx).keep for g in (SourceSpan(), SingleSource(), ConflictOrder(), ToolSchema()))
    one = q.model_copy(update={"evidence": q.evidence[:1], "evidence_sources": [obs[q.evidence[0]].source]})
    assert not SourceSpan().check(one, ctx).keep
    # the update moved right after the stale value: the order gate rejects it
    stale = next(f for f in q.facts_read if f.endswith("_0"))
    upd = stale[:-2] + "_1"
    o_stale = next(o for o in st.observations if stale in o.fact_ids())
    o_upd = next(o for o in st.observations if upd in o.fact_ids())
    moved = dict(obs) | {o_upd.id: o_upd.model_copy(update={"order": o_stale.order + 1})}
    v = ConflictOrder().check(q, GateContext(world, moved, qs))
    assert not v.keep and "rounds after" in v.reason
    # everything in one source answers alone
    merged = {k: o.model_copy(update={"source": "launch_squad"}) for k, o in obs.items()}
    assert not SingleSource().check(q, GateContext(world, merged, qs)).keep
    fc = next(q for q in qs if q.labels["task"] == "function_calling")
    broken = copy.deepcopy(fc.structured_answer)
    broken[0]["calls"][0]["arguments"].pop(sorted(broken[0]["calls"][0]["arguments"])[0])
    v = ToolSchema().check(fc.model_copy(update={"structured_answer": broken}), ctx)
    assert not v.keep


def test_planning_is_deterministic(planned) -> None:
    world, st, qs = planned
    again = stream.build_stream(THEME, plan_world(THEME, THEME.seed))
    assert [o.model_dump() for o in again.observations] == [o.model_dump() for o in st.observations]
    other = stream.build_stream(THEME, plan_world(THEME, THEME.seed + 1))
    assert [o.content for o in other.observations] != [o.content for o in st.observations]
    assert sorted(q.labels["task"] for q in qs) == sorted(
        t
        for t, n in THEME.smm.tasks.counts().items()
        for _ in range(n)  # type: ignore[union-attr]
    )


def test_items_are_made_once_per_content_in_a_process(planned, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build's questions stage takes what its theme check's dry run made: an equal theme, World
    and observations (other objects) plan nothing again; another theme does."""
    world, st, qs = planned
    made: list[str] = []
    monkeypatch.setattr(questions, "_MADE", {})
    monkeypatch.setattr(questions, "_make_questions", lambda th, *a: made.append(th.version) or list(qs))
    assert questions.make_questions(THEME, world, st.observations) == qs
    copies = [o.model_copy(deep=True) for o in st.observations]
    assert questions.make_questions(THEME.model_copy(deep=True), world.model_copy(deep=True), copies) == qs
    assert made == [THEME.version]
    questions.make_questions(THEME.model_copy(update={"version": "9.9.9"}), world, st.observations)
    assert made == [THEME.version, "9.9.9"]


def test_model_turn_rewrites_are_kept_only_when_they_still_express_the_fact(planned) -> None:
    from mnemoforge.generators.smm.paraphrase import PROMPT_VERSION
    from tests.llm_servers import LLMServer, Reply, openai_completion

    world, st, _ = planned
    carriers = [o for o in st.observations if any(e.channel == "text" for e in o.expresses)]
    assert len(carriers) > 10
    texts = [o.content.partition(": ")[2] or o.content for o in carriers]
    replies = []
    for i, text in enumerate(texts):
        if i % 3 == 0:
            replies.append("So, just so everyone knows: " + text)  # faithful
        elif i % 3 == 1:
            replies.append("Something came up, will share later.")  # drops the fact
        else:
            replies.append(text + " Or was it something else, not sure.\nsecond line")  # two lines
    with LLMServer("openai") as srv:
        srv.script(*[Reply(body=openai_completion(r)) for r in replies])
        data = copy.deepcopy(DATA)
        data["smm"]["paraphrase_turns"] = True
        data["text"] = {
            "backend": {"provider": "openai", "model": "turns", "base_url": srv.base_url, "api_key_env": None}
        }
        theme = Theme.model_validate(data)
        rewritten = stream.build_stream(theme, world)
    assert len(srv.requests) == len(texts)
    by_id = {o.id: o for o in rewritten.observations}
    assert [o.id for o in rewritten.observations] == [o.id for o in st.observations]
    for i, (o, rec) in enumerate(zip(carriers, rewritten.turns, strict=True)):
        new = by_id[o.id]
        assert rec["input"] == texts[i] and rec["prompt"] == PROMPT_VERSION and "turns" in rec["backend"]
        assert new.expresses == o.expresses
        if i % 3 == 0:
            assert rec["kept"], rec["reason"]
            assert new.content.endswith("So, just so everyone knows: " + texts[i])
        else:
            assert not rec["kept"] and new.content == o.content  # the procedural turn stays
            assert rec["reason"].startswith("dropped") or rec["reason"] == "not a single short line"
    missing = copy.deepcopy(DATA)
    missing["smm"]["paraphrase_turns"] = True
    with pytest.raises(ValueError, match="smm.paraphrase_turns: needs a text.backend"):
        Theme.model_validate(missing)


def test_an_unreachable_source_target_is_a_clear_error() -> None:
    data = copy.deepcopy(DATA)
    data["smm"]["target_sources_per_question"] = 6.0
    theme = Theme.model_validate(data)
    with pytest.raises(
        stream.StreamError, match=r"smm.target_sources_per_question: the routed plan reaches 3\.\d\d"
    ):
        stream.build_stream(theme, plan_world(theme, theme.seed))


def test_single_source_gate_runs_relaxed_programs(planned) -> None:
    """One gold choice, or an update with its record code, alone in a source: the strict
    programs say 'unanswerable' (too few choices, no stale value), the relaxed ones answer."""
    world, st, qs = planned
    obs = {o.id: o for o in st.observations}
    ctx = GateContext(world, obs, qs)
    pr = next(q for q in qs if q.labels["task"] == "preference")
    assert SingleSource().check(pr, ctx).keep
    gold = next(
        f for f in pr.facts_read if world.fact(f).kind == "chose" and world.fact(f).value == pr.answer
    )
    carrier = next(o for o in st.observations if gold in o.fact_ids())
    solo = carrier.model_copy(
        update={
            "id": "obs_solo",
            "source": "solo",
            "expresses": [e for e in carrier.expresses if e.fact == gold],
        }
    )
    v = SingleSource().check(pr, GateContext(world, obs | {"obs_solo": solo}, qs))
    assert not v.keep and "relaxed answerable from source 'solo'" in v.reason
    cr = next(q for q in qs if q.labels["task"] == "conflict_resolution" and "entity" in q.program.args)
    upd = next(f for f in cr.facts_read if f.endswith("_1"))
    code = next(f for f in cr.facts_read if f.startswith("f_code_"))
    both = [
        o.model_copy(update={"id": f"obs_both_{i}", "source": "both"})
        for i, o in enumerate(o for o in st.observations if {upd, code} & o.fact_ids())
    ]
    v = SingleSource().check(cr, GateContext(world, obs | {o.id: o for o in both}, qs))
    assert not v.keep and "relaxed" in v.reason


def test_a_later_rumour_does_not_override_the_update() -> None:
    world = plan_world(THEME, THEME.seed)
    rumour = next(f for f in world.facts if f.id.endswith("_r"))
    stem = rumour.id[:-2]
    update = world.fact(stem + "_1")
    assert rumour.at > update.at and rumour.value != update.value
    view = FactView(world.facts, Lexicon(world))
    args = {"entity": rumour.subject, "key": rumour.object}
    assert run_program("latest_value", view, args) == Lexicon(world).names.get(update.value, update.value)
    assert {update.id, rumour.id} <= view.read  # the item reads what the answer beats
    # without the record code nobody can tell which entity the values belong to
    no_code = FactView([f for f in world.facts if f.id != f"f_code_{rumour.subject}"], Lexicon(world))
    with pytest.raises(Unanswerable):
        run_program("latest_value", no_code, args)


def test_updates_are_not_always_announced() -> None:
    world = plan_world(THEME, THEME.seed)
    lk = Lookup.of(THEME, world)
    updates = [f for f in world.facts if f.id.startswith("f_attr_") and f.id.endswith("_1")]
    said = [
        fact_sentence(lk, f, "", derive_rng(world.seed, "smm", "scaffold", f"u_{f.id[2:]}")) for f in updates
    ]
    signal = ("now", "correction", "change of plan", "changed")
    plain = [x for x in said if not any(w in x.lower() for w in signal)]
    assert len(plain) >= len(said) // 4, said


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("FYI, MEE-52 room: Zurich Room.", True),
        ("The room of MEE-52 isn't Zurich Room anymore.", False),
        ("MEE-52 room is Zurich Room, not sure though.", False),
        ("Maybe the room of MEE-52 is Zurich Room.", False),
        ("MEE-52 is in Zurich Room?", False),
    ],
)
def test_turn_rewrites_reject_negations_and_hedges(reply: str, kept: bool) -> None:
    original = "The room for MEE-52 is Zurich Room."
    reason = check_turn(reply, original, ["MEE-52", "Zurich Room"], ["Birch Room"])
    assert (reason == "") == kept, reason
    # a hedge the original already had is not a change
    rumour = "I heard the room of MEE-52 might be Zurich Room, nothing official though."
    assert (
        check_turn(
            "Heard MEE-52 might be in Zurich Room, nothing official.", rumour, ["MEE-52", "Zurich Room"], []
        )
        == ""
    )


def test_a_task_the_world_cannot_fill_is_reported_not_failed(caplog) -> None:
    data = copy.deepcopy(DATA)
    data["smm"]["tasks"] = {k: 10 * v for k, v in data["smm"]["tasks"].items()}
    theme = Theme.model_validate(data)
    world = plan_world(theme, theme.seed)
    with caplog.at_level(logging.WARNING, logger="mnemoforge.smm"):
        picked = questions.plan_questions(theme, world)
    short = questions.shortfalls(theme, world)
    assert all(v["available"] < v["asked"] for v in short.values())
    assert len(picked) == sum(v["available"] for v in short.values())
    assert sum("asks for" in r.getMessage() for r in caplog.records) == len(short)


def test_background_talk_stops_short_with_one_warning_when_every_wording_is_at_the_cap(caplog) -> None:
    """A budget the banks cannot fill under ``album.max_line_repeats`` ends in one shortfall line
    per source (this used to loop forever once every wording was at the cap)."""
    theme = THEME.model_copy(
        update={
            "smm": THEME.smm.model_copy(update={"rounds_per_day": 60}),
            "album": THEME.album.model_copy(update={"max_line_repeats": 1}),
        }
    )
    with caplog.at_level(logging.WARNING):
        turns = conversation.background(theme, theme.seed)
    short = [r.getMessage() for r in caplog.records if "shortfall: smm background talk" in r.getMessage()]
    assert turns and short
    assert len(short) == len(set(short)) <= len(theme.smm.sources)
    said = [f"{t.speaker}: {t.text}" for t in turns if t.kind != "filler"]
    assert len(said) == len(set(said))  # the cap of one holds
