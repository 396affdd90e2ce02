"""Model calls of an evaluation: the call cache, concurrent sending with retry rounds, and the
record each call leaves in ``OUT/calls.jsonl``.

Calls go through a bounded thread pool (``workers``, capped by the model's own limit) and fill
their ``reply`` in place, so results are placed by item and rotation whatever order calls finish
in. A finished call is cached under its prompt hash (system, text, the bytes of every image,
the choices); a failed one never is, and is sent again in a later round.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mnemoforge.evaluation.models import EvalModel, EvalRequest, Reply
from mnemoforge.exporters.views import AgentItem
from mnemoforge.hashing import content_hash, sha256_file

Progress = Callable[[str], None]
RETRY_ROUNDS = 1
"""Rounds in which the calls that still failed after the backend's own retries are sent again."""


class CallCache:
    """Append-only JSONL of finished calls, keyed by content hash; failed calls are never cached."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, dict] = {}
        self._lock = threading.Lock()
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self.entries[row["key"]] = row
                except (ValueError, KeyError):
                    continue  # a line cut short by a kill: that call is simply redone

    def get(self, key: str) -> dict | None:
        return self.entries.get(key)

    def put(self, key: str, reply: Reply) -> None:
        row = {"key": key, "text": reply.text, "usage": reply.usage, "latency_s": reply.latency_s}
        with self._lock:
            self.entries[key] = row
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(row, sort_keys=True) + "\n")


@dataclass
class Call:
    item: AgentItem
    rotation: int | None
    request: EvalRequest
    key: str
    reply: Reply | None = None
    cached: bool = False


@functools.lru_cache(maxsize=4096)
def _file_hash(path: Path, mtime_ns: int, size: int) -> str:
    return sha256_file(path)


def request_hash(req: EvalRequest) -> str:
    """The prompt hash: system, text and the bytes of every image (each file hashed once per run)."""
    images = [_file_hash(p, (st := p.stat()).st_mtime_ns, st.st_size) for p in req.images]
    return content_hash(req.system, req.text, images, req.choices)


def run_calls(
    model: EvalModel, calls: list[Call], cache: CallCache, workers: int, progress: Progress | None = None
) -> None:
    """Send every uncached call through a pool of ``workers`` threads; fills ``call.reply`` in place."""
    todo = []
    for c in calls:
        hit = cache.get(c.key)
        if hit is not None:
            c.reply = Reply(
                hit["text"], True, None, dict(hit.get("usage") or {}), float(hit.get("latency_s", 0))
            )
            c.cached = True
        else:
            todo.append(c)
    done = [0]
    lock = threading.Lock()

    def one(c: Call) -> None:
        try:
            c.reply = model.generate(c.request)
        except Exception as e:  # a model that raises is a failed call, never a crash
            c.reply = Reply("", False, f"{type(e).__name__}: {e}")
        if c.reply.ok:
            cache.put(c.key, c.reply)
        with lock:
            done[0] += 1
            if progress and (done[0] % 25 == 0 or done[0] == len(todo)):
                progress(f"{done[0]}/{len(todo)} calls")

    n = max(1, min(workers, getattr(model, "workers", workers) or workers))
    for round_ in range(1 + RETRY_ROUNDS):
        if round_:  # the backend already retried each call; a later round catches a server that
            todo = [c for c in todo if c.reply is not None and not c.reply.ok]  # was down a while
            if not todo:
                break
            if progress:
                progress(f"retrying {len(todo)} failed calls")
            done[0] = 0
        with ThreadPoolExecutor(max_workers=n) as pool:
            list(pool.map(one, todo))


def call_record(c: Call, gold: str | None = None) -> dict[str, Any]:
    assert c.reply is not None
    rec = {
        "rotation": c.rotation,
        "prompt_hash": c.key,
        "raw": c.reply.text,
        "ok": c.reply.ok,
        "error": c.reply.error,
        "tokens": c.reply.usage,
        "latency_s": round(c.reply.latency_s, 4),
        "cached": c.cached,
    }
    if gold is not None:
        rec["gold"] = gold
    return rec
