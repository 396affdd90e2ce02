"""Render-stage scale benchmark: an ICM-Bench-sized album rendered offline, measured in one run.

    python benchmarks/render_scale.py [--clips 840] [--workers 2] [--keep DIR] [--json out.json]

Plans a World and album from the default theme with ``--clips`` clips (calibration clip
included), renders it with :func:`mnemoforge.generators.render.render_run` exactly as the
build's render stage does, then encodes the very stills and WAVs the render wrote with
:func:`mnemoforge.backends.video.encode_baseline`, one ffmpeg per clip, ``--workers`` at a
time: the raw-encoding floor the render stage is compared with. Memory is sampled from
``/proc`` for the whole process tree every ``--sample-s`` seconds in a background thread.
``--phases N`` adds a single-process breakdown of the render time (stills, speech, encode,
probe, hashing, ...) over the first N clips, in a separate folder after the main measurement.

Prints a table and writes every figure as JSON (default ``benchmarks/results/render_scale.json``,
or ``render_scale_c<N>.json`` when ``--clips`` is not the default). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mnemoforge
from mnemoforge.backends.video import encode_baseline, ffmpeg_exe
from mnemoforge.generators import album, album_check, render
from mnemoforge.generators import world as world_mod
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.theme_io import DEFAULT_THEME, load_theme

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

# ICM-Bench scale (shared/seeds): 839 clips, 141 minutes, ~1,958 shots.
ICM_CLIPS, ICM_MINUTES, ICM_SHOTS = 839, 141, 1958
DEFAULT_CLIPS = 840
# With the default theme, shots_per_clip (1, 3) and 4 s shots give 2,138 shots and 142.7 min for 840
# clips: the closest setting at or above ICM-Bench on both counts ((1, 2) gives only 1,817 shots).
DEFAULT_SHOTS_PER_CLIP = (1, 3)
DEFAULT_DURATIONS = (4,)

GOAL_RENDER_S = 600.0  # <= 10 min on 2 cores
GOAL_PEAK_RSS_MB = 2048.0  # <= 2 GB
GOAL_RATIO = 1.5  # render stage / raw ffmpeg encode of the same frames and audio

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


def _status_kb(pid: int) -> tuple[int, int] | None:
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

    def sample(self) -> None:
        t0 = time.perf_counter()
        try:
            self._sample()
        finally:
            self.cost_s += time.perf_counter() - t0

    def _sample(self) -> None:
        mem = self.phases[self.phase]
        total = 0
        own = _status_kb(self.root)
        if own:
            total += own[0]
            mem.parent_peak_kb = max(mem.parent_peak_kb, own[0])
        tree = _descendants(self.root)
        cmdlines = {pid: _cmdline(pid) for pid in [self.root] + [pid for pid, _ in tree]}
        for pid, ppid in tree:
            kind = _kind(cmdlines[pid], cmdlines.get(ppid))
            st = _status_kb(pid)
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


# --------------------------------------------------------------------------------------------------
# the benchmark


def scaled_theme(clips: int, shots_per_clip: tuple[int, int], durations: tuple[int, ...]) -> Theme:
    theme = load_theme(DEFAULT_THEME)
    return theme.model_copy(
        update={
            "album": theme.album.model_copy(
                update={"clips": clips, "shots_per_clip": shots_per_clip, "shot_durations": list(durations)}
            )
        }
    )


def plan(theme: Theme, seed: int) -> tuple[World, list[Clip], dict[str, float]]:
    t: dict[str, float] = {}
    t0 = time.perf_counter()
    w = world_mod.plan_world(theme, seed, theme.album.clips - 1)
    t["plan_world_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    clips, _obs = album.plan_album(theme, w)
    t["plan_album_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    album_check.validate_album(theme, w, clips)
    t["validate_album_s"] = time.perf_counter() - t0
    return w, clips, t


def baseline_inputs(run: RunLayout, clip: Clip) -> tuple[list[Path], list[Path], list[float]]:
    stills = [run.media / "shots" / f"{s.id}.png" for s in clip.shots]
    wavs = [run.media / "speech" / f"{line.id}.wav" for s in clip.shots for line in s.dialogue]
    return stills, wavs, [float(s.duration_s) for s in clip.shots]


def run_baseline(run: RunLayout, theme: Theme, clips: list[Clip], out_dir: Path, workers: int) -> float:
    """Raw ffmpeg encode of every clip's stills and WAVs, ``workers`` ffmpeg processes at a time."""
    out_dir.mkdir(parents=True, exist_ok=True)
    a = theme.album

    def one(clip: Clip) -> float:
        stills, wavs, durations = baseline_inputs(run, clip)
        info = encode_baseline(stills, wavs, out_dir / f"{clip.id}.mp4", durations=durations,
                               width=a.width, height=a.height, fps=a.fps)
        return info.duration_s

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return sum(pool.map(one, clips))


