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
    cfg = yaml.load((out / "mnemoforge_smm_mcq.yaml").read_text(), Loader=Loader)  # noqa: S506 (a SafeLoader)
    assert cfg["task"] == "mnemoforge_smm_mcq" and cfg["output_type"] == "generate_until"
    assert cfg["tag"] == "mnemoforge_smm"  # `--tasks mnemoforge_smm` runs the mcq and open tasks
    assert cfg["dataset_kwargs"]["data_files"]["test"] == "samples.jsonl"  # beside the task file
    spec = importlib.util.spec_from_file_location("mf_lmms_utils", out / "utils.py")
    assert spec and spec.loader
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    refs = [cfg[k] for k in ("doc_to_visual", "doc_to_text", "process_results", "process_docs")]
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
    for cut in (1, 2, 5, 6, 7):  # a run cut inside an item: only whole items count
        assert utils.aggregate_accuracy(always_a[:cut]) == (
            0.25 if cut >= 4 else pytest.approx(float("nan"), nan_ok=True)
        )
        assert utils.aggregate_all_four(always_a[:cut]) == (
            0.0 if cut >= 4 else pytest.approx(float("nan"), nan_ok=True)
        )
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


def test_lmms_eval_loader_runs_a_moved_export_from_any_folder(smm_release, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """lmms-eval's own loading contract (``peer_doubles.lmms_eval_run``): the YAML's relative
    ``data_files`` resolves beside it, so the folder can move and the run start anywhere; an
    always-"A" model scores 0.25 per rotation and 0 all-four with and without ``--limit``."""
    pytest.importorskip("datasets")
    import shutil

    from .peer_doubles import lmms_eval_run

    first = tmp_path / "first"
    _export(smm_release.root, "lmms-eval", first)
    moved = tmp_path / "elsewhere" / "task"
    shutil.move(str(first), moved)
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")  # not the task folder: lmms-eval runs from anywhere
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    mcq, open_task = moved / "mnemoforge_smm_mcq.yaml", moved / "mnemoforge_smm_open.yaml"
    rows = _rows(moved)
    assert sum(r["kind"] == "mcq" for r in rows) >= 12
    for limit in (None, 4, 6, 11):  # --limit 6 and 11 cut an item's rotations short
        assert lmms_eval_run(mcq, lambda doc: "A", limit=limit) == {"accuracy": 0.25, "all_four": 0.0}, limit
    assert lmms_eval_run(mcq, lambda doc: doc["target"], limit=7) == {"accuracy": 1.0, "all_four": 1.0}
    if open_task.is_file():
        opened = [r for r in rows if r["kind"] == "open"]
        assert lmms_eval_run(open_task, lambda doc: doc["target"]) == {"accuracy": 1.0}
        assert lmms_eval_run(open_task, lambda doc: "A", limit=len(opened)) == {"accuracy": 0.0}


@pytest.mark.parametrize("family", ["icm", "smm"])  # one build per test: each runs beside its build
def test_inspect_file_defines_only_the_tasks_its_release_has(family, request, tmp_path):  # type: ignore[no-untyped-def]
    import ast

    release = (
        request.getfixturevalue("peer_release")
        if family == "icm"
        else request.getfixturevalue("smm_release").root
    )
    out = tmp_path / family
    _export(release, "inspect", out)
    kinds = {r["kind"] for r in _rows(out)}
    tree = ast.parse((out / "mnemoforge_task.py").read_text())
    tasks = {
        f.name
        for f in tree.body
        if isinstance(f, ast.FunctionDef) and any(getattr(d, "id", None) == "task" for d in f.decorator_list)
    }
    names = {"mcq": "mnemoforge_mcq", "open": "mnemoforge_open", "call": "mnemoforge_calls"}
    assert tasks == {names[k] for k in kinds}, (release, kinds)
    assert (out / "tools.json").is_file() == ("call" in kinds)
    if family == "icm":
        assert "call" not in kinds  # the case that once failed
    else:
        assert "call" in kinds  # smm has tool calls: its file defines all three tasks


@pytest.mark.integration  # runs the inspect_ai harness on each family's whole task file
@pytest.mark.parametrize(  # each beside its session build (its xdist group), not built again here
    "fixture",
    [
        pytest.param("peer_release", marks=pytest.mark.xdist_group("tiny")),
        pytest.param("memeye_release", marks=pytest.mark.xdist_group("memeye")),
        pytest.param("smm_release", marks=pytest.mark.xdist_group("smm")),
    ],
)
def test_inspect_eval_runs_the_whole_task_file(fixture, request, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """``inspect eval FILE`` (every task in it) on a fresh export, with ``--limit`` cutting an item's
    rotations short: every task runs, and an always-"A" model scores exactly 0.25 and 0 all-four.
    (inspect 0.3.285 globs a task file path under the working directory, so the path is relative.)"""
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    value = request.getfixturevalue(fixture)
    release = value if isinstance(value, Path) else value.root
    out = tmp_path / "insp"
    _export(release, "inspect", out)
    out_text = ModelOutput.from_content(model="mockllm/model", content="ANSWER: A")
    out_text.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
    model = get_model("mockllm/model", custom_outputs=itertools.repeat(out_text))
    monkeypatch.chdir(tmp_path)
    logs = inspect_eval("insp/mnemoforge_task.py", model=model, limit=7, log_dir="logs", display="none")
    kinds = {r["kind"] for r in _rows(out)}
    assert sorted(log.eval.task.split("/")[-1] for log in logs) == sorted(
        {"mcq": "mnemoforge_mcq", "open": "mnemoforge_open", "call": "mnemoforge_calls"}[k] for k in kinds
    )
    for log in logs:
        assert log.status == "success", (log.eval.task, log.error)
        if log.eval.task.endswith("mnemoforge_mcq"):
            metrics = {k: v.value for s in log.results.scores for k, v in s.metrics.items()}
            assert metrics["accuracy"] == 0.25 and metrics["all_four"] == 0.0  # 7 samples: 1 whole item
