"""CPU seconds of every gate on an existing run, with no verdict cache, and a check that the
verdicts equal the run's own (``gates/verdicts.jsonl``).

    python benchmarks/icm_scale.py --clips 120 --questions 174 --keep /tmp/c120 --no-baseline
    python benchmarks/gates_profile.py /tmp/c120/outputs/runs/<run> [--profile 25] [--json out.json]
    python benchmarks/gates_profile.py --plan 420      # no build: the default theme's album planned
    python benchmarks/gates_profile.py <run> --as-built   # the build's gates stage, cache written

With ``--plan CLIPS`` nothing is rendered: the default theme's World and album are planned at that
many clips and the icm candidates generated in memory (as ``benchmarks/icm_coverage.py`` and
``tests/test_gate_indexes.py`` do), then gated with the theme's panels.

Gates run as ``mnemoforge gate`` runs them (:func:`mnemoforge.pipeline.gate_run`'s context and
gate list) but with ``cache_dir=None``, so every verdict is computed. ``--profile N`` adds the N
costliest functions (cumulative) from ``cProfile``. ``--as-built`` runs the build's gates stage
itself instead (``gate_run``: a fresh verdict cache written, the funnel) on a copy of the run, and
checks that the ``verdicts.jsonl`` it writes equals the run's byte for byte. ``cpu_s`` is the
whole process (with ``--plan``, planning and candidate generation too); ``gates_cpu_s`` and its
total are the gates'. ``--before FILE`` keeps another result of the same run (other code) beside
these figures and says whether the verdicts' digests are equal.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemoforge import pipeline  # noqa: E402
from mnemoforge.run_inputs import load_observations, load_questions, load_verdicts, load_world  # noqa: E402
from mnemoforge.validators import gate_runner, human_review  # noqa: E402
from mnemoforge.validators import gates as gates_mod  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from icm_coverage import verdict_digest  # noqa: E402
from machine import write_result  # noqa: E402


def run_gates(run_dir: Path):  # type: ignore[no-untyped-def]
    """The run's gates, every verdict computed: ``(GateRun, wall seconds)``."""
    ctx = pipeline.BuildContext.of_run(run_dir)
    run = ctx.run
    qs, obs = load_questions(run), load_observations(run)
    gctx = gates_mod.GateContext(load_world(run), {o.id: o for o in obs}, media_root=run.root)
    quotas = getattr(ctx.family, "quotas", None)
    gctx.quotas = quotas(ctx.theme) if quotas else None
    gctx.keep_split = getattr(ctx.family, "keep_split", False)
    t0 = time.perf_counter()
    result = gate_runner.run_all_gates(
        qs,
        gctx,
        ctx.theme.gates,
        cache_dir=None,
        family_gates=[*ctx.family.gates(), *human_review.review_gates(run.root)],
    )
    return result, time.perf_counter() - t0


