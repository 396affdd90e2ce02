"""MiniLM vectors of a release's whole history, embedded once and reused by every item and method.

The MiniLM retrieval methods rank an item's history (the observations up to its cutoff) by cosine
to the question. Embedding that history per item re-encodes the same texts over and over (an
ICM-size release has thousands of observations and over a thousand items); here every
observation's text is embedded once per release: the matrix is kept in memory for the process
(shared by ``retrieval`` and ``retrieval_multimodal`` and every item) and on disk under
``$MNEMOFORGE_CACHE/release_vectors/<hash>.npy`` (default ``~/.cache/mnemoforge``), named by the
content hash of the model, the encoder and the texts, so a second run (another method, another
model) loads it in milliseconds. Texts are encoded by the numpy MiniLM of ``answerers/minilm.py``
through ``answerers/embed_cache`` (whose per-text cache the gates' shortcut solvers fill too).
Per item only the question is encoded.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mnemoforge.hashing import content_hash
from mnemoforge.store import atomic

_MEMO: dict[str, np.ndarray] = {}
_LOCK = threading.Lock()


def cache_dir() -> Path:
    from mnemoforge.validators.answerers import embed_cache

    return embed_cache.cache_path().parent / "release_vectors"


def vectors_key(texts: Sequence[str]) -> str:
    """The content hash a history's matrix is filed under (model, encoder and every text in order)."""
    from mnemoforge.validators.answerers import embed_cache

    return content_hash("release-vectors", 1, embed_cache.MODEL_NAME, embed_cache.ENCODER, list(texts))


def release_matrix(texts: Sequence[str]) -> tuple[np.ndarray, str]:
    """``(normalised vectors, one row per text, in order; "memory" | "disk" | "encoded")``."""
    key = vectors_key(texts)
    with _LOCK:
        if key in _MEMO:
            return _MEMO[key], "memory"
        path = cache_dir() / f"{key}.npy"
        where = "disk"
        try:
            mat = np.load(path, allow_pickle=False)
            if mat.ndim != 2 or mat.shape[0] != len(texts):
                raise ValueError(f"{path}: {mat.shape} for {len(texts)} texts")
        except (OSError, ValueError):
            from mnemoforge.validators.answerers import embed_cache

            mat = embed_cache.embed(list(texts)).astype(np.float32)
            where = "encoded"
            try:
                buf = io.BytesIO()
                np.save(buf, mat, allow_pickle=False)
                atomic.write_bytes(path, buf.getvalue())
            except OSError:  # a read-only cache folder: the process memo still serves this run
                pass
        _MEMO[key] = mat
        return mat, where


class HistoryIndex:
    """The vectors of every observation of a release; ranks any subset of them against a question."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        self.row = {oid: n for n, oid in enumerate(ids)}
        self.matrix, self.source = release_matrix(texts)

    def rank(self, question: str, ids: Sequence[str]) -> list[int]:
        """Positions in ``ids`` by cosine to ``question``, best first (ties: earlier first)."""
        from mnemoforge.validators.answerers import embed_cache

        if not ids:
            return []
        q = embed_cache.embed([question])[0]
        sims = np.round(self.matrix[[self.row[i] for i in ids]] @ q, 6)
        return [int(k) for k in np.argsort(-sims, kind="stable")]
