"""Paid production against loopback servers speaking each provider's protocol (tests/media_servers.py):

- a build where about 5 % of Veo requests are filtered completes: the refused shots are asked again
  with the refused parts of their prompt dropped, or made from their still; the release verifies and
  its changelog and card list which shots took which path;
- a build killed (SIGKILL, a real subprocess) while it polls a Veo operation resumes by polling that
  operation: every request is submitted once and paid once in the ledger; the preflight's cost
  drivers match what the ledger paid for.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml

from tests.conftest import small_theme_data
from tests.media_servers import MediaServer

pytestmark = pytest.mark.integration  # whole builds with a loopback media server (20-40 s each)

FAST = {"base_delay": 0.0, "jitter": 0.0}


def _theme(tmp_path: Path, srv: MediaServer, *, images: bool, speech: bool, clips: int) -> Path:
    data = small_theme_data(clips=clips)
    data["render"] = {
        "video": "veo",
        "video_api": {"base_url": srv.url, "poll_interval_s": 0, "retry": FAST, "max_retries": 1},
    }
    if images:
        data["render"] |= {"image": "gemini", "image_api": {"base_url": srv.url, "retry": FAST}}
    if speech:
        data["render"] |= {"speech": "gemini", "speech_api": {"base_url": srv.url, "retry": FAST}}
    path = tmp_path / "paid.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_filtered_shots_fall_back_and_the_release_says_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mnemoforge.pipeline import build
    from mnemoforge.store import ledger
    from mnemoforge.validators.release_check import verify_release

    monkeypatch.setenv("GEMINI_API_KEY", "loopback-key")
    with MediaServer() as srv:
        filtered: list[str] = []

        def refuse(req: dict) -> dict | None:
            inst = req["instances"][0]
            still = int(hashlib.sha256(inst["image"]["bytesBase64Encoded"].encode()).hexdigest(), 16)
            if still % 20 != 3:
                return None  # 1 shot in 20 (by its still, the same for every request about it)
            filtered.append(inst["prompt"])
            if "Person 1" in inst["prompt"]:
                return {"filtered": ["The prompt describes a person's likeness (support code 58061214)."]}
            if still // 20 % 2:
                return {"filtered": ["Blocked by Responsible AI practices."]}  # refused again: the still
            return None

        srv.refuse = refuse
        theme = _theme(tmp_path, srv, images=False, speech=False, clips=8)  # 16 shots, 1 rewritten
        res = build(theme, outputs=tmp_path / "out", workers=2)
        assert verify_release(res.release_dir) == []
    log = json.loads((res.run_dir / "media/video_paths.json").read_text())
    counts = log["counts"]
    shots = sum(counts.values())
    assert counts["veo_rewritten"] + counts["still"] >= 1, counts
    assert (counts["veo_rewritten"] + counts["still"]) / shots <= 0.15  # about 5 % of the requests
    # every shot is in the album clip; the render audit held (the build would have failed otherwise)
    audit = json.loads((res.run_dir / "media/render_audit.json").read_text())
    assert audit["mismatches"] == 0
    records = [json.loads(p.read_text()) for p in (res.run_dir / "media/drawn").glob("*.json")]
    drawn = [s for rec in records for s in rec["shots"]]
    assert Counter(s["video"] for s in drawn) == Counter({k: v for k, v in counts.items() if v})
    # the release names the fallbacks: changelog, card, and the evaluator annotation
    changelog = (res.release_dir / "CHANGELOG.md").read_text()
    card = (res.release_dir / "README.md").read_text()
    assert (
        f"- Video: {counts['veo']} shots generated, {counts['veo_rewritten']} after a prompt rewrite, "
        f"{counts['still']} from the still with its camera move (every shot's path: "
        "`data/icm/annotations/video_paths.json`)." in changelog
    )
    for r in log["shots"]:
        assert f"`{r['shot']}`" in changelog and f"`{r['shot']}`" in card
    assert "## Video" in card
    assert (res.release_dir / "data/icm/annotations/video_paths.json").is_file()
    # the refusals were paid for (Veo bills a filtered request) and never asked twice
    rows = ledger.read_ledger(res.run_dir)
    paid = Counter(r["key"] for r in rows if r["operation"] == "video" and r["status"] == "ok")
    assert set(paid.values()) == {1}
    assert len(paid) == shots + counts["veo_rewritten"] + sum("refused_again" in r for r in log["shots"])


def _build_cmd(theme: Path, outputs: Path) -> list[str]:
    return [sys.executable, "-m", "mnemoforge.cli", "build", str(theme), "--outputs", str(outputs),
            "--orchestrator", "local", "--workers", "1", "--quiet"]  # fmt: skip


def test_a_build_killed_while_polling_resumes_without_paying_twice(tmp_path: Path) -> None:
    from mnemoforge.production.drivers import ledger_drivers
    from mnemoforge.production.preflight import preflight
    from mnemoforge.store import ledger, operations
    from mnemoforge.validators.release_check import verify_release

    env = {**os.environ, "GEMINI_API_KEY": "loopback-key"}
    env.pop("MNEMOFORGE_CRASH_AT", None)
    out = tmp_path / "out"
    with MediaServer(polls_until_done=2) as srv:
        theme = _theme(tmp_path, srv, images=True, speech=True, clips=4)
        srv.hold_polls = True  # every poll waits: the build is killed while one is in flight
        proc = subprocess.Popen(_build_cmd(theme, out), env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
        deadline = time.monotonic() + 300
        while srv.polls_held == 0 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert srv.polls_held >= 1, proc.stderr.read().decode() if proc.poll() is not None else "no poll"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        run_dir = next(p for p in (out / "runs").iterdir() if p.is_dir())
        journal = operations.entries(run_dir)
        assert [e["state"] for e in journal] == ["submitted"]  # named before the first poll
        started = srv.count("predictLongRunning")
        srv.hold_polls = False
        srv.release.set()
        ok = subprocess.run(_build_cmd(theme, out), env=env, capture_output=True, text=True, timeout=600)
        assert ok.returncode == 0, ok.stderr[-3000:]
        release = Path(ok.stdout.strip().splitlines()[-1])
    assert verify_release(release) == []
    # the operation in flight was polled again, not submitted again; every request started once
    assert journal[0]["key"] in srv.submissions and srv.submissions[journal[0]["key"]] == 1
    assert set(srv.submissions.values()) == {1} and srv.count("predictLongRunning") >= started
    rows = ledger.read_ledger(run_dir)
    for op in ("video", "image", "speech"):
        paid = Counter(r["key"] for r in rows if r["operation"] == op and r["status"] == "ok")
        assert paid and set(paid.values()) == {1}, (op, paid.most_common(3))
    assert all(e["state"] == "done" for e in operations.entries(run_dir))
    # the preflight's cost drivers match what the ledger paid for
    pf = preflight(theme)
    drivers = {d.name: d.planned for d in pf.drivers}
    got = ledger_drivers(rows)
    assert got["shots"] == drivers["shots"]
    assert got["images"] == drivers["images"]
    assert got["video minutes"] == pytest.approx(
        next(r.video_seconds for r in pf.rows if r.operation == "video") / 60, abs=1e-3
    )
    assert got["speech lines"] == next(r.calls for r in pf.rows if r.operation == "speech")
    assert got["speech seconds"] == pytest.approx(drivers["speech seconds"], rel=0.35)
    assert got["cost"] == pytest.approx(
        sum(r.cost for r in pf.rows if r.stage == "render"), rel=0.1
    )  # the estimate's speech seconds are an estimate; everything else is counted exactly
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    r = CliRunner().invoke(app, ["ledger", str(run_dir), "--preflight", "--json"])
    assert r.exit_code == 0, r.output
    both = json.loads(r.stdout)["drivers"]
    assert both["ledger"] == got
    assert [d["name"] for d in both["estimate"]][:3] == ["clips", "video minutes", "shots"]
    table = CliRunner().invoke(app, ["ledger", str(run_dir), "--preflight"], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "cost drivers of tiny" in table.output and "ledger" in table.output
