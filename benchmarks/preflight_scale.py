"""``mnemoforge build --preflight`` on an ICM-Bench-scale theme: seconds against the 10 s goal.

    python benchmarks/preflight_scale.py [--clips 840] [--json out.json]

Writes the default theme (``assets/themes/life_album.yaml``) scaled to ``--clips`` clips, shots
of 1-3 per clip, 4 s each (as ``render_scale.py``: 840 clips, about 2,100 shots, 140 minutes) with
a chat paraphraser, a chat gate member and ``text.plan`` pointed at a model, to a temporary
folder; then runs the CLI ``mnemoforge build THEME --preflight --json`` in a fresh process, timed
end to end (interpreter start, imports, theme check, plan, album plan, pricing). Checks that it
wrote nothing beside the theme. Reports the wall time and its ratio to the goal (< 1 passes), and
the process's CPU time (user + system; it is single-threaded, so on a shared machine the CPU time
is what the wall time would be on a quiet one) with the load average it ran under.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 10.0


def scaled_theme(clips: int) -> dict:
    data = yaml.safe_load((ROOT / "assets/themes/life_album.yaml").read_text())
    data["album"].update({"clips": clips, "shots_per_clip": [1, 3], "shot_durations": [4]})
    backend = {"provider": "openai", "model": "gpt-4o-mini", "api_key_env": "OPENAI_API_KEY"}
    data["text"] = {"backend": backend, "paraphrase_questions": True, "plan": True}
    gates = data.setdefault("gates", {})
    gates.setdefault("answerers", {"symbolic": {}, "lexical": {}})["judge"] = {"kind": "chat", **backend}
    gates["panels"] = {"oracle": ["symbolic"], "text_only_clue": ["lexical", "judge"]}
    return data


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=840)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        theme = Path(tmp) / "scale.yaml"
        theme.write_text(yaml.safe_dump(scaled_theme(args.clips), sort_keys=False))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-c", "from mnemoforge.cli import app; app()", "build", str(theme)]
        t0 = time.perf_counter()
        res = subprocess.run(
            [*cmd, "--preflight", "--json"], cwd=tmp, env=env, capture_output=True, text=True
        )
        wall = time.perf_counter() - t0
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = ru.ru_utime + ru.ru_stime
        if res.returncode != 0:
            print(res.stderr, file=sys.stderr)
            return 1
        written = sorted(p.name for p in Path(tmp).iterdir() if p != theme)
    est = json.loads(res.stdout)
    out = {
        "clips": est["plan"]["clips"],
        "shots": est["plan"]["shots"],
        "video_minutes": round(est["plan"]["video_seconds"] / 60, 1),
        "model_calls": est["totals"]["calls"],
        "estimated_cost": est["totals"]["cost"],
        "preflight_inner_s": est["seconds"],
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "goal_s": GOAL_S,
        "ratio_wall": round(wall / GOAL_S, 3),
        "ratio_cpu": round(cpu / GOAL_S, 3),
        "written_beside_theme": written,
    }
    print(json.dumps(out, indent=2))
    dest = args.json or ROOT / "benchmarks/results" / (
        "preflight_scale.json" if args.clips == 840 else f"preflight_scale_c{args.clips}.json"
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    write_result(dest, out)
    return 0 if out["ratio_wall"] < 1 and not written else 1


if __name__ == "__main__":
    raise SystemExit(main())
