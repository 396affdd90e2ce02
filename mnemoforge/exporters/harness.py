"""Evaluation-harness exports of a release: inspect_ai and lmms-eval tasks, chosen by format name."""

from __future__ import annotations

from pathlib import Path

from mnemoforge.evaluation.keys import EvaluationError
from mnemoforge.exporters.harness_inspect import export_inspect
from mnemoforge.exporters.harness_lmms import export_lmms

HARNESS_FORMATS = ("inspect", "lmms-eval")


def export_harness(release: Path, fmt: str, out: Path) -> list[Path]:
    """Write ``fmt`` (inspect or lmms-eval) for ``release`` into ``out``; returns the files."""
    if fmt == "inspect":
        return export_inspect(release, out)
    if fmt == "lmms-eval":
        return export_lmms(release, out)
    raise EvaluationError(f"--format {fmt!r}: not a harness format ({', '.join(HARNESS_FORMATS)})")
