"""Measurement helpers for the benchmarks: process-tree memory sampled from /proc, wall and CPU
time per phase (including CPU other processes used meanwhile), and exclusive per-call timers."""

from __future__ import annotations

import os
import resource
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MB = 1024 * 1024


# --------------------------------------------------------------------------------------------------
# memory: the process tree, sampled from /proc


def _ppid_map() -> dict[int, int]:
    out: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rfind(b")") + 2 :].split()  # after "pid (comm) ": state ppid ...
        if len(rest) > 1:
            out[int(entry.name)] = int(rest[1])
    return out


def _descendants(root: int) -> list[tuple[int, int]]:
    """(pid, ppid) of every descendant of ``root``."""
    children: dict[int, list[int]] = defaultdict(list)
    for pid, ppid in _ppid_map().items():
        children[ppid].append(pid)
    out, todo = [], [root]
    while todo:
        parent = todo.pop()
        for c in children.get(parent, []):
            out.append((c, parent))
            todo.append(c)
    return out


def status_kb(pid: int) -> tuple[int, int] | None:
    """(VmRSS, VmHWM) in kB, or None when the process is gone (or a zombie without memory)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            text = f.read()
    except OSError:
        return None
    rss = hwm = None
    for line in text.splitlines():
        if line.startswith(b"VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith(b"VmHWM:"):
            hwm = int(line.split()[1])
    return None if rss is None or hwm is None else (rss, hwm)


def _cmdline(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return None


def _kind(cmdline: bytes | None, parent_cmdline: bytes | None) -> str:
    """worker (a Python multiprocessing process), ffmpeg, helper (resource tracker), fork (a child
    caught between fork and exec: still its parent's image, pages shared, so not counted), other."""
    if cmdline is None:
        return "other"
    if cmdline == parent_cmdline:
        return "fork"
    argv = cmdline.split(b"\0")
    exe = Path(argv[0].decode("utf-8", "replace")).name if argv[0] else ""
    if "ffmpeg" in exe or "ffprobe" in exe:
        return "ffmpeg"
    if b"resource_tracker" in cmdline:
        return "helper"
    if b"multiprocessing" in cmdline or b"spawn_main" in cmdline:
        return "worker"
    return "other"


@dataclass
class PhaseMemory:
    samples: int = 0
    tree_peak_kb: int = 0  # max over samples of the sum of VmRSS over the whole tree at that instant
    parent_peak_kb: int = 0  # max sampled VmRSS of this process
    by_pid: dict[tuple[int, str], int] = field(default_factory=dict)  # (pid, kind) -> max VmHWM seen

    def summary(self) -> dict[str, Any]:
        peaks: dict[str, list[int]] = defaultdict(list)
        for (_pid, kind), hwm in self.by_pid.items():
            peaks[kind].append(hwm)
        workers = peaks.get("worker", [])
        ff = peaks.get("ffmpeg", [])
        return {
            "samples": self.samples,
            "tree_peak_mb": round(self.tree_peak_kb / 1024, 1),
            "parent_peak_mb": round(self.parent_peak_kb / 1024, 1),
            "workers": len(workers),
            "workers_peak_sum_mb": round(sum(workers) / 1024, 1),
            "workers_peak_max_mb": round(max(workers, default=0) / 1024, 1),
            "ffmpeg_processes_seen": len(ff),
            "ffmpeg_peak_max_mb": round(max(ff, default=0) / 1024, 1),
            "other_children_peak_sum_mb": round(
                sum(sum(v) for k, v in peaks.items() if k not in ("worker", "ffmpeg")) / 1024, 1
            ),
        }


class MemorySampler(threading.Thread):
    """Samples VmRSS/VmHWM of this process and all its descendants every ``interval`` seconds.

    Figures are kept per phase (set ``sampler.phase``). The tree peak is the largest sum of
    VmRSS over the tree in one sample (what was resident together); per-process peaks use
    VmHWM, the kernel's own high-water mark, so short spikes between samples are not missed.
    A child caught between fork and exec (still its parent's image, pages shared) is skipped:
    counting it would add its parent's memory twice.
    """

    def __init__(self, interval: float = 0.2) -> None:
        super().__init__(daemon=True, name="rss-sampler")
        self.interval = interval
        self.phase = "idle"
        self.phases: dict[str, PhaseMemory] = defaultdict(PhaseMemory)
        self._halt = threading.Event()
        self.root = os.getpid()
        self.cost_s = 0.0  # time spent sampling (in this process, one thread)
        self.cpu_by_phase: dict[str, float] = defaultdict(float)  # sampler thread CPU per phase

    def sample(self) -> None:
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            self._sample()
        finally:
            self.cost_s += time.perf_counter() - t0
            self.cpu_by_phase[self.phase] += time.thread_time() - c0

    def _sample(self) -> None:
        mem = self.phases[self.phase]
        total = 0
        own = status_kb(self.root)
        if own:
            total += own[0]
            mem.parent_peak_kb = max(mem.parent_peak_kb, own[0])
        tree = _descendants(self.root)
        cmdlines = {pid: _cmdline(pid) for pid in [self.root] + [pid for pid, _ in tree]}
        for pid, ppid in tree:
            kind = _kind(cmdlines[pid], cmdlines.get(ppid))
            st = status_kb(pid)
            if st is None or kind == "fork":
                continue
            # after exec the kind changes and the kernel starts a new VmHWM: keyed by (pid, kind)
            if _cmdline(pid) != cmdlines[pid]:
                continue  # exec'd between the two reads: classify it next time
            total += st[0]
            key = (pid, kind)
            mem.by_pid[key] = max(mem.by_pid.get(key, 0), st[1])
        mem.tree_peak_kb = max(mem.tree_peak_kb, total)
        mem.samples += 1

    def run(self) -> None:
        while not self._halt.wait(self.interval):
            try:
                self.sample()
            except Exception as exc:  # never take the benchmark down
                print(f"rss sampler: {exc!r}", file=sys.stderr)

    def stop(self) -> None:
        self._halt.set()
        self.join()


# --------------------------------------------------------------------------------------------------
# timing helpers


def _machine_busy_s() -> float:
    """CPU seconds the whole machine has been busy (all processes, all cores), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            vals = [int(v) for v in f.readline().split()[1:]]
    except OSError:
        return 0.0
    busy = sum(vals[:8]) - vals[3] - vals[4]  # user..steal minus idle and iowait
    return busy / os.sysconf("SC_CLK_TCK")


@dataclass
class Timed:
    wall_s: float = 0.0
    cpu_self_s: float = 0.0
    cpu_children_s: float = 0.0  # children that exited and were waited for (pool workers, ffmpeg)
    machine_busy_s: float = 0.0  # every process on the machine

    @property
    def foreign_cpu_s(self) -> float:
        """CPU time other processes on the machine used meanwhile (0 on a quiet machine)."""
        return max(0.0, self.machine_busy_s - self.cpu_self_s - self.cpu_children_s)


@contextmanager
def timed(sampler: MemorySampler | None, phase: str) -> Iterator[Timed]:
    out = Timed()
    if sampler is not None:
        sampler.phase = phase
    s0, c0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    b0 = _machine_busy_s()
    t0 = time.perf_counter()
    try:
        yield out
    finally:
        out.wall_s = time.perf_counter() - t0
        out.machine_busy_s = _machine_busy_s() - b0
        s1, c1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        out.cpu_self_s = (s1.ru_utime + s1.ru_stime) - (s0.ru_utime + s0.ru_stime)
        out.cpu_children_s = (c1.ru_utime + c1.ru_stime) - (c0.ru_utime + c0.ru_stime)
        if sampler is not None:
            sampler.sample()
            sampler.phase = "idle"


class ExclusiveTimer:
    """Wraps callables; each name gets the time spent inside it minus time in other wrapped calls."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)
        self._stack: list[float] = []
        self._undo: list[tuple[object, str, object]] = []

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def inner(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            self._stack.append(0.0)
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - t0
                nested = self._stack.pop()
                self.totals[name] += elapsed - nested
                self.counts[name] += 1
                if self._stack:
                    self._stack[-1] += elapsed

        return inner

    def patch(self, owner: object, attr: str, name: str) -> bool:
        """Wrap ``owner.attr`` (False, and nothing done, when the code no longer has it)."""
        orig = getattr(owner, attr, None)
        if not callable(orig):
            return False
        self._undo.append((owner, attr, orig))
        setattr(owner, attr, self.wrap(name, orig))
        return True

    def restore(self) -> None:
        for owner, attr, orig in reversed(self._undo):
            setattr(owner, attr, orig)
        self._undo.clear()
