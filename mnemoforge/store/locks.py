"""Advisory file locks (``flock``) that serialize builds sharing one outputs folder.

``run_lock`` is held for a whole build of one run: a second build of the same run (same theme,
seed and code version), in another process or another thread, waits for it and then finds every
stage cached; builds of other runs take other locks and proceed. ``catalog_lock`` serializes
writes to ``catalog.duckdb`` (DuckDB allows one writer at a time). The kernel drops a lock when
its holder dies, so a killed build never leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

DEFAULT_WAIT_S = float(os.environ.get("MNEMOFORGE_LOCK_WAIT_S", "3600"))


class LockTimeout(RuntimeError):
    """Another build held the lock for longer than we were willing to wait."""


def _holder(path: Path) -> str:
    try:
        text = path.read_text().strip()
    except OSError:
        return "another build"
    return f"pid {text}" if text else "another build"


@contextlib.contextmanager
def file_lock(
    path: Path,
    what: str,
    *,
    wait_s: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    poll_s: float = 0.2,
) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if needed); wait up to ``wait_s`` for it.

    ``on_wait`` is told once, in words, who holds it. Raises ``LockTimeout`` naming ``what``.
    """
    wait_s = DEFAULT_WAIT_S if wait_s is None else wait_s
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline, told = time.monotonic() + wait_s, False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told and on_wait is not None:
                    on_wait(f"{what} is locked by {_holder(path)}; waiting for it to finish")
                    told = True
                if time.monotonic() >= deadline:
                    raise LockTimeout(
                        f"{what} is locked by {_holder(path)} ({path}); gave up after {wait_s:.0f} s "
                        "(another build of the same run is still going)"
                    ) from None
                time.sleep(poll_s)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def is_held(path: Path) -> bool:
    """Whether a live process holds the lock at ``path`` (never waits; a missing file is free)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def run_lock_path(runs_root: Path, run_id: str) -> Path:
    """Beside the run folder, not in it, so a run folder holds only build outputs."""
    return runs_root / f".{run_id}.lock"


def catalog_lock(catalog: Path, wait_s: float | None = None) -> contextlib.AbstractContextManager[None]:
    return file_lock(catalog.with_name(catalog.name + ".lock"), f"catalog {catalog}", wait_s=wait_s)
