"""The full-context methods know the model's context (declared, or probed from a llama.cpp or
OpenAI-compatible server on loopback) and, where an item's history does not fit, say so in one
warning line and retrieve instead; a model of unknown context keeps the latest lines, and says so."""

from __future__ import annotations

import json
from importlib.util import find_spec

import pytest
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.evaluation import context
from mnemoforge.evaluation.runner import evaluate

from .llm_servers import LLMServer
from .llm_servers import model_spec as spec

# found, not imported: importing openai costs ~1 CPU-s at collection on every worker
pytestmark = pytest.mark.skipif(find_spec("openai") is None, reason="needs the openai package")

CTX = 4096  # an 8k-class small model: an smm release's history (tens of thousands of characters) overflows


def _prompt_chars(srv: LLMServer) -> list[int]:
    return [len(r.json["messages"][-1]["content"]) for r in srv.requests if r.json]


def test_server_descriptions_are_read() -> None:
    assert context.from_props({"default_generation_settings": {"n_ctx": 8192}}) == 8192  # llama-server
    assert context.from_props({"n_ctx": 4096}) == 4096
    assert context.from_props({"default_generation_settings": {}}) is None
    vllm = {"data": [{"id": "other", "max_model_len": 1}, {"id": "loop", "max_model_len": 32768}]}
    assert context.from_models(vllm, "loop") == 32768
    llama = {"data": [{"id": "x.gguf", "meta": {"n_ctx_train": 131072}}]}
    assert context.from_models(llama, "anything") == 131072  # the only model served
    assert context.from_models({"data": [{"id": "a"}, {"id": "b"}]}, "c") is None
    assert context.chars_for(CTX, 64) == int((CTX - context.RESERVE_TOKENS - 64) * context.CHARS_PER_TOKEN)


def test_probed_llama_server_context_switches_overflowing_items_to_retrieval(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    warnings: list[str] = []
    with LLMServer("openai", default_text="A") as srv:
        srv.gets["/props"] = {"default_generation_settings": {"n_ctx": CTX}}
        res = evaluate(
            smm_release.root,
            "full_context_text",
            spec(tmp_path, srv),
            tmp_path / "o",
            limit=3,
            warn=warnings.append,
        )
        sizes = _prompt_chars(srv)
        assert srv.get_paths == ["/props"]  # asked once, at llama.cpp's root (not under /v1)
    ctx = res["context"]
    assert ctx["tokens"] == CTX and ctx["source"] == f"probed {srv.url}/props"
    budget = context.chars_for(CTX, 64)
    assert ctx["chars"] == ctx["budget_chars"] == budget
    assert ctx["overflow"]["items"] == 3 and ctx["overflow"]["action"] == "switched to retrieval"
    for row in res["items"]:
        assert row["context"]["switched_to"] == "retrieval" and row["context"]["history_lines"] > 0
        assert row["context"]["top_k"] == 5  # built by the retrieval method
    assert sizes and max(sizes) < budget  # every prompt fits the model
    assert len(warnings) == 1 and "\n" not in warnings[0]
    assert f"{CTX} tokens" in warnings[0] and "3 of 3 items" in warnings[0] and "retrieval" in warnings[0]


def test_declared_context_is_not_probed_and_truncate_keeps_the_latest(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    from mnemoforge.evaluation.methods import MethodConfig

    with LLMServer("openai", default_text="A") as srv:
        model = spec(tmp_path, srv, context_tokens=CTX)
        res = evaluate(
            smm_release.root,
            "full_context_text",
            model,
            tmp_path / "t",
            limit=2,
            config=MethodConfig(on_overflow="truncate"),
        )
        assert srv.get_paths == []
        sizes = _prompt_chars(srv)
    assert res["context"]["source"] == "declared context_tokens"
    assert res["context"]["overflow"]["action"] == "kept the latest lines (keep_latest)"
    assert all(
        r["context"]["truncation"] == "keep_latest" and r["context"]["dropped"] > 0 for r in res["items"]
    )
    assert max(sizes) < res["context"]["budget_chars"] + 2000  # the memory fits; the rest is the template


def test_unknown_context_keeps_the_latest_and_says_so_on_the_command_line(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    with LLMServer("openai", default_text="A") as srv:  # answers neither /props nor /v1/models
        out = tmp_path / "u"
        r = CliRunner().invoke(
            app,
            [
                "evaluate",
                str(smm_release.root),
                "--method",
                "full_context_text",
                "--model",
                str(spec(tmp_path, srv)),
            ]
            + ["--out", str(out), "--limit", "2"],
        )
        assert sorted(srv.get_paths) == ["/props", "/v1/models"]
    assert r.exit_code == 0, r.output
    lines = [x for x in r.output.splitlines() if x.startswith("warning:")]
    assert len(lines) == 1 and "context size unknown" in lines[0] and "keep_latest" in lines[0]
    ctx = json.loads((out / "results.json").read_text())["context"]
    assert ctx["source"] == "unknown" and ctx["chars"] == context.DEFAULT_CHARS


def test_retrieval_and_fitting_histories_warn_nothing(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    warnings: list[str] = []
    with LLMServer("openai", default_text="A") as srv:
        res = evaluate(
            smm_release.root, "retrieval", spec(tmp_path, srv), tmp_path / "r", limit=2, warn=warnings.append
        )
        assert srv.get_paths == []  # a method that never fills the context never asks
        big = spec(tmp_path, srv, context_tokens=10**6)
        full = evaluate(
            smm_release.root, "full_context_text", big, tmp_path / "f", limit=2, warn=warnings.append
        )
    assert res["context"] == {"budget_chars": res["config"]["max_context_chars"], "applies": False}
    assert full["context"]["overflow"]["items"] == 0 and warnings == []


def test_a_bad_declared_size_names_the_field(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    with LLMServer("openai") as srv:
        bad = spec(tmp_path, srv, context_tokens="8k")
        r = CliRunner().invoke(
            app, ["evaluate", str(smm_release.root), "--method", "full_context_text", "--model", str(bad)]
        )
    assert r.exit_code != 0 and "context_tokens" in r.output and "Traceback" not in r.output
