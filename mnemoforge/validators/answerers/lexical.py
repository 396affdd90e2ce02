"""A lexical answerer: Okapi BM25 retrieval over the context, then option or span matching."""

from __future__ import annotations

import json
import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence

from mnemoforge.validators.answerers.protocol import Answer, Context, ContextItem
from mnemoforge.validators.answerers.textnorm import proper_nouns, sentences, tokens


class BM25:
    """Okapi BM25 over pre-tokenised documents (Lucene's non-negative idf).

    ``score(q, d) = sum_t idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))``
    with ``idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))``.
    """

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tfs = [Counter(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.n = len(docs)
        self.avgdl = (sum(self.lengths) / self.n) if self.n else 0.0
        df: Counter[str] = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        self.df = df

    def idf(self, term: str) -> float:
        df = self.df.get(term, 0)
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))

    def score(self, query: Sequence[str], index: int) -> float:
        """BM25 score of document ``index`` for the query terms (repeated terms count once)."""
        tf, length = self.tfs[index], self.lengths[index]
        norm = self.k1 * (1.0 - self.b + self.b * length / self.avgdl) if self.avgdl else self.k1
        total = 0.0
        for term in dict.fromkeys(query):
            f = tf.get(term, 0)
            if f:
                total += self.idf(term) * f * (self.k1 + 1.0) / (f + norm)
        return total

    def scores(self, query: Sequence[str]) -> list[float]:
        return [self.score(query, i) for i in range(self.n)]

    def rank(self, query: Sequence[str]) -> list[int]:
        """Document indices, best first; ties keep document order (deterministic)."""
        s = self.scores(query)
        return sorted(range(self.n), key=lambda i: (-s[i], i))


