"""``text.plan_shots`` (icm): model-proposed shot lists validated into Shot records (loopback server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mnemoforge.backends.text import OpenAICompatBackend
from mnemoforge.generators.icm import album
from mnemoforge.generators.icm import model_shots as plan_shots
from mnemoforge.generators.icm import shot_proposals as sp
from mnemoforge.generators.icm.album_check import album_problems
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.theme import Theme
from mnemoforge.theme_io import load_theme
from tests import shot_director
from tests.conftest import small_theme_data
from tests.llm_servers import LLMServer, Recorded


def _data(base_url: str, clips: int = 5, **text: Any) -> dict:
    data = small_theme_data(clips=clips)
    backend = {"provider": "openai", "model": "director", "base_url": base_url, "api_key_env": None}
    data["text"] = {"backend": backend, "plan_shots": True, "plan_shots_batch": 2, **text}
    return data


def _plan(theme: Theme) -> tuple[Any, list[Clip]]:
    world = plan_world(theme, theme.seed, theme.album.clips - 1)
    return world, album.plan_album(theme, world)[0]


def _run(
    srv: LLMServer, clips: int = 5, concurrency: int = 4, **text: Any
) -> tuple[Theme, Any, list[Clip], list[Clip], list[dict], dict]:
    theme = Theme.model_validate(_data(srv.base_url, clips=clips, **text))
    world, planned = _plan(theme)
    backend = OpenAICompatBackend(
        "director", base_url=srv.base_url, api_key_env=None, max_concurrency=concurrency
    )
    out, lineage, summary = plan_shots.model_shots(
        theme, world, planned, backend, plan_shots.load_prompts(theme), theme.seed
    )
    return theme, world, planned, out, lineage, summary


def test_batches_run_concurrently_up_to_the_backends_cap_with_the_same_result() -> None:
    with LLMServer("openai", responder=shot_director.answer, default_delay=0.3) as srv:
        *_, out, lineage, summary = _run(srv, clips=7, concurrency=2)  # 6 story clips: 3 batches
        assert srv.max_in_flight == 2
    with LLMServer("openai", responder=shot_director.answer) as srv:
        *_, serial, lineage1, summary1 = _run(srv, clips=7, concurrency=1)
        assert srv.max_in_flight == 1
    same = [{k: v for k, v in r.items() if k != "backend"} for r in lineage]  # the id names the port
    assert [{k: v for k, v in r.items() if k != "backend"} for r in lineage1] == same
    assert serial == out and summary1 == summary and summary["batches"] == 3


def test_accepted_shot_lists_become_the_clips_shots_and_keep_every_fact() -> None:
    with LLMServer("openai", responder=shot_director.answer) as srv:
        theme, world, clips, out, lineage, summary = _run(srv)
    story = [c for c in clips if not c.calibration]
    assert summary == {"clips": len(story), "batches": 2, "calls": 2, "proposed": len(story),
                       "accepted": len(story), "repaired": 0, "fell_back": 0,
                       "fell_back_by_reason": {}, "rejected": {}}  # fmt: skip
    assert out[0] == clips[0]  # the calibration clip is never re-planned
    assert album_problems(theme, world, out) == []
    for before, after in zip(clips[1:], out[1:], strict=True):
        assert [s.composition for s in after.shots] != [s.composition for s in before.shots] or [
            s.camera for s in after.shots
        ] != [s.camera for s in before.shots]  # the director's plan, not the procedural one
        assert after.shots[0].composition == "wide" and after.shots[0].camera == "pan_left"
        assert sp.required_facts(world, before) <= sp.required_facts(world, after)
        lines = lambda c: sorted((ln.speaker, ln.text, tuple(ln.facts)) for s in c.shots for ln in s.dialogue)  # noqa: E731
        assert lines(after) == lines(before)  # every line, exactly once
        for s in after.shots:
            need = album.speech_need(world, [(ln.speaker, ln.text, [], []) for ln in s.dialogue])
            assert not s.dialogue or need <= s.duration_s
    # raw I/O: the request lists the clips, the reply is kept verbatim, each clip has its verdict
    call = lineage[0]["calls"][0]
    assert "- clip c0001:" in call["request"] and call["reply"].startswith("Here is the shot plan.")
    assert call["verdicts"] == {"c0001": "accepted", "c0002": "accepted"}
    sent = [r.json["messages"][0]["content"] for r in srv.requests]
    assert call["request"] in sent and len(sent) == summary["calls"]


def _spoil_first(kind: str, times: int):  # type: ignore[no-untyped-def]
    """A spoiler: the first ``times`` replies for each clip break one rule."""

    def spoil(cid: str, shots: list[dict], n_messages: int) -> list[dict]:
        attempt = (n_messages - 1) // 2  # 1 message on the first call, 3 on the first repair, ...
        if attempt >= times:
            return shots
        if kind == "stranger":
            return [{**shots[0], "visible": [*shots[0]["visible"], "zed"]}, *shots[1:]]
        if kind == "establishing":
            return [{**shots[0], "framing": "close", "visible": shots[0]["visible"][:1]}, *shots[1:]]
        raise AssertionError(kind)

    return spoil


def test_an_invalid_plan_goes_back_to_the_model_and_a_repair_is_accepted() -> None:
    def respond(rec: Recorded) -> str:
        return shot_director.answer(rec, _spoil_first("stranger", 1))

    with LLMServer("openai", responder=respond) as srv:
        theme, world, clips, out, lineage, summary = _run(srv)
        requests = [r.json["messages"] for r in srv.requests]
    n = len(clips) - 1
    assert summary["accepted"] == summary["repaired"] == n and summary["fell_back"] == 0
    assert summary["calls"] == 4 and summary["proposed"] == 2 * n and summary["rejected"] == {"visible": n}
    first, repair = lineage[0]["calls"]
    assert first["verdicts"]["c0001"][0].startswith("visible: shot 0 shows ['zed']")
    assert repair["verdicts"] == {"c0001": "accepted", "c0002": "accepted"}
    # the repair request is the same conversation: the proposal, then the problems of each clip
    convo = next(m for m in requests if len(m) == 3 and "- clip c0001:" in m[0]["content"])
    assert convo[1]["role"] == "assistant" and '"zed"' in convo[1]["content"]
    assert "- clip c0001: visible: shot 0 shows ['zed']" in convo[2]["content"] == repair["request"]
    assert lineage[0]["repaired"] == ["c0001", "c0002"] and album_problems(theme, world, out) == []
    assert out[1] != clips[1]


def test_the_repair_conversation_works_through_the_gemini_backend_too() -> None:
    from mnemoforge.backends.text import GeminiBackend

    def respond(rec: Recorded) -> str:
        return shot_director.answer(rec, _spoil_first("stranger", 1))

    with LLMServer("gemini", responder=respond) as srv:
        theme = Theme.model_validate(_data(srv.base_url, clips=3))
        world, clips = _plan(theme)
        backend = GeminiBackend("gemini-2.5-flash", api_key="gm-test-key-123", base_url=srv.base_url)
        out, lineage, summary = plan_shots.model_shots(
            theme, world, clips, backend, plan_shots.load_prompts(theme), theme.seed
        )
        repair = shot_director.turns(srv.requests[1])
    assert summary["accepted"] == summary["repaired"] == 2 and summary["calls"] == 2, summary
    assert [t["role"] for t in repair] == ["user", "model", "user"] and "zed" in repair[2]["content"]
    assert out[1:] != clips[1:] and album_problems(theme, world, out) == []


def test_a_plan_invalid_on_every_attempt_falls_back_to_the_procedural_shots() -> None:
    def respond(rec: Recorded) -> str:
        return shot_director.answer(rec, _spoil_first("establishing", 2))

    with LLMServer("openai", responder=respond) as srv:
        _, _, clips, out, lineage, summary = _run(srv, plan_shots_attempts=2)
    n = len(clips) - 1
    assert out == clips  # every clip kept its procedural shots, exactly
    assert summary["accepted"] == 0 and summary["fell_back"] == n and summary["calls"] == 4
    assert summary["fell_back_by_reason"] == {"establishing": n} and summary["rejected"] == {
        "establishing": 2 * n
    }
    (proc, _) = lineage[0]["procedural"]
    assert proc["clip"] == "c0001" and proc["reason"].startswith("establishing: shot 0 must be wide")


def test_a_failed_call_or_an_unparsable_reply_keeps_the_procedural_shots() -> None:
    from tests.llm_servers import Reply, error_body

    with LLMServer("openai", default_text="No shots today.") as srv:
        srv.script(Reply(400, error_body("openai", 400, "no")))
        _, _, clips, out, lineage, summary = _run(srv, plan_shots_attempts=2)
    assert out == clips
    # one batch's call failed (not sent back to the model); the other's replies were unparsable twice
    assert summary["fell_back_by_reason"] == {"model call failed": 2, "unparsable reply": 2}
    failed, unparsable = sorted(lineage, key=lambda r: len(r["calls"]))
    assert len(failed["calls"]) == 1 and failed["calls"][0]["error"].startswith("HTTP 400")
    assert [c["reply"] for c in unparsable["calls"]] == ["No shots today."] * 2


def _brief(theme: Theme) -> tuple[Any, sp.ClipBrief, list[dict]]:
    world, clips = _plan(theme)
    # a clip of two people where one brought an object (ana's kite) and only ana speaks
    brief = next(b for b in map(lambda c: sp.brief_for(theme, world, c), clips[1:]) if b.event.objects)
    assert brief.event.participants == ["ana", "ben"] and {ln.speaker for ln in brief.lines} == {"ana"}
    prompt = plan_shots._ask(theme, world, plan_shots.load_prompts(theme)[0], [brief])
    good = shot_director.direct(
        shot_director.clips_in(prompt)[brief.clip.id], shot_director.durations_in(prompt)
    )
    assert sp.validate_proposal(theme, world, brief, good)[1] == []
    return world, brief, good


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda s: [{**s[0], "mood": "calm"}, *s[1:]], "unknown field: shot 0 has 'mood'"),
        (lambda s: [{**s[0], "props": ["kettle"]}, *s[1:]], "props: shot 0 shows 'kettle', not among"),
        (lambda s: [{**s[0], "camera": "zoom_in"}, *s[1:]], "establishing: shot 0 must be wide"),
        (lambda s: [{**s[0], "duration": 5}, *s[1:]], "duration: shot 0 is 5 s"),
        (lambda s: [{**s[0], "framing": "close"}, *s[1:]], "establishing: shot 0 must be wide"),
        (lambda s: [{**x, "lines": []} for x in s], "lines: l0"),
        (
            lambda s: [{**s[0], "lines": s[0]["lines"] + s[1]["lines"][:1]}, *s[1:]],
            "lines: l0 is placed twice",
        ),
        (lambda s: [{**x, "props": []} for x in s], "facts: red_kite was brought and must be a prop"),
        (lambda s: [{**x, "visible": ["ana"]} for x in s], "facts: ben (Ben) attends"),
        (lambda s: [], "shots: expected a non-empty list"),
        (lambda s: [{**s[0], "lines": [["l0"]]}, *s[1:]], "lines: shot 0 names ['l0'], not a line"),
        (lambda s: [{**s[0], "visible": "ana"}, *s[1:]], "visible: shot 0 needs a non-empty list"),
        (lambda s: [{**s[0], "duration": 6.5}, *s[1:]], "duration: shot 0 needs a whole number"),
        (lambda s: [s[0], {**s[1], "visible": ["ana", "ben", "chloe"]}], "visible: shot 1 shows ['chloe']"),
        (lambda s: s * 3, "shots: "),
    ],
)
def test_each_rule_names_its_reason(change: Any, reason: str) -> None:
    theme = load_theme_from(_data("http://127.0.0.1:9/v1", clips=4))
    world, brief, good = _brief(theme)
    clip, problems = sp.validate_proposal(theme, world, brief, change(json.loads(json.dumps(good))))
    assert clip is None and any(p.startswith(reason) for p in problems), problems


def test_speech_that_does_not_fit_its_shot_is_refused() -> None:
    theme = load_theme_from(_data("http://127.0.0.1:9/v1", clips=4))
    world, brief, good = _brief(theme)
    keys = {f"l{k}": ln for k, ln in enumerate(brief.lines)}
    i = next(i for i, shot in enumerate(good) if shot["lines"])  # the first shot with speech
    need = album.speech_need(world, [(keys[k].speaker, keys[k].text, [], []) for k in good[i]["lines"]])
    assert 4 < need <= good[i]["duration"]  # its lines need more than 4 s
    clip, problems = sp.validate_proposal(
        theme, world, brief, [*good[:i], {**good[i], "duration": 4}, *good[i + 1 :]]
    )
    allowed = [d for d in theme.album.shot_durations if d >= need]
    assert (
        clip is None
        and allowed
        and problems == [f"duration: shot {i} is 4 s (its speech needs {need:.1f} s); allowed: {allowed}"]
    )


def load_theme_from(data: dict) -> Theme:
    return Theme.model_validate(data)


def test_theme_check_validates_the_settings(tmp_path: Path) -> None:
    from mnemoforge.theme_checks import check_theme
    from mnemoforge.theme_io import ThemeError

    data = small_theme_data()
    data["text"] = {"plan_shots": True}
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ThemeError, match="backend: required when plan_shots is true"):
        check_theme(bad)
    data = _data("http://127.0.0.1:9/v1", plan_shots_prompt="no_such_prompt")
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ThemeError, match="text.plan_shots_prompt") as err:
        check_theme(bad)
    assert "no such prompt" in str(err.value)
    data = _data("http://127.0.0.1:9/v1", plan_shots_batch=0)
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ThemeError, match="plan_shots_batch"):
        check_theme(bad)
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(_data("http://127.0.0.1:9/v1")))
    assert check_theme(good).text.plan_shots
    # left at their defaults the new settings are not dumped (an offline config.resolved.json is as before)
    from mnemoforge.theme_io import DEFAULT_THEME

    assert "plan_shots" not in load_theme(DEFAULT_THEME).text.model_dump()


def _stages(path: Path, outputs: Path, *names: str) -> Any:
    from mnemoforge import pipeline

    ctx = pipeline.BuildContext(path, outputs, 7, workers=1)
    with pipeline.run_lock(ctx):
        pipeline.prepare(ctx)
        for name in names:
            dict(pipeline.STAGE_FUNCS)[name](ctx)
    return ctx


def test_model_planned_shots_render_with_no_audit_mismatch_and_their_calls_are_recorded(
    tmp_path: Path,
) -> None:
    """plan → episodes → render with text.plan_shots: the clips are the director's, the render audit
    (every claimed person, prop, sign and line against what was drawn and heard) finds no mismatch,
    the ledger records the episodes stage's calls and the run folder keeps the lineage."""
    from mnemoforge.generators.icm.family import load_clips
    from mnemoforge.store import ledger

    with LLMServer("openai", responder=shot_director.answer) as srv:
        path = tmp_path / "t.yaml"
        path.write_text(yaml.safe_dump(_data(srv.base_url, clips=6), sort_keys=False))
        ctx = _stages(path, tmp_path / "out", "plan", "episodes", "render")
        n_requests = len(srv.requests)
        sent = [r.json for r in srv.requests]
    run = ctx.run.root
    clips = load_clips(run)
    shots = [s for c in clips[1:] for s in c.shots]
    assert {s.composition for s in shots} == {"wide", "medium", "close"}
    assert {"zoom_in", "zoom_out", "pan_left", "pan_right"} <= {s.camera for s in shots}
    audit = json.loads((run / "media/render_audit.json").read_text())
    assert audit["mismatches"] == 0 and audit["shots_audited"] == sum(len(c.shots) for c in clips)
    assert audit["lines_cut"] == 0 and audit["props_claimed"] >= 1 and audit["signs_claimed"] >= 1
    summary = json.loads(plan_shots.summary_path(run).read_text())
    assert summary["accepted"] == summary["clips"] == len(clips) - 1 and summary["calls"] == n_requests
    lineage = [json.loads(x) for x in plan_shots.lineage_path(run).read_text().splitlines()]
    calls = [c for r in lineage for c in r["calls"]]
    assert sorted(c["request"] for c in calls) == sorted(m["messages"][-1]["content"] for m in sent)
    assert all(c["reply"].startswith("Here is the shot plan.\n```json") for c in calls)
    rows = ledger.read_ledger(run)
    assert [r["stage"] for r in rows] == ["episodes"] * n_requests and {r["status"] for r in rows} == {"ok"}


