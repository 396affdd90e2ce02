"""MiniLM retrieval embeds a release's history once: every item and method reuses it, and a later
run reads it from the on-disk cache (named by the content hash of the texts)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mnemoforge.validators.answerers import minilm

pytestmark = pytest.mark.skipif(minilm.missing() is not None, reason=str(minilm.missing()))


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from mnemoforge.evaluation import vectors

    monkeypatch.setenv("MNEMOFORGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(vectors, "_MEMO", {})
    return tmp_path / "cache"


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from mnemoforge.validators.answerers import embed_cache

    sizes: list[int] = []
    real = embed_cache.embed

    def embed(texts):  # type: ignore[no-untyped-def]
        sizes.append(len(texts))
        return real(texts)

    monkeypatch.setattr(embed_cache, "embed", embed)
    return sizes


def test_the_history_is_embedded_once_per_release(
    peer_release: Path, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mnemoforge.evaluation import vectors
    from mnemoforge.evaluation.methods import (
        MethodConfig,
        MethodInput,
        retrieval,
        retrieval_multimodal,
        retrieval_text,
    )
    from mnemoforge.exporters.views import load_agent_view
    from mnemoforge.validators.answerers import embed_cache

    view = load_agent_view(peer_release)
    # frames of clips go to this test's folder: the session's release is read-only
    cfg = MethodConfig(retriever="minilm", top_k=3, frames_dir=fresh_cache.parent / "frames")
    sizes = _counting(monkeypatch)
    inp = MethodInput(view, cfg)
    got = [retrieval(inp, item).observation_ids for item in view.items]
    pool = [o for o in view.observations if (o.get("content") or "").strip() or o.get("media")]
    assert sizes.count(len(pool)) == 1 and sum(1 for n in sizes if n > 1) == 1  # the history, once
    assert sum(1 for n in sizes if n == 1) == len(view.items)  # then one question vector an item
    [npy] = list((fresh_cache / "release_vectors").glob("*.npy"))
    # another method over the same release: nothing embedded but the questions
    sizes.clear()
    multi = MethodInput(view, cfg)
    assert [retrieval_multimodal(multi, item).observation_ids for item in view.items] == got
    assert all(n == 1 for n in sizes)
    # another process: the matrix comes from disk
    vectors._MEMO.clear()
    embed_cache._MEM.clear()
    sizes.clear()
    again = MethodInput(view, cfg)
    assert [retrieval(again, item).observation_ids for item in view.items] == got
    assert all(n == 1 for n in sizes) and again._indexes[("minilm", "release")].source == "disk"
    assert npy.stat().st_size > 0
    # the same top-k as embedding each item's own history and ranking it directly
    texts = {o["id"]: retrieval_text(o, inp) for o in pool}
    for item, ids in zip(view.items, got, strict=True):
        hist = [o["id"] for o in view.history(item.cutoff) if o["id"] in texts]
        if not hist:
            continue
        q = embed_cache.embed([item.question])[0]
        sims = np.round(embed_cache.embed([texts[i] for i in hist]) @ q, 6)
        top = [hist[int(k)] for k in np.argsort(-sims, kind="stable")[:3]]
        assert set(ids) == set(top)


def test_the_embedding_answerer_encodes_a_shared_context_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemoforge.validators.answerers import embed_cache
    from mnemoforge.validators.answerers.protocol import Context, ContextItem
    from mnemoforge.validators.answerers.registry import make_answerer

    monkeypatch.setattr(embed_cache, "_db", lambda: None)  # memory only: count what is encoded
    monkeypatch.setattr(embed_cache, "_MEM", {})
    encoded: list[int] = []
    real = minilm.encoder

    def counting_encoder(path):  # type: ignore[no-untyped-def]
        enc = real(path)

        class Counting:
            def encode(self, texts):  # type: ignore[no-untyped-def]
                encoded.append(len(texts))
                return enc.encode(texts)

        return Counting()

    monkeypatch.setattr(minilm, "encoder", counting_encoder)
    ctx = Context(tuple(ContextItem(f"o{i}", f"Line {i}: Mira brought the green kettle.") for i in range(6)))
    e = make_answerer("embedding")
    e.answer("Who brought the kettle?", ["Mira", "Oskar"], ctx)
    first = sum(encoded)
    e.answer("What did Mira bring?", ["a kettle", "a kite"], ctx)
    assert first >= 7 and sum(encoded) - first == 3  # the second question: itself and its options only
