"""Builds sharing one outputs folder: same run waits for the other, different runs proceed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from mnemoforge import yaml_io
from mnemoforge.pipeline import build
from mnemoforge.store import atomic, locks
from mnemoforge.store.catalog import Catalog
from mnemoforge.validators.release_check import verify_release

from .conftest import small_theme_data


@pytest.fixture(scope="module")
def theme(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("conc") / "tiny.yaml"
    data = small_theme_data(clips=3)
    data["questions"]["total"] = 8
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _check_folder(out: Path, releases: list[Path]) -> None:
    for r in releases:
        assert verify_release(r) == [], r
    assert not list(out.rglob(".tmp-*")), "temp files left behind"
    with Catalog(out / "catalog.duckdb") as cat:
        runs = cat.query("SELECT count(*), count(DISTINCT run_id) FROM runs")[0]
        assert runs[0] == runs[1] == len({r.parent.name for r in releases})
        q = cat.query("SELECT count(*), count(DISTINCT (run_id, question_id)) FROM questions")[0]
        assert q[0] == q[1], "duplicated catalog rows"


def test_mkstemp_temp_files_never_collide_between_threads(tmp_path: Path) -> None:
    target = tmp_path / "same.json"
    names = [atomic.tmp_path_for(target) for _ in range(50)]
    assert len(set(names)) == 50
    barrier = threading.Barrier(8)

    def write(i: int) -> None:
        barrier.wait()
        for _ in range(20):
            atomic.write_json(target, {"writer": i, "pad": "x" * 10_000})

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(write, range(8)))
    assert yaml_io.safe_load(target.read_text())["pad"] == "x" * 10_000
    leftovers = sorted(p.name for p in tmp_path.iterdir())
    assert leftovers == sorted(["same.json", *(n.name for n in names)])  # no writer's temp file left
    for n in names:
        n.unlink()


def test_run_lock_waits_then_times_out_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / ".run.lock"
    told: list[str] = []
    with locks.file_lock(path, "run r1"):
        with pytest.raises(locks.LockTimeout, match=r"run r1 is locked by pid \d+"):
            with locks.file_lock(path, "run r1", wait_s=0.3, on_wait=told.append):
                pass
    assert told and "waiting" in told[0]
    with locks.file_lock(path, "run r1", wait_s=0):  # released: free again
        pass


def test_three_builds_in_threads_share_one_outputs_folder(theme: Path, tmp_path: Path) -> None:
    """Two builds of the same run and one of another seed, started together in one process."""
    out = tmp_path / "out"
    barrier = threading.Barrier(3)

    def one(seed: int):  # type: ignore[no-untyped-def]
        barrier.wait()
        return build(theme, seed=seed, outputs=out, workers=1)

    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(one, [0, 0, 1]))
    assert results[0].release_dir == results[1].release_dir != results[2].release_dir
    same = [r.ran for r in results[:2]]
    assert sorted(any(r.values()) for r in same) == [False, True]  # the waiter found it all cached
    _check_folder(out, [r.release_dir for r in results])


def _cli(theme: Path, out: Path, seed: int, orchestrator: str) -> list[str]:
    return [
        sys.executable, "-m", "mnemoforge.cli", "build", str(theme), "--outputs", str(out),
        "--seed", str(seed), "--workers", "1", "--orchestrator", orchestrator,
    ]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("orchestrator", ["local", "prefect"])
def test_concurrent_cli_builds_into_one_folder(theme: Path, tmp_path: Path, orchestrator: str) -> None:
    """Separate processes (as docker-compose workers): 3 local builds, 2 Prefect builds, all at once."""
    out = tmp_path / "out"
    seeds = [0, 0, 1] if orchestrator == "local" else [0, 1]
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect-home")}
    procs = [
        subprocess.Popen(
            _cli(theme, out, s, orchestrator),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for s in seeds
    ]
    releases = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=600)
        assert p.returncode == 0, stderr[-3000:]
        assert "Traceback" not in stderr
        releases.append(Path(stdout.strip().splitlines()[-1]))
    assert len(set(releases)) == len(set(seeds))
    _check_folder(out, releases)