def as_built(run_dir: Path):  # type: ignore[no-untyped-def]
    """The gates stage as the build runs it (:func:`mnemoforge.pipeline.gate_run`: a fresh verdict
    cache written, verdicts, funnel, review and shortfall lines) on a copy of the run (media linked,
    not copied; the run itself is left as it is): ``(GateRun, wall seconds, verdicts.jsonl bytes)``."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "outputs" / "runs" / run_dir.name
        shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("media", "cache"))
        (copy / "media").symlink_to((run_dir / "media").resolve(), target_is_directory=True)
        ctx = pipeline.BuildContext.of_run(copy)
        t0 = time.perf_counter()
        result = pipeline.gate_run(ctx)
        wall = time.perf_counter() - t0
        return result, wall, ctx.run.verdicts.read_bytes()


def planned_gates(clips: int, questions: int):  # type: ignore[no-untyped-def]
    """The default theme's album planned at ``clips`` clips with ``questions`` items requested, its
    candidates gated: ``(GateRun, wall seconds)``."""
    from mnemoforge.generators.icm.album import plan_album
    from mnemoforge.generators.icm.captions import album_captions
    from mnemoforge.generators.icm.questions import generate_icm
    from mnemoforge.generators.icm.world import plan_world
    from mnemoforge.theme_io import DEFAULT_THEME, load_theme

    theme = load_theme(DEFAULT_THEME)
    theme = theme.model_copy(
        update={
            "album": theme.album.model_copy(update={"clips": clips}),
            "questions": theme.questions.model_copy(update={"total": questions}),
        }
    )
    world = plan_world(theme, theme.seed, clips - 1)
    albums, obs = plan_album(theme, world)
    caps = album_captions(world, albums)  # as the episodes stage writes them
    qs = generate_icm(world, obs, theme.questions.counts(), len(albums) - 1, captions=caps)
    gctx = gates_mod.GateContext(world, {o.id: o for o in obs})
    t0 = time.perf_counter()
    result = gate_runner.run_all_gates(qs, gctx, theme.gates, cache_dir=None)
    return result, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", type=Path, nargs="?", help="a run folder (else --plan)")
    ap.add_argument("--plan", type=int, metavar="CLIPS", help="gate the default theme planned at CLIPS clips")
    ap.add_argument("--questions", type=int, help="with --plan: items requested (default 1217 x CLIPS / 840)")
    ap.add_argument(
        "--as-built",
        action="store_true",
        help="with a run folder: the build's gates stage (gate_run, a fresh verdict cache written) on a copy",
    )
    ap.add_argument(
        "--before",
        type=Path,
        metavar="FILE",
        help="a result this script wrote with other code on the same run: kept beside these figures",
    )
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="list the N costliest functions")
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args(argv)
    if not a.run_dir and not a.plan:
        ap.error("give a run folder or --plan CLIPS")
    prof = cProfile.Profile() if a.profile else None
    cpu0 = time.process_time()
    if prof:
        prof.enable()
    built = None
    if a.plan:
        result, wall = planned_gates(a.plan, a.questions or round(1217 * a.plan / 840))
    elif a.as_built:
        result, wall, built = as_built(a.run_dir)
    else:
        result, wall = run_gates(a.run_dir)
    if prof:
        prof.disable()
    cpu = time.process_time() - cpu0
    stored = []
    if a.run_dir:
        run = pipeline.BuildContext.of_run(a.run_dir).run
        stored = load_verdicts(run) if run.verdicts.exists() else []
    same = [v.model_dump(mode="json") for v in result.verdicts] == [v.model_dump(mode="json") for v in stored]
    if built is not None:  # the file the stage wrote, byte for byte
        same = same and built == pipeline.BuildContext.of_run(a.run_dir).run.verdicts.read_bytes()
    figures = {
        "benchmark": "gates_profile",
        "run_dir": str(a.run_dir) if a.run_dir else None,
        "planned_clips": a.plan,
        "as_built": a.as_built,
        "candidates": len({v.item for v in result.verdicts}),
        "kept": len(gates_mod.kept_ids(result.verdicts)),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "gates_cpu_total_s": round(sum(result.cpu_s.values()), 2),
        "gates_cpu_s": result.cpu_s,
        "verdicts_equal_the_runs": same if stored else None,
        "verdicts_sha256": verdict_digest(result.verdicts),
    }
    if a.before:  # the same run gated by other code (say the commit before a speed-up)
        prev = json.loads(a.before.read_text())
        keys = ("wall_s", "cpu_s", "gates_cpu_total_s", "gates_cpu_s", "verdicts_sha256")
        commit = prev.get("machine", {}).get("git_commit")
        figures["before"] = {k: prev.get(k) for k in keys} | {"commit": commit}
        figures["verdicts_equal_before"] = prev.get("verdicts_sha256") == figures["verdicts_sha256"]
    print(json.dumps({k: v for k, v in figures.items() if k not in ("gates_cpu_s", "before")}, indent=1))
    for name, s in sorted(result.cpu_s.items(), key=lambda kv: -kv[1]):
        print(f"  {s:8.2f}  {name}")
    if prof:
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(a.profile)
        print(out.getvalue())
    if a.json:
        write_result(a.json, figures)
    return 0 if same or not stored else 1


if __name__ == "__main__":
    raise SystemExit(main())
