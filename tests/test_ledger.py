"""The call ledger, the model-output cache and the price table (store/ledger.py, prices.py)."""

from __future__ import annotations

import contextvars
import json
import multiprocessing
import os
import threading
from pathlib import Path

import pytest

from mnemoforge.backends.prices import PriceError, PriceTable, default_prices, resolve_prices
from mnemoforge.store import ledger
from tests.llm_servers import LLMServer, Reply, error_body


def _record(n: int = 1, **kw: object) -> None:
    for _ in range(n):
        ledger.record_call(
            "",
            "openai",
            str(kw.get("model", "gpt-4o-mini")),
            "chat",
            tokens_in=1000,
            tokens_out=500,
            latency_s=0.01,
            status="ok",
        )


def test_nothing_is_recorded_outside_a_run(tmp_path: Path) -> None:
    _record()
    assert ledger.cached_call({"k": 1}, lambda: "x") == "x"
    assert not list(tmp_path.iterdir())


def test_rows_carry_stage_usage_and_cost(tmp_path: Path) -> None:
    with ledger.current_run(tmp_path), ledger.current_stage("plan"):
        _record()
        ledger.record_call(
            "",
            "gemini",
            "veo-3.0-generate-001",
            "video",
            media_seconds=6.0,
            latency_s=2.0,
            status="ok",
        )
        ledger.record_call(
            "render", "gemini", "x", "image", latency_s=0.1, status="error", error="HTTP 500: boom"
        )
    rows = ledger.read_ledger(tmp_path)
    assert [r["stage"] for r in rows] == ["plan", "plan", "render"]
    chat, video, err = rows
    # gpt-4o-mini* in assets/prices.yaml: 0.15 / 0.60 per million tokens
    assert chat["cost"] == pytest.approx(1000 / 1e6 * 0.15 + 500 / 1e6 * 0.60)
    assert video["cost"] == pytest.approx(6 * 0.20)  # veo-3.0-generate*: video-only, per second
    assert err["status"] == "error" and err["error"] == "HTTP 500: boom" and err["cost"] == 0
    assert set(chat) >= {"backend", "model", "operation", "tokens_in", "tokens_out", "images", "latency_s"}
    with pytest.raises(ValueError, match="status must be one of"):
        with ledger.current_run(tmp_path):
            ledger.record_call("s", "b", "m", "chat", latency_s=0, status="fine")


def test_concurrent_appends_from_threads_and_processes_lose_nothing(tmp_path: Path) -> None:
    with ledger.current_run(tmp_path), ledger.current_stage("gates"):
        threads = [
            threading.Thread(target=contextvars.copy_context().run, args=(_record, 40)) for _ in range(6)
        ]
        procs = [multiprocessing.get_context("fork").Process(target=_record, args=(40,)) for _ in range(2)]
        for t in (*threads, *procs):
            t.start()
        for t in (*threads, *procs):
            t.join()
    lines = (tmp_path / "ledger.jsonl").read_text().splitlines()
    assert len(lines) == 8 * 40
    assert all(json.loads(line)["stage"] == "gates" for line in lines)


def test_cached_call_pays_once_and_records_the_hit(tmp_path: Path) -> None:
    calls: list[int] = []

    def fn() -> dict:
        calls.append(1)
        return {"text": "hello", "n": len(calls)}

    parts = {"backend": "openai", "model": "gpt-4o-mini", "operation": "chat", "request": "abc", "seed": 1}
    with ledger.current_run(tmp_path), ledger.current_stage("questions"):
        first = ledger.cached_call(parts, fn)
        second = ledger.cached_call(parts, fn)
        other = ledger.cached_call({**parts, "seed": 2}, fn)
        blob = ledger.cached_call({"operation": "image", "k": 1}, lambda: b"\x89PNG\x00\xff")
        again = ledger.cached_call({"operation": "image", "k": 1}, lambda: b"different")
        skipped = [ledger.cached_call({"k": "fail"}, lambda: "bad", keep=lambda v: False) for _ in range(2)]
    assert first == second == {"text": "hello", "n": 1} and other["n"] == 2
    assert blob == again == b"\x89PNG\x00\xff"
    assert skipped == ["bad", "bad"]
    assert len(calls) == 2
    hits = [r for r in ledger.read_ledger(tmp_path) if r["status"] == "cached"]
    assert len(hits) == 2 and hits[0]["model"] == "gpt-4o-mini" and hits[0]["cost"] == 0
    assert hits[0]["stage"] == "questions"


