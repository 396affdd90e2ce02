"""Question coverage at ICM-Bench scale: plan → episodes → questions → gates, without rendering.

    python benchmarks/icm_coverage.py [--clips 840] [--total 1217] [--seed 7] [--json out.json]

Plans the default theme's World and album with ``--clips`` clips (the shot settings of
``render_scale.py``), generates the icm candidates for ``--total`` items (400 : 500 : 317) and runs
every gate exactly as the build's gates stage does (the default panels read observations and
transcripts, not pixels, so no media are needed). Prints candidates, kept items and reject reasons
per category and template, CPU seconds (``time.process_time``, every thread of the process) and
wall seconds per stage and CPU seconds per gate, and digests of the questions and the verdicts (equal
digests from two checkouts mean the same items and verdicts); writes them as JSON (default
``benchmarks/results/icm_coverage.json``). The ``shortcut_panel`` stage is the part of freeze that
reads the kept items (``validators/shortcut_stats`` with the World and the caption table, so its
``solvers`` are the full panel ``shortcuts.py`` tabulates; ``solvers_above_bound`` lists any above
its chance + 5 points).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path

from mnemoforge.generators.families import get_family
from mnemoforge.generators.icm import album, captions
from mnemoforge.generators.icm import questions as icm
from mnemoforge.generators.icm import world as world_mod
from mnemoforge.generators.questions.common import overgenerate
from mnemoforge.generators.shortfall import after_gates, shortfall, warning_lines
from mnemoforge.schemas.theme import Theme
from mnemoforge.theme_io import DEFAULT_THEME, load_theme
from mnemoforge.validators import gate_runner
from mnemoforge.validators import gates as gates_mod
from mnemoforge.validators.perceivable import Perceivable
from mnemoforge.validators.shortcut_stats import shortcut_figures

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402
from shortcuts import BOUND, REPORTED_ONLY  # noqa: E402

HERE = Path(__file__).resolve().parent
ICM_SPLIT = {"identity_recall": 400, "cross_episode_retrieval": 500, "profile_inference": 317}


def scaled_theme(clips: int, total: int) -> Theme:
    theme = load_theme(DEFAULT_THEME)
    return theme.model_copy(
        update={
            "album": theme.album.model_copy(
                update={"clips": clips, "shots_per_clip": (1, 3), "shot_durations": [4]}
            ),
            "questions": theme.questions.model_copy(update={"total": total}),
        }
    )


class Clock:
    """CPU seconds (``time.process_time``: this process, every thread) and wall seconds per stage."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.wall: dict[str, float] = {}
        self._t = (time.process_time(), time.perf_counter())

    def lap(self, stage: str) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        self.cpu[stage] = round(cpu - self._t[0], 2)
        self.wall[stage] = round(wall - self._t[1], 2)
        self._t = (cpu, wall)


def verdict_digest(verdicts: list) -> str:
    """sha256 of every verdict's (gate, item, keep, reason, scores) in order: equal digests mean
    the same verdicts (compare two checkouts' runs)."""
    rows = [(v.gate, v.item, v.keep, v.reason, sorted(v.scores.items())) for v in verdicts]
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def above_bound(solvers: dict[str, dict]) -> list[str]:
    """The full panel's solvers (``validators/shortcut_panel``, the table ``shortcuts.py`` prints)
    whose accuracy is above their chance + 5 points, but for its reported-only rows."""
    return sorted(
        name
        for name, s in solvers.items()
        if name not in REPORTED_ONLY and "chance" in s and s["accuracy"] > s["chance"] + BOUND
    )


