"""A MiniLM text-retrieval shortcut solver as a panel member (``text_retrieval_minilm``).

Given a context of text, it keeps the ``top_k`` passages closest to the question (MiniLM cosine,
vectors cached by ``embed_cache``) and picks the option closest to one of them, answering only on
a decisive pick (a panel member a theme may seat; the ``text_only_clue`` gate itself runs MiniLM
over the whole text history, ``validators/text_retrieval.py``). Without the ``ml`` extra it
abstains, and its id says so (verdict caches never mix the two).
"""

from __future__ import annotations

import json

from mnemoforge.validators.answerers.option_solvers import decisive
from mnemoforge.validators.answerers.protocol import Answer, Context


class MiniLMRetrievalAnswerer:
    kind = "text_retrieval_minilm"

    def __init__(self, top_k: int = 3, margin: float = 0.5) -> None:
        from mnemoforge.validators.answerers import embed_cache

        self.top_k, self.margin = top_k, margin
        self.ok = embed_cache.available()
        state = "" if self.ok else ",unavailable"
        self.id = f"text_retrieval:minilm(top_k={top_k},margin={margin}{state}):v1"

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer:
        from mnemoforge.validators.answerers import embed_cache

        if not self.ok:
            return Answer.failed(self.id, "MiniLM is not installed (extra 'ml')")
        texts = [t for t in (i.full_text() for i in context.items) if t.strip()]
        if not options or not texts:
            return Answer.failed(self.id, "no option set or no text to retrieve from")
        d = embed_cache.embed(texts)
        sims = embed_cache.cosine(embed_cache.embed([question]), d)[0]
        top = sorted(range(len(texts)), key=lambda i: (-sims[i], i))[: self.top_k]
        scores = [float(x) for x in embed_cache.cosine(embed_cache.embed(options), d[top]).max(axis=1)]
        pick = decisive(scores, self.margin)
        raw = json.dumps({"scores": [round(s, 4) for s in scores]})
        if pick is None:
            return Answer.failed(self.id, "no decisive pick", raw)
        return Answer.mcq(self.id, options, pick, raw)