def test_summary_counts_paid_calls_apart_from_cache_hits(tmp_path: Path) -> None:
    with ledger.current_run(tmp_path), ledger.current_stage("plan"):
        _record(3)
        ledger.record_call("", "openai", "gpt-4o-mini", "chat", latency_s=0.1, status="error", error="x")
        ledger.record_call("", "openai", "gpt-4o-mini", "chat", latency_s=0.0, status="cached")
    s = ledger.summarise(ledger.read_ledger(tmp_path))
    t = s["total"]
    assert (t["calls"], t["ok"], t["errors"], t["cached"]) == (4, 3, 1, 1)
    assert t["tokens_in"] == 3000 and t["cost"] == pytest.approx(3 * (0.00015 + 0.0003))
    assert s["by_stage"]["plan"]["calls"] == 4 and list(s["by_model"]) == ["openai:gpt-4o-mini"]


def test_price_table_globs_overrides_and_errors(tmp_path: Path) -> None:
    table = default_prices()
    assert table.entry("gpt-4o-mini-2024-07-18")[1] and not table.entry("my-local-llama")[1]
    assert table.cost("gemini-2.5-flash-image", "image", images=3) == pytest.approx(3 * 0.039)
    assert table.cost("gemini-2.5-flash-preview-tts", "speech", media_seconds=10) == pytest.approx(0.0025)
    mine = tmp_path / "prices.yaml"
    mine.write_text("models:\n  my-local-llama: {per_call: 0.01}\n  gpt-4o-mini*: {output_per_mtok: 1.0}\n")
    merged = resolve_prices(prices_file=mine)
    assert merged.cost("my-local-llama") == 0.01
    assert merged.entry("gpt-4o-mini")[0] == {"input_per_mtok": 0.15, "output_per_mtok": 1.0}
    assert resolve_prices({"default": {"per_call": 2}}).cost("unknown") == 2
    with pytest.raises(PriceError, match=r"prices.models.m.per_token: unknown price field"):
        PriceTable.from_mapping({"models": {"m": {"per_token": 1}}})
    with pytest.raises(PriceError, match=r"prices.default.per_image: expected a number >= 0"):
        PriceTable.from_mapping({"default": {"per_image": -1}})
    with pytest.raises(PriceError, match=r"nope.yaml: cannot read"):
        PriceTable.load(tmp_path / "nope.yaml")


def test_run_prices_come_from_the_run_folder(tmp_path: Path) -> None:
    (tmp_path / ledger.PRICES_FILE).write_text(json.dumps({"models": {"gpt-4o-mini*": {"per_call": 1.0}}}))
    with ledger.current_run(tmp_path):
        _record()
    assert ledger.read_ledger(tmp_path)[0]["cost"] == pytest.approx(1.0 + 0.00015 + 0.0003)


def test_text_backend_records_attempts_and_caches_replies(tmp_path: Path) -> None:
    from mnemoforge.backends.text import OpenAICompatBackend, request

    with LLMServer("openai", default_text="fine") as srv:
        srv.script(Reply(500, error_body("openai", 500, "overloaded")))
        be = OpenAICompatBackend("gpt-4o-mini", base_url=srv.base_url, api_key_env=None, sleep=lambda s: None)
        with ledger.current_run(tmp_path), ledger.current_stage("questions"):
            a = be.chat(request("say fine"))
            b = be.chat(request("say fine"))
            c = be.chat(request("say something else"))
        outside = be.chat(request("say fine"))  # not in a run: no cache, no ledger
    assert a.ok and a.text == b.text == c.text == "fine" and outside.ok
    assert len(srv.requests) == 4  # retry + first + third + the call outside the run
    rows = ledger.read_ledger(tmp_path)
    assert [r["status"] for r in rows] == ["error", "ok", "cached", "ok"]
    assert "HTTP 500" in rows[0]["error"] and rows[1]["tokens_in"] == 7 and rows[1]["tokens_out"] == 3
    assert rows[1]["cost"] > 0 and all(r["stage"] == "questions" for r in rows)


