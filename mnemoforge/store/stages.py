"""Resumable stages: each writes its outputs atomically, then a marker holding its input key.

A stage whose marker matches its key, and whose outputs still hash as recorded, is skipped;
anything else re-runs. A killed stage has no marker, so it re-runs (and per-item work inside
it, such as rendered media, is skipped item by item where it already exists).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from mnemoforge.hashing import canonical_json, sha256_file
from mnemoforge.store import atomic, ledger
from mnemoforge.store.layout import RunLayout


class StageMarker(BaseModel):
    stage: str
    key: str
    outputs: dict[str, str]


def read_marker(run: RunLayout, stage: str) -> StageMarker | None:
    path = run.marker(stage)
    if not path.exists():
        return None
    try:
        return StageMarker.model_validate_json(path.read_text())
    except ValueError:
        return None


def is_fresh(run: RunLayout, stage: str, key: str) -> bool:
    m = read_marker(run, stage)
    if m is None or m.key != key:
        return False
    for rel, digest in m.outputs.items():
        p = run.root / rel
        if not p.exists() or sha256_file(p) != digest:
            return False
    return True


def run_stage(run: RunLayout, stage: str, key: str, fn: Callable[[], list[Path]]) -> tuple[StageMarker, bool]:
    """Run ``fn`` unless the stage is fresh; returns (marker, ran).

    Model calls ``fn`` makes are recorded in the run's call ledger under this stage's name.
    """
    if is_fresh(run, stage, key):
        marker = read_marker(run, stage)
        assert marker is not None
        return marker, False
    run.marker(stage).unlink(missing_ok=True)
    with ledger.current_run(run.root), ledger.current_stage(stage):
        outputs = fn()
    marker = StageMarker(
        stage=stage,
        key=key,
        outputs={p.relative_to(run.root).as_posix(): sha256_file(p) for p in sorted(outputs)},
    )
    atomic.write_text(run.marker(stage), canonical_json(marker, indent=2) + "\n")
    return marker, True