class PrefixBM25:
    """:class:`BM25` over every prefix of one document list, built once: ``rank(q, m)`` and
    ``score(q, i, m)`` equal those of ``BM25(docs[:m])`` (same formulas, same float operations),
    from postings lists instead of re-counting the first ``m`` documents for each query."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tfs = [Counter(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.cum = [0]
        for n in self.lengths:
            self.cum.append(self.cum[-1] + n)
        self.postings: dict[str, list[int]] = {}
        for i, tf in enumerate(self.tfs):
            for term in tf:
                self.postings.setdefault(term, []).append(i)

    def df(self, term: str, m: int) -> int:
        return bisect_left(self.postings.get(term, ()), m)

    def idf(self, term: str, m: int) -> float:
        df = self.df(term, m)
        return math.log(1.0 + (m - df + 0.5) / (df + 0.5))

    def score(self, query: Sequence[str], index: int, m: int) -> float:
        """``BM25(docs[:m]).score(query, index)``."""
        avgdl = (self.cum[m] / m) if m else 0.0
        tf, length = self.tfs[index], self.lengths[index]
        norm = self.k1 * (1.0 - self.b + self.b * length / avgdl) if avgdl else self.k1
        total = 0.0
        for term in dict.fromkeys(query):
            f = tf.get(term, 0)
            if f:
                total += self.idf(term, m) * f * (self.k1 + 1.0) / (f + norm)
        return total

    def _scores(self, terms: list[str], hits: list[int], m: int) -> dict[int, float]:
        """:meth:`score` of each hit (the same floats: the same operations in the same order, each
        term's idf computed once for all hits instead of once per hit)."""
        avgdl = (self.cum[m] / m) if m else 0.0
        k1, b = self.k1, self.b
        idf = {t: self.idf(t, m) for t in terms}
        out: dict[int, float] = {}
        for i in hits:
            tf, length = self.tfs[i], self.lengths[i]
            norm = k1 * (1.0 - b + b * length / avgdl) if avgdl else k1
            total = 0.0
            for term in terms:
                f = tf.get(term, 0)
                if f:
                    total += idf[term] * f * (k1 + 1.0) / (f + norm)
            out[i] = total
        return out

    def rank(self, query: Sequence[str], m: int, k: int) -> list[int]:
        """``BM25(docs[:m]).rank(query)[:k]``: only documents holding a query term score above 0
        (idf is positive), the rest follow in document order."""
        terms = list(dict.fromkeys(query))
        hits = sorted({i for t in terms for i in self.postings.get(t, ())[: self.df(t, m)]})
        s = self._scores(terms, hits, m)
        top = sorted(hits, key=lambda i: (-s[i], i))[:k]
        if len(top) < k:
            seen = set(top)
            top += [i for i in range(min(m, k + len(seen))) if i not in seen][: k - len(top)]
        return top


def rank_items(question: str, items: Sequence[ContextItem], k1: float = 1.5, b: float = 0.75) -> list[int]:
    """Context item indices ranked by BM25 against the question."""
    names = proper_nouns([question, *(i.full_text() for i in items)])
    index = BM25([tokens(i.full_text(), names=names) for i in items], k1, b)
    return index.rank(tokens(question, names=names))


class LexicalAnswerer:
    """Picks the top-``top_k`` context items by BM25, then the best-matching option or sentence.

    MCQ: each option is scored by BM25 against the top items, using the option's terms that are
    not already in the question (a name in the question matches everywhere); ties go to the
    option whose normalised text sorts first, so the choice does not depend on option order.
    Open questions: the top item's sentence that best matches the question, cut to ``max_words``.
    """

    order_invariant = True  # its choice does not depend on option order (see panel)

    def __init__(self, top_k: int = 3, k1: float = 1.5, b: float = 0.75, max_words: int = 24) -> None:
        self.top_k, self.k1, self.b, self.max_words = top_k, k1, b, max_words
        self.id = f"lexical:bm25(k1={k1},b={b},top_k={top_k},stem=porter2)"

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer:
        items = [i for i in context.items if i.full_text().strip()]
        if not items:
            return Answer.failed(self.id, "no text in the context")
        texts = [i.full_text() for i in items]
        names = proper_nouns([question, *texts, *(options or [])])  # names stay unstemmed everywhere
        docs = [tokens(t, names=names) for t in texts]
        index = BM25(docs, self.k1, self.b)
        q_terms = tokens(question, names=names)
        ranked = index.rank(q_terms)
        q_scores = index.scores(q_terms)
        top = [i for i in ranked[: self.top_k] if q_scores[i] > 0] or ranked[: self.top_k]
        if options:
            return self._choose(options, q_terms, index, top, [items[i].observation_id for i in top], names)
        return self._span(question, items[top[0]], q_scores[top[0]], names)

    def _choose(
        self,
        options: list[str],
        q_terms: list[str],
        index: BM25,
        top: list[int],
        top_ids: list[str],
        names: frozenset[str] = frozenset(),
    ) -> Answer:
        scores = []
        for opt in options:
            terms = tokens(opt, names=names) or tokens(opt, keep_stopwords=True, names=names)
            fresh = [t for t in terms if t not in q_terms]  # an option repeating the question adds nothing
            scores.append(sum(index.score(fresh, i) for i in top) if fresh else 0.0)
        raw = json.dumps({"top_items": top_ids, "option_scores": [round(s, 4) for s in scores]})
        top_score = max(scores)
        if top_score <= 0 or scores.count(top_score) > 1:
            # no evidence singles an option out: abstain rather than guess (a guess by option text
            # would look like knowledge under every rotation and trip the shortcut gates)
            return Answer.failed(self.id, "no option is singled out by the context", raw)
        return Answer.mcq(self.id, options, scores.index(top_score), raw)

    def _span(
        self, question: str, item: ContextItem, item_score: float, names: frozenset[str] = frozenset()
    ) -> Answer:
        sents = sentences(item.full_text())
        sindex = BM25([tokens(s, names=names) for s in sents], self.k1, self.b)
        best = sents[sindex.rank(tokens(question, names=names))[0]]
        words = best.split()
        text = " ".join(words[: self.max_words])
        raw = json.dumps({"item": item.observation_id, "item_score": round(item_score, 4), "sentence": best})
        return Answer(text, None, raw, True, None, self.id)
