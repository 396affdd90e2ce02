"""evaluate tells failures from answers: a call that fails after its retries is a failed item, never
a wrong answer; any failure exits 1 unless --allow-failures; a text-only model is never sent images.

The model is a loopback OpenAI-protocol server (tests/llm_servers.py) that, like a text-only
server, answers HTTP 500 to any request carrying an image.
"""

from __future__ import annotations

import threading
from importlib.util import find_spec
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.evaluation.runner import evaluate

from .llm_servers import LLMServer, Recorded, Reply, error_body
from .llm_servers import model_spec as _spec

pytestmark = pytest.mark.skipif(find_spec("openai") is None, reason="needs the openai package")


def _has_image(rec: Recorded) -> bool:
    return any(
        isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
        for m in (rec.json or {}).get("messages", [])
    )


def _text_only(srv: LLMServer) -> None:
    srv.reply_for = lambda rec: (
        Reply(500, error_body("openai", 500, "images unsupported")) if _has_image(rec) else None
    )


def test_text_only_server_is_probed_once_and_never_sent_images(smm_release, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with LLMServer("openai", default_text="A") as srv:
        _text_only(srv)
        res = evaluate(
            smm_release.root, "full_context_multimodal", _spec(tmp_path, srv), tmp_path / "mm", limit=4
        )
        sent = list(srv.requests)
    with_images = [r for r in sent if _has_image(r)]
    assert len(with_images) == 1, "one probe, then no request carries an image"
    assert res["model"]["images"] is False
    assert res["summary"]["failed"] == 0 and res["summary"]["answered"] == 4
    with LLMServer("openai", default_text="A") as srv:  # declared text-only: not even a probe
        res = evaluate(
            smm_release.root,
            "full_context_multimodal",
            _spec(tmp_path, srv, vision=False),
            tmp_path / "mm2",
            limit=2,
        )
        assert not any(_has_image(r) for r in srv.requests)


def test_failed_calls_are_counted_apart_and_never_scored(smm_release, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with LLMServer("openai") as srv:
        srv.reply_for = lambda rec: Reply(500, error_body("openai", 500, "down"))
        res = evaluate(smm_release.root, "oracle_evidence", _spec(tmp_path, srv), tmp_path / "down", limit=3)
    s = res["summary"]
    assert (s["items"], s["answered"], s["failed"]) == (3, 0, 3)
    assert s["score"] is None and s.get("accuracy") is None, "a failure is not a wrong answer"
    assert all(r["failed"] and r["score"] is None and r["errors"] for r in res["items"])
    # one item's calls fail: the score is the mean over the two answered items only
    from mnemoforge.exporters.views import load_agent_view

    first = load_agent_view(smm_release.root).items[0]
    with LLMServer("openai", default_text="A") as srv:
        srv.reply_for = lambda rec: (
            Reply(500, error_body("openai", 500, "x")) if first.question in str(rec.json) else None
        )
        res = evaluate(smm_release.root, "question_only", _spec(tmp_path, srv), tmp_path / "one", limit=3)
    s = res["summary"]
    assert (s["answered"], s["failed"]) == (2, 1)
    answered = [r for r in res["items"] if not r.get("failed")]
    assert s["score"] == pytest.approx(sum(r["score"] for r in answered) / 2)
    assert [r["id"] for r in res["items"] if r.get("failed")] == [first.id]


def test_a_server_down_for_a_while_is_retried_in_a_later_round(smm_release, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    n = [0]
    lock = threading.Lock()

    def first_five_fail(rec: Recorded) -> Reply | None:
        with lock:
            n[0] += 1
            return Reply(503, error_body("openai", 503, "busy")) if n[0] <= 5 else None

    with LLMServer("openai", default_text="B") as srv:
        srv.reply_for = first_five_fail
        res = evaluate(
            smm_release.root, "question_only", _spec(tmp_path, srv), tmp_path / "q", limit=3, workers=1
        )
    assert res["summary"]["failed"] == 0 and res["summary"]["answered"] == 3


def test_cli_exits_1_on_failures_unless_allowed(smm_release, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with LLMServer("openai") as srv:
        srv.reply_for = lambda rec: Reply(500, error_body("openai", 500, "down"))
        spec = _spec(tmp_path, srv)
        args = [
            "evaluate",
            str(smm_release.root),
            "--method",
            "question_only",
            "--model",
            str(spec),
            "--limit",
            "2",
        ]
        r = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "a")])
        assert r.exit_code == 1, r.output
        assert "2 failed (not scored)" in r.output and "model calls failed" in r.output
        assert "Traceback" not in r.output
        assert (tmp_path / "a" / "results.json").is_file(), "results are written before the exit"
        r = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "b"), "--allow-failures"])
        assert r.exit_code == 0, r.output
        assert "warning: model calls failed" in r.output
