"""Text-only retrieval shortcuts for items that claim visual evidence (the ``text_only_clue`` gate
and the release statistics).

All text written or spoken before the item's cutoff is the shortcut's memory (for a visual item
text is the shortcut; elsewhere it is the memory). Three checks:

- :func:`bm25_scores`: each option scored by BM25 against the passages that best match the question;
- :func:`minilm_scores`: the same with MiniLM embeddings (extra ``ml``; vectors cached by
  ``answerers/embed_cache``): the passages closest to the question, each option by its closest one;
- :func:`colocation`: a passage naming the answer beside a person the question names ("Did you bring
  the green kettle, Ode?" for "What did Ode bring?") answers the item from text alone.

A solver that picks the answer *decisively* (a unique best by a clear margin) rejects the item.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.validators.answerers.lexical import BM25, PrefixBM25
from mnemoforge.validators.answerers.textnorm import tokens

TOP_K = 3
MARGIN = 0.5
MINILM_MARGIN = 0.25
"""MiniLM's cosines sit close together (every passage is "about" the album), so a lead of a quarter
of the options' range is already a pick, where BM25 needs half."""
STOP = {"the", "and", "a", "an", "of", "to", "in", "at", "on", "for", "with"}

Passages = list[tuple[int, str]]


def passages(observations: Sequence[Observation]) -> Passages:
    """(order, text) of every observation with text, in stream order."""
    return [(o.order, o.content) for o in sorted(observations, key=lambda o: (o.order, o.id)) if o.content]


def before_cutoff(q: Question, history: Passages) -> list[str]:
    return [t for order, t in history if q.cutoff is None or order <= q.cutoff]


def bm25_scores(q: Question, history: Sequence[tuple[int, list[str]]]) -> list[float]:
    """Each option scored by BM25 against the ``TOP_K`` passages of the history (tokens, up to the
    cutoff) that best match the question; the option's words already in the question count for nothing."""
    assert q.options is not None
    docs = [t for order, t in history if q.cutoff is None or order <= q.cutoff]
    if not docs:
        return [0.0] * len(q.options)
    index = BM25(docs)
    q_terms = tokens(q.question)
    top = index.rank(q_terms)[:TOP_K]
    out = []
    for opt in q.options:
        fresh = [t for t in tokens(opt, keep_stopwords=False) if t not in q_terms]
        out.append(round(sum(index.score(fresh, i) for i in top), 6) if fresh else 0.0)
    return out


def minilm_scores(q: Question, history: Passages) -> list[float]:
    """Each option's best cosine to the ``TOP_K`` passages (up to the cutoff) closest to the question."""
    from mnemoforge.validators.answerers import embed_cache

    assert q.options is not None
    docs = before_cutoff(q, history)
    if not docs:
        return [0.0] * len(q.options)
    d = embed_cache.embed(docs)
    qv = embed_cache.embed([q.question])
    sims = embed_cache.cosine(qv, d)[0]
    top = sorted(range(len(docs)), key=lambda i: (-sims[i], i))[:TOP_K]
    ov = embed_cache.embed(list(q.options))
    return [round(float(x), 4) for x in embed_cache.cosine(ov, d[top]).max(axis=1)]


class TextHistory:
    """The text history of one run, indexed once for every item's retrieval check: the passages in
    stream order with their orders (an item's cutoff is a prefix), their tokens in a
    :class:`PrefixBM25`, their lowercased text, and (on first use) their MiniLM vectors. Each score
    equals the per-item function's over :func:`before_cutoff` (``bm25_scores``, ``minilm_scores``)."""

    def __init__(self, observations: Sequence[Observation]) -> None:
        self.passages = passages(observations)
        self.orders = [o for o, _ in self.passages]
        self.tokens = [tokens(t) for _, t in self.passages]
        self.lower = [t.lower() for _, t in self.passages]
        self.bm25 = PrefixBM25(self.tokens)
        self._vectors: np.ndarray | None = None
        self._lock = threading.Lock()

    def token_history(self) -> list[tuple[int, list[str]]]:
        return list(zip(self.orders, self.tokens, strict=True))

    def prefix(self, q: Question) -> int:
        """How many passages lie at or before the item's cutoff (all of them without one)."""
        return len(self.orders) if q.cutoff is None else bisect_right(self.orders, q.cutoff)

    def bm25_top(self, q: Question) -> tuple[int, list[str], list[int]]:
        """The passages before the cutoff (how many), the question's terms and the ``TOP_K``
        passages that best match them."""
        m = self.prefix(q)
        q_terms = tokens(q.question)
        return m, q_terms, (self.bm25.rank(q_terms, m, TOP_K) if m else [])

    def bm25_option(self, option: str, m: int, q_terms: list[str], top: list[int]) -> float:
        """One option's BM25 score over ``top`` (:meth:`bm25_top`); its words already in the
        question count for nothing."""
        fresh = [t for t in tokens(option, keep_stopwords=False) if t not in q_terms]
        return round(sum(self.bm25.score(fresh, i, m) for i in top), 6) if fresh else 0.0

    def bm25_scores(self, q: Question) -> list[float]:
        """:func:`bm25_scores` of ``q`` over this history."""
        assert q.options is not None
        m, q_terms, top = self.bm25_top(q)
        if not m:
            return [0.0] * len(q.options)
        return [self.bm25_option(opt, m, q_terms, top) for opt in q.options]

    def vectors(self) -> np.ndarray:
        """MiniLM vectors of every passage (rows in stream order), embedded once."""
        from mnemoforge.validators.answerers import embed_cache

        with self._lock:
            if self._vectors is None:
                self._vectors = embed_cache.embed([t for _, t in self.passages])
            return self._vectors

    def minilm_near(self, q: Question) -> np.ndarray | None:
        """MiniLM vectors of the ``TOP_K`` passages before the cutoff closest to the question
        (None when there is none)."""
        from mnemoforge.validators.answerers import embed_cache

        m = self.prefix(q)
        if not m:
            return None
        d = self.vectors()[:m]
        sims = embed_cache.cosine(embed_cache.embed([q.question]), d)[0]
        return d[np.argsort(-sims, kind="stable")[:TOP_K]]

    def minilm_scores(self, q: Question) -> list[float]:
        """:func:`minilm_scores` of ``q`` over this history."""
        from mnemoforge.validators.answerers import embed_cache

        assert q.options is not None
        near = self.minilm_near(q)
        if near is None:
            return [0.0] * len(q.options)
        ov = embed_cache.embed(list(q.options))
        return [round(float(x), 4) for x in embed_cache.cosine(ov, near).max(axis=1)]

    def texts_before(self, q: Question) -> list[str]:
        """Lowercased passages at or before the cutoff."""
        return self.lower[: self.prefix(q)]


