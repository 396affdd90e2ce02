"""No orphans: killing only the parent build ends its helpers within a few seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from mnemoforge.backends.speech import espeak
from mnemoforge.lifecycle import _alive, descendants

from .conftest import small_theme_data

OUTLIVE_S = 5.0


def _build(theme: Path, out: Path, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "mnemoforge.cli", "build", str(theme), "--outputs", str(out), *extra]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _kill_parent_when(p: subprocess.Popen, ready, timeout: float = 240) -> set[int]:  # type: ignore[no-untyped-def]
    """SIGKILL ``p`` (only it) once ``ready(cmdlines)`` holds; returns its descendants then."""
    deadline = time.monotonic() + timeout
    seen: set[int] = set()
    while time.monotonic() < deadline and p.poll() is None:
        kids = descendants(p.pid)
        seen |= kids
        cmds = {k: _cmd(k) for k in kids}
        if ready(cmds):
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
            return {k for k in seen | kids if k in cmds or _alive(k)}
        time.sleep(0.2)
    p.kill()
    raise AssertionError("the build never reached the state to kill it in (or finished first)")


def _cmd(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _assert_all_gone(pids: set[int]) -> None:
    deadline = time.monotonic() + OUTLIVE_S
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    left = {p: _cmd(p) for p in pids if _alive(p)}
    for p in left:  # clean up before failing, so one failure does not leak into other tests
        os.kill(p, signal.SIGKILL)
    assert not left, f"outlived the parent by more than {OUTLIVE_S} s: {left}"


@pytest.fixture
def theme(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(small_theme_data(clips=14), sort_keys=False))
    return path


@pytest.mark.integration  # a CLI build in a subprocess, killed
def test_render_workers_exit_when_the_parent_is_killed(theme: Path, tmp_path: Path) -> None:
    p = _build(theme, tmp_path / "out", "--orchestrator", "local", "--workers", "2")
    workers = lambda cmds: sum("multiprocessing.spawn" in c for c in cmds.values()) >= 2  # noqa: E731
    pids = _kill_parent_when(p, workers)
    assert any("multiprocessing.spawn" in _cmd(x) or not _alive(x) for x in pids)
    _assert_all_gone(pids)


@pytest.mark.slow
def test_prefect_server_exits_when_the_parent_is_killed(theme: Path, tmp_path: Path) -> None:
    env_home = tmp_path / "prefect-home"
    os.environ.setdefault("PREFECT_HOME", str(env_home))
    p = _build(theme, tmp_path / "out", "--orchestrator", "prefect", "--workers", "1")
    server = lambda cmds: any("uvicorn" in c or "prefect" in c and "server" in c for c in cmds.values())  # noqa: E731
    _assert_all_gone(_kill_parent_when(p, server))


def test_stale_espeak_folders_are_swept(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    pid = int(dead.stdout)
    stale = Path(tempfile.mkdtemp(prefix=f"{espeak.TMP_PREFIX}{pid}-", dir=tmp_path))
    live = Path(tempfile.mkdtemp(prefix=f"{espeak.TMP_PREFIX}{os.getpid()}-", dir=tmp_path))
    assert espeak.sweep_stale_tmpdirs(str(tmp_path)) == [stale.name]
    assert live.is_dir() and not stale.exists()
