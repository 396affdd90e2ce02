"""The command line a user expects: live progress, the end-of-build summary, --json/--quiet,
and help texts with examples and value names (no ``<bool>``/``<path>`` labels)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from mnemoforge import progress
from mnemoforge.cli import app
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.pipeline import BuildContext, gate_run, load_run_meta
from mnemoforge.progress import BuildDisplay, Event
from mnemoforge.summary import build_summary, summary_table
from mnemoforge.validators.gate_runner import gates_for

from .smm_release import SPEC, THEME_PATH

COMMANDS = [
    [],
    ["build"],
    ["freeze"],
    ["gate"],
    ["verify"],
    ["push"],
    ["export"],
    ["report"],
    ["cast"],
    ["catalog"],
    ["theme"],
    ["theme", "check"],
    ["theme", "new"],
]


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: " ".join(c) or "app")
def test_help_has_examples_and_value_names(cmd: list[str]) -> None:
    r = CliRunner().invoke(app, [*cmd, "--help"], env={"COLUMNS": "120"}, terminal_width=120)
    assert r.exit_code == 0, r.output
    assert "Examples" in r.output and "$ mnemoforge" in r.output
    for label in ("<bool>", "<path>", "<str>", "<int>", "typer + rich", "``"):
        assert label not in r.output, (label, r.output)


def test_build_help_names_its_values() -> None:
    r = CliRunner().invoke(app, ["build", "--help"], env={"COLUMNS": "160"}, terminal_width=160)
    for text in ("--seed", " N ", "DIR", "prefect|local", "--quiet", "--json", "THEME"):
        assert text in r.output, text


def _outputs(smm_release) -> Path:  # type: ignore[no-untyped-def]
    return smm_release.run_dir.parent.parent


def _build(smm_release, *extra: str):  # type: ignore[no-untyped-def]
    args = ["build", str(THEME_PATH), "--outputs", str(_outputs(smm_release)), "--orchestrator", "local"]
    return CliRunner().invoke(app, [*args, *extra])


def test_build_json_is_the_summary_and_nothing_else(smm_release) -> None:
    r = _build(smm_release, "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)  # stdout holds one JSON document
    assert Path(s["release"]) == smm_release.root and s["family"] == "smm"
    asked = SPEC.tasks.counts()
    assert [c["category"] for c in s["categories"]] == list(asked)
    kept = read_jsonl(smm_release.root / "data/smm/questions.jsonl")
    candidates = read_jsonl(smm_release.run_dir / "questions/candidates.jsonl")
    for c in s["categories"]:
        assert c["requested"] == asked[c["category"]]
        assert c["kept"] == sum(q["category"] == c["category"] for q in kept)
        assert c["candidates"] == sum(q["category"] == c["category"] for q in candidates)
        assert c["shortfall"] == max(0, c["requested"] - c["kept"])
        assert bool(c["reason"]) == bool(c["shortfall"])
    assert s["totals"]["kept"] == len(kept)
    manifest = json.loads((smm_release.root / "MANIFEST.json").read_text())
    assert s["release_bytes"] == sum(f["bytes"] for f in manifest["files"].values()) > 0
    assert s["media"]["files"] == len(read_jsonl(smm_release.root / "media/index.jsonl"))
    assert set(s["stages"]) >= {"plan", "render", "gates", "freeze"}
    assert all(v["state"] == "cached" for k, v in s["stages"].items() if k != "freeze")  # a re-run
    assert len(s["warnings"]) >= sum(1 for c in s["categories"] if c["shortfall"])


def test_build_quiet_prints_only_the_release_folder(smm_release) -> None:
    r = _build(smm_release, "--quiet")
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == str(smm_release.root)
    assert "━" not in r.output and "candidates" not in r.output  # no bars, no table
    assert all(line.startswith("warning: ") for line in r.stderr.splitlines())  # shortfalls still say why


def test_build_ends_with_the_summary_table_then_the_folder(smm_release) -> None:
    r = _build(smm_release)
    assert r.exit_code == 0, r.output
    assert r.stdout.strip().splitlines()[-1] == str(smm_release.root)
    for word in ("requested", "candidates", "kept", "shortfall", "media:", "release:", *SPEC.tasks.counts()):
        assert word in r.output, word


def test_summary_table_renders_every_category(smm_release) -> None:
    s = build_summary(smm_release.root, smm_release.run_dir)
    console = Console(record=True, width=160)
    console.print(summary_table(s))
    text = console.export_text()
    for c in s["categories"]:
        assert c["category"] in text
    assert "release:" in text and str(smm_release.root) in text


def test_gates_report_one_count_per_gate_and_item(smm_release) -> None:
    run = smm_release.run_dir
    ctx = BuildContext(run / "theme.yaml", run.parent.parent, int(load_run_meta(run)["seed"]))
    events: list[Event] = []
    with progress.listening(events.append):
        gate_run(ctx)
    counts = [e for e in events if e.stage == "gates" and e.kind == "advance"]
    n_items = len(read_jsonl(run / "questions/candidates.jsonl"))
    total = n_items * len(gates_for("smm"))
    assert counts[0].done == 0 and counts[-1].done == counts[-1].total == total
    assert [e.done for e in counts] == sorted(e.done for e in counts)
    assert {e.detail for e in counts[1:]} == {g.name for g in gates_for("smm")}


def test_display_takes_events_from_worker_threads() -> None:
    """Prefect's thread runner reports from its worker threads; the display counts them all."""
    display = BuildDisplay(enabled=False)
    with display:
        display.callback("render", "start")
        tick = progress.counter("render", 400)
        threads = [threading.Thread(target=lambda: [tick.step() for _ in range(100)]) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        display.callback("render", "Completed")
        display.callback("gates", "start")
        display.callback("gates", "Cached")
        display.callback("freeze", "start")
        display.callback("freeze", "2/4 shards")
    r, g, f = (display.timings[s] for s in ("render", "gates", "freeze"))
    assert (r.state, r.done, r.total) == ("ran", 400, 400)
    assert g.state == "cached"
    assert (f.state, f.done, f.total) == ("ran", 2, 4)  # closed with the build


def test_track_counts_any_iterable() -> None:
    events: list[Event] = []
    with progress.listening(events.append):
        assert list(progress.track(["a", "b", "c"], "evaluate")) == ["a", "b", "c"]
    assert [(e.done, e.total) for e in events] == [(0, 3), (1, 3), (2, 3), (3, 3)]


@pytest.mark.slow  # a Prefect flow build of the small theme (about a minute on 2 cores)
def test_prefect_flow_reports_counts_from_its_worker_threads(small_theme: Path, tmp_path: Path) -> None:
    from mnemoforge.flows.build import build_flow

    display = BuildDisplay(enabled=False)
    with display:
        release = build_flow(small_theme, outputs=tmp_path / "out", workers=2, progress=display.callback)
    t = display.timings
    assert set(t) >= {"plan", "episodes", "render", "questions", "gates", "freeze"}
    assert all(v.state == "ran" for v in t.values())
    assert t["render"].total == t["render"].done == len(read_jsonl(release / "data/icm/clips.jsonl"))
    assert t["gates"].total == t["gates"].done > 0  # per-item counts came from a Prefect thread
