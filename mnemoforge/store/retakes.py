"""Re-render takes of a run's shots (``review/retakes.json``): how many times a reviewer sent each
shot back. The render stage draws a shot of take ``n > 0`` with seeds of its own (a model asked
again answers afresh, and a cached reply of the earlier take is not reused); the takes' digest is
part of the cache key of the render stage and every stage after it, so a run without takes keeps
its keys. ``human_review.record_decision`` counts a take, under the decisions store's lock.
"""

from __future__ import annotations

import json
from pathlib import Path

from mnemoforge.hashing import content_hash
from mnemoforge.store import atomic

RETAKES = Path("review") / "retakes.json"


class RetakesError(ValueError):
    """A malformed takes file (names the file)."""


def load_retakes(run_root: Path) -> dict[str, int]:
    """Shot id -> its take (how many re-renders were asked for); empty without a file."""
    path = Path(run_root) / RETAKES
    if not path.is_file():
        return {}
    try:
        shots = json.loads(path.read_text(encoding="utf-8"))["shots"]
        return {str(k): int(v) for k, v in shots.items() if int(v) > 0}
    except (ValueError, KeyError, TypeError, AttributeError):
        raise RetakesError(f'{path}: expected {{"shots": {{shot id: take}}}}') from None


def next_take(run_root: Path, shot_id: str) -> int:
    """Count one more take of ``shot_id`` (durably); returns it. Call under the decisions store lock."""
    takes = load_retakes(run_root)
    takes[shot_id] = takes.get(shot_id, 0) + 1
    path = atomic.write_json(Path(run_root) / RETAKES, {"shots": dict(sorted(takes.items()))})
    atomic.fsync_dir(path.parent)
    return takes[shot_id]


def retakes_hash(run_root: Path) -> str | None:
    """Digest of the takes (``None`` without any)."""
    takes = load_retakes(run_root)
    return content_hash("retakes", takes) if takes else None