def timed_render(run: RunLayout, theme: Theme, w: World, clips: list[Clip], workers: int,
                 sampler: MemorySampler) -> tuple[Timed, dict[str, float]]:
    """render_run as the build calls it; the parent-side steps are timed by wrapping module globals."""
    timer = ExclusiveTimer()
    timer.patch(render, "render_anchors", "anchors")
    timer.patch(render, "voice_check", "voice_check")
    timer.patch(atomic, "write_jsonl", "write_media_index")
    try:
        with timed(sampler, "render") as t:
            render.render_run(run, theme, w, clips, workers=workers)
    finally:
        timer.restore()
    parts = {f"{k}_s": round(v, 3) for k, v in timer.totals.items()}
    parts["clips_pool_s"] = round(t.wall_s - sum(timer.totals.values()), 3)  # spawn + map + shutdown
    return t, parts


def phase_breakdown(theme: Theme, w: World, clips: list[Clip], root: Path) -> dict[str, Any]:
    """Render ``clips`` in this process (workers=1) with every step timed, then their baseline encode."""
    from mnemoforge.backends.image.procedural import ProceduralImageBackend
    from mnemoforge.backends.speech import espeak
    from mnemoforge.backends.video import ffmpeg as ffmpeg_mod

    run = RunLayout(root / "run")
    timer = ExclusiveTimer()
    targets = [
        (render, "_render_clip", "other (python glue, pydantic, transcripts json)"),
        (render, "scene_request", "scene request"),
        (ProceduralImageBackend, "scene", "still: draw (Pillow)"),
        (render, "png_bytes", "still: png encode"),
        (espeak.EspeakBackend, "render", "speech: espeak synth"),
        (espeak, "write_wav_atomic", "speech: wav write+fsync"),
        (render, "read_wav", "speech: wav read back"),
        (render, "encode_clip", "ffmpeg: clip encode"),
        (ffmpeg_mod, "probe", "ffmpeg: probe output"),
        (render, "probe", "ffmpeg: probe output"),
        (render, "sha256_file", "sha256 of outputs"),
        (atomic, "write_bytes", "atomic writes (still png, transcripts)"),
    ]
    missing = [f"{getattr(o, '__name__', o)}.{a}" for o, a, n in targets if not timer.patch(o, a, n)]
    try:
        render._init_worker(theme.model_dump_json(), w.model_dump_json(), str(run.root))
        t0 = time.perf_counter()
        for c in clips:
            render._render_clip(c.model_dump_json())
        render_s = time.perf_counter() - t0
    finally:
        timer.restore()
    base = ExclusiveTimer()
    base.patch(ffmpeg_mod, "probe", "baseline: probe output")
    try:
        t0 = time.perf_counter()
        run_baseline(run, theme, clips, root / "baseline", workers=1)
        base_s = time.perf_counter() - t0
    finally:
        base.restore()
    parts = {k: round(v, 3) for k, v in sorted(timer.totals.items(), key=lambda kv: -kv[1])}
    return {
        "clips": len(clips),
        "shots": sum(len(c.shots) for c in clips),
        "lines": sum(len(s.dialogue) for c in clips for s in c.shots),
        "render_s": round(render_s, 3),
        "baseline_s": round(base_s, 3),
        "baseline_probe_s": round(base.totals.get("baseline: probe output", 0.0), 3),
        "ratio": round(render_s / base_s, 3) if base_s else None,
        "parts_s": parts,
        "parts_share": {k: round(v / render_s, 3) for k, v in parts.items()} if render_s else {},
        "calls": dict(timer.counts),
        "not_timed": missing,  # steps the current render code no longer has under that name
    }


