"""A default-theme run gated by a loopback chat model, made ready for a cold gate run (the
benchmarks ``gates_incremental.py`` and ``evaluate_throughput.py`` time ``pipeline.gate_run`` on it)."""

from __future__ import annotations

import shutil
from pathlib import Path

from mnemoforge.exporters.release import EmptyReleaseError
from mnemoforge.pipeline import BuildContext, build
from mnemoforge.store import ledger


def cold_gated_run(theme: Path, outputs: Path, seed: int) -> BuildContext:
    """Build ``theme`` into ``outputs`` (every stage up to the gates runs), then forget the gates'
    verdicts and the model answers behind them, so the next ``gate_run`` calls the model again.

    A loopback model with one fixed answer fails the oracle on most items and can leave nothing to
    freeze (``EmptyReleaseError``): the run folder is complete up to the gates all the same."""
    try:
        build(theme, outputs=outputs, workers=2)
    except EmptyReleaseError:
        pass
    run = BuildContext(theme, outputs, seed).run
    shutil.rmtree(run.gates_cache, ignore_errors=True)
    shutil.rmtree(run.root / ledger.CACHE_DIR, ignore_errors=True)
    return BuildContext(run.root / "theme.yaml", outputs, seed)
