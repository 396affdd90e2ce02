"""``evaluate`` as a Prefect flow: one task per method × model pair of a matrix.

The tasks call :func:`mnemoforge.evaluation.runner.evaluate`, exactly what
``mnemoforge evaluate --matrix`` runs; results do not depend on the orchestrator (calls are
placed by item and rotation, and finished calls are cached in each pair's ``calls.jsonl``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mnemoforge.flows.build import prefect_env


def evaluate_flow(release: Path, matrix: Path, out: Path | None = None) -> list[dict[str, Any]]:
    """Run every pair of ``matrix`` on ``release`` as Prefect tasks; returns each pair's summary."""
    from mnemoforge.evaluation.matrix import default_out

    out = Path(out) if out else default_out(release)
    prefect_env(out)
    from prefect import flow, task

    @task(name="evaluate-matrix", cache_policy=None)
    def run_pairs(release: str, matrix: str, out: str) -> list[dict[str, Any]]:
        from mnemoforge.evaluation.matrix import run_matrix

        results = run_matrix(Path(release), Path(matrix), Path(out))
        return [
            {"method": r["method"], "model": r["model"]["name"], "summary": r["summary"]} for r in results
        ]

    @flow(name="mnemoforge-evaluate", log_prints=False)
    def _flow(release: str, matrix: str, out: str) -> list[dict[str, Any]]:
        return run_pairs(release, matrix, out)

    return _flow(str(release), str(matrix), str(out))