def machine() -> dict[str, Any]:
    try:
        ver = subprocess.run([ffmpeg_exe(), "-hide_banner", "-version"], capture_output=True, text=True,
                             check=False).stdout.splitlines()[0]
    except Exception as exc:  # report, do not fail
        ver = f"unknown ({exc!r})"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        model = ""
    try:
        with open("/proc/meminfo") as f:
            mem_kb = int(next(ln for ln in f if ln.startswith("MemTotal")).split()[1])
    except (OSError, StopIteration):
        mem_kb = 0
    git = ["git", "--no-optional-locks", "-C", str(HERE.parent)]  # read-only: never touches the index
    try:
        commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=False).stdout.strip()
        changed = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no", "--", "mnemoforge"],
                                 capture_output=True, text=True, check=False).stdout.split("\n")
        changed = [ln[3:] for ln in changed if ln.strip()]
    except OSError:
        commit, changed = "", []
    return {
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu_model": model,
        "mem_total_gb": round(mem_kb / MB, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "ffmpeg": ver,
        "ffmpeg_exe": ffmpeg_exe(),
        "mnemoforge": mnemoforge.__version__,
        "git_commit": commit,
        "mnemoforge_uncommitted_changes": changed,  # files under mnemoforge/ differing from the commit
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clips", type=int, default=DEFAULT_CLIPS, help="clips incl. calibration clip 0")
    ap.add_argument("--workers", type=int, default=2, help="render workers = baseline ffmpeg processes")
    ap.add_argument("--keep", type=Path, help="render into DIR and keep it (default: a temp dir, deleted)")
    ap.add_argument("--json", type=Path, help="where to write the figures (default: benchmarks/results/)")
    ap.add_argument("--seed", type=int, help="world seed (default: the theme's)")
    ap.add_argument("--shots-per-clip", type=int, nargs=2, default=DEFAULT_SHOTS_PER_CLIP,
                    metavar=("LO", "HI"))
    ap.add_argument("--durations", type=int, nargs="+", default=DEFAULT_DURATIONS, choices=(4, 6, 8),
                    help="shot durations the planner may choose from")
    ap.add_argument("--sample-s", type=float, default=0.2, help="RSS sampling interval")
    ap.add_argument("--phases", type=int, default=0, metavar="N",
                    help="also time each render step in-process over the first N clips (after the main run)")
    args = ap.parse_args(argv)
    if args.clips < 2:
        ap.error("--clips must be at least 2 (clip 0 is the calibration clip)")

    theme = scaled_theme(args.clips, tuple(args.shots_per_clip), tuple(args.durations))
    seed = theme.seed if args.seed is None else args.seed
    json_path = args.json or RESULTS / (
        "render_scale.json" if args.clips == DEFAULT_CLIPS else f"render_scale_c{args.clips}.json"
    )
    if args.keep:
        root = args.keep.resolve()
        if root.exists() and any(root.iterdir()):
            ap.error(f"--keep {root}: folder exists and is not empty (finished files would be reused)")
        root.mkdir(parents=True, exist_ok=True)
    else:
        root = Path(tempfile.mkdtemp(prefix="mf-render-scale-"))
    run = RunLayout(root / "run")

    load_at_start = [round(x, 2) for x in os.getloadavg()]
    sampler = MemorySampler(args.sample_s)
    sampler.start()
    try:
        print(f"planning {args.clips} clips (seed {seed}) ...", flush=True)
        with timed(sampler, "plan") as t_plan:
            w, clips, plan_parts = plan(theme, seed)
        atomic.write_json(run.world, w)
        atomic.write_jsonl(run.clips, clips)
        shots = [s for c in clips for s in c.shots]
        lines = [ln for s in shots for ln in s.dialogue]
        video_s = sum(s.duration_s for s in shots)
        frames = sum(round(s.duration_s * theme.album.fps) for s in shots)
        print(f"  {len(clips)} clips, {len(shots)} shots, {len(lines)} lines, {video_s / 60:.1f} min "
              f"in {t_plan.wall_s:.2f} s", flush=True)

        print(f"rendering with {args.workers} workers into {run.root} ...", flush=True)
        t_render, render_parts = timed_render(run, theme, w, clips, args.workers, sampler)
        print(f"  render stage {t_render.wall_s:.1f} s", flush=True)

        print(f"baseline: raw ffmpeg encode of the same stills and WAVs, {args.workers} at a time ...",
              flush=True)
        with timed(sampler, "baseline") as t_base:
            base_video_s = run_baseline(run, theme, clips, root / "baseline", args.workers)
        print(f"  baseline {t_base.wall_s:.1f} s", flush=True)
    finally:
        sampler.stop()

    phases = None
    if args.phases > 0:
        n = min(args.phases, len(clips))
        print(f"phase breakdown: {n} clips in one process ...", flush=True)
        phases = phase_breakdown(theme, w, clips[:n], root / "phases")

    media = run.media
    sizes = {k: sum(p.stat().st_size for p in (media / k).iterdir()) for k in ("shots", "speech", "clips")}
    base_bytes = sum(p.stat().st_size for p in (root / "baseline").glob("*.mp4"))
    rendered_video_s = sum(
        json.loads(ln)["duration_s"] for ln in run.media_index.read_text().splitlines()
        if json.loads(ln)["kind"] == "clip"
    )
    mem = {k: v.summary() for k, v in sampler.phases.items() if k != "idle"}
    parent_hwm = (_status_kb(os.getpid()) or (0, 0))[1]
    children_maxrss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    r = mem.get("render", {})
    ratio = t_render.wall_s / t_base.wall_s if t_base.wall_s else float("inf")
    render_peak_mb = r.get("tree_peak_mb", 0.0)
    cpu_render = t_render.cpu_self_s + t_render.cpu_children_s
    cpu_base = t_base.cpu_self_s + t_base.cpu_children_s

    result: dict[str, Any] = {
        "benchmark": "render_scale",
        "scale": {
            "clips": len(clips),
            "event_clips": len(clips) - 1,
            "shots": len(shots),
            "dialogue_lines": len(lines),
            "planned_minutes": round(video_s / 60, 2),
            "rendered_minutes": round(rendered_video_s / 60, 2),
            "baseline_minutes": round(base_video_s / 60, 2),
            "frames": frames,
            "shots_per_clip": list(args.shots_per_clip),
            "shot_durations": list(args.durations),
            "width": theme.album.width,
            "height": theme.album.height,
            "fps": theme.album.fps,
            "seed": seed,
            "icm_bench_reference": {"clips": ICM_CLIPS, "minutes": ICM_MINUTES, "shots": ICM_SHOTS},
        },
        "workers": args.workers,
        "wall_s": {
            "planning": round(t_plan.wall_s, 3),
            "planning_parts": {k: round(v, 3) for k, v in plan_parts.items()},
            "render_stage": round(t_render.wall_s, 3),
            "render_parts": render_parts,
            "baseline_encode": round(t_base.wall_s, 3),
        },
        "cpu_s": {
            "render_parent": round(t_render.cpu_self_s, 2),
            "render_children": round(t_render.cpu_children_s, 2),
            "baseline_parent": round(t_base.cpu_self_s, 2),
            "baseline_children": round(t_base.cpu_children_s, 2),
            "rss_sampler": round(sampler.cost_s, 2),
        },
        "contention": {
            "note": "CPU seconds used by other processes on the machine during each phase "
                    "(/proc/stat busy time minus this benchmark's own); near 0 means a clean measurement",
            "render_foreign_cpu_s": round(t_render.foreign_cpu_s, 1),
            "baseline_foreign_cpu_s": round(t_base.foreign_cpu_s, 1),
            "loadavg_at_start": load_at_start,
        },
        "ratio_render_to_baseline": round(ratio, 3),
        # CPU seconds (own + children) are far less sensitive to other load than wall time
        "cpu_ratio_render_to_baseline": round(cpu_render / cpu_base, 3) if cpu_base else None,
        "memory": {
            "method": (
                "background thread reads /proc/<pid>/status of this process and every descendant "
                f"every {args.sample_s} s; tree_peak = largest sum of VmRSS over the tree in one sample; "
                "per-process peaks = max VmHWM seen; parent_hwm = this process's VmHWM at the end"
            ),
            "parent_hwm_mb": round(parent_hwm / 1024, 1),
            "children_ru_maxrss_mb": round(children_maxrss_mb, 1),
            "phases": mem,
        },
        "bytes": {"stills": sizes["shots"], "speech": sizes["speech"], "clips": sizes["clips"],
                  "baseline_clips": base_bytes},
        "goals": {
            "render_wall_s": {"goal": GOAL_RENDER_S, "value": round(t_render.wall_s, 1),
                              "met": t_render.wall_s <= GOAL_RENDER_S},
            "peak_rss_mb": {"goal": GOAL_PEAK_RSS_MB, "value": render_peak_mb,
                            "measure": "render phase, whole process tree resident at once",
                            "met": render_peak_mb <= GOAL_PEAK_RSS_MB},
            "ratio": {"goal": GOAL_RATIO, "value": round(ratio, 3), "met": ratio <= GOAL_RATIO},
        },
        "phase_breakdown": phases,
        "machine": machine(),
        "run_dir": str(root) if args.keep else None,
    }

    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(result, indent=2) + "\n")
    print_table(result)
    print(f"\nwrote {json_path}")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def print_table(r: dict[str, Any]) -> None:
    s, wall, g = r["scale"], r["wall_s"], r["goals"]
    mr = r["memory"]["phases"].get("render", {})
    mb = r["memory"]["phases"].get("baseline", {})

    def ok(k: str) -> str:
        return "ok" if g[k]["met"] else "MISSED"

    rows = [
        ("scale", f"{s['clips']} clips, {s['shots']} shots, {s['dialogue_lines']} lines, "
                  f"{s['rendered_minutes']:.1f} min rendered ({s['frames']} frames at {s['fps']} fps, "
                  f"{s['width']}x{s['height']})", ""),
        ("planning", f"{wall['planning']:.2f} s", ""),
        ("render stage", f"{wall['render_stage']:.1f} s with {r['workers']} workers",
         f"<= 600 s  {ok('render_wall_s')}"),
        ("  parts", ", ".join(f"{k[:-2]} {v:.1f} s" for k, v in wall["render_parts"].items()), ""),
        ("baseline encode", f"{wall['baseline_encode']:.1f} s ({r['workers']} ffmpeg at a time)", ""),
        ("ratio", f"{r['ratio_render_to_baseline']:.2f}x render / baseline", f"<= 1.5x  {ok('ratio')}"),
        ("cpu", f"render {r['cpu_s']['render_parent'] + r['cpu_s']['render_children']:.0f} cpu-s, "
                f"baseline {r['cpu_s']['baseline_parent'] + r['cpu_s']['baseline_children']:.0f} cpu-s "
                f"({r['cpu_ratio_render_to_baseline']:.2f}x)", ""),
        ("peak RSS (render)", f"tree {mr.get('tree_peak_mb', 0):.0f} MB at once; parent "
                              f"{mr.get('parent_peak_mb', 0):.0f} MB; workers' peaks sum "
                              f"{mr.get('workers_peak_sum_mb', 0):.0f} MB ({mr.get('workers', 0)} workers); "
                              f"largest ffmpeg {mr.get('ffmpeg_peak_max_mb', 0):.0f} MB",
         f"<= 2048 MB  {ok('peak_rss_mb')}"),
        ("peak RSS (baseline)", f"tree {mb.get('tree_peak_mb', 0):.0f} MB; largest ffmpeg "
                                f"{mb.get('ffmpeg_peak_max_mb', 0):.0f} MB", ""),
        ("parent VmHWM", f"{r['memory']['parent_hwm_mb']:.0f} MB (whole run)", ""),
        ("other load", f"{r['contention']['render_foreign_cpu_s']:.0f} cpu-s during render, "
                       f"{r['contention']['baseline_foreign_cpu_s']:.0f} cpu-s during baseline "
                       f"(other processes; 0 = clean)", ""),
        ("machine", f"{r['machine']['cpus_usable']} cpus, python {r['machine']['python']}, "
                    f"{r['machine']['ffmpeg'][:40]}", ""),
    ]
    pb = r.get("phase_breakdown")
    if pb:
        rows.append(("phase breakdown", f"{pb['clips']} clips in-process: render {pb['render_s']:.1f} s, "
                                        f"baseline {pb['baseline_s']:.1f} s ({pb['ratio']:.2f}x)", ""))
        for k, v in pb["parts_s"].items():
            rows.append((f"  {k}", f"{v:.2f} s ({pb['parts_share'][k] * 100:.0f}%)", ""))
    w0 = max(len(a) for a, _, _ in rows)
    w2 = max(len(c) for _, _, c in rows)
    print()
    for a, b, c in rows:
        print(f"{a:<{w0}}  {c:<{w2}}  {b}".rstrip())


if __name__ == "__main__":
    raise SystemExit(main())
