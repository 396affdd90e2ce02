"""Orchestration overhead: the same build through plain function calls and through Prefect
(task runners: processes, threads, Dask), measured in one run, each in a fresh outputs folder.

    python benchmarks/orchestration.py [--clips 840] [--workers 2] [--runners processes,threads,dask]

Reports wall seconds per path, each Prefect path's ratio to the plain build (goal: <= 1.2x), and
whether all paths wrote a byte-identical MANIFEST.json. Writes benchmarks/results/orchestration.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
THEME = ROOT / "assets" / "themes" / "life_album.yaml"


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, Path]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr[-3000:]}")
    return wall, Path(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clips", type=int, default=840)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runners", default="processes,threads,dask")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "orchestration.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mf-orch-") as tmp:
        data = yaml.safe_load(THEME.read_text())
        data["album"]["clips"] = args.clips
        data["questions"] = {"total": round(args.clips * 1217 / 839)}
        theme = Path(tmp) / "theme.yaml"
        theme.write_text(yaml.safe_dump(data, sort_keys=False))
        env = {
            **os.environ,
            "PREFECT_HOME": str(Path(tmp) / "prefect-home"),
            "PREFECT_LOGGING_LEVEL": "WARNING",
        }
        base = [sys.executable, "-m", "mnemoforge.cli", "build", str(theme), "--workers", str(args.workers)]
        results: dict[str, dict] = {}
        wall, rel = run([*base, "--outputs", f"{tmp}/plain", "--orchestrator", "local"], env)
        results["plain"] = {"wall_s": round(wall, 2), "manifest": (rel / "MANIFEST.json").read_bytes()}
        print(f"plain: {wall:.1f} s", flush=True)
        for runner in args.runners.split(","):
            cmd = [
                *base,
                "--outputs",
                f"{tmp}/{runner}",
                "--orchestrator",
                "prefect",
                "--task-runner",
                runner,
            ]
            wall, rel = run(cmd, env)
            results[runner] = {"wall_s": round(wall, 2), "manifest": (rel / "MANIFEST.json").read_bytes()}
            print(
                f"prefect/{runner}: {wall:.1f} s ({wall / results['plain']['wall_s']:.2f}x plain)", flush=True
            )
        stats = json.loads((rel / "dataset_statistics.json").read_text())
    plain = results["plain"]["wall_s"]
    report = {
        "benchmark": "orchestration",
        "scale": {
            "clips": stats["clips"]["count"],
            "shots": stats["clips"]["shots"],
            "minutes": stats["clips"]["minutes"],
            "questions": stats["questions"]["candidates"],
        },
        "workers": args.workers,
        "wall_s": {k: v["wall_s"] for k, v in results.items()},
        "ratio_to_plain": {k: round(v["wall_s"] / plain, 3) for k, v in results.items() if k != "plain"},
        "goal_ratio": 1.2,
        "manifests_identical": len({v["manifest"] for v in results.values()}) == 1,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.json, report)
    print(json.dumps({k: report[k] for k in ("wall_s", "ratio_to_plain", "manifests_identical")}, indent=1))


if __name__ == "__main__":
    main()
