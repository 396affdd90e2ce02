"""Concurrent model calls: ``evaluate`` and a cold ``gate`` run against a fixed-latency model.

A loopback OpenAI-compatible server answers every request after ``--latency-ms`` (default 200).
For the three shipped themes (icm ``life_album``, smm ``office_launch``, memeye ``visual_diary``,
built here offline, or given with ``--release``) every method runs with ``--workers`` (default 8)
concurrent calls; then the default theme's run is gated cold with a model panel (a chat answerer
on every panel gate). For each: wall time, calls, and the ratio

    wall / (calls × latency / workers)        goal: <= 1.3

plus calls per item per method. Writes ``benchmarks/results/evaluate_throughput.json``.

    python benchmarks/evaluate_throughput.py [--latency-ms 200] [--workers 8] [--limit N] [--skip-gate]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemoforge.evaluation.runner import evaluate  # noqa: E402
from mnemoforge.pipeline import build, gate_run  # noqa: E402
from mnemoforge.validators import gate_runner  # noqa: E402
from tests.llm_servers import LLMServer  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402
from model_gates import cold_gated_run  # noqa: E402

THEMES = {"icm": "life_album.yaml", "smm": "office_launch.yaml", "memeye": "visual_diary.yaml"}
METHODS = {
    "icm": [
        "question_only",
        "oracle_evidence",
        "full_context_text",
        "caption_memory",
        "asr_only",
        "retrieval",
    ],
    "smm": ["question_only", "oracle_evidence", "full_context_text", "retrieval", "concentrated"],
    "memeye": ["question_only", "oracle_evidence", "full_context_text", "retrieval", "retrieval_multimodal"],
}
PANEL_GATES = ["option_only", "text_only_clue", "minimal_caption", "oracle", "modality_necessity"]


def model_spec(folder: Path, srv: LLMServer, workers: int) -> Path:
    path = folder / "bench_model.yaml"
    block = {
        "provider": "openai",
        "model": "bench",
        "base_url": srv.base_url,
        "api_key_env": None,
        "max_concurrency": workers,
        "max_retries": 0,
        "timeout": 60,
    }
    path.write_text(yaml.safe_dump({"name": "bench", "text": {"backend": block}}))
    return path


def bench_evaluate(
    release: Path, family: str, tmp: Path, srv: LLMServer, args: argparse.Namespace
) -> list[dict]:
    spec = model_spec(tmp, srv, args.workers)
    rows = []
    for method in METHODS[family]:
        n0 = len(srv.requests)
        t0 = time.perf_counter()
        res = evaluate(
            release,
            method,
            spec,
            tmp / "eval" / family / method.replace(":", "_"),
            limit=args.limit,
            workers=args.workers,
        )
        wall = time.perf_counter() - t0
        calls = len(srv.requests) - n0
        ideal = calls * args.latency_ms / 1000 / args.workers
        rows.append(
            {
                "family": family,
                "method": method,
                "items": res["summary"]["items"],
                "calls": calls,
                "calls_per_item": round(calls / max(1, res["summary"]["items"]), 3),
                "wall_s": round(wall, 3),
                "ideal_s": round(ideal, 3),
                "ratio": round(wall / ideal, 3) if ideal else None,
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return rows


def bench_gate(tmp: Path, srv: LLMServer, args: argparse.Namespace) -> dict:
    data = yaml.safe_load((ROOT / "assets" / "themes" / THEMES["icm"]).read_text())
    chat = {
        "kind": "chat",
        "provider": "openai",
        "model": "bench",
        "base_url": srv.base_url,
        "api_key_env": None,
        "max_concurrency": args.workers,
    }
    data["gates"] = {
        "answerers": {"symbolic": {}, "lexical": {}, "model": chat},
        "panels": {g: ["model"] for g in PANEL_GATES},
    }
    theme = tmp / "gate_theme.yaml"
    theme.write_text(yaml.safe_dump(data, sort_keys=False))
    delay = srv.default_delay
    srv.default_delay = 0.0  # the build's own gate pass is not timed
    ctx = cold_gated_run(theme, tmp / "gate_out", data["seed"])
    srv.default_delay = delay
    n0 = len(srv.requests)
    t0 = time.perf_counter()
    gate_run(ctx)
    wall = time.perf_counter() - t0
    calls = len(srv.requests) - n0
    ideal = calls * args.latency_ms / 1000 / args.workers
    out = {
        "calls": calls,
        "wall_s": round(wall, 3),
        "ideal_s": round(ideal, 3),
        "ratio": round(wall / ideal, 3),
        "serial_estimate_s": round(calls * args.latency_ms / 1000, 1),
        "max_in_flight": srv.max_in_flight,
    }
    print(json.dumps({"gate": out}), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--latency-ms", type=float, default=200.0)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--limit", type=int, default=None, help="items per release (default: all)")
    ap.add_argument("--release", action="append", type=Path, default=[], help="use this release (repeatable)")
    ap.add_argument("--skip-gate", action="store_true")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "evaluate_throughput.json")
    args = ap.parse_args()
    gate_runner.PANEL_WORKERS = args.workers  # the gate runner's pool over items
    with (
        tempfile.TemporaryDirectory(prefix="mf-evalbench-") as tmpdir,
        LLMServer("openai", default_text="A", default_delay=args.latency_ms / 1000) as srv,
    ):
        tmp = Path(tmpdir)
        releases: dict[str, Path] = {}
        for rel in args.release:
            releases[json.loads((rel / "MANIFEST.json").read_text())["family"]] = rel
        for fam, theme in THEMES.items():
            if fam not in releases:
                releases[fam] = build(
                    ROOT / "assets" / "themes" / theme, outputs=tmp / "out", workers=2
                ).release_dir
        rows = [r for fam, rel in releases.items() for r in bench_evaluate(rel, fam, tmp, srv, args)]
        gate = None if args.skip_gate else bench_gate(tmp, srv, args)
    calls = sum(r["calls"] for r in rows)
    wall = sum(r["wall_s"] for r in rows)
    ideal = calls * args.latency_ms / 1000 / args.workers
    report = {
        "benchmark": "evaluate_throughput",
        "model_latency_ms": args.latency_ms,
        "workers": args.workers,
        "goal_ratio": 1.3,
        "evaluate": {
            "calls": calls,
            "wall_s": round(wall, 3),
            "ideal_s": round(ideal, 3),
            "ratio": round(wall / ideal, 3) if ideal else None,
            "runs": rows,
        },
        "gate_cold": gate,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.json, report)
    print(
        json.dumps(
            {k: v for k, v in report.items() if k != "evaluate"}
            | {"evaluate_ratio": report["evaluate"]["ratio"]}
        )
    )


if __name__ == "__main__":
    main()
