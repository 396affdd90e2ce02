"""``mnemoforge export --format inspect|lmms-eval``: the inspect task runs under inspect_ai with its
own mock model; the lmms-eval YAML parses and its utils.py imports and scores."""

from __future__ import annotations

import importlib.util
import itertools
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge.cli import app


def _export(release: Path, fmt: str, out: Path) -> None:
    r = CliRunner().invoke(app, ["export", str(release), "--format", fmt, "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads((out / "mnemoforge_harness.json").read_text())["format"] == fmt


def _rows(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines() if x.strip()]


def test_rows_hold_the_agent_view_and_one_row_per_rotation(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    out = tmp_path / "lm"
    _export(smm_release.root, "lmms-eval", out)
    rows = _rows(out)
    mcq = [r for r in rows if r["kind"] == "mcq"]
    by_item: dict[str, list[str]] = {}
    for r in mcq:
        by_item.setdefault(r["item_id"], []).append(r["target"])
    assert all(sorted(v) == ["A", "B", "C", "D"] for v in by_item.values())  # the answer visits every letter
    banned = {"answer", "evidence", "facts", "people", "speaker", "expresses", "options", "rotations"}
    assert not any(k in r for r in rows for k in banned)
    latest = max(smm_release.obs, key=lambda o: (o.order, o.id))
    assert latest.content.strip() and latest.content.strip() in mcq[0]["memory"]  # keep_latest truncation


def test_lmms_eval_yaml_parses_and_utils_scores(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    out = tmp_path / "lm"
    _export(smm_release.root, "lmms-eval", out)

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))
    cfg = yaml.load((out / "mnemoforge_smm.yaml").read_text(), Loader=Loader)  # noqa: S506 (a SafeLoader)
    assert cfg["task"] == "mnemoforge_smm" and cfg["output_type"] == "generate_until"
    assert Path(cfg["dataset_kwargs"]["data_files"]["test"]) == (out / "samples.jsonl").resolve()
    spec = importlib.util.spec_from_file_location("mf_lmms_utils", out / "utils.py")
    assert spec and spec.loader
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    refs = [cfg[k] for k in ("doc_to_visual", "doc_to_text", "process_results")]
    refs += [m["aggregation"] for m in cfg["metric_list"]]
    for kind, ref in refs:
        assert kind == "function" and callable(getattr(utils, ref.split(".", 1)[1]))
    rows = [r for r in _rows(out) if r["kind"] == "mcq"]
    assert "Options:\nA. " in utils.doc_to_text(rows[0])
    visual = utils.doc_to_visual(next(r for r in rows if r["images"]))
    assert visual and visual[0].size[0] > 0
    always_a = [utils.process_results(r, ["A"])["accuracy"] for r in rows]
    assert utils.aggregate_accuracy(always_a) == 0.25
    assert utils.aggregate_all_four(always_a) == 0.0
    right = [utils.process_results(r, [f"{r['target']}."])["all_four"] for r in rows]
    assert utils.aggregate_all_four(right) == 1.0
    assert utils.process_results(rows[0], ["A or B"])["accuracy"]["correct"] is False


@pytest.mark.integration  # runs the inspect_ai harness (its eval loop and log writer)
def test_inspect_task_runs_under_inspect_with_its_mock_model(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    out = tmp_path / "insp"
    _export(smm_release.root, "inspect", out)

    def outputs(text: str):  # type: ignore[no-untyped-def]
        # usage given, so the mock model never counts tokens with tiktoken (which would download)
        o = ModelOutput.from_content(model="mockllm/model", content=text)
        o.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
        return itertools.repeat(o)

    model = get_model("mockllm/model", custom_outputs=outputs("ANSWER: A"))
    logs = inspect_eval(
        f"{out}/mnemoforge_task.py@mnemoforge_mcq",
        model=model,
        limit=40,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert logs[0].status == "success", logs[0].error
    metrics = {k: v.value for s in logs[0].results.scores for k, v in s.metrics.items()}
    assert metrics["accuracy"] == 0.25
    assert metrics["all_four"] == 0.0
    calls = [r for r in _rows(out) if r["kind"] == "call"]
    gold = get_model("mockllm/model", custom_outputs=outputs(calls[0]["target"]))
    logs = inspect_eval(
        f"{out}/mnemoforge_task.py@mnemoforge_calls",
        model=gold,
        limit=1,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert logs[0].status == "success", logs[0].error
    assert logs[0].results.scores[0].metrics["accuracy"].value == 1.0


def test_export_refuses_a_foreign_folder(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    out = tmp_path / "x"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    r = CliRunner().invoke(app, ["export", str(smm_release.root), "--format", "inspect", "--out", str(out)])
    assert r.exit_code == 2 and "not empty" in r.output
    assert (out / "keep.txt").read_text() == "mine"


@pytest.mark.integration  # the `inspect eval` CLI in a subprocess
def test_inspect_eval_command_runs_the_task_against_the_loopback_server(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    """The `inspect eval` CLI itself, offline: inspect's OpenAI provider pointed at the loopback server
    (chat completions, which report usage, so no tokenizer is fetched)."""
    import os
    import shutil
    import subprocess
    import sys

    pytest.importorskip("inspect_ai")
    from .llm_servers import LLMServer

    exe = shutil.which("inspect") or str(Path(sys.executable).with_name("inspect"))
    if not Path(exe).exists():
        pytest.skip("the inspect command is not installed")
    out = tmp_path / "insp"
    _export(smm_release.root, "inspect", out)
    with LLMServer("openai", default_text="ANSWER: A") as srv:
        env = {**os.environ, "OPENAI_API_KEY": "loopback", "INSPECT_LOG_DIR": str(tmp_path / "logs")}
        cmd = [
            exe,
            "eval",
            f"{out}/mnemoforge_task.py@mnemoforge_mcq",
            "--model",
            "openai/loopback",
            "--model-base-url",
            srv.base_url,
            "-M",
            "responses_api=false",
            "--limit",
            "8",
            "--display",
            "none",
            "--log-format",
            "json",
        ]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        assert len(srv.requests) == 8
    log = json.loads(next((tmp_path / "logs").glob("*.json")).read_text())
    metrics = {k: v["value"] for s in log["results"]["scores"] for k, v in s["metrics"].items()}
    assert metrics["accuracy"] == 0.25 and metrics["all_four"] == 0.0
