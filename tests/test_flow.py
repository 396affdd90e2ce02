"""The Prefect flow (embedded mode, no server): same release as plain calls, cached re-runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import small_theme_data

pytestmark = pytest.mark.integration  # subprocesses, servers or a Prefect flow


def _flow(theme: Path, outputs: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "mnemoforge.cli",
        "build",
        str(theme),
        "--outputs",
        str(outputs),
        "--orchestrator",
        "prefect",
        "--workers",
        "2",
        *extra,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ), timeout=600)


def test_prefect_flow_matches_plain_calls_and_caches(tiny_build, tmp_path: Path, prefect_api: str) -> None:  # type: ignore[no-untyped-def]
    theme = tmp_path / "tiny.yaml"
    theme.write_text(yaml.safe_dump(small_theme_data(), sort_keys=False))
    first = _flow(theme, tmp_path / "prefect")
    assert first.returncode == 0, first.stderr[-3000:]
    release = Path(first.stdout.strip().splitlines()[-1])
    for title in ("plan the world", "episodes", "render media", "questions", "quality gates"):
        assert re.search(rf"{title} .*\bran\b", first.stderr), title  # its progress bar, finished
    results = tmp_path / "prefect" / ".prefect" / "results"
    persisted = sorted(p.name for p in results.iterdir())
    assert len(persisted) >= 5  # one persisted result per stage task

    plain = tiny_build[2]  # the same theme built with plain calls, once per session (tests/conftest.py)
    assert theme.read_bytes() == tiny_build[0].read_bytes()
    assert (plain.release_dir / "MANIFEST.json").read_bytes() == (release / "MANIFEST.json").read_bytes()

    again = _flow(theme, tmp_path / "prefect", "--json")
    assert again.returncode == 0, again.stderr[-3000:]
    summary = json.loads(again.stdout)
    assert Path(summary["release"]) == release
    for stage in ("plan", "episodes", "render", "questions", "gates"):
        assert summary["stages"][stage]["state"] == "cached", stage
    assert sorted(p.name for p in results.iterdir()) == persisted
