"""Executor independence and crash safety of the build."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from mnemoforge.pipeline import build
from mnemoforge.store.catalog import TABLES, Catalog

from .conftest import small_theme_data

pytestmark = pytest.mark.integration  # subprocesses, servers or a Prefect flow


@pytest.fixture(scope="module")
def theme(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("scale") / "tiny.yaml"
    path.write_text(yaml.safe_dump(small_theme_data(clips=5), sort_keys=False))
    return path


@pytest.fixture(scope="module")
def reference(theme: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The MANIFEST.json of an uninterrupted plain build."""
    res = build(theme, outputs=tmp_path_factory.mktemp("ref"), workers=2)
    return (res.release_dir / "MANIFEST.json").read_bytes()


def _cmd(theme: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mnemoforge.cli",
        "build",
        str(theme),
        "--outputs",
        str(out),
        "--workers",
        "1",
        *extra,
    ]


def test_thread_and_dask_runners_give_byte_identical_manifests(
    theme: Path, reference: bytes, tmp_path: Path
) -> None:
    pytest.importorskip("prefect_dask", reason="needs the dask extra: pip install 'mnemoforge[dask]'")
    for runner in ("threads", "dask"):
        r = subprocess.run(
            _cmd(theme, tmp_path / runner, "--task-runner", runner, "--workers", "2"),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0, r.stderr[-3000:]
        release = Path(r.stdout.strip().splitlines()[-1])
        assert (release / "MANIFEST.json").read_bytes() == reference, runner


def _kill_strays(prefect_home: Path) -> None:
    """Kill processes started with this PREFECT_HOME (the ephemeral servers of killed builds)."""
    marker = f"PREFECT_HOME={prefect_home}".encode()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != os.getpid():
            try:
                if marker in (proc / "environ").read_bytes().split(b"\0"):
                    os.kill(int(proc.name), signal.SIGKILL)
            except (OSError, PermissionError):
                continue


CRASH_POINTS = [
    "after:plan",
    "after:episodes",
    "render:clip:1",
    "render:clip:2",
    "render:clip:1",
    "after:render",
    "after:questions",
    "after:gates",
    "freeze:staged",
    "freeze:staged",
]


@pytest.mark.slow  # ~50-90 s on 2 cores: kills at ten checkpoints and three random SIGKILLs;
# tests/test_build.py kills builds at checkpoints in the default suite
def test_repeated_kills_then_resume_equal_an_uninterrupted_build(
    theme: Path, reference: bytes, tmp_path: Path
) -> None:
    out = tmp_path / "crashy"
    base = {k: v for k, v in os.environ.items() if k != "MNEMOFORGE_CRASH_AT"}
    kills = 0
    for point in CRASH_POINTS:  # each run dies at a later point, on the same outputs folder
        r = subprocess.run(
            _cmd(theme, out, "--orchestrator", "local"),
            env={**base, "MNEMOFORGE_CRASH_AT": point},
            capture_output=True,
            text=True,
            timeout=300,
        )
        if r.returncode == 137:
            kills += 1
        else:  # a stage this point belongs to was already finished by an earlier run
            assert r.returncode == 0, r.stderr[-3000:]
    # a few real SIGKILLs at seeded random moments, on a fresh folder and the Prefect flow
    rng = random.Random(7)
    fresh = tmp_path / "sigkill"
    base = {
        **base,
        "PREFECT_HOME": str(tmp_path / "prefect-home"),
    }  # to find what a killed build leaves behind
    for _ in range(3):
        p = subprocess.Popen(
            _cmd(theme, fresh), env=base, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(2.0, 8.0))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            kills += 1
        p.wait(timeout=60)
    assert kills >= 10
    _kill_strays(tmp_path / "prefect-home")  # a SIGKILLed CLI orphans the Prefect server it started
    for folder, orchestrator in ((out, "local"), (fresh, "prefect")):
        r = subprocess.run(
            _cmd(theme, folder, "--orchestrator", orchestrator),
            env=base,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0, r.stderr[-3000:]
        release = Path(r.stdout.strip().splitlines()[-1])
        assert (release / "MANIFEST.json").read_bytes() == reference
        assert not [p for p in folder.rglob(".tmp-*")], "orphaned temp files"
        with Catalog(folder / "catalog.duckdb") as cat:
            for table in TABLES:
                total, distinct = cat.query(
                    f"SELECT count(*), count(DISTINCT t) FROM (SELECT {table} AS t FROM {table})"
                )[0]
                assert total == distinct, f"duplicated rows in {table}"
