"""Render-stage scale benchmark: an ICM-Bench-sized album rendered offline, measured in one run.

    python benchmarks/render_scale.py [--clips 840] [--workers 2] [--keep DIR] [--json out.json]

Plans a World and album from the default theme with ``--clips`` clips (calibration clip
included), renders it with :func:`mnemoforge.generators.icm.render_pool.render_run` exactly as the
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
import resource
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mnemoforge.backends.video import encode_baseline
from mnemoforge.generators.icm import album, album_check, render, render_pool
from mnemoforge.generators.icm import world as world_mod
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.theme_io import DEFAULT_THEME, load_theme

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402
from procmem import ExclusiveTimer, MemorySampler, Timed, status_kb, timed  # noqa: E402
from render_scale_report import machine, print_table  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

# ICM-Bench scale (shared/seeds): 839 clips, 141 minutes, ~1,958 shots.
ICM_CLIPS, ICM_MINUTES, ICM_SHOTS = 839, 141, 1958
DEFAULT_CLIPS = 840
# With the default theme, shots_per_clip (1, 3) and 4 s shots give 2,873 shots and 264.7 min for 840
# clips (shots lengthen and multiply to fit their speech; benchmarks/icm_scale.py says why 141 min is
# out of reach); (1, 1) gives the shortest album, 2,279 shots / 222.9 min, but too few kept questions.
DEFAULT_SHOTS_PER_CLIP = (1, 3)
DEFAULT_DURATIONS = (4,)

GOAL_RENDER_S = 600.0  # <= 10 min on 2 cores
GOAL_PEAK_RSS_MB = 2048.0  # <= 2 GB
GOAL_RATIO = 1.5  # render stage / raw ffmpeg encode of the same frames and audio


# --------------------------------------------------------------------------------------------------
# the benchmark


def scaled_theme(
    clips: int,
    shots_per_clip: tuple[int, int],
    durations: tuple[int, ...],
    width: int | None = None,
    height: int | None = None,
) -> Theme:
    """The default theme with ``clips`` clips of these shots, at ``width`` x ``height`` (default: its own)."""
    theme = load_theme(DEFAULT_THEME)
    album = {"clips": clips, "shots_per_clip": shots_per_clip, "shot_durations": list(durations)}
    album |= {k: v for k, v in (("width", width), ("height", height)) if v}
    return theme.model_copy(update={"album": theme.album.model_copy(update=album)})


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
        info = encode_baseline(
            stills,
            wavs,
            out_dir / f"{clip.id}.mp4",
            durations=durations,
            width=a.width,
            height=a.height,
            fps=a.fps,
        )
        return info.duration_s

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return sum(pool.map(one, clips))


def timed_render(
    run: RunLayout, theme: Theme, w: World, clips: list[Clip], workers: int, sampler: MemorySampler
) -> tuple[Timed, dict[str, float]]:
    """render_run as the build calls it; the parent-side steps are timed by wrapping module globals."""
    # the render audit reads the shot observations, as in a build after the episodes stage
    atomic.write_jsonl(run.observations, [o for c in clips for o in album.observations_for_clip(w, c)])
    timer = ExclusiveTimer()
    timer.patch(render, "render_audit", "render_audit")
    timer.patch(render, "render_anchors", "anchors")
    timer.patch(render, "voice_check", "voice_check")
    timer.patch(atomic, "write_jsonl", "write_media_index")
    try:
        with timed(sampler, "render") as t:
            render_pool.render_run(run, theme, w, clips, workers=workers)
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
        (render_pool, "_render_chunk", "other (python glue, pydantic, transcripts json)"),
        (render, "scene_request", "scene request"),
        (ProceduralImageBackend, "scene", "still: draw (Pillow)"),
        (render, "still_png_bytes", "still: png encode"),
        (render, "rgb_png_bytes", "still: png encode"),
        (espeak.EspeakBackend, "render", "speech: espeak synth"),
        (espeak, "write_wav_atomic", "speech: wav write+fsync"),
        (render, "read_wav", "speech: wav read back"),
        (render, "encode_clip", "ffmpeg: clip encode"),
        (ffmpeg_mod, "probe", "ffmpeg: probe output"),
        (ffmpeg_mod, "mp4_info", "mp4 header read-back"),
        (render, "sha256_file", "sha256 of outputs"),
        (atomic, "write_bytes", "atomic writes (still png, transcripts)"),
    ]
    missing = [f"{getattr(o, '__name__', o)}.{a}" for o, a, n in targets if not timer.patch(o, a, n)]
    try:
        render_pool._init_worker(theme.model_dump_json(), w.model_dump_json(), str(run.root))
        with timed(None, "") as t_r:
            for c in clips:
                render_pool._render_chunk([c.model_dump_json()])
        render_s = t_r.wall_s
    finally:
        timer.restore()
    base = ExclusiveTimer()
    base.patch(ffmpeg_mod, "probe", "baseline: probe output")
    try:
        with timed(None, "") as t_b:
            run_baseline(run, theme, clips, root / "baseline", workers=1)
        base_s = t_b.wall_s
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
        # CPU seconds: python = this process, ffmpeg = its children (every encode and probe)
        "render_cpu_s": {"python": round(t_r.cpu_self_s, 2), "ffmpeg": round(t_r.cpu_children_s, 2)},
        "baseline_cpu_s": {"python": round(t_b.cpu_self_s, 2), "ffmpeg": round(t_b.cpu_children_s, 2)},
        "foreign_cpu_s": round(t_r.foreign_cpu_s + t_b.foreign_cpu_s, 1),
        "parts_s": parts,
        "parts_share": {k: round(v / render_s, 3) for k, v in parts.items()} if render_s else {},
        "calls": dict(timer.counts),
        "not_timed": missing,  # steps the current render code no longer has under that name
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--clips", type=int, default=DEFAULT_CLIPS, help="clips incl. calibration clip 0")
    ap.add_argument("--workers", type=int, default=2, help="render workers = baseline ffmpeg processes")
    ap.add_argument("--keep", type=Path, help="render into DIR and keep it (default: a temp dir, deleted)")
    ap.add_argument("--json", type=Path, help="where to write the figures (default: benchmarks/results/)")
    ap.add_argument("--seed", type=int, help="world seed (default: the theme's)")
    ap.add_argument(
        "--shots-per-clip", type=int, nargs=2, default=DEFAULT_SHOTS_PER_CLIP, metavar=("LO", "HI")
    )
    ap.add_argument(
        "--durations",
        type=int,
        nargs="+",
        default=DEFAULT_DURATIONS,
        choices=(4, 6, 8),
        help="shot durations the planner may choose from",
    )
    ap.add_argument("--sample-s", type=float, default=0.2, help="RSS sampling interval")
    ap.add_argument(
        "--phases",
        type=int,
        default=0,
        metavar="N",
        help="also time each render step in-process over the first N clips (after the main run)",
    )
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
        print(
            f"  {len(clips)} clips, {len(shots)} shots, {len(lines)} lines, {video_s / 60:.1f} min "
            f"in {t_plan.wall_s:.2f} s",
            flush=True,
        )

        print(f"rendering with {args.workers} workers into {run.root} ...", flush=True)
        t_render, render_parts = timed_render(run, theme, w, clips, args.workers, sampler)
        print(f"  render stage {t_render.wall_s:.1f} s", flush=True)

        print(
            f"baseline: raw ffmpeg encode of the same stills and WAVs, {args.workers} at a time ...",
            flush=True,
        )
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
        json.loads(ln)["duration_s"]
        for ln in run.media_index.read_text().splitlines()
        if json.loads(ln)["kind"] == "clip"
    )
    mem = {k: v.summary() for k, v in sampler.phases.items() if k != "idle"}
    parent_hwm = (status_kb(os.getpid()) or (0, 0))[1]
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
        "bytes": {
            "stills": sizes["shots"],
            "speech": sizes["speech"],
            "clips": sizes["clips"],
            "baseline_clips": base_bytes,
        },
        "goals": {
            "render_wall_s": {
                "goal": GOAL_RENDER_S,
                "value": round(t_render.wall_s, 1),
                "met": t_render.wall_s <= GOAL_RENDER_S,
            },
            "peak_rss_mb": {
                "goal": GOAL_PEAK_RSS_MB,
                "value": render_peak_mb,
                "measure": "render phase, whole process tree resident at once",
                "met": render_peak_mb <= GOAL_PEAK_RSS_MB,
            },
            "ratio": {"goal": GOAL_RATIO, "value": round(ratio, 3), "met": ratio <= GOAL_RATIO},
        },
        "phase_breakdown": phases,
        "machine": machine(),
        "run_dir": str(root) if args.keep else None,
    }

    json_path.parent.mkdir(parents=True, exist_ok=True)
    write_result(json_path, result)
    print_table(result)
    print(f"\nwrote {json_path}")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
