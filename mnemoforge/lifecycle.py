"""No orphans: helper processes exit when the build that started them dies.

Two mechanisms, both needing nothing from the dying parent (a SIGKILL runs no handler):

- ``exit_with_parent()``, called in a child (render workers), starts a daemon thread that
  exits the process as soon as its parent changes (the parent died and it was re-parented).
- ``start_watchdog()``, called by the ``build`` command, starts a small detached process that
  keeps a list of the build's descendants (render workers, the multiprocessing resource tracker,
  the embedded Prefect server and its children) and, once the build is gone, sends them SIGTERM
  and then SIGKILL. Children of the dead build are found by the list taken while it lived and
  by ``MNEMOFORGE_BUILD_TOKEN``, an environment variable every process it started inherits (so a
  server spawned just before the kill, between two scans, is found too).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid

POLL_S = 0.25  # a worker's check of its parent (one getppid call)
WATCH_POLL_S = 0.5  # the watchdog's scan of /proc (a few ms each)
_started: dict[int, subprocess.Popen] = {}
TOKEN_ENV = "MNEMOFORGE_BUILD_TOKEN"


def exit_with_parent(parent: int | None = None, poll_s: float = POLL_S) -> None:
    """Exit this process (status 1) within ``poll_s`` of the death of ``parent`` (default: the
    current parent). Give the pid the parent had when it started us: a child that starts up
    after its parent died is already re-parented, and would otherwise wait on its new parent."""
    parent = os.getppid() if parent is None else parent
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def descendants(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from ``/proc``; empty where there is none)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return set()
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(name))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def _alive(pid: int) -> bool:
    """Running (a zombie, dead but not yet reaped, does not count)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _end(pids: set[int], grace_s: float) -> set[int]:
    """SIGTERM, wait up to ``grace_s``, then SIGKILL what is left; returns the survivors."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in pids:
            try:
                os.kill(p, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + grace_s
        while pids and time.monotonic() < deadline:
            time.sleep(0.05)
            pids = {p for p in pids if _alive(p)}
        if not pids:
            break
    return pids


def marked(token: str) -> set[int]:
    """Live processes whose environment carries ``MNEMOFORGE_BUILD_TOKEN=token`` (every process
    a build started inherits it, even one re-parented before the watchdog saw it)."""
    needle = f"{TOKEN_ENV}={token}".encode()
    out = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/environ", "rb") as f:
                    if needle in f.read().split(b"\0"):
                        out.add(int(name))
            except OSError:
                continue
    return out


def watch(parent: int, token: str | None = None, poll_s: float = WATCH_POLL_S, grace_s: float = 2.0) -> None:
    """The watchdog's loop: track ``parent``'s descendants; when it dies, end them.

    multiprocessing's resource tracker is left to exit on its own first (it does once every
    process holding its pipe is gone, after unlinking leaked semaphores and shared memory), and
    only ended if it lingers.
    """
    me = os.getpid()
    known: set[int] = set()
    while _alive(parent) and os.getppid() == parent:
        known = {p for p in (known | descendants(parent)) - {me} if _alive(p)}
        time.sleep(poll_s)
    if token:  # children started since the last scan: found by the token they inherited
        known |= marked(token)
    for p in list(known):  # the survivors' own children too (a server's workers, ffmpeg)
        known |= descendants(p)
    known.discard(me)
    trackers = {p for p in known if "resource_tracker" in _cmdline(p)}
    _end({p for p in known - trackers if _alive(p)}, grace_s)
    deadline = time.monotonic() + grace_s
    while trackers and time.monotonic() < deadline:
        time.sleep(0.05)
        trackers = {p for p in trackers if _alive(p)}
    _end(trackers, grace_s)


def start_watchdog() -> subprocess.Popen | None:
    """Start the watchdog for this process, once (Linux ``/proc`` only; elsewhere a no-op)."""
    if not os.path.isdir("/proc/self") or os.environ.get("MNEMOFORGE_NO_WATCHDOG"):
        return None
    if os.getpid() in _started and _started[os.getpid()].poll() is None:
        return _started[os.getpid()]
    token = f"{os.getpid()}-{uuid.uuid4().hex}"
    os.environ[TOKEN_ENV] = token  # inherited by every process this build starts from now on
    _started[os.getpid()] = subprocess.Popen(
        [sys.executable, "-c", f"from mnemoforge.lifecycle import watch; watch({os.getpid()}, {token!r})"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in the build's process group: a Ctrl-C there leaves it alone
        close_fds=True,
    )
    return _started[os.getpid()]
