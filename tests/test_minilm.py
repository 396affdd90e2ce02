"""The numpy MiniLM encoder (validators/answerers/minilm.py) gives sentence-transformers' vectors
for the same model files, to float32 rounding, and the embedding cache serves its vectors.

``tests/data/minilm_reference.npy`` holds sentence-transformers' vectors of ``TEXTS`` (made with
``python -m tests.test_minilm``); the integration test compares against the library live.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from mnemoforge.validators.answerers import embed_cache, minilm

REFERENCE = Path(__file__).resolve().parent / "data" / "minilm_reference.npy"

pytestmark = pytest.mark.skipif(minilm.missing() is not None, reason=str(minilm.missing()))

TEXTS = [
    "",
    "a",
    "Who rode the night ferry with Odile on the third crossing?",
    "What colour was the lantern on the stern rail when the fog came in?",
    "the harbour master's ledger, page 14: 3 crates of oranges, 2 of salt cod",
    "ÉCLUSE №7 — café fermé 22:00–06:00 (ouvert dimanche)",
    "twelve",
    "12",
    "She said: \"bring the brass compass tomorrow, not the old one\" and left.",
    " ".join(["long"] * 400),  # past the 256-token limit: truncated as sentence-transformers does
    *(f"Option {i}: the {c} bicycle by the {p}" for i, (c, p) in enumerate(
        [("red", "gate"), ("blue", "pier"), ("green", "market"), ("grey", "chapel")] * 5
    )),
]


def _reference() -> np.ndarray:
    """sentence-transformers' vectors of ``TEXTS`` (imports torch and transformers: ~9 CPU-s)."""
    from mnemoforge.validators.answerers.embedding import default_model_path, load_model

    model = load_model(default_model_path())
    return model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)


def _agrees(mine: np.ndarray, ref: np.ndarray) -> None:
    assert mine.dtype == np.float32 and mine.shape == ref.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-6)
    assert float(np.abs(mine - ref).max()) < 2e-6
    cos_mine, cos_ref = embed_cache.cosine(mine, mine), embed_cache.cosine(ref, ref)
    assert float(np.abs(cos_mine - cos_ref).max()) <= 1.01e-4  # at most one step of the rounding


def test_the_vectors_are_the_recorded_sentence_transformers_vectors() -> None:
    from mnemoforge.validators.answerers.embedding import default_model_path

    _agrees(minilm.encoder(default_model_path()).encode(TEXTS), np.load(REFERENCE))


@pytest.mark.integration  # loads sentence-transformers (torch, transformers) to compare live
# on test_image_diffusers' worker, with the embedding answerer's test: torch, transformers and the
# MiniLM SentenceTransformer are loaded once per run (about 5 CPU-s), not once on each worker
@pytest.mark.xdist_group("tests/test_image_diffusers.py")
def test_the_vectors_are_sentence_transformers_vectors_live() -> None:
    pytest.importorskip("sentence_transformers")
    from mnemoforge.validators.answerers.embedding import default_model_path

    ref = _reference()
    assert np.allclose(ref, np.load(REFERENCE), atol=1e-6)  # the recorded file is still the library's
    _agrees(minilm.encoder(default_model_path()).encode(TEXTS), ref)


def test_order_and_batching_do_not_change_a_vector() -> None:
    from mnemoforge.validators.answerers.embedding import default_model_path

    enc = minilm.encoder(default_model_path())
    assert enc is minilm.encoder(default_model_path())  # loaded once per process
    together = enc.encode(TEXTS)
    alone = np.stack([enc.encode([t])[0] for t in TEXTS])
    assert np.array_equal(enc.encode(list(reversed(TEXTS)))[::-1], together)
    assert np.array_equal(together, alone)  # a vector is the same alone or in a batch
    with threadpool_limits(limits=2, user_api="blas"):  # a worker's BLAS runs on one thread
        assert np.array_equal(enc.encode(TEXTS), together)  # nor on the BLAS thread count
        assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} == {2}  # put back
    assert enc.encode([]).shape == (0, 384)
    # twenty texts of one token count share products (several a product, some in the same slot)
    short = [f"crate {i}" for i in range(20)]
    assert len({len(e.ids) for e in enc.tokenizer.encode_batch(short)}) == 1
    assert 10 >= minilm.slots_for(len(enc.tokenizer.encode(short[0]).ids)) > 1  # so some share a slot
    many = enc.encode(short)
    assert np.array_equal(many, np.stack([enc.encode([t])[0] for t in short]))
    assert np.array_equal(enc.encode(short[::-1])[::-1], many)


def test_the_cache_serves_the_encoder_vectors(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemoforge.validators.answerers.embedding import default_model_path

    monkeypatch.setenv("MNEMOFORGE_CACHE", str(tmp_path))
    monkeypatch.setattr(embed_cache, "_MEM", {})
    texts = TEXTS[2:6]
    first = embed_cache.embed(texts)
    assert np.array_equal(first, minilm.encoder(default_model_path()).encode(texts))
    monkeypatch.setattr(embed_cache, "_MEM", {})  # a new process: from the SQLite file, no encoding
    monkeypatch.setattr(minilm, "encoder", lambda folder: pytest.fail("encoded again"))
    assert np.array_equal(embed_cache.embed(texts), first)


if __name__ == "__main__":  # rewrite the recorded reference vectors
    np.save(REFERENCE, _reference().astype(np.float32))
    print(REFERENCE)
