"""Option-only shortcut solvers: rules a test-taker applies to an option set without any memory.

Each solver scores every option from the question text and the option set alone (longest,
shortest, overlap with the question, closest to the others by similarity and by edit distance, odd
one out, most specific number); the highest score is its pick. They are order-invariant, so on
the ``option_only`` gate a hit is a hit under every rotation. Two uses:

- :class:`OptionSolverAnswerer` sits on the default ``option_only`` panel and answers only when
  its pick is *decisive* (a unique best with a clear margin), abstaining otherwise — an item it
  answers carries a tell and is rejected;
- :func:`forced_accuracy` is the solver forced to choose (a k-way tie counts 1/k), the figure the
  release statistics report over the kept items (chance is 1 / number of options).

``centroid`` and ``odd_one_out`` compare options by a lexical similarity (character trigrams and
words, no model); :func:`minilm_similarity` swaps in MiniLM sentence embeddings (extra ``ml``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from mnemoforge.validators.answerers.protocol import Answer, Context
from mnemoforge.validators.answerers.textnorm import normalize, tokens

Similarity = Callable[[Sequence[str]], list[list[float]]]
_NUM = re.compile(r"\d+(?:[.,:]\d+)*")


@lru_cache(maxsize=16384)
def _grams_words(text: str) -> tuple[frozenset[str], frozenset[str]]:
    t = f"  {normalize(text)} "
    return frozenset(t[i : i + 3] for i in range(len(t) - 2)), frozenset(normalize(text).split())


def _jac(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


@lru_cache(maxsize=65536)
def _lex_pair(a: str, b: str) -> float:
    (ga, wa), (gb, wb) = _grams_words(a), _grams_words(b)
    return (_jac(ga, gb) + _jac(wa, wb)) / 2


def lexical_similarity(options: Sequence[str]) -> list[list[float]]:
    """Pairwise similarity: the mean of character-trigram and word Jaccard overlaps."""
    return [[_lex_pair(a, b) for b in options] for a in options]


def _levenshtein(a: str, b: str) -> int:
    """Edit distance by Hyyrö's bit-parallel form of the Levenshtein table: one column of ``a``'s
    table as bit vectors, advanced a character of ``b`` at a time (the same distances as the
    row-by-row table, a word operation per cell row instead of a Python step per cell)."""
    m = len(a)
    if not m:
        return len(b)
    peq: dict[str, int] = {}
    for i, c in enumerate(a):
        peq[c] = peq.get(c, 0) | (1 << i)
    full, top = (1 << m) - 1, 1 << (m - 1)
    pv, mv, score = full, 0, m
    for c in b:
        eq = peq.get(c, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & full
        mh = pv & xh
        if ph & top:
            score += 1
        elif mh & top:
            score -= 1
        ph = ((ph << 1) | 1) & full
        mh = (mh << 1) & full
        pv = (mh | ~(xv | ph)) & full
        mv = ph & xv
    return score


@lru_cache(maxsize=65536)
def _edit_pair(a: str, b: str) -> float:
    x, y = normalize(a), normalize(b)
    return round(1 - _levenshtein(x, y) / max(1, len(x), len(y)), 6)


def edit_similarity(options: Sequence[str]) -> list[list[float]]:
    """Pairwise 1 - normalised Levenshtein distance of the normalised options."""
    return [[_edit_pair(a, b) for b in options] for a in options]


def minilm_similarity(options: Sequence[str]) -> list[list[float]]:
    """Pairwise cosine of MiniLM embeddings (extra ``ml``; raises ``MissingExtra`` without it).
    Vectors come from the embedding cache (``embed_cache``)."""
    from mnemoforge.validators.answerers import embed_cache, minilm
    from mnemoforge.validators.answerers.protocol import MissingExtra

    reason = minilm.missing()
    if reason:
        raise MissingExtra(reason)
    vecs = embed_cache.embed(list(options))
    return [[float(x) for x in row] for row in embed_cache.cosine(vecs, vecs)]


def _centrality(sim: list[list[float]]) -> list[float]:
    n = len(sim)
    return [round(sum(sim[i][j] for j in range(n) if j != i), 6) for i in range(n)]


def _length(option: str) -> float:
    """The option's length as a reader sees it (characters, whitespace collapsed)."""
    return float(len(" ".join(option.split())))


def longest(question: str, options: Sequence[str], sim: Similarity) -> list[float]:
    return [_length(o) for o in options]


def shortest(question: str, options: Sequence[str], sim: Similarity) -> list[float]:
    return [-_length(o) for o in options]


def question_overlap(question: str, options: Sequence[str], sim: Similarity) -> list[float]:
    """Words (and word stems of 4+ letters) the option shares with the question."""
    q = set(tokens(question, keep_stopwords=False))
    stems = {w[:4] for w in q if len(w) >= 4}
    out = []
    for o in options:
        ws = set(tokens(o, keep_stopwords=False))
        out.append(
            float(len(ws & q))
            + 0.5 * len({w[:4] for w in ws if len(w) >= 4} & stems - {w[:4] for w in ws & q})
        )
    return out


