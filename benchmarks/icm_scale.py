"""Whole-build benchmark at ICM-Bench scale: plan -> episodes -> render -> questions -> gates -> freeze.

    python benchmarks/icm_scale.py [--clips 840] [--questions 1217] [--workers 2] [--keep DIR]
    python benchmarks/icm_scale.py --clips 60          # quick mode for iteration
    python benchmarks/icm_scale.py --clips 120 --width 1280 --height 720   # ICM-Bench's 720p

Writes a copy of the default theme with ``--clips`` clips (calibration clip included), 1-3 planned
shots of 4 s per clip and ``questions.total = --questions``, builds it with
:func:`mnemoforge.pipeline.build` at the theme's default resolution exactly as ``mnemoforge build``
does, and measures:

* wall and CPU time of every stage (from the build's progress callback) and of the whole build;
* peak resident memory of the whole process tree (this process, render workers, ffmpeg), sampled
  from ``/proc`` every ``--sample-s`` seconds, overall and per stage;
* the raw-encode floor: after the build, the very stills and WAVs the render wrote are encoded with
  :func:`mnemoforge.backends.video.encode_baseline` (one ffmpeg per clip, ``--workers`` at a time);
  ``render / baseline`` is the render stage's cost over plain encoding of the same frames;
* what the release kept: questions per category, render-audit mismatches, voice-check accuracy.

Album size: 840 clips give 2,846 shots and 254.0 min (2,333 lines of speech), and keep 1,217
questions (400 / 500 / 317). ICM-Bench's 141 min is out of reach at 839 clips with the current
album planner: it adds a shot for every line a clip must say (the place's name where no sign shows
it, choices, promises, plans, habits, relations) and sizes each shot to its speech (a line
estimated over 4 s takes a 6 or 8 s shot; ``generators/icm/album.py``), and the estimated speech
alone is about 160 min. The shortest album any setting gives, one planned shot per clip
(``--shots-per-clip 1 1``: 2,279 shots, 222.9 min), keeps only 1,006 of its 1,829 candidates
(``text_only_clue`` and ``option_only`` reject more; ``icm_coverage.py`` with that setting), under
ICM-Bench's 1,217. Longer durations only add time ((1, 3) x 4/6/8 s: 2,663 shots, 306.6 min).

Figures go to ``benchmarks/results/icm_scale.json`` (``icm_scale_c<N>.json`` for other sizes, a
``_s<lo>-<hi>_d<durations>`` suffix for other shot settings).
The machine may be shared: ``contention`` records the CPU other processes used meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from mnemoforge import pipeline
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.schemas.episodes import Clip
from mnemoforge.store.layout import RunLayout
from mnemoforge.theme_io import DEFAULT_THEME, load_theme
from mnemoforge.validators.answerers.embed_cache import cache_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402
from procmem import MemorySampler, Timed, timed  # noqa: E402
from render_scale import run_baseline  # noqa: E402
from render_scale_report import machine  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
ICM_CLIPS, ICM_MINUTES, ICM_QUESTIONS = 839, 141, 1217
DEFAULT_CLIPS = 840
GOAL_WALL_S = 600.0  # whole build <= 10 min on 2 cores
GOAL_PEAK_RSS_MB = 2048.0  # process tree <= 2 GB
GOAL_RATIO = 1.2  # render stage / raw ffmpeg encode of the same stills and WAVs (issue 37; was 1.5)
GOAL_GATES_S = 60.0  # the gates stage at ICM scale on 2 cores (issue 37)


def write_theme(
    dest: Path,
    clips: int,
    questions: int,
    shots: tuple[int, int],
    durations: list[int],
    size: tuple[int | None, int | None] = (None, None),
) -> Path:
    """The default theme with the album and question counts scaled (and the album's frame size, where
    ``size`` gives one); validated before the build."""
    doc = yaml.safe_load(DEFAULT_THEME.read_text())
    doc["album"].update({"clips": clips, "shots_per_clip": list(shots), "shot_durations": durations})
    doc["album"].update({k: v for k, v in zip(("width", "height"), size, strict=True) if v})
    doc["questions"]["total"] = questions
    path = dest / "icm_scale.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    load_theme(path)
    return path


class StageClock:
    """Progress callback: wall/CPU per stage, and the sampler's phase follows the stage."""

    def __init__(self, sampler: MemorySampler) -> None:
        self.sampler = sampler
        self.stages: dict[str, Timed] = {}
        self.ran: dict[str, str] = {}
        self._open: tuple[str, Any] | None = None

    def __call__(self, stage: str, msg: str) -> None:
        if msg == "start":
            self._close()
            cm = timed(self.sampler, stage)
            self.stages[stage] = cm.__enter__()
            self._open = (stage, cm)
            print(f"  {stage} ...", flush=True)
        elif msg in ("ran", "cached"):
            self.ran[stage] = msg
            if self._open and self._open[0] == stage:
                self._close()
                print(f"  {stage} {msg} in {self.stages[stage].wall_s:.1f} s", flush=True)

    def _close(self) -> None:
        if self._open:
            self._open[1].__exit__(None, None, None)
            self._open = None


