"""Failed model calls are undecided verdicts with reasons, never cached; the next gate run retries them."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import yaml
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.pipeline import build
from mnemoforge.schemas.theme import DEFAULT_PANELS

from .conftest import small_theme_data
from .llm_servers import LLMServer, Recorded, Reply, error_body

FAILED_ITEMS = 3
ATTEMPTS = 2


def test_failed_calls_are_undecided_never_cached_and_retried_exactly(tmp_path: Path) -> None:
    with LLMServer("openai", default_text="A") as srv:
        chat = {
            "kind": "chat",
            "provider": "openai",
            "model": "m",
            "base_url": srv.base_url,
            "api_key_env": None,
            "retry": {"max_attempts": ATTEMPTS, "base_delay": 0},
        }
        data = small_theme_data(clips=4)
        data["gates"] = {
            "answerers": {"symbolic": {}, "lexical": {}, "flaky": chat},
            "panels": {**DEFAULT_PANELS, "oracle": ["symbolic", "flaky"]},
        }
        theme = tmp_path / "t.yaml"
        theme.write_text(yaml.safe_dump(data, sort_keys=False))

        # a known set of calls fails once: for each chosen question, the first distinct request
        # about it (one rotation: panels send rotations concurrently) fails on every attempt
        # (HTTP 500); every other request about it, and that one's next run, succeed
        chosen: dict[str, str | None] = {}
        left: dict[str, int] = {}
        lock = threading.Lock()

        def reply_for(rec: Recorded) -> Reply | None:
            prompt = json.dumps(rec.json)
            with lock:
                for text, doomed in chosen.items():
                    if text not in prompt:
                        continue
                    if doomed is None:
                        chosen[text], left[prompt] = prompt, ATTEMPTS
                    if left.get(prompt, 0) > 0:
                        left[prompt] -= 1
                        return Reply(500, error_body("openai", 500, "injected failure"))
            return None

        from mnemoforge.generators.families import get_family
        from mnemoforge.pipeline import BuildContext, load_world, prepare, stage_episodes, stage_plan

        # learn the candidates first (plan → questions are deterministic), then pick a few
        ctx = BuildContext(theme, tmp_path / "probe", data["seed"])
        prepare(ctx)
        stage_plan(ctx)
        stage_episodes(ctx)
        qs = get_family("icm").questions(ctx.theme, load_world(ctx.run), ctx.run)
        texts = [q.question for q in qs]
        picked = [q for q in qs if texts.count(q.question) == 1][:FAILED_ITEMS]
        assert len(picked) == FAILED_ITEMS
        chosen.update({json.dumps(q.question)[1:-1]: None for q in picked})
        srv.reply_for = reply_for

        res = build(theme, outputs=tmp_path / "out", workers=1)
        verdicts = read_jsonl(res.run_dir / "gates/verdicts.jsonl")
        undecided = [v for v in verdicts if v.get("failures")]
        assert sorted(v["item"] for v in undecided) == sorted(q.id for q in picked)
        for v in undecided:
            assert v["gate"] == "oracle" and not v["keep"]
            assert v["reason"].startswith("undecided: model calls failed")
            (f,) = v["failures"]
            assert f["answerer"].startswith("chat:") and f["kind"] == "http_500"
            assert f["attempts"] == ATTEMPTS and f["calls"] == 1 and "injected failure" in f["error"]
        funnel = json.loads((res.run_dir / "gates/funnel.json").read_text())
        oracle = next(s for s in funnel["stages"] if s["gate"] == "oracle")
        assert funnel.get("undecided", 0) == oracle.get("undecided", 0) <= FAILED_ITEMS
        if funnel.get("undecided"):  # the card says what was left out and why
            assert "**Undecided.**" in (res.release_dir / "README.md").read_text()
        cache = json.loads((res.run_dir / "gates/cache/oracle.json").read_text())
        assert len(cache) == len(qs) - FAILED_ITEMS  # the failed ones are not cached
        assert not any(c.get("failures") for c in cache.values())

        before = len(srv.requests)
        r = CliRunner().invoke(app, ["gate", str(res.run_dir)])
        assert r.exit_code == 0, r.output
        line = next(x for x in r.output.splitlines() if x.strip().startswith("oracle:"))
        assert f"({FAILED_ITEMS} computed, {len(qs) - FAILED_ITEMS} cached)" in line, r.output
        asked = srv.requests[before:]
        # exactly the failed requests, nothing else: one per failed item (an MCQ item's other
        # rotations succeeded the first time and come from the run's model-output cache)
        assert len(asked) == FAILED_ITEMS
        assert sorted(json.dumps(r.json) for r in asked) == sorted(p for p in chosen.values() if p)
        again = read_jsonl(res.run_dir / "gates/verdicts.jsonl")
        assert not any(v.get("failures") for v in again)
        assert "undecided" not in json.loads((res.run_dir / "gates/funnel.json").read_text())