def run(clips: int, total: int, seed: int) -> dict:
    theme = scaled_theme(clips, total)
    t0 = time.perf_counter()
    clock = Clock()
    w = world_mod.plan_world(theme, seed, clips - 1)
    cl, obs = album.plan_album(theme, w)
    clock.lap("plan_and_episodes")
    counts = {k: overgenerate(n) for k, n in theme.questions.counts().items()}
    caps = captions.album_captions(w, cl)  # as the episodes stage writes them, read by the planning
    qs = icm.generate_icm(w, obs, counts, last_order=max(c.index for c in cl), captions=caps)
    clock.lap("questions")
    t_gen = time.perf_counter() - t0
    gctx = gates_mod.GateContext(w, {o.id: o for o in obs})
    gctx.quotas, gctx.keep_split = theme.questions.counts(), True
    res = gate_runner.run_all_gates(
        qs, gctx, theme.gates, family_gates=[gates_mod.CategoryRules(), Perceivable()]
    )
    clock.lap("gates")
    kept = gates_mod.kept_ids(res.verdicts)
    by_id = {q.id: q for q in qs}
    first_reject: dict[str, str] = {}
    for v in res.verdicts:
        if not v.keep and v.item not in first_reject:
            first_reject[v.item] = f"{v.gate}: {v.reason.split(':')[0]}"
    per_tpl: dict[str, Counter] = {}
    for q in qs:
        c = per_tpl.setdefault(q.lineage.template, Counter())
        c["candidates"] += 1
        c["kept" if q.id in kept else first_reject[q.id]] += 1
    fam = get_family(theme.family)
    short = after_gates(theme, fam, qs, res.verdicts, shortfall(theme, fam, qs))  # as the gates stage does
    shortcut_panel = shortcut_figures(  # as freeze writes it: with the World, the full panel too
        [by_id[i] for i in sorted(kept)], obs, world=w, captions=captions.album_captions(w, cl)
    )
    shortcut_panel["solvers_above_bound"] = above_bound(shortcut_panel.get("solvers", {}))
    clock.lap("shortcut_panel")
    return {
        "clips": clips,
        "seed": seed,
        "requested": theme.questions.counts(),
        "candidates": dict(Counter(q.category for q in qs)),
        "kept": dict(Counter(by_id[i].category for i in kept)),
        "kept_total": len(kept),
        "funnel": gates_mod.funnel(qs, res.verdicts, res.gates),
        "templates": {k: dict(v) for k, v in sorted(per_tpl.items())},
        "shortfall_after_gates": warning_lines(short),
        "shortcut_panel": shortcut_panel,
        "generate_s": round(t_gen, 1),
        "total_s": round(time.perf_counter() - t0, 1),
        "cpu_s": {**clock.cpu, "gates_by_gate": res.cpu_s},
        "wall_s": clock.wall,
        "questions_sha256": hashlib.sha256(
            json.dumps([q.model_dump(mode="json") for q in qs], sort_keys=True).encode()
        ).hexdigest(),
        "verdicts_sha256": verdict_digest(res.verdicts),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=840)
    ap.add_argument("--total", type=int, default=sum(ICM_SPLIT.values()))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path, default=HERE / "results" / "icm_coverage.json")
    ap.add_argument(
        "--overgenerate",
        type=float,
        default=None,
        help="candidates planned per requested item (the build's factor, 1.5, when omitted)",
    )
    a = ap.parse_args(argv)
    if a.overgenerate is not None:  # what a larger candidate pool would keep
        from mnemoforge.generators.questions import common

        common.OVERGENERATE = a.overgenerate
    out = run(a.clips, a.total, a.seed)
    for tpl, c in out["templates"].items():
        rest = ", ".join(f"{k} {n}" for k, n in c.items() if k not in ("candidates", "kept"))
        print(f"{tpl:34s} {c['candidates']:5d} cand {c.get('kept', 0):5d} kept  {rest}")
    print(f"requested {out['requested']}")
    print(f"candidates {out['candidates']}")
    print(f"kept {out['kept']} = {out['kept_total']}  ({out['total_s']} s wall)")
    cpu = out["cpu_s"]
    print("CPU s per stage: " + ", ".join(f"{k} {v}" for k, v in cpu.items() if k != "gates_by_gate"))
    print("CPU s per gate: " + ", ".join(f"{k} {v}" for k, v in cpu["gates_by_gate"].items()))
    print(f"verdicts sha256 {out['verdicts_sha256'][:16]}, questions sha256 {out['questions_sha256'][:16]}")
    sp = out["shortcut_panel"]
    above = sp["above_bound"] or "none"
    print(f"shortcut solvers over kept MCQ: chance {sp['chance']}, above chance + 5 pp: {above}")
    print(f"full panel (shortcuts.py's solvers) above chance + 5 pp: {sp['solvers_above_bound'] or 'none'}")
    for line in out["shortfall_after_gates"]:
        print(line)
    a.json.parent.mkdir(parents=True, exist_ok=True)
    write_result(a.json, out, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
