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

from mnemoforge.store.catalog import TABLES, Catalog

pytestmark = pytest.mark.integration  # subprocesses, servers or a Prefect flow


@pytest.fixture(scope="module")
def theme(tiny_build) -> Path:  # type: ignore[no-untyped-def]
    return tiny_build[0]  # the small theme of the session's build (tests/conftest.py)


@pytest.fixture(scope="module")
def reference(tiny_build) -> bytes:  # type: ignore[no-untyped-def]
    """The MANIFEST.json of an uninterrupted plain build (in-process, built once per session)."""
    return (tiny_build[2].release_dir / "MANIFEST.json").read_bytes()


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


# `threads` is the CLI's default task runner: tests/test_flow.py's first build (the same theme,
# `--orchestrator prefect --workers 2`, the same session server) is that build and asserts the same
# MANIFEST, so this case runs only with the slow tests
@pytest.mark.parametrize("runner", [pytest.param("threads", marks=pytest.mark.slow), "processes", "dask"])
def test_every_task_runner_gives_a_byte_identical_manifest(
    theme: Path, reference: bytes, tmp_path: Path, runner: str, request: pytest.FixtureRequest
) -> None:
    if runner == "dask":
        pytest.importorskip("prefect_dask", reason="needs the dask extra: pip install 'mnemoforge[dask]'")
    if runner != "processes":  # the module's Prefect server (tests/conftest.py); the processes
        request.getfixturevalue("prefect_api")  # runner's build starts one its pool workers share
    r = subprocess.run(
        _cmd(theme, tmp_path / runner, "--task-runner", runner, "--workers", "2"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    release = Path(r.stdout.strip().splitlines()[-1])
    assert (release / "MANIFEST.json").read_bytes() == reference, runner


def _group_alive(pgid: int) -> list[int]:
    """Pids still in process group ``pgid`` (zombies excluded)."""
    alive = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(proc.name))
    return alive


def test_killing_the_whole_process_group_mid_render_then_resuming(
    theme: Path, reference: bytes, tmp_path: Path
) -> None:
    """SIGKILL to the build's whole process group (the CLI and its render workers) while clips are
    being rendered: nothing of the group survives, and a resumed build equals an uninterrupted one."""
    out = tmp_path / "out"
    cmd = _cmd(theme, out, "--orchestrator", "local")
    cmd[cmd.index("--workers") + 1] = "2"  # render worker processes in the group too
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    pgid = os.getpgid(p.pid)
    assert pgid == p.pid  # its own group, so the kill cannot reach pytest
    deadline = time.monotonic() + 300
    while not list(out.glob("runs/*/media/clips/*.mp4")):  # the first clip is finished
        assert p.poll() is None, "the build ended before it could be killed"
        assert time.monotonic() < deadline, "no clip rendered in 300 s"
        time.sleep(0.05)
    members = _group_alive(pgid)
    assert len(members) >= 2, members  # the CLI and at least one render worker
    os.killpg(pgid, signal.SIGKILL)
    assert p.wait(timeout=60) == -signal.SIGKILL
    for _ in range(100):
        if not _group_alive(pgid):
            break
        time.sleep(0.05)
    assert _group_alive(pgid) == []
    assert not (out / "releases").exists() or not list((out / "releases").rglob("MANIFEST.json"))
    resume = _cmd(theme, out, "--orchestrator", "local")
    r = subprocess.run(resume, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    release = Path(r.stdout.strip().splitlines()[-1])
    assert (release / "MANIFEST.json").read_bytes() == reference
    assert not list(out.rglob(".tmp-*")), "orphaned temp files"
    with Catalog(out / "catalog.duckdb") as cat:
        total, distinct = cat.query("SELECT count(*), count(DISTINCT question_id) FROM questions")[0]
        assert total == distinct > 0


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
            _cmd(theme, fresh),
            env=base,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(rng.uniform(2.0, 8.0))
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)  # the CLI and every process of its group
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