def test_ledger_cli_and_card_section(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mnemoforge.cli import app
    from mnemoforge.production.ledger_card import card_section

    assert card_section(tmp_path) == ""  # an offline build: no section, the card is unchanged
    empty = CliRunner().invoke(app, ["ledger", str(tmp_path)])
    assert empty.exit_code == 0 and "no model calls recorded" in empty.output
    with ledger.current_run(tmp_path):
        with ledger.current_stage("plan"):
            _record(2)
        with ledger.current_stage("gates"):
            _record(1, model="gemini-2.5-flash")
            ledger.record_call("", "gemini", "gemini-2.5-flash", "chat", latency_s=0, status="cached")
    r = CliRunner().invoke(app, ["ledger", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "plan" in r.output and "gates" in r.output and "openai:gpt-4o-mini" in r.output
    js = CliRunner().invoke(app, ["ledger", str(tmp_path), "--json"])
    data = json.loads(js.stdout)
    assert data["total"]["calls"] == 3 and data["total"]["cached"] == 1
    assert data["by_stage"]["gates"]["cost"] == pytest.approx(1000 * 0.30e-6 + 500 * 2.50e-6)
    card = card_section(tmp_path)
    assert card.startswith("\n## Model calls") and "3 paid calls (0 failed attempts)" in card
    assert "| **total** | 3 | 0 | 3000 | 1500 |" in card
    missing = CliRunner().invoke(app, ["ledger", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "no such run folder" in missing.output


def _worker_records() -> None:  # runs in a spawned process: no context variables, only the env
    _record(2)


def test_worker_processes_started_inside_a_stage_record_into_the_run(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    with ledger.current_run(tmp_path), ledger.current_stage("render"):
        p = ctx.Process(target=_worker_records)
        p.start()
        p.join(60)
    assert p.exitcode == 0
    rows = ledger.read_ledger(tmp_path)
    assert len(rows) == 2 and {r["stage"] for r in rows} == {"render"}
    assert "MNEMOFORGE_LEDGER_RUN" not in os.environ and ledger.run_root() is None


def test_gemini_backend_records_and_caches_too(tmp_path: Path) -> None:
    from mnemoforge.backends.text import GeminiBackend, request

    with LLMServer("gemini", default_text="fine") as srv:
        srv.script(Reply(429, error_body("gemini", 429, "slow down"), headers={"Retry-After": "0"}))
        be = GeminiBackend(
            "gemini-2.5-flash", api_key="sk-secret-123", base_url=srv.base_url, sleep=lambda s: None
        )
        with ledger.current_run(tmp_path), ledger.current_stage("gates"):
            a, b = be.chat(request("hi")), be.chat(request("hi"))
    assert a.ok and b.ok and a.text == b.text == "fine" and len(srv.requests) == 2
    rows = ledger.read_ledger(tmp_path)
    assert [(r["backend"], r["status"]) for r in rows] == [
        ("gemini", "error"),
        ("gemini", "ok"),
        ("gemini", "cached"),
    ]
    # gemini-2.5-flash: 0.30 / 2.50 per million tokens; the stub reports 7 in, 3 out
    assert rows[1]["cost"] == pytest.approx(7 * 0.30e-6 + 3 * 2.50e-6)
    assert "HTTP 429" in rows[0]["error"] and "sk-secret-123" not in json.dumps(rows)


def test_run_blocks_closing_out_of_order_leave_no_stale_environment(tmp_path: Path) -> None:
    """Builds in several threads open and close their run blocks in any order; the variable that
    worker processes read then names a run still open, and nothing once all are closed."""
    import contextvars

    assert "MNEMOFORGE_LEDGER_RUN" not in os.environ
    a, b = ledger.current_run(tmp_path / "a"), ledger.current_run(tmp_path / "b")
    in_a, in_b = contextvars.copy_context(), contextvars.copy_context()  # as two threads have
    in_a.run(a.__enter__)
    in_b.run(b.__enter__)
    in_a.run(a.__exit__, None, None, None)  # the first build ends while the second still runs
    assert os.environ["MNEMOFORGE_LEDGER_RUN"].endswith(str((tmp_path / "b").resolve()))
    in_b.run(b.__exit__, None, None, None)
    assert "MNEMOFORGE_LEDGER_RUN" not in os.environ
    assert ledger.run_root() is None  # and nothing leaks into this thread's context
