"""A text-only solver that reads every sentence an agent could read (messages, transcripts and the
caption tables) and no timestamp: each option is scored by the best sentence that states it (all
of its own words, those the question does not hold), BM25 over the question's words and the
option's.

It stands for a memory system that retrieves but never reasons about time. On items whose
evidence is pictures it is a shortcut by definition; on the others it measures how often the
sentence naming the answer is also the only one close to the question (a conflict or a change
over time should leave it at chance).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

from mnemoforge.validators.answerers.lexical import BM25
from mnemoforge.validators.answerers.textnorm import sentences, tokens


class SentenceIndex:
    """Sentences of (order, text) passages in stream order, BM25-indexed once."""

    def __init__(self, passages: Iterable[tuple[int, str]]) -> None:
        rows = sorted(((o, s) for o, t in passages if t for s in sentences(t)), key=lambda r: r[0])
        self.orders = [o for o, _ in rows]
        self.tokens = [tokens(s) for _, s in rows]
        self.bm25 = BM25(self.tokens)
        self.postings: dict[str, list[int]] = {}
        for i, toks in enumerate(self.tokens):
            for t in set(toks):
                self.postings.setdefault(t, []).append(i)

    def scores(self, question: str, options: Sequence[str], cutoff: int | None = None) -> list[float]:
        """Per option, the best BM25 score (question words + the option's own words) of a sentence
        at or before ``cutoff`` that holds every one of the option's own words (0 where none does)."""
        limit = len(self.orders) if cutoff is None else bisect_right(self.orders, cutoff)
        q_terms = tokens(question)
        out = []
        for opt in options:
            fresh = [t for t in dict.fromkeys(tokens(opt)) if t not in q_terms]
            hits = set.intersection(*(set(self.postings.get(t, [])) for t in fresh)) if fresh else set()
            hits = {i for i in hits if i < limit}
            query = q_terms + fresh
            out.append(round(max((self.bm25.score(query, i) for i in hits), default=0.0), 6))
        return out
