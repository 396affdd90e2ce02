"""``text.plan`` (icm): model-proposed event outlines validated into World records (loopback server)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from mnemoforge.backends.text import OpenAICompatBackend
from mnemoforge.generators.icm.model_plan import model_plan, parse_outlines
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.generators.icm.world_rules import world_problems
from mnemoforge.theme_io import load_theme
from mnemoforge.validators.prompts import load_prompt
from tests.conftest import small_theme_data
from tests.llm_servers import LLMServer, Recorded

SLOT = re.compile(r"- slot (\d+): between (\d{4}-\d\d-\d\d) and (\d{4}-\d\d-\d\d)")


def _slots(rec: Recorded) -> list[tuple[int, str, str]]:
    text = rec.json["messages"][0]["content"]
    return [(int(k), lo, hi) for k, lo, hi in SLOT.findall(text)]


def good(k: int, lo: str) -> dict:
    # picnic at the riverside (outdoor: 8-17 h), 2-3 people; ana owns the red kite
    return {"slot": k, "date": lo, "hour": 12, "activity": "picnic", "place": "riverside",
            "participants": ["ana", "ben"], "objects": ["red_kite"]}  # fmt: skip


def _fenced(items: list) -> str:
    return "Here you go:\n```json\n" + json.dumps(items) + "\n```"


def _theme(tmp_path: Path, base_url: str, batch: int = 2) -> Path:
    data = small_theme_data()
    backend = {"provider": "openai", "model": "planner", "base_url": base_url, "api_key_env": None}
    data["text"] = {"backend": backend, "plan": True, "plan_batch": batch}
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_outlines_are_validated_into_world_records_and_rejects_counted(tmp_path: Path) -> None:
    calls: list[int] = []  # 5 story events in batches of 2: three calls

    def respond(rec: Recorded) -> str:
        calls.append(1)
        s = _slots(rec)
        n = len(calls)
        if n == 1:  # one good outline; one with a field no fact could carry
            return _fenced([good(*s[0][:2]), {**good(*s[1][:2]), "mood": "happy"}])
        if n == 2:  # a place the activity does not use; a date outside the slot's window
            return _fenced(
                [{**good(*s[0][:2]), "place": "bakery"}, {**good(*s[1][:2]), "date": "2031-01-01"}]
            )
        # people the objects do not belong to: the protagonist's kite without her
        return _fenced([{**good(*s[0][:2]), "participants": ["ben", "chloe"]}])

    with LLMServer("openai", responder=respond) as srv:
        path = _theme(tmp_path, srv.base_url)
        theme = load_theme(path)
        backend = OpenAICompatBackend("planner", base_url=srv.base_url, api_key_env=None)
        world, lineage, summary = model_plan(theme, theme.seed, backend, load_prompt("plan_events"))
    base = plan_world(theme, theme.seed, theme.album.clips - 1)
    assert len(world.events) == len(base.events) and summary["slots"] == len(base.events)
    assert summary["calls"] == len(lineage) == -(-len(base.events) // 2)
    assert summary["accepted"] == 1 and summary["procedural"] == len(base.events) - 1
    assert summary["rejected"] == {
        "unknown field": 1,
        "place not allowed": 1,
        "date outside the slot's window": 1,
        "objects": 1,
    }
    assert world_problems(theme, world) == []
    # the accepted outline is an event with the facts the question programs read
    first = lineage[0]
    (sid,) = first["accepted"]
    lo = _slots_from(first["request"])[0][1]
    ev = next(e for e in world.events if e.start.date().isoformat() == lo and e.activity == "picnic"
              and e.participants == ["ana", "ben"] and e.objects == ["red_kite"])  # fmt: skip
    kinds = {(f.kind, f.subject, f.object) for f in world.facts if f.event == ev.id or f.subject == ev.id}
    assert {("attended", "ana", ev.id), ("attended", "ben", ev.id), ("brought", "ana", "red_kite")} <= kinds
    assert ("at_place", ev.id, "riverside") in kinds and ("activity", ev.id, "picnic") in kinds
    # raw I/O kept: prompt, reply and each verdict
    assert first["reply"].startswith("Here you go") and "Slots:" in first["request"]
    assert first["rejected"][0]["reason"] == "unknown field: mood"
    assert lineage[2]["rejected"][0]["reason"].startswith("objects: only objects a participant owns")


def test_an_unparsable_reply_or_a_failed_call_keeps_the_procedural_events(tmp_path: Path) -> None:
    from tests.llm_servers import Reply, error_body

    with LLMServer("openai", default_text="I cannot help with that.") as srv:
        srv.script(Reply(400, error_body("openai", 400, "no")))
        theme = load_theme(_theme(tmp_path, srv.base_url, batch=3))
        backend = OpenAICompatBackend("planner", base_url=srv.base_url, api_key_env=None)
        world, lineage, summary = model_plan(theme, theme.seed, backend, load_prompt("plan_events"))
    base = plan_world(theme, theme.seed, theme.album.clips - 1)
    assert world.events == base.events and world.facts == base.facts  # the procedural World, exactly
    assert summary["rejected"] == {"model call failed": 3, "unparsable reply": 2}
    assert lineage[0]["error"].startswith("HTTP 400") and lineage[1]["reply"] == "I cannot help with that."


def _slots_from(text: str) -> list[tuple[str, str, str]]:
    return SLOT.findall(text)


def test_parse_outlines_accepts_fenced_bare_and_wrapped_lists() -> None:
    assert parse_outlines('```json\n[{"slot": 0}]\n```')[0] == [{"slot": 0}]
    assert parse_outlines('Sure! [{"slot": 1}] hope it helps')[0] == [{"slot": 1}]
    assert parse_outlines('{"events": [{"slot": 2}]}')[0] == [{"slot": 2}]
    assert parse_outlines("no")[1] == "unparsable reply: not a JSON list"


def test_text_plan_needs_a_backend_and_the_icm_family(tmp_path: Path) -> None:
    from mnemoforge.theme_checks import check_theme
    from mnemoforge.theme_io import ThemeError

    data = small_theme_data()
    data["text"] = {"plan": True}
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ThemeError, match="backend: required when plan is true"):
        check_theme(bad)


@pytest.mark.slow
def test_a_model_planned_build_records_its_calls_and_a_rebuild_pays_nothing(tmp_path: Path) -> None:
    """text.plan through a build: the World holds the model's events, the ledger its calls, the card the
    totals; the offline path is untouched; a re-run plan stage is answered from the cache."""
    from mnemoforge.pipeline import build
    from mnemoforge.store import ledger
    from mnemoforge.validators.release_check import verify_release

    def respond(rec: Recorded) -> str:
        return _fenced([good(k, lo) for k, lo, _ in _slots(rec)])

    with LLMServer("openai", responder=respond) as srv:
        path = _theme(tmp_path, srv.base_url, batch=3)
        res = build(path, outputs=tmp_path / "out", workers=1)
        n_requests = len(srv.requests)
        world = json.loads((res.run_dir / "world/world.json").read_text())
        summary = json.loads((res.run_dir / "world/plan_summary.json").read_text())
        assert summary["accepted"] == summary["slots"] and summary["rejected"] == {}
        assert (
            sum(e["activity"] == "picnic" and e["participants"] == ["ana", "ben"] for e in world["events"])
            >= 1
        )
        rows = ledger.read_ledger(res.run_dir)
        assert [r["stage"] for r in rows] == ["plan"] * n_requests and all(r["status"] == "ok" for r in rows)
        card = (res.release_dir / "README.md").read_text()
        assert "## Model calls" in card and f"{n_requests} paid calls" in card
        assert verify_release(res.release_dir) == []
        # the plan stage re-runs (its marker gone): every reply comes from the run's cache
        (res.run_dir / "stages/plan.json").unlink()
        again = build(path, outputs=tmp_path / "out", workers=1)
        assert again.ran["plan"] and len(srv.requests) == n_requests
    assert json.loads((again.run_dir / "world/world.json").read_text()) == world
    rows = ledger.read_ledger(res.run_dir)
    assert [r["status"] for r in rows[n_requests:]] == ["cached"] * n_requests
    assert ledger.summarise(rows)["total"]["calls"] == n_requests
    assert again.release_dir == res.release_dir  # same manifest: the card did not change
