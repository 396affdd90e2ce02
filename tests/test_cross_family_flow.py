"""The Prefect flow of a ``families:`` theme (docs/cross-family.md): the flow runs the one stage
loop per family as its stage tasks and gives the same MANIFEST as the in-process build."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # subprocesses, servers or a Prefect flow

THEME = Path(__file__).resolve().parent / "themes" / "glassworks_world.yaml"
STAGES = ("plan", "episodes", "render", "questions", "gates")


def test_prefect_flow_of_a_families_theme_matches_the_in_process_build(  # type: ignore[no-untyped-def]
    world_release, tmp_path: Path, prefect_api: str
) -> None:
    outputs = tmp_path / "prefect"
    cmd = [sys.executable, "-m", "mnemoforge.cli", "build", str(THEME), "--outputs", str(outputs),
           "--orchestrator", "prefect", "--workers", "1"]  # fmt: skip
    first = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ), timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    release = Path(first.stdout.strip().splitlines()[-1])
    # the same release bytes as build_multi in this process (tests/conftest.py's world_release)
    plain = world_release.release_dir / "MANIFEST.json"
    assert (release / "MANIFEST.json").read_bytes() == plain.read_bytes()
    # one persisted result per stage task of each family: the stage loop ran once per family
    results = outputs / ".prefect" / "results"
    assert len(list(results.iterdir())) == len(STAGES) * 3

    from mnemoforge.flows.build import build_flow

    seen: list[tuple[str, str]] = []
    again = build_flow(THEME, outputs=outputs, workers=1, progress=lambda s, state: seen.append((s, state)))
    assert again == release
    states = [state for stage, state in seen if stage in STAGES and state != "start"]
    assert states == ["cached"] * (len(STAGES) * 3)  # every family's every stage from the cache
    assert len(list(results.iterdir())) == len(STAGES) * 3