def centroid(question: str, options: Sequence[str], sim: Similarity) -> list[float]:
    """Closest to the others: distractors built as variants of the answer surround it."""
    return _centrality(sim(options))


def edit_centroid(question: str, options: Sequence[str], sim: Similarity) -> list[float]:
    """Closest to the others by edit distance (the answer with one name added, dropped or swapped)."""
    return _centrality(edit_similarity(options))


def odd_one_out(question: str, options: Sequence[str], sim: Similarity) -> list[float]:
    """Farthest from the others: a lone answer among distractors of one kind."""
    return [-c for c in _centrality(sim(options))]


def _specificity(option: str) -> float:
    nums = _NUM.findall(option)
    if not nums:
        return -1.0
    return float(
        max(len(re.sub(r"\D", "", n).rstrip("0")) + (2 if re.search(r"[.,:]", n) else 0) for n in nums)
    )


def most_specific_number(question: str, options: Sequence[str], sim: Similarity) -> list[float]:
    """The most precise figure (more significant digits, decimals): exact answers among round guesses."""
    return [_specificity(o) for o in options]


SOLVERS: dict[str, Callable[[str, Sequence[str], Similarity], list[float]]] = {
    "longest": longest,
    "shortest": shortest,
    "question_overlap": question_overlap,
    "centroid": centroid,
    "edit_centroid": edit_centroid,
    "odd_one_out": odd_one_out,
    "most_specific_number": most_specific_number,
}


def best(scores: Sequence[float]) -> list[int]:
    top = max(scores)
    return [i for i, s in enumerate(scores) if s == top]


def forced_accuracy(scores: Sequence[float], correct: int = 0) -> float:
    """The solver forced to choose: 1/k when the correct option is among k tied best, else 0."""
    winners = best(scores)
    return 1.0 / len(winners) if correct in winners else 0.0


def decisive(scores: Sequence[float], margin: float) -> int | None:
    """The unique best option when it leads the runner-up by ``margin`` of the score range."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    spread = max(scores) - min(scores)
    if spread <= 0 or scores[order[0]] - scores[order[1]] < margin * spread:
        return None
    return order[0]


DEFAULT_MARGIN = 0.6
"""The margin of the default ``option_only`` panel's solvers (:class:`OptionSolverAnswerer`)."""


def option_tell(question: str, options: Sequence[str], semantic: bool = False) -> bool:
    """True when an option-only rule of the default panel picks the answer (``options[0]``)
    decisively: a lexical solver, or with ``semantic`` the MiniLM centroid too. Generators screen
    option sets with it before the ``option_only`` gate sees them."""
    if any(
        decisive(fn(question, options, lexical_similarity), DEFAULT_MARGIN) == 0 for fn in SOLVERS.values()
    ):
        return True
    return semantic and decisive(centroid(question, options, minilm_similarity), DEFAULT_MARGIN) == 0


class OptionSolverAnswerer:
    """One option-only solver as a panel member: answers only on a decisive pick, else abstains."""

    order_invariant = True  # reads the option set, not its order (see panel)

    def __init__(
        self, solver: str, margin: float = DEFAULT_MARGIN, similarity: str = "lexical", optional: bool = False
    ) -> None:
        """``optional``: with ``similarity: minilm`` and no ``ml`` extra, abstain (the id says so)
        instead of raising ``MissingExtra`` (the default panel's ``solver_centroid_minilm``)."""
        if solver not in SOLVERS:
            raise ValueError(f"unknown option solver {solver!r}; known: {', '.join(SOLVERS)}")
        if similarity not in ("lexical", "minilm"):
            raise ValueError(f"similarity must be 'lexical' or 'minilm', got {similarity!r}")
        self.solver, self.margin = solver, margin
        self.sim: Similarity = lexical_similarity if similarity == "lexical" else minilm_similarity
        self.unavailable = ""
        self.embeds_options = similarity == "minilm"
        """Whether it embeds option texts with MiniLM (a gate embeds them all at once first)."""
        if similarity == "minilm":
            from mnemoforge.validators.answerers.minilm import missing
            from mnemoforge.validators.answerers.protocol import MissingExtra

            reason = missing()
            if reason and not optional:
                raise MissingExtra(reason)
            self.unavailable = reason or ""
            self.embeds_options = not self.unavailable
        state = ",unavailable" if self.unavailable else ""
        self.id = f"option_solver:{solver}(margin={margin},sim={similarity}{state}):v1"

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer:
        if self.unavailable:
            return Answer.failed(self.id, self.unavailable)
        if not options or len(options) < 3:
            return Answer.failed(self.id, "open question: no option set to read")
        scores = SOLVERS[self.solver](question, sorted(options), self.sim)
        pick = decisive(scores, self.margin)
        raw = json.dumps({"solver": self.solver, "scores": [round(s, 4) for s in scores]})
        if pick is None:
            return Answer.failed(self.id, "no decisive pick", raw)
        return Answer.mcq(self.id, options, options.index(sorted(options)[pick]), raw)
