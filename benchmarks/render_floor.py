"""Render stage vs plain ffmpeg encoding, paired and interleaved: a ratio two runs agree on.

    python benchmarks/render_floor.py [--clips 60] [--of 840] [--repeats 5] [--workers 2]
    python benchmarks/render_floor.py --clips 120 --width 1280 --height 720

Plans ``--of`` clips of the default theme (1-3 planned 4 s shots per clip, as ``icm_scale.py``) at
``--width`` x ``--height`` (default: the theme's album size) and takes ``--clips`` of them, evenly
spaced (clip 0, the calibration clip, always). Then, ``--repeats`` times, it measures a *pair*:

* **render**: :func:`mnemoforge.generators.icm.render_pool.render_run` into a fresh run folder, exactly
  as the build's render stage runs it (``--workers`` spawned render processes, stills, speech,
  clips, the render audit, anchors, the media index and the voice check);
* **baseline**: the same stills and WAVs (from the first render) encoded with
  :func:`mnemoforge.backends.video.encode_baseline`, one ffmpeg per clip, ``--workers`` at a time.

The order alternates (render first in even pairs, baseline first in odd ones: ABBA), so a slow
drift of the machine's load falls on both sides alike, and each pair's ratio compares two
measurements taken a few seconds apart. The result is the **median of the per-pair wall ratios**
with its spread (min, max, interquartile range), and the same for CPU seconds (user + sys of this
process and its children, which holds up better than wall time on a shared machine). Every
render's media index must be identical to the first (``media_identical``), so the speed-ups this
measures change no byte.

Writes ``benchmarks/results/render_floor_c<clips>[_<W>x<H>].json`` with the machine block.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mnemoforge.generators.icm import album, render_pool
from mnemoforge.hashing import sha256_file
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.theme import Theme
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402
from render_scale import plan, run_baseline, scaled_theme  # noqa: E402

HERE = Path(__file__).resolve().parent
GOAL_RATIO = 1.2  # render stage <= 1.2 x raw encode of the same frames and audio (issue 37)


def _cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def pick(clips: list[Clip], n: int) -> list[Clip]:
    """``n`` clips evenly spaced over the planned album, the calibration clip first."""
    if n >= len(clips):
        return clips
    step = len(clips) / n
    return [clips[min(len(clips) - 1, round(i * step))] for i in range(n)]


def spread(values: list[float]) -> dict[str, float]:
    """Median, min, max and interquartile range of ``values``."""
    q = statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else [values[0]] * 3
    return {
        "median": round(statistics.median(values), 3),
        "min": round(min(values), 3),
        "max": round(max(values), 3),
        "iqr": round(q[2] - q[0], 3),
        "n": len(values),
    }


def render_once(
    root: Path, theme: Theme, world: Any, clips: list[Clip], observations: list, workers: int
) -> Path:
    """One render stage into a fresh run folder under ``root``; returns the run root."""
    run = RunLayout(root)
    run.root.mkdir(parents=True, exist_ok=True)
    atomic.write_jsonl(run.observations, observations)  # the render audit reads them, as in a build
    render_pool.render_run(run, theme, world, clips, workers=workers)
    return run.root


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--clips", type=int, default=60, help="clips rendered in each pair")
    ap.add_argument("--of", type=int, help="clips planned (default 840: the ICM-scale album's mix of shots)")
    ap.add_argument("--repeats", type=int, default=5, help="render/baseline pairs, alternating order")
    ap.add_argument("--workers", type=int, default=2, help="render processes = baseline ffmpeg processes")
    ap.add_argument("--width", type=int, help="album width (default: the theme's)")
    ap.add_argument("--height", type=int, help="album height (default: the theme's)")
    ap.add_argument("--seed", type=int, default=None, help="world seed (default: the theme's)")
    ap.add_argument("--keep", type=Path, help="work in DIR and keep it (default: a temp dir, deleted)")
    ap.add_argument("--json", type=Path, help="where to write the figures (default: benchmarks/results/)")
    args = ap.parse_args(argv)
    if args.repeats < 1 or args.clips < 1:
        ap.error("--repeats and --clips must be at least 1")
    of = args.of or max(840, args.clips)
    theme = scaled_theme(of, (1, 3), (4,), args.width, args.height)
    a = theme.album
    size_tag = "" if (args.width, args.height) == (None, None) else f"_{a.width}x{a.height}"
    json_path = args.json or HERE / "results" / f"render_floor_c{args.clips}{size_tag}.json"
    root = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="mf-render-floor-"))
    root.mkdir(parents=True, exist_ok=True)

    t_plan = time.perf_counter()
    world, planned, _ = plan(theme, theme.seed if args.seed is None else args.seed)
    clips = pick(planned, args.clips)
    observations = [o for c in clips for o in album.observations_for_clip(world, c)]
    t_plan = time.perf_counter() - t_plan
    shots = [s for c in clips for s in c.shots]
    print(
        f"{len(clips)} clips of {len(planned)}, {len(shots)} shots, {a.width}x{a.height}, "
        f"{args.repeats} pairs, {args.workers} workers (planned in {t_plan:.1f} s)",
        flush=True,
    )

    first: Path | None = None
    index0 = ""
    identical = True
    pairs: list[dict[str, Any]] = []
    try:
        for i in range(args.repeats):
            got: dict[str, tuple[float, float]] = {}
            order = ("render", "baseline") if i % 2 == 0 else ("baseline", "render")
            if first is None:  # the baseline encodes the first render's stills and WAVs
                order = ("render", "baseline")
            for side in order:
                c0, t0 = _cpu(), time.perf_counter()
                if side == "render":
                    run_root = render_once(
                        root / f"render{i}", theme, world, clips, observations, args.workers
                    )
                else:
                    assert first is not None
                    run_baseline(RunLayout(first), theme, clips, root / f"baseline{i}", args.workers)
                got[side] = (time.perf_counter() - t0, _cpu() - c0)
                if side == "render":
                    index = sha256_file(RunLayout(run_root).media_index)
                    if first is None:
                        first, index0 = run_root, index
                    else:
                        identical &= index == index0
                        shutil.rmtree(run_root, ignore_errors=True)
            shutil.rmtree(root / f"baseline{i}", ignore_errors=True)
            (rw, rc), (bw, bc) = got["render"], got["baseline"]
            pair = {
                "order": "/".join(order),
                "render_wall_s": round(rw, 2),
                "baseline_wall_s": round(bw, 2),
                "ratio_wall": round(rw / bw, 3),
                "render_cpu_s": round(rc, 2),
                "baseline_cpu_s": round(bc, 2),
                "ratio_cpu": round(rc / bc, 3) if bc else None,
                "loadavg": [round(x, 2) for x in os.getloadavg()],
            }
            pairs.append(pair)
            print(
                f"  pair {i + 1}: render {rw:.1f} s / baseline {bw:.1f} s = {rw / bw:.2f} "
                f"(cpu {pair['ratio_cpu']}), load {pair['loadavg'][0]}",
                flush=True,
            )
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)

    wall = spread([p["ratio_wall"] for p in pairs])
    cpu = spread([p["ratio_cpu"] for p in pairs if p["ratio_cpu"]])
    out: dict[str, Any] = {
        "benchmark": "render_floor",
        "command": "python benchmarks/render_floor.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "scale": {
            "clips": len(clips),
            "planned_clips": len(planned),
            "shots": len(shots),
            "lines": sum(len(s.dialogue) for s in shots),
            "minutes": round(sum(s.duration_s for s in shots) / 60, 2),
            "width": a.width,
            "height": a.height,
            "fps": a.fps,
        },
        "workers": args.workers,
        "pairs": pairs,
        "ratio_wall": wall,
        "ratio_cpu": cpu,
        "media_identical": identical,
        "goal": {"ratio": GOAL_RATIO, "median_wall_met": wall["median"] <= GOAL_RATIO},
        "method": "paired, interleaved (ABBA): each pair renders into a fresh run folder and encodes the "
        "first render's stills and WAVs with encode_baseline, a few seconds apart; ratios are per pair",
    }
    write_result(json_path, out)
    print(
        f"render / baseline: wall median {wall['median']} (min {wall['min']}, max {wall['max']}, "
        f"IQR {wall['iqr']}); cpu median {cpu.get('median')} (IQR {cpu.get('iqr')}); "
        f"media identical: {identical}"
    )
    print(f"wrote {json_path}")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
