"""What the camera moves cost: the same clips encoded with their planned moves, all static, and raw.

    python benchmarks/camera_cost.py [--clips 12] [--of 840] [--shots-per-clip 1 3]
    python benchmarks/camera_cost.py --clips 40 --of 840 --width 1280 --height 720 --json FILE

Plans ``--clips`` clips of the default theme (as ``render_scale.py`` does, but 1-3 planned shots
per clip by default, so medium and close shots pan and zoom too; with ``--of N``, ``--clips``
evenly spaced clips of an N-clip album, so the sample has the camera mix of that album), renders
them in this process, then encodes every clip's shots again five ways and reports ffmpeg CPU
seconds (children's rusage): with the planned camera moves (what the render stage does), with the
zooms made static, with the pans made static, with every shot static, and the stills-only
baseline (``encode_baseline``). The encodes of a clip run back to back, in an order that rotates
from clip to clip, so load that other processes put on the machine (which inflates CPU seconds on
shared cores) falls on all alike. ``--width``/``--height`` set the album size (default: the
theme's); ``--json FILE`` keeps the figures with the machine block (``benchmarks/machine.py``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from mnemoforge.backends.video import ShotSpec, encode_baseline, encode_clip
from mnemoforge.generators.icm import render
from mnemoforge.store.layout import RunLayout

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402
from render_scale import baseline_inputs, plan, scaled_theme  # noqa: E402


def _children_cpu() -> float:
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return c.ru_utime + c.ru_stime


def _still(specs: list[ShotSpec], move: str) -> list[ShotSpec]:
    """``specs`` with the shots whose camera starts with ``move`` made static."""
    return [dataclasses.replace(x, camera="static") if x.camera.startswith(move) else x for x in specs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", type=int, default=12)
    ap.add_argument("--of", type=int, help="sample --clips clips from an album of this many")
    ap.add_argument("--shots-per-clip", type=int, nargs=2, default=(1, 3), metavar=("LO", "HI"))
    ap.add_argument("--width", type=int, help="album width (default: the theme's)")
    ap.add_argument("--height", type=int, help="album height (default: the theme's)")
    ap.add_argument("--json", type=Path, help="also write the figures here, with the machine block")
    args = ap.parse_args(argv)
    planned = max(args.clips, args.of or 0)
    theme = scaled_theme(planned, tuple(args.shots_per_clip), (4,), args.width, args.height)
    w, clips, _ = plan(theme, theme.seed)
    clips = [clips[i * len(clips) // args.clips] for i in range(args.clips)]
    root = Path(tempfile.mkdtemp(prefix="mf-camera-cost-"))
    try:
        run = RunLayout(root / "run")
        st = render.RenderState.create(theme, w, run)
        jobs: list[tuple[list[ShotSpec], tuple, dict]] = []
        clip_ids: list[str] = []
        real = render.encode_clip

        def capture(specs, out, *a, **k):  # type: ignore[no-untyped-def]
            jobs.append((list(specs), a, k))
            clip_ids.append(Path(out).stem)
            return real(specs, out, *a, **k)

        render.encode_clip = capture
        try:
            for c in clips:
                render.render_clip(st, c)
        finally:
            render.encode_clip = real
        out = root / "again.mp4"
        a = theme.album
        by_clip = {c.id: c for c in clips}
        variants = {
            "planned_moves": lambda specs, ar, kw, c: encode_clip(specs, out, *ar, **kw),
            "zooms_static": lambda specs, ar, kw, c: encode_clip(_still(specs, "zoom"), out, *ar, **kw),
            "pans_static": lambda specs, ar, kw, c: encode_clip(_still(specs, "pan"), out, *ar, **kw),
            "all_static": lambda specs, ar, kw, c: encode_clip(
                [dataclasses.replace(x, camera="static") for x in specs], out, *ar, **kw
            ),
            "stills_baseline": lambda specs, ar, kw, c: encode_baseline(
                *baseline_inputs(run, c)[:2], out, durations=baseline_inputs(run, c)[2],
                width=a.width, height=a.height, fps=a.fps,
            ),
        }  # fmt: skip
        names = list(variants)
        cpu = dict.fromkeys(names, 0.0)
        for i, (specs, ar, kw) in enumerate(jobs):
            clip = by_clip[clip_ids[i]]
            for name in names[i % len(names) :] + names[: i % len(names)]:
                t0 = _children_cpu()
                variants[name](specs, ar, kw, clip)
                cpu[name] += _children_cpu() - t0
        cpu = {k: round(v, 2) for k, v in cpu.items()}
        cpu_ratio = {k: round(cpu[k] / cpu["stills_baseline"], 3) for k in names[:-1]}
        cameras = Counter(s.camera for specs, _, _ in jobs for s in specs)
        result = {
            "benchmark": "camera_cost",
            "command": "python benchmarks/camera_cost.py " + " ".join(sys.argv[1:] if argv is None else argv),
            "clips": len(clips),
            "size": f"{a.width}x{a.height}",
            "cameras": dict(cameras),
            "ffmpeg_cpu_s": cpu,
            "over_baseline": cpu_ratio,
        }
        print(json.dumps(result, indent=1))
        if args.json:
            write_result(args.json, result)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