@pytest.mark.slow
def test_a_build_with_model_planned_shots_ships_its_lineage_and_counts_and_a_rebuild_pays_nothing(
    tmp_path: Path,
) -> None:
    """A whole build: the release verifies, carries the raw I/O (``data/icm/shot_plan.jsonl``), the
    counts (``dataset_statistics.json`` ``model_plan.shots``, the card) and the ledger totals; a
    re-run episodes stage is answered from the model-output cache and the release is unchanged."""
    from mnemoforge.pipeline import build
    from mnemoforge.store import ledger
    from mnemoforge.validators.release_check import verify_release

    def respond(rec: Recorded) -> str:  # the first plan of each clip names a stranger: one repair each
        return shot_director.answer(rec, _spoil_first("stranger", 1))

    with LLMServer("openai", responder=respond) as srv:
        path = tmp_path / "t.yaml"
        path.write_text(yaml.safe_dump(_data(srv.base_url, clips=4), sort_keys=False))
        res = build(path, outputs=tmp_path / "out", workers=1)
        n_requests = len(srv.requests)
        (res.run_dir / "stages/episodes.json").unlink()
        again = build(path, outputs=tmp_path / "out", workers=1)
        assert again.ran["episodes"] and len(srv.requests) == n_requests
    assert verify_release(res.release_dir) == []
    stats = json.loads((res.release_dir / "dataset_statistics.json").read_text())
    shots = stats["model_plan"]["shots"]
    assert shots["accepted"] == shots["repaired"] == shots["clips"] == 3 and shots["rejected"] == {
        "visible": 3
    }
    shipped = (res.release_dir / "data/icm/shot_plan.jsonl").read_text()
    assert shipped == plan_shots.lineage_path(res.run_dir).read_text() and '\\"zed\\"' in shipped
    card = (res.release_dir / "README.md").read_text()
    assert (
        "shot lists: 3 of 3 clips planned by a model (3 after a repair)" in card and "## Model calls" in card
    )
    rows = ledger.read_ledger(res.run_dir)
    assert [r["status"] for r in rows[n_requests:]] == ["cached"] * n_requests
    assert again.release_dir == res.release_dir
    manifest = (res.release_dir / "MANIFEST.json").read_text()
    assert json.loads(manifest)["files"]["data/icm/shot_plan.jsonl"]
