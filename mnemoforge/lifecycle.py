"""No orphans: helper processes exit when the build that started them dies.

Two mechanisms, both needing nothing from the dying parent (a SIGKILL runs no handler):

- ``exit_with_parent()``, called in a child (render workers), starts a daemon thread that
  exits the process as soon as its parent changes (the parent died and it was re-parented).
- ``start_watchdog()``, called by the ``build`` command, starts a small detached process that
  keeps a list of the build's descendants (render workers, the multiprocessing resource tracker,
  the embedded Prefect server and its children) and, once the build is gone, sends them SIGTERM
  and then SIGKILL. Children of the dead build are found by the list taken while it lived.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

POLL_S = 0.5


def exit_with_parent(poll_s: float = POLL_S) -> None:
    """Exit this process (status 1) within ``poll_s`` of its parent's death."""
    parent = os.getppid()

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
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def watch(parent: int, poll_s: float = POLL_S, grace_s: float = 3.0) -> None:
    """The watchdog's loop: track ``parent``'s descendants; when it dies, end them."""
    me = os.getpid()
    known: set[int] = set()
    while _alive(parent) and os.getppid() == parent:
        known = (known | descendants(parent)) - {me}
        known = {p for p in known if _alive(p)}
        time.sleep(poll_s)
    for p in known:  # the survivors' own children too (a server's workers)
        known = known | descendants(p)
    known.discard(me)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        live = [p for p in known if _alive(p)]
        for p in live:
            try:
                os.kill(p, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + grace_s
        while live and time.monotonic() < deadline:
            time.sleep(0.1)
            live = [p for p in live if _alive(p)]
        if not live:
            return


def start_watchdog() -> subprocess.Popen | None:
    """Start the watchdog for this process (Linux ``/proc`` only; elsewhere a no-op)."""
    if not os.path.isdir("/proc/self") or os.environ.get("MNEMOFORGE_NO_WATCHDOG"):
        return None
    return subprocess.Popen(
        [sys.executable, "-c", f"from mnemoforge.lifecycle import watch; watch({os.getpid()})"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in the build's process group: a Ctrl-C there leaves it alone
        close_fds=True,
    )
