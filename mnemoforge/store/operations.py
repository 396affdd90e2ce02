"""The journal of a run's long-running paid operations (Veo clips): submitted once, ever.

A backend that starts an operation the provider bills at submission (``predictLongRunning``)
writes its name here *before* it polls: ``RUN/cache/operations/<key>.json``, where ``key`` is the
request's idempotency key (``ledger.request_key``: the hash of everything the request depends
on). The file is written atomically and fsync'd with its folder, so a build killed at any point
after the submission finds it on resume and polls that operation instead of submitting again. The
entry's ``state`` moves from ``submitted`` to ``done`` (the output is then in the model-output
cache) or ``failed`` (a refusal or a permanent error, kept so a resume does not pay for the same
refusal twice; ``detail`` says why).

Outside a run (tests, a backend used on its own) the journal lives in this process's memory.
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mnemoforge.hashing import canonical_json
from mnemoforge.store import atomic, ledger

DIR = Path("cache") / "operations"
STATES = ("submitted", "done", "failed")
_MEMORY: dict[str, dict[str, Any]] = {}
_LOCK = threading.Lock()


def _path(root: Path, key: str) -> Path:
    return root / DIR / f"{key}.json"


def load(key: str) -> dict[str, Any] | None:
    """The journal entry of ``key`` (``None``: never submitted)."""
    root = ledger.run_root()
    if root is None:
        with _LOCK:
            got = _MEMORY.get(key)
        return dict(got) if got else None
    try:
        return json.loads(_path(root, key).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None


def save(key: str, **fields: Any) -> dict[str, Any]:
    """Merge ``fields`` into ``key``'s entry and write it durably; returns the entry."""
    if fields.get("state", "submitted") not in STATES:
        raise ValueError(f"state must be one of {', '.join(STATES)}, got {fields['state']!r}")
    entry = (load(key) or {"key": key}) | fields
    entry["updated"] = datetime.now(UTC).isoformat(timespec="milliseconds")
    root = ledger.run_root()
    if root is None:
        with _LOCK:
            _MEMORY[key] = dict(entry)
        return entry
    path = _path(root, key)
    atomic.write_text(path, canonical_json(entry) + "\n")
    atomic.fsync_dir(path.parent)
    return entry


def entries(root: Path) -> list[dict[str, Any]]:
    """Every journal entry of the run folder ``root`` (sorted by key)."""
    out = []
    for p in sorted((Path(root) / DIR).glob("*.json")):
        try:
            out.append(json.loads(p.read_text(encoding="utf-8")))
        except ValueError:
            continue
    return out
