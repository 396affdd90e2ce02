"""Screening memeye option sets for a shortcut before one is picked.

The World gives few values per key (four gists, five drawn items, the stale state always offered
for Y3), so a cell such as X2_Y3 has a handful of candidates and each of them only a few possible
option sets. The stratified target (``option_balance``) asks a quarter of the items to put the
answer first by length or centrality; on so small a pool the set that meets it often makes the
answer *decisively* longest or central, and the ``option_only`` gate rejects the item. Likewise a
set whose answer is the one option MiniLM ties to the text around the pictures (the scene's share
lines) is rejected by ``text_only_clue``. With several sets to choose from, a set that neither
check answers is taken over one that meets the target more exactly; the gates stay as they are
and still check every item.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.validators.answerers.option_solvers import option_tell

Screen = Callable[[Question, Sequence[str]], bool]


def text_screen(observations: Sequence[Observation]) -> Screen | None:
    """A check that MiniLM text retrieval (as ``text_only_clue`` runs it) picks the answer of an
    option set from the text before the item's cutoff; None without the ``ml`` extra."""
    from mnemoforge.validators import text_retrieval as tr
    from mnemoforge.validators.answerers import embed_cache

    if not embed_cache.available():
        return None
    indexed = tr.TextHistory(observations)  # BM25 over every cutoff's prefix, indexed once
    history = indexed.passages

    def hit(q: Question, options: Sequence[str]) -> bool:
        trial = q.model_copy(update={"options": list(options)})
        if tr.decisive_pick(indexed.bm25_scores(trial)) == 0:
            return True
        return tr.decisive_pick(tr.minilm_scores(trial, history), tr.MINILM_MARGIN) == 0

    return hit


def minilm_central(options: Sequence[str]) -> bool:
    """True when the answer (``options[0]``) is the MiniLM centroid's unique forced pick."""
    from mnemoforge.validators.answerers.option_solvers import centroid, minilm_similarity

    scores = centroid("", options, minilm_similarity)
    return max(scores) == scores[0] and scores.count(scores[0]) == 1


def prefetch(items: Sequence[tuple[Question, Sequence[Sequence[str]]]]) -> None:
    """Encode every text the screens of ``clean_sets`` embed for these items (question, answer,
    options) in one MiniLM call: the encoder is fastest on many texts at once, an item's own
    screens would each bring one or two new texts, and every vector is the same as alone."""
    from mnemoforge.validators.answerers import embed_cache

    texts = (t for q, sets in items for t in (q.question, q.answer, *(o for d in sets for o in d)))
    embed_cache.embed(list(dict.fromkeys(texts)))


def clean_sets(
    q: Question, sets: list[list[str]], text: Screen | None = None, central: bool | None = None
) -> list[list[str]]:
    """The sets no option-only rule and no text retrieval answers (all of them when none is);
    ``central`` (with MiniLM): of those, the ones whose answer is (or is not) the MiniLM centroid,
    as the item's centrality target asks, so that solver too sits near chance over a release."""
    ok = [d for d in sets if not option_tell(q.question, [q.answer, *d])]
    if text is not None:  # its texts are encoded beforehand, with every item's (``prefetch``)
        ok = [d for d in ok if not text(q, [q.answer, *d])] or ok
        if central is not None:
            ok = [d for d in ok if minilm_central([q.answer, *d]) == central] or ok
    return ok or sets
