"""Where the render stage's CPU goes beyond the raw encode: a per-component CPU profile.

    python benchmarks/render_profile.py [--clips 60] [--of 840] [--shots-per-clip 1 3] [--cprofile FILE]

Plans ``--of`` clips of the default theme at its resolution (1-3 planned 4 s shots per clip, as
``icm_scale.py``; ``--of`` defaults to ``--clips``) and renders ``--clips`` of them, evenly spaced
(clip 0, the calibration clip, always), in this process exactly as a render worker does
(``render.render_clip``), then runs the render audit and the voice check as the stage does. Right
after each clip, the same stills and WAVs are encoded with ``encode_baseline`` (the raw-encode
floor of ``icm_scale.py``), so load from other processes falls on both alike. Reports CPU seconds
(user + sys, ``resource.getrusage``: this process for Python work, its children for ffmpeg) per part:
drawing, PNG encode, speech synthesis, WAV I/O, the clip encode (ffmpeg, per camera move), probes,
hashing, the audit and the voice check; and ``(render - baseline) / baseline``, the excess the
goal ``render <= 1.5 x baseline`` bounds at 0.5. Wall time is shown for reference only.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import resource
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemoforge.generators.icm import album, render
from mnemoforge.generators.icm.render_audit import audit_path
from mnemoforge.schemas.episodes import Clip
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402
from render_scale import plan, run_baseline, scaled_theme  # noqa: E402


def _cpu() -> tuple[float, float]:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime


class Meter:
    """Exclusive CPU per named component (nested calls are charged to the innermost one)."""

    def __init__(self) -> None:
        self.self_s: dict[str, float] = defaultdict(float)
        self.child_s: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._stack: list[list[Any]] = []
        self._undo: list[Callable[[], None]] = []
        self.pause = False

    def wrap(self, owner: Any, attr: str, name: str) -> bool:
        fn = getattr(owner, attr, None)
        if fn is None:
            return False
        meter = self

        def timed(*a: Any, **k: Any) -> Any:
            if meter.pause:
                return fn(*a, **k)
            meter._stack.append([name, *_cpu(), 0.0, 0.0])
            try:
                return fn(*a, **k)
            finally:
                nm, s0, c0, inner_s, inner_c = meter._stack.pop()
                s1, c1 = _cpu()
                ds, dc = s1 - s0, c1 - c0
                meter.self_s[nm] += ds - inner_s
                meter.child_s[nm] += dc - inner_c
                meter.calls[nm] += 1
                if meter._stack:
                    meter._stack[-1][3] += ds
                    meter._stack[-1][4] += dc

        setattr(owner, attr, timed)
        self._undo.append(lambda: setattr(owner, attr, fn))
        return True

    def restore(self) -> None:
        for u in reversed(self._undo):
            u()
        self._undo.clear()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", type=int, default=60)
    ap.add_argument("--of", type=int, help="plan this many clips and render --clips of them (a sample)")
    ap.add_argument("--shots-per-clip", type=int, nargs=2, default=(1, 3), metavar=("LO", "HI"))
    ap.add_argument("--cprofile", type=Path, help="also write a cProfile of the render to FILE")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--keep", type=Path, help="render into DIR and keep it")
    args = ap.parse_args(argv)
    from mnemoforge.backends.image import procedural
    from mnemoforge.backends.speech import espeak, protocol
    from mnemoforge.backends.video import ffmpeg as ffmpeg_mod
    from mnemoforge.generators.icm import render_voice

    planned = max(args.of or args.clips, args.clips)
    theme = scaled_theme(planned, tuple(args.shots_per_clip), (4,))
    w, clips, _ = plan(theme, theme.seed)
    step = len(clips) / args.clips
    clips = [clips[int(i * step)] for i in range(args.clips)]
    root = args.keep or Path(tempfile.mkdtemp(prefix="mf-render-profile-"))
    run = RunLayout(root / "run")
    atomic.write_jsonl(run.observations, [o for c in clips for o in album.observations_for_clip(w, c)])
    m = Meter()
    targets = [
        (render, "scene_request", "scene request"),
        (procedural.ProceduralImageBackend, "scene_with_layout", "still: draw"),
        (procedural.ProceduralImageBackend, "scene", "still: draw"),
        (render, "still_png_bytes", "still: png encode"),
        (render, "rgb_png_bytes", "still: png encode"),
        (render, "png_bytes", "still: png encode"),  # the writer before png_fast (anchors now)
        (espeak.EspeakBackend, "render", "speech: synth"),
        (espeak, "write_wav_atomic", "speech: wav write"),
        (render, "wav_duration", "speech: wav length"),
        (render, "encode_clip", "ffmpeg: clip encode"),
        (ffmpeg_mod, "probe", "ffmpeg: probe"),
        (ffmpeg_mod, "mp4_info", "mp4 header read-back"),
        (render, "sha256_file", "sha256"),
        (render, "render_audit", "render audit"),
        (render, "render_anchors", "anchors"),
        (render, "voice_check", "voice check"),
        (render_voice, "voice_distinguishability", "voice check: features+model"),
        (protocol, "read_wav", "wav read (other)"),
    ]
    missing = [f"{getattr(o, '__name__', o)}.{a}" for o, a, n in targets if not m.wrap(o, a, n)]
    prof = cProfile.Profile() if args.cprofile else None
    base = [0.0, 0.0]  # CPU and wall of the baseline encodes, run between the clips

    def baseline(clip: Clip) -> None:
        if prof:
            prof.disable()
        m.pause = True
        b0, t = sum(_cpu()), time.perf_counter()
        run_baseline(run, theme, [clip], root / "baseline", workers=1)
        base[0] += sum(_cpu()) - b0
        base[1] += time.perf_counter() - t
        m.pause = False
        if prof:
            prof.enable()

    try:
        s0, c0, t0 = *_cpu(), time.perf_counter()
        st = render.RenderState.create(theme, w, run)
        if prof:
            prof.enable()
        rows = []
        for c in clips:
            rows += render.render_clip(st, c)
            baseline(c)
        render.finish_render(run, theme, w, clips, rows, workers=1)
        if prof:
            prof.disable()
        s1, c1, t1 = *_cpu(), time.perf_counter()
    finally:
        m.restore()
    if prof:
        prof.dump_stats(str(args.cprofile))
    base_cpu = base[0]
    render_cpu = (s1 - s0) + (c1 - c0) - base_cpu
    parts = {k: round(m.self_s[k] + m.child_s[k], 2) for k in m.self_s}
    other = (s1 - s0) + (c1 - c0) - base_cpu - sum(m.self_s.values()) - sum(m.child_s.values())
    parts["other"] = round(other, 2)
    vc = json.loads(run.voice_check.read_text())
    shots = [s for c in clips for s in c.shots]
    cams: dict[str, int] = defaultdict(int)
    for s in shots:
        cams[s.camera] += 1
    out = {
        "command": "python benchmarks/render_profile.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "clips": len(clips),
        "planned_clips": planned,
        "shots": len(shots),
        "lines": sum(len(s.dialogue) for s in shots),
        "cameras": dict(sorted(cams.items())),
        "render_cpu_s": round(render_cpu, 2),
        "baseline_cpu_s": round(base_cpu, 2),
        "cpu_ratio": round(render_cpu / base_cpu, 3),
        "excess_over_baseline": {
            k: round(v / base_cpu, 3) for k, v in sorted(parts.items(), key=lambda kv: -kv[1])
        },
        "parts_cpu_s": dict(sorted(parts.items(), key=lambda kv: -kv[1])),
        "calls": dict(m.calls),
        "wall_s": {"render": round(t1 - t0 - base[1], 1), "baseline": round(base[1], 1)},
        "render_audit_mismatches": json.loads(audit_path(run.media).read_text())["mismatches"],
        "voice_check": {k: vc.get(k) for k in ("accuracy", "n_test", "n_lines")},
        "not_wrapped": missing,
    }
    print(json.dumps(out, indent=1))
    if args.json:
        write_result(args.json, out)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
