"""What the camera moves cost: the same clips encoded with their planned moves, all static, and raw.

    python benchmarks/camera_cost.py [--clips 12]

Plans ``--clips`` clips of the default theme (as ``render_scale.py`` does), renders them in this
process, then encodes every clip's shots again three ways and reports ffmpeg CPU seconds (children's
rusage, so other load on the machine barely moves it): with the planned camera moves (what the
render stage does), with every shot static, and the stills-only baseline (``encode_baseline``).
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

from mnemoforge.backends.video import ShotSpec, encode_clip
from mnemoforge.generators.icm import render
from mnemoforge.store.layout import RunLayout

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_scale import plan, run_baseline, scaled_theme  # noqa: E402


def _children_cpu() -> float:
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return c.ru_utime + c.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", type=int, default=12)
    args = ap.parse_args(argv)
    theme = scaled_theme(args.clips, (1, 3), (4,))
    w, clips, _ = plan(theme, theme.seed)
    root = Path(tempfile.mkdtemp(prefix="mf-camera-cost-"))
    try:
        run = RunLayout(root / "run")
        st = render.RenderState.create(theme, w, run)
        jobs: list[tuple[list[ShotSpec], tuple, dict]] = []
        real = render.encode_clip

        def capture(specs, out, *a, **k):  # type: ignore[no-untyped-def]
            jobs.append((list(specs), a, k))
            return real(specs, out, *a, **k)

        render.encode_clip = capture
        try:
            for c in clips:
                render.render_clip(st, c)
        finally:
            render.encode_clip = real
        out = root / "again.mp4"
        cpu: dict[str, float] = {}
        for name, tf in (
            ("planned_moves", lambda s: s),
            ("all_static", lambda s: dataclasses.replace(s, camera="static")),
        ):
            t0 = _children_cpu()
            for specs, a, k in jobs:
                encode_clip([tf(s) for s in specs], out, *a, **k)
            cpu[name] = round(_children_cpu() - t0, 2)
        t0 = _children_cpu()
        run_baseline(run, theme, clips, root / "baseline", workers=1)
        cpu["stills_baseline"] = round(_children_cpu() - t0, 2)
        cameras = Counter(s.camera for specs, _, _ in jobs for s in specs)
        print(json.dumps({"clips": len(clips), "cameras": dict(cameras), "ffmpeg_cpu_s": cpu}, indent=1))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
