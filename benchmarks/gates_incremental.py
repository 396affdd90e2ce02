"""Incremental gate re-runs: after one prompt change, what fraction of a cold gate run is redone?

A default-theme run is gated with a model-backed panel: a chat answerer (OpenAI protocol) on
every panel gate, served by a loopback server that answers after a fixed latency standing in
for a model. Measured in one run: the cold gate run (empty verdict cache), a re-run with nothing
changed, a re-run after editing the open-answer prompt, and one after editing the MCQ prompt.

    python benchmarks/gates_incremental.py [--latency-ms 20]

Goal: re-run after one prompt change <= 5 % of the cold run (for a prompt used by few calls).
Writes benchmarks/results/gates_incremental.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mnemoforge.pipeline import BuildContext, gate_run  # noqa: E402
from mnemoforge.theme_io import DEFAULT_THEME  # noqa: E402
from mnemoforge.validators.prompts import PROMPTS_DIR  # noqa: E402
from tests.llm_servers import LLMServer  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402
from model_gates import cold_gated_run  # noqa: E402

PANEL_GATES = ["option_only", "text_only_clue", "minimal_caption", "oracle", "modality_necessity"]


def timed(ctx: BuildContext) -> tuple[float, dict[str, int], dict[str, int]]:
    t0 = time.perf_counter()
    res = gate_run(ctx)
    return time.perf_counter() - t0, res.computed, res.cached


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--latency-ms", type=float, default=20.0)
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "gates_incremental.json")
    args = ap.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="mf-gates-") as tmp,
        LLMServer("openai", default_text="A", default_delay=args.latency_ms / 1000) as srv,
    ):
        prompts = Path(tmp) / "prompts"
        shutil.copytree(PROMPTS_DIR, prompts)
        data = yaml.safe_load(DEFAULT_THEME.read_text())
        chat = {
            "kind": "chat",
            "provider": "openai",
            "model": "bench",
            "base_url": srv.base_url,
            "api_key_env": None,
        }
        data["gates"] = {
            "answerers": {"symbolic": {}, "lexical": {}, "model": chat},
            "panels": {g: ["model"] for g in PANEL_GATES},
            "prompts_dir": str(prompts),
        }
        theme = Path(tmp) / "theme.yaml"
        theme.write_text(yaml.safe_dump(data, sort_keys=False))
        ctx = cold_gated_run(theme, Path(tmp) / "out", data["seed"])  # built and gated once, untimed
        calls0 = len(srv.requests)
        cold, computed_cold, _ = timed(ctx)
        calls_cold = len(srv.requests) - calls0
        unchanged, computed_same, _ = timed(ctx)
        (prompts / "answer_open.txt").write_text((prompts / "answer_open.txt").read_text() + "Be concise.\n")
        n = len(srv.requests)
        open_t, computed_open, _ = timed(ctx)
        calls_open = len(srv.requests) - n
        (prompts / "answer_mcq.txt").write_text((prompts / "answer_mcq.txt").read_text() + "Be concise.\n")
        n = len(srv.requests)
        mcq_t, computed_mcq, _ = timed(ctx)
        calls_mcq = len(srv.requests) - n
    report = {
        "benchmark": "gates_incremental",
        "model_latency_ms": args.latency_ms,
        "cold": {
            "wall_s": round(cold, 3),
            "model_calls": calls_cold,
            "verdicts_computed": sum(computed_cold.values()),
        },
        "unchanged_rerun": {
            "wall_s": round(unchanged, 3),
            "fraction_of_cold": round(unchanged / cold, 4),
            "verdicts_computed": sum(computed_same.values()),
        },
        "open_prompt_changed": {
            "wall_s": round(open_t, 3),
            "fraction_of_cold": round(open_t / cold, 4),
            "model_calls": calls_open,
            "verdicts_computed": sum(computed_open.values()),
        },
        "mcq_prompt_changed": {
            "wall_s": round(mcq_t, 3),
            "fraction_of_cold": round(mcq_t / cold, 4),
            "model_calls": calls_mcq,
            "verdicts_computed": sum(computed_mcq.values()),
        },
        "goal_fraction": 0.05,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.json, report)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