def release_figures(release: Path) -> dict[str, Any]:
    """Kept questions per category, render audit and voice check from the frozen release."""
    stats = next(iter(release.rglob("dataset_statistics.json")), None)
    if stats is None:
        return {}
    s = json.loads(stats.read_text())
    return {k: s[k] for k in ("questions", "render_audit", "shortfall") if k in s}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--clips", type=int, default=DEFAULT_CLIPS, help="clips incl. calibration clip 0")
    ap.add_argument("--questions", type=int, default=ICM_QUESTIONS, help="questions.total of the theme")
    ap.add_argument("--workers", type=int, default=2, help="build workers = baseline ffmpeg processes")
    ap.add_argument("--shots-per-clip", type=int, nargs=2, default=(1, 3), metavar=("LO", "HI"))
    ap.add_argument("--durations", type=int, nargs="+", default=[4], choices=(4, 6, 8))
    ap.add_argument("--seed", type=int, help="world seed (default: the theme's)")
    ap.add_argument("--width", type=int, help="album width, e.g. 1280 (default: the theme's, 640)")
    ap.add_argument("--height", type=int, help="album height, e.g. 720 (default: the theme's, 360)")
    ap.add_argument("--keep", type=Path, help="build into DIR and keep it (default: a temp dir, deleted)")
    ap.add_argument("--json", type=Path, help="where to write the figures (default: benchmarks/results/)")
    ap.add_argument("--sample-s", type=float, default=1.0, help="RSS sampling interval")
    ap.add_argument("--no-baseline", action="store_true", help="skip the raw-encode comparison")
    args = ap.parse_args(argv)
    if args.clips < 2:
        ap.error("--clips must be at least 2 (clip 0 is the calibration clip)")
    lo, hi = args.shots_per_clip
    durs = "-".join(map(str, args.durations))
    tag = "" if (lo, hi, args.durations) == (1, 3, [4]) else f"_s{lo}-{hi}_d{durs}"
    if args.width or args.height:
        tag += f"_{args.width or 'w'}x{args.height or 'h'}"
    json_path = args.json or RESULTS / (
        f"icm_scale{tag}.json" if args.clips == DEFAULT_CLIPS else f"icm_scale_c{args.clips}{tag}.json"
    )
    if args.keep:
        root = args.keep.resolve()
        if root.exists() and any(root.iterdir()):
            ap.error(f"--keep {root}: folder exists and is not empty (finished stages would be reused)")
        root.mkdir(parents=True, exist_ok=True)
    else:
        root = Path(tempfile.mkdtemp(prefix="mf-icm-scale-"))
    theme_path = write_theme(
        root,
        args.clips,
        args.questions,
        tuple(args.shots_per_clip),
        list(args.durations),
        (args.width, args.height),
    )
    theme = load_theme(theme_path)

    load_at_start = [round(x, 2) for x in os.getloadavg()]
    embed_cache = cache_path()  # MiniLM vectors of earlier builds: a warm cache skips most encoding
    embed_cache_bytes = embed_cache.stat().st_size if embed_cache.is_file() else 0
    sampler = MemorySampler(args.sample_s)
    sampler.start()
    clock = StageClock(sampler)
    try:
        print(f"building {args.clips} clips, {args.questions} questions into {root} ...", flush=True)
        t0 = time.perf_counter()
        with timed(None, "") as t_build:
            result = pipeline.build(
                theme_path, seed=args.seed, outputs=root / "outputs", workers=args.workers, progress=clock
            )
            clock._close()
        build_wall = time.perf_counter() - t0
        print(f"  build {build_wall:.1f} s -> {result.release_dir}", flush=True)
        run = RunLayout(result.run_dir)
        clips = [Clip.model_validate(r) for r in read_jsonl(run.clips)]
        t_base = None
        if not args.no_baseline:
            print(f"baseline: raw ffmpeg encode of the same stills and WAVs, {args.workers} at a time ...")
            with timed(sampler, "baseline") as t_base:
                run_baseline(run, theme, clips, root / "baseline", args.workers)
            print(f"  baseline {t_base.wall_s:.1f} s", flush=True)
    finally:
        sampler.stop()

    shots = [s for c in clips for s in c.shots]
    minutes = sum(s.duration_s for s in shots) / 60
    mem = {k: v.summary() for k, v in sampler.phases.items() if k not in ("idle", "baseline")}
    tree_peak = max((m["tree_peak_mb"] for m in mem.values()), default=0.0)
    render_t = clock.stages.get("render")
    ratio = render_t.wall_s / t_base.wall_s if render_t and t_base and t_base.wall_s else None
    cpu_ratio = None
    sampler_cpu = sampler.cpu_by_phase  # the RSS sampler runs in this process: not the build's cost
    if render_t and t_base:
        base_cpu = t_base.cpu_self_s + t_base.cpu_children_s - sampler_cpu.get("baseline", 0.0)
        render_cpu = render_t.cpu_self_s + render_t.cpu_children_s - sampler_cpu.get("render", 0.0)
        cpu_ratio = render_cpu / base_cpu if base_cpu else None
    figures = release_figures(result.release_dir)
    out: dict[str, Any] = {
        "benchmark": "icm_scale",
        "command": "python benchmarks/icm_scale.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "scale": {
            "clips": len(clips),
            "shots": len(shots),
            "dialogue_lines": sum(len(s.dialogue) for s in shots),
            "minutes": round(minutes, 2),
            "width": theme.album.width,
            "height": theme.album.height,
            "fps": theme.album.fps,
            "shots_per_clip": list(args.shots_per_clip),
            "shot_durations": list(args.durations),
            "questions_requested": args.questions,
            "icm_bench_reference": {"clips": ICM_CLIPS, "minutes": ICM_MINUTES, "questions": ICM_QUESTIONS},
        },
        "workers": args.workers,
        "wall_s": {
            "build": round(build_wall, 2),
            "stages": {k: round(v.wall_s, 2) for k, v in clock.stages.items()},
            "baseline_encode": round(t_base.wall_s, 2) if t_base else None,
        },
        "cpu_s": {
            "build": round(t_build.cpu_self_s + t_build.cpu_children_s, 1),
            "stages": {k: round(v.cpu_self_s + v.cpu_children_s, 1) for k, v in clock.stages.items()},
            "baseline": round(t_base.cpu_self_s + t_base.cpu_children_s, 1) if t_base else None,
            "rss_sampler_by_stage": {k: round(v, 2) for k, v in sampler_cpu.items()},
            "note": "stage and baseline CPU include the RSS sampler thread (rss_sampler_by_stage); "
            "cpu_ratio_render_to_baseline subtracts it",
        },
        "ratio_render_to_baseline": round(ratio, 3) if ratio else None,
        "cpu_ratio_render_to_baseline": round(cpu_ratio, 3) if cpu_ratio else None,
        "memory": {
            "method": f"/proc VmRSS summed over this process and all descendants every {args.sample_s} s "
            "(tree peak), VmHWM per process; per build stage",
            "tree_peak_mb": tree_peak,
            "stages": mem,
        },
        "contention": {
            "build_foreign_cpu_s": round(t_build.foreign_cpu_s, 1),
            "render_foreign_cpu_s": round(render_t.foreign_cpu_s, 1) if render_t else None,
            "baseline_foreign_cpu_s": round(t_base.foreign_cpu_s, 1) if t_base else None,
            "loadavg_at_start": load_at_start,
        },
        "minilm_cache_at_start": {
            "path": str(embed_cache),
            "bytes": embed_cache_bytes,
            "note": "the questions stage encodes only texts this cache lacks: 0 bytes is a cold first build",
        },
        "release": figures,
        "goals": {
            "build_wall_s": {
                "goal": GOAL_WALL_S,
                "value": round(build_wall, 1),
                "met": build_wall <= GOAL_WALL_S,
            },
            "peak_rss_mb": {
                "goal": GOAL_PEAK_RSS_MB,
                "value": tree_peak,
                "met": tree_peak <= GOAL_PEAK_RSS_MB,
            },
            "ratio": {
                "goal": GOAL_RATIO,
                "value": round(ratio, 3) if ratio else None,
                "met": bool(ratio and ratio <= GOAL_RATIO),
            },
            "cpu_ratio": {
                "goal": GOAL_RATIO,
                "value": round(cpu_ratio, 3) if cpu_ratio else None,
                "met": bool(cpu_ratio and cpu_ratio <= GOAL_RATIO),
            },
            "gates_wall_s": {
                "goal": GOAL_GATES_S,
                "value": round(clock.stages["gates"].wall_s, 1) if "gates" in clock.stages else None,
                "met": "gates" in clock.stages and clock.stages["gates"].wall_s <= GOAL_GATES_S,
            },
        },
        "machine": machine(),
        "run_dir": str(root) if args.keep else None,
    }
    json_path.parent.mkdir(parents=True, exist_ok=True)
    write_result(json_path, out)
    shown = ("scale", "wall_s", "ratio_render_to_baseline", "cpu_ratio_render_to_baseline", "goals")
    shown += ("release",)
    print(json.dumps({k: out[k] for k in shown}, indent=1))
    print(f"peak RSS (tree) {tree_peak} MB; other load {out['contention']}")
    print(f"wrote {json_path}")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
