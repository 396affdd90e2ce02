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
from collections.abc import Iterable, Mapping, Sequence

from mnemoforge.schemas.observations import Observation
from mnemoforge.validators.answerers.lexical import BM25
from mnemoforge.validators.answerers.textnorm import sentences, tokens

CAPTION_TEXT = ("caption", "visual_details", "speech")
"""The agent-visible text columns of the families' caption tables."""


def flat_text(v: object) -> str:
    """A caption cell as text (a list joined into sentences)."""
    if isinstance(v, list):
        return ". ".join(map(str, v))
    return str(v) if v else ""


def agent_passages(
    observations: Iterable[Observation], captions: Iterable[Mapping[str, object]] = ()
) -> list[tuple[int, str]]:
    """Every agent-visible text with the stream order it belongs to: the observations' content and
    the caption tables' text columns (:data:`CAPTION_TEXT`), a caption at the first order of the
    observation or clip it describes."""
    return stream_passages(((o.id, o.episode, o.order, o.content) for o in observations), captions)


def stream_passages(
    rows: Iterable[tuple[str, str, int, str]], captions: Iterable[Mapping[str, object]] = ()
) -> list[tuple[int, str]]:
    """:func:`agent_passages` over (id, episode, order, content) rows (an agent view's table)."""
    rows = list(rows)
    first: dict[str, int] = {}
    for oid, episode, order, _ in rows:
        first.setdefault(oid, order)
        first.setdefault(episode, order)
    out = [(order, content) for _, _, order, content in rows if content]
    for c in captions:
        ref = next((c[k] for k in ("observation", "clip") if isinstance(c.get(k), str)), None)
        text = " ".join(flat_text(c.get(k)) for k in CAPTION_TEXT)
        if isinstance(ref, str) and ref in first and text.strip():
            out.append((first[ref], text))
    return out


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
