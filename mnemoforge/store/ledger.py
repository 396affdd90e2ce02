"""The call ledger and the model-output cache of a run.

Every model call a backend makes inside a build is appended as one JSON line to the run folder's
``ledger.jsonl``: stage, backend, model, operation, tokens in/out, images, media seconds,
latency, status (``ok``, ``error`` or ``cached``), error, estimated cost and, for the media APIs,
the request's idempotency ``key`` (``request_key``: the hash of everything the request depends
on, the same key its output is cached under, so "paid once" is checkable: one ``ok`` row a key).
Appends are whole lines written with one ``write`` under an exclusive ``flock`` on the ledger file,
so threads and processes of one build never interleave or lose a line.

Where the rows go is two context variables the pipeline sets around each stage
(``store/stages.run_stage``): ``current_run(run_root)`` and ``current_stage(name)``. Outside a
run (tests, ``mnemoforge evaluate``) ``record_call`` does nothing and ``cached_call`` just calls.
Thread pools that should keep them use ``contextvars.copy_context`` (``panel.map_ordered`` does);
both are also mirrored in ``MNEMOFORGE_LEDGER_RUN`` / ``MNEMOFORGE_LEDGER_STAGE`` for worker
processes started inside a stage (the render pools), which read them.

``cached_call(key_parts, fn)`` stores a model's output under ``cache/models/`` in the run folder,
keyed by the hash of ``key_parts`` (request, model, parameters, seed), so a resumed or repeated
build never pays twice. A cache hit is recorded with status ``cached``, no tokens and cost 0:
the ledger shows what was reused, and its totals count only calls that were paid.

Costs: a row's ``cost`` is what the caller passed, else the run's price table (``prices.py``:
``assets/prices.yaml`` under the theme's ``prices:``) applied to its usage (a failed call
reports no usage, so it costs 0 unless the table has a ``per_call`` price).
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import fcntl
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from mnemoforge.backends.prices import PriceError, PriceTable, default_prices
from mnemoforge.hashing import canonical_json, content_hash
from mnemoforge.store import atomic, locks

LEDGER = "ledger.jsonl"
CACHE_DIR = Path("cache") / "models"
PRICES_FILE = "prices.json"  # the theme's own price overrides, written by `prepare` when it has some
STATUSES = ("ok", "error", "cached")
ENV_RUN, ENV_STAGE = "MNEMOFORGE_LEDGER_RUN", "MNEMOFORGE_LEDGER_STAGE"

_RUN: contextvars.ContextVar[Path | None] = contextvars.ContextVar("mnemoforge_ledger_run", default=None)
_STAGE: contextvars.ContextVar[str] = contextvars.ContextVar("mnemoforge_ledger_stage", default="")
_PRICES: contextvars.ContextVar[PriceTable | None] = contextvars.ContextVar(
    "mnemoforge_ledger_prices", default=None
)

T = TypeVar("T")
Value = bytes | str | dict


@contextlib.contextmanager
def current_run(path: Path | None, prices: PriceTable | None = None) -> Iterator[None]:
    """Record calls into ``path/ledger.jsonl`` (and cache under ``path/cache/models``) inside this block.

    ``prices`` defaults to the shipped table under ``path/prices.json`` when that file exists.
    ``path=None`` turns recording off inside the block.
    """
    if prices is None and path is not None:
        prices = run_prices(Path(path))
    t_run = _RUN.set(Path(path) if path is not None else None)
    t_prices = _PRICES.set(prices)
    with _env(ENV_RUN, str(Path(path).resolve()) if path is not None else None):
        try:
            yield
        finally:
            _PRICES.reset(t_prices)
            _RUN.reset(t_run)


@contextlib.contextmanager
def current_stage(name: str) -> Iterator[None]:
    """Rows recorded inside this block carry stage ``name``."""
    token = _STAGE.set(name)
    with _env(ENV_STAGE, name):
        try:
            yield
        finally:
            _STAGE.reset(token)


_ENV_LOCK = threading.Lock()
_ENV_OPEN: dict[str, list[tuple[int, str]]] = {}  # name -> (block id, value) of the open blocks, oldest first
_ENV_BASE: dict[str, str | None] = {}  # name -> its value before the first open block


@contextlib.contextmanager
def _env(name: str, value: str | None) -> Iterator[None]:
    """Mirror a setting in the environment for worker processes started inside the block.

    The value is stamped with this process's id and read back only in other processes (children),
    so in this process the context variables alone decide, even with builds in several threads.
    Blocks of several threads may close in any order: the variable then holds the newest block
    still open, and its value from before any block once none is.
    """
    mine = f"{os.getpid()}|{value}" if value is not None else f"{os.getpid()}|"
    with _ENV_LOCK:
        stack = _ENV_OPEN.setdefault(name, [])
        if not stack:
            _ENV_BASE[name] = os.environ.get(name)
        block = (max((b for b, _ in stack), default=0) + 1, mine)
        stack.append(block)
        os.environ[name] = mine
    try:
        yield
    finally:
        with _ENV_LOCK:
            stack.remove(block)
            now = stack[-1][1] if stack else _ENV_BASE.pop(name, None)
            if now is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = now


def _from_env(name: str) -> str:
    pid, _, value = os.environ.get(name, "").partition("|")
    return value if pid and pid != str(os.getpid()) else ""


def run_root() -> Path | None:
    """The run folder calls are recorded into now, or ``None`` outside a run.

    The context variable first; in a worker process started inside a stage (a render pool),
    ``MNEMOFORGE_LEDGER_RUN``, which ``current_run`` sets for it.
    """
    root = _RUN.get()
    if root is None and _from_env(ENV_RUN):
        return Path(_from_env(ENV_RUN))
    return root


def stage_name() -> str:
    """The stage calls are recorded under now (``""`` outside a stage)."""
    return _STAGE.get() or _from_env(ENV_STAGE)


def run_prices(root: Path) -> PriceTable:
    """The price table of the run in ``root``: the shipped one under ``root/prices.json``, if any."""
    extra = root / PRICES_FILE
    if not extra.is_file():
        return default_prices()
    try:
        return PriceTable.from_mapping(json.loads(extra.read_text()), str(extra)).over(default_prices())
    except (ValueError, PriceError):
        return default_prices()


def ledger_path(root: Path) -> Path:
    return Path(root) / LEDGER


def append_row(path: Path, row: dict[str, Any]) -> None:
    """Append one JSON line to ``path`` atomically (one ``write`` under an exclusive ``flock``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (canonical_json(row) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def record_call(
    stage: str,
    backend: str,
    model: str,
    operation: str,
    *,
    tokens_in: int = 0,
    tokens_out: int = 0,
    media_seconds: float = 0.0,
    images: int = 0,
    latency_s: float,
    status: str,
    error: str | None = None,
    cost: float | None = None,
    key: str | None = None,
) -> None:
    """Append one model call to the current run's ledger (nothing outside a run).

    ``stage=""`` means the current stage. ``status`` is ``ok``, ``error`` or ``cached``; a
    ``cached`` row always costs 0. ``cost=None`` is estimated from the run's price table.
    ``operation`` names what was asked (``chat``, ``image``, ``video``, ``speech``, ...): media
    seconds of ``video`` and ``speech`` are priced per second of that kind. ``key`` is the request's
    idempotency key (``request_key``), recorded when given.
    """
    root = run_root()
    if root is None:
        return
    if status not in STATUSES:
        raise ValueError(f"status must be one of {', '.join(STATUSES)}, got {status!r}")
    if status == "cached":
        cost = 0.0
    elif cost is None:
        prices = _PRICES.get() or run_prices(root)
        cost = prices.cost(
            model,
            operation,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            images=images,
            media_seconds=media_seconds,
        )
    keyed = {"key": key} if key is not None else {}
    append_row(
        ledger_path(root),
        keyed
        | {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "stage": stage or stage_name() or "-",
            "backend": backend,
            "model": model,
            "operation": operation,
            "tokens_in": int(tokens_in),
            "tokens_out": int(tokens_out),
            "images": int(images),
            "media_seconds": round(float(media_seconds), 3),
            "latency_s": round(float(latency_s), 4),
            "status": status,
            "error": error,
            "cost": round(float(cost), 9),
        },
    )


def read_ledger(path: Path) -> list[dict[str, Any]]:
    """The rows of a ledger file (a run folder or the file itself); a torn last line is skipped."""
    path = Path(path)
    if path.is_dir():
        path = ledger_path(path)
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals overall and by stage and by (backend, model): calls paid, cached, errors, usage, cost."""

    def empty() -> dict[str, Any]:
        return {
            "calls": 0,
            "ok": 0,
            "errors": 0,
            "cached": 0,
            "tokens_in": 0,
            "tokens_out": 0,
            "images": 0,
            "media_seconds": 0.0,
            "latency_s": 0.0,
            "cost": 0.0,
        }

    def add(acc: dict[str, Any], r: dict[str, Any]) -> None:
        status = r.get("status")
        if status == "cached":
            acc["cached"] += 1
            return
        acc["calls"] += 1
        acc["ok" if status == "ok" else "errors"] += 1
        for k in ("tokens_in", "tokens_out", "images"):
            acc[k] += int(r.get(k) or 0)
        for k in ("media_seconds", "latency_s", "cost"):
            acc[k] = round(acc[k] + float(r.get(k) or 0.0), 9)

    total, by_stage, by_model = empty(), {}, {}
    for r in rows:
        add(total, r)
        add(by_stage.setdefault(str(r.get("stage", "-")), empty()), r)
        add(by_model.setdefault(f"{r.get('backend', '-')}:{r.get('model', '-')}", empty()), r)
    return {
        "total": total,
        "by_stage": dict(sorted(by_stage.items())),
        "by_model": dict(sorted(by_model.items())),
    }


# --- the model-output cache ---------------------------------------------------------------------


def cache_key(key_parts: dict[str, Any]) -> str:
    """The content hash ``cached_call`` files an output under."""
    return content_hash("model-output", 1, key_parts)


def request_key(key_parts: dict[str, Any]) -> str:
    """A paid request's idempotency key: derived from its inputs only (backend, model, operation,
    request digest, parameters, seed), so a retry, a resume or another worker asking the same thing
    carries the same key. It is the key its output is cached under."""
    return cache_key(key_parts)


def _cache_file(root: Path, key: str) -> Path:
    return root / CACHE_DIR / key[:2] / f"{key}.json"


def _encode(value: Value) -> dict[str, Any]:
    if isinstance(value, bytes):
        return {"type": "bytes", "value": base64.b64encode(value).decode("ascii")}
    if isinstance(value, str):
        return {"type": "str", "value": value}
    if isinstance(value, dict):
        return {"type": "dict", "value": value}
    raise TypeError(f"cached_call: fn must return bytes, str or dict, got {type(value).__name__}")


def _decode(stored: dict[str, Any]) -> Value:
    kind, value = stored["type"], stored["value"]
    if kind == "bytes":
        return base64.b64decode(value)
    if kind in ("str", "dict"):
        return value
    raise ValueError(f"unknown cached type {kind!r}")


def _read_cached(path: Path) -> tuple[bool, Value | None]:
    try:
        return True, _decode(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return False, None


def cached_call(
    key_parts: dict[str, Any],
    fn: Callable[[], Value],
    *,
    keep: Callable[[Value], bool] | None = None,
) -> Value:
    """``fn()``'s output, from the run's cache when this ``key_parts`` was computed before.

    ``key_parts`` must hold everything the output depends on (request or prompt digest, model,
    parameters, seed); its ``backend``, ``model`` and ``operation`` entries, when present, name
    the ``cached`` ledger row a hit records. ``keep(value)`` decides whether a fresh output is
    stored (e.g. not a failed reply); by default every output is. Concurrent callers of one key
    wait for each other (a lock per key), so the model is asked once. Outside a run ``fn`` is
    simply called.
    """
    root = run_root()
    if root is None:
        return fn()
    key = cache_key(key_parts)
    path = _cache_file(root, key)
    with locks.file_lock(path.with_suffix(".lock"), f"model cache entry {key[:12]}"):
        if path.is_file():
            ok, value = _read_cached(path)
            if ok:
                assert value is not None
                _record_hit(key_parts)
                return value
        value = fn()
        stored = _encode(value)
        if keep is None or keep(value):
            atomic.write_text(path, canonical_json(stored) + "\n")
        return value


def _record_hit(key_parts: dict[str, Any]) -> None:
    t0 = time.perf_counter()
    record_call(
        "",
        str(key_parts.get("backend", "-")),
        str(key_parts.get("model", "-")),
        str(key_parts.get("operation", "-")),
        latency_s=time.perf_counter() - t0,
        status="cached",
        key=cache_key(key_parts),
    )