def _pattern(value: str) -> re.Pattern[str] | None:
    words = re.findall(r"[a-z0-9]+", value.lower())
    if not any(len(w) > 2 and w not in STOP for w in words):
        return None
    return re.compile(r"\b" + r"\W+".join(re.escape(w) for w in words) + r"\b")


def colocation(q: Question, world: World | None, history: Passages, lower: list[str] | None = None) -> str:
    """A passage before the cutoff that names the answer beside a person or object the question
    names, where one of the two is an object (what someone brought, who brought something), or ''.
    ``lower``: the history's texts already lowercased (:class:`TextHistory`)."""
    if world is None or not q.options:
        return ""
    objects = {o.name for o in world.objects}
    named = [n for n in [p.name for p in world.people] + sorted(objects) if n != q.answer and n in q.question]
    if q.answer not in objects:
        named = [n for n in named if n in objects]
    ans = _pattern(q.answer)
    pats = {n: p for n in named if (p := _pattern(n)) is not None}
    if ans is None or not pats:
        return ""
    texts = before_cutoff(q, history)
    lowered = lower[: len(texts)] if lower is not None else [t.lower() for t in texts]
    for text, low in zip(texts, lowered, strict=True):
        if ans.search(low):
            hit = next((n for n, p in pats.items() if p.search(low)), None)
            if hit:
                return f"{q.answer!r} named beside {hit} in {text!r}"
    return ""


def written_before(q: Question, history: Passages) -> bool:
    """Whether the answer is written in the text before the cutoff (always true for a value too
    short to search for; a bare number is searched as a whole number). A semantic pick of an
    answer the text never states is a guess that happened to land, not an answer the text gives:
    MiniLM picks count only when this holds."""
    pat = _pattern(q.answer) or _number_pattern(q.answer)
    return pat is None or any(pat.search(t.lower()) for t in before_cutoff(q, history))


def written_in(q: Question, lowered: Sequence[str]) -> bool:
    """:func:`written_before` over texts already cut at the cutoff and lowercased."""
    pat = _pattern(q.answer) or _number_pattern(q.answer)
    return pat is None or any(pat.search(t) for t in lowered)


def _number_pattern(value: str) -> re.Pattern[str] | None:
    """A bare number answer ("6") as a whole number in a text: a solver that ranks digits by
    their likeness to the passages answers it only where the number is written at all."""
    v = value.strip()
    return re.compile(rf"(?<![\w.,]){re.escape(v)}(?![\w]|[.,]\d)") if v.isdigit() else None


_LOCK = threading.Lock()


def context_history(ctx: object) -> TextHistory:
    """The gate context's :class:`TextHistory`, built once per context (kept on it, so another
    run's context never reuses it; gate items are checked on several threads)."""
    with _LOCK:
        got = ctx.__dict__.get("_text_history")
        if got is None:
            obs = list(ctx.observations.values())  # type: ignore[attr-defined]
            got = ctx.__dict__["_text_history"] = TextHistory(obs)
    return got


def decisive_pick(scores: Sequence[float], margin: float = MARGIN) -> int | None:
    from mnemoforge.validators.answerers.option_solvers import decisive

    return decisive(scores, margin) if scores and max(scores) > 0 else None


def retrieval_shortcut(q: Question, ctx: object, minilm: bool) -> str:
    """Why a text-only retrieval answers ``q`` (BM25, MiniLM when ``minilm``, co-location), or ''."""
    h = context_history(ctx)
    if decisive_pick(h.bm25_scores(q)) == 0:
        return "answerable by text retrieval (BM25 over all text before the cutoff)"
    if minilm and decisive_pick(h.minilm_scores(q), MINILM_MARGIN) == 0 and written_in(q, h.texts_before(q)):
        return "answerable by text retrieval (MiniLM over all text before the cutoff)"
    why = colocation(q, getattr(ctx, "world", None), h.passages, h.lower)
    if why:
        return f"answerable from text alone: {why}"
    return ""
