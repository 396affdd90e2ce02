"""Drawing distractor sets that no option-only rule can read.

Per item a target rank of the answer is drawn uniformly, once by length and once by closeness to
the other options; of several candidate sets the one whose *tells* come closest to those targets
is kept. A tell is what a rule forced to choose scores on the set (:func:`tells`): the longest,
shortest, closest-to-the-others (centroid, by lexical similarity and by edit distance) and odd one
out, each 1/k when the answer is among k tied best. The cost asks each tell to be 1 exactly when
the drawn rank puts the answer first for that rule and 0 otherwise, so over many items every rule
sits at chance whatever the pools look like (a tie the answer shares counts against the set).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import lru_cache

from mnemoforge.rng import derive_rng
from mnemoforge.validators.answerers.option_solvers import (
    edit_similarity,
    forced_accuracy,
    lexical_similarity,
    option_tell,
)

TRIES = 48
QUESTION_WEIGHT = 3.0
"""Added to the cost of a set on which the answer's standing by MiniLM closeness to the question is
not what the item's centrality target asks (:func:`question_cost`): more than any one lexical tell
off, far less than a refused set."""
PENALTY = 100.0
"""Added to the cost of a set its ``screen`` refuses (a cast prior or the question's grammar picks
the answer or rules a distractor out): such a set is taken only when no other can be drawn."""

Screen = Callable[[Sequence[str]], bool]
"""True when an option set (the answer first) is fair: ``validators.item_gates.fair_set``."""
Cost = Callable[[Sequence[str]], float]
"""A further cost of an option set (the answer first), added to its tells' (``ValueShare.cost``)."""


def _rank(values: Sequence[float], i: int) -> float:
    """0 = the largest; ties share the mean rank."""
    above = sum(v > values[i] for v in values)
    tied = sum(v == values[i] for v in values) - 1
    return above + tied / 2


def _centrality(options: Sequence[str], sim: Callable[[Sequence[str]], list[list[float]]]) -> list[float]:
    m = sim(options)
    return [round(sum(m[i][j] for j in range(len(options)) if j != i), 6) for i in range(len(options))]


def ranks(options: Sequence[str]) -> tuple[float, float]:
    """The first option's rank by length and by closeness to the others (0 = longest / central)."""
    return _ranks(tuple(options))


# A draw samples the same few sets again and again (a pool of six gives twenty sets of three for
# 48 tries), so the pure per-set figures below are cached by the option tuple.
@lru_cache(maxsize=65536)
def _ranks(options: tuple[str, ...]) -> tuple[float, float]:
    lengths = [float(len(" ".join(o.split()))) for o in options]
    return _rank(lengths, 0), _rank(_centrality(options, lexical_similarity), 0)


@lru_cache(maxsize=65536)
def _minilm_pair(a: str, b: str) -> float:
    from mnemoforge.validators.answerers.option_solvers import minilm_similarity

    return round(minilm_similarity([a, b])[0][1], 6)


def _minilm_sim(options: Sequence[str]) -> list[list[float]]:
    return [[1.0 if a == b else _minilm_pair(*sorted((a, b))) for b in options] for a in options]


def semantic_available() -> bool:
    """Whether the MiniLM centroid (the default panel's ``centroid_minilm``) can join the cost."""
    from mnemoforge.validators.answerers import embed_cache

    return embed_cache.available()


def tells(options: Sequence[str], semantic: bool = False) -> dict[str, float]:
    """Forced-choice score of each shape rule on ``options`` (the answer first); ``semantic`` adds
    the MiniLM centroid and odd one out."""
    return dict(_tells(tuple(options), semantic))


@lru_cache(maxsize=65536)
def _tells(options: tuple[str, ...], semantic: bool) -> dict[str, float]:
    lengths = [float(len(" ".join(o.split()))) for o in options]
    lex = _centrality(options, lexical_similarity)
    edit = _centrality(options, edit_similarity)
    extra = {}
    if semantic:
        sem = _centrality(options, _minilm_sim)
        extra = {
            "minilm_centroid": forced_accuracy(sem, 0),
            "minilm_odd": forced_accuracy([-x for x in sem], 0),
        }
    return extra | {
        "longest": forced_accuracy(lengths, 0),
        "shortest": forced_accuracy([-x for x in lengths], 0),
        "centroid": forced_accuracy(lex, 0),
        "odd_one_out": forced_accuracy([-x for x in lex], 0),
        "edit_centroid": forced_accuracy(edit, 0),
        "edit_odd": forced_accuracy([-x for x in edit], 0),
    }


def draw_target(rng: random.Random, n: int) -> tuple[int, int]:
    """Where the answer should stand by length and by closeness (0 = first of ``n`` options)."""
    return rng.randrange(n), rng.randrange(n)


def cost(options: Sequence[str], target: tuple[int, int], semantic: bool = False) -> float:
    """How far the set's tells are from the drawn target ranks (0 = exactly as drawn)."""
    return _cost(tuple(options), tuple(target), semantic)  # type: ignore[arg-type]


@lru_cache(maxsize=65536)
def _cost(options: tuple[str, ...], target: tuple[int, int], semantic: bool) -> float:
    n = len(options)
    t_len, t_cent = target
    want = {
        "longest": t_len == 0,
        "shortest": t_len == n - 1,
        "centroid": t_cent == 0,
        "odd_one_out": t_cent == n - 1,
        "edit_centroid": t_cent == 0,
        "edit_odd": t_cent == n - 1,
    }
    if semantic:
        want |= {"minilm_centroid": t_cent == 0, "minilm_odd": t_cent == n - 1}
    got = _tells(options, semantic)  # read only: the cached dict itself
    r_len, r_cent = _ranks(options)
    off = sum(abs(got[k] - float(v)) for k, v in want.items())
    return off + 0.05 * (abs(r_len - t_len) + abs(r_cent - t_cent))


def stratified_targets(ids: Sequence[str], seed: int, n: int = 4) -> dict[str, tuple[int, int]]:
    """Target ranks spread evenly over a family's items: in id order, each block of ``n`` items
    takes every length rank and every centrality rank once (seeded permutations). Any large subset
    of the items (what the gates keep) then holds close to 1/n answers at each rank, far closer
    than independent draws."""
    order = sorted(dict.fromkeys(ids))
    out: dict[str, tuple[int, int]] = {}
    for b in range(0, len(order), n):
        block = order[b : b + n]
        rng = derive_rng(seed, "option_balance", "targets", block[0])
        lens, cents = list(range(n)), list(range(n))
        rng.shuffle(lens)
        rng.shuffle(cents)
        out |= {qid: (lens[i], cents[i]) for i, qid in enumerate(block)}
    return out


def pick_balanced(
    answer: str,
    sets: Sequence[Sequence[str]],
    rng: random.Random,
    target: tuple[int, int] | None = None,
    semantic: bool = False,
    screen: Screen | None = None,
    question: str = "",
    close: bool | None = None,
    extra: Cost | None = None,
) -> list[str] | None:
    """Of candidate distractor sets (the answer not among them), the one whose tells best match
    ``target`` (else one drawn from ``rng``), sets ``screen`` refuses last; ties go to the
    earliest set (deterministic). With ``question``, the answer's closeness to it in meaning joins
    the cost (:func:`question_cost`; ``close``: whether the answer should be the closest); so does
    ``extra`` of the set (the answer first), when given (``ValueShare.cost``)."""
    if not sets:
        return None
    target = target or draw_target(rng, len(sets[0]) + 1)

    def total(d: Sequence[str]) -> float:
        return round(
            cost([answer, *d], target, semantic)
            + question_cost(question, [answer, *d], target, close)
            + (extra([answer, *d]) if extra else 0.0),
            6,
        )

    # by cost; the first the screen passes beats every refused one (a cost is far below PENALTY)
    order = sorted(range(len(sets)), key=lambda i: (total(sets[i]), i))
    fair = next((i for i in order if screen is None or screen([answer, *sets[i]])), order[0])
    return list(sets[fair])


def balanced_distractors(
    answer: str,
    pool: Sequence[str],
    k: int,
    rng: random.Random,
    fixed: Sequence[str] = (),
    target: tuple[int, int] | None = None,
    semantic: bool = False,
    screen: Screen | None = None,
    question: str = "",
    close: bool | None = None,
    extra: Cost | None = None,
) -> list[str] | None:
    """``k`` distractors from ``pool`` (answer excluded) whose set, with the ``fixed`` distractors
    always offered, puts the answer at ``target`` (else a drawn rank) by length and by centrality
    (``semantic``: by MiniLM centrality too; with ``question``, the answer closest in meaning to
    it as ``close`` or else the centrality target asks, :func:`question_cost`), a set ``screen``
    refuses only when no other is drawn (``extra``: a further cost of the set, the answer first);
    None when the pool is too small."""
    pool = [p for p in dict.fromkeys(pool) if p != answer and p not in fixed]
    if len(pool) < k:
        return None
    n = k + len(fixed)
    target = target or draw_target(rng, n + 1)
    best: tuple[float, list[str]] | None = None
    # a screen leaves fewer sets to meet the target with: up to four times the draws while unmet
    tries = (TRIES if screen is None else 4 * TRIES) if len(pool) > k else 1
    head = (answer, *fixed)
    seen: dict[tuple[str, ...], float] = {}  # a small pool's draws repeat: each set's cost once
    for i in range(tries):
        if i >= TRIES and best is not None and best[0] < 1.0:
            break  # a fair set close to the target (no tell off by a whole rule)
        pick = rng.sample(pool, k)
        opts = [*head, *pick]
        key = tuple(opts)
        c = seen.get(key)
        if c is None:
            c = cost(opts, target, semantic) + question_cost(question, opts, target, close)
            c = seen[key] = round(c + (extra(opts) if extra else 0.0), 6)
        if best is not None and c >= best[0]:
            continue  # cannot beat the best, screened or not (the screen is the costly part)
        c = round(c + (0.0 if screen is None or screen(opts) else PENALTY), 6)
        if best is None or c < best[0]:
            best = (c, pick)
        if c == 0:
            break
    assert best is not None
    return best[1]


def untold(question: str, semantic: bool, also: Screen | None = None) -> Screen:
    """A screen passing sets on which no option-only rule of the default ``option_only`` panel
    picks the answer decisively (``option_solvers.option_tell``) and that ``also`` passes."""
    return lambda options: (also is None or also(options)) and not option_tell(question, options, semantic)


def question_tell(question: str, options: Sequence[str]) -> float:
    """The MiniLM closest-to-the-question rule's forced accuracy on ``options`` (the answer first):
    the panel's ``meaning_closest_to_question`` solver (0 without the ``ml`` extra)."""
    if not semantic_available():
        return 0.0
    return _question_tell(question, tuple(options))


@lru_cache(maxsize=65536)
def _question_tell(question: str, options: tuple[str, ...]) -> float:
    from mnemoforge.validators.answerers import embed_cache

    vecs = embed_cache.embed([question, *options])
    sims = [round(float(x), 6) for x in embed_cache.cosine(vecs[:1], vecs[1:])[0]]
    return forced_accuracy(sims, 0)


def question_cost(
    question: str, options: Sequence[str], target: tuple[int, int], close: bool | None = None
) -> float:
    """:data:`QUESTION_WEIGHT` times how far the MiniLM closest-to-the-question rule's forced
    accuracy on ``options`` (the answer first) is from what is asked: 1 when ``close`` (else when
    ``target``'s centrality rank is 0, a quarter of the items, ``stratified_targets``), 0 otherwise.
    So over a release that rule answers about a quarter of the items, as
    :func:`by_question_target` keeps it for smm's clean sets. 0 without a question or without the
    ``ml`` extra."""
    if not question or not semantic_available():
        return 0.0
    want = target[1] == 0 if close is None else close
    return QUESTION_WEIGHT * abs(question_tell(question, options) - float(want))


class QuestionShare:
    """How often the MiniLM closest-to-the-question rule answers the items planned so far, per
    group (a category): the next item's set is asked to put its answer closest to the question
    only while that rule answers fewer than 1/n of the group's items, counted with the next one.
    Sets with no free choice (a six-person cast leaves a four-name set at most four distractor
    sets) keep whatever standing their names give; the items with a choice then make up for them,
    so over a category the rule answers about 1/n of the items, where a fixed quarter of targets
    left it at 0.4 on companion name sets."""

    def __init__(self, n: int = 4) -> None:
        self.n = n
        self.hits: dict[str, float] = {}
        self.count: dict[str, int] = {}

    def close(self, group: str) -> bool:
        """Whether the next item of ``group`` should have its answer closest to its question."""
        return self.hits.get(group, 0.0) + 1 <= (self.count.get(group, 0) + 1) / self.n + 1e-9

    def add(self, group: str, question: str, options: Sequence[str] | None, sign: int = 1) -> None:
        """Count a planned item (``sign`` -1: one dropped again) with ``options`` (answer first)."""
        if options:
            self.count[group] = self.count.get(group, 0) + sign
            self.hits[group] = self.hits.get(group, 0.0) + sign * question_tell(question, options)


VALUE_WEIGHT = 4.0
"""The cost of a set on which the value prior's standing is not what the item asks (``ValueShare``)."""


class ValueShare:
    """The leave-one-out value prior of the shortcut panel (``value_prior_category``: the option
    most often keyed among the group's other items) as items are planned, per group (a category).
    An item whose set may choose is asked to put its answer first by that prior only while the
    planned items leave room for it (fewer than 1/n of them, counted with the next one; a quarter of
    the items are asked at all, by their length target): the values a World keys often (the people
    who usually come along) then stand as distractors as often as they are keyed."""

    def __init__(self, n: int = 4) -> None:
        self.n = n
        self.keyed: dict[str, dict[str, int]] = {}
        self.hits: dict[str, float] = {}
        self.count: dict[str, int] = {}

    def tell(self, group: str, options: Sequence[str]) -> float:
        """The prior's forced accuracy on ``options`` (the answer first) over the planned items."""
        keyed = self.keyed.get(group, {})
        return forced_accuracy([float(keyed.get(o, 0)) for o in options], 0)

    def room(self, group: str) -> bool:
        """Whether the next item of ``group`` may be answered by the prior."""
        return self.hits.get(group, 0.0) + 1 <= (self.count.get(group, 0) + 1) / self.n + 1e-9

    def tips(self, group: str, options: Sequence[str] | None, slack: float = 1.0) -> bool:
        """Whether a set (answer first) the prior answers would put the group's answered share
        more than ``slack`` items over 1/n of its planned items."""
        if not options:
            return False
        got = self.tell(group, options)
        return (
            got > 1.0 / len(options)
            and self.hits.get(group, 0.0) + got > (self.count.get(group, 0) + 1) / self.n + slack + 1e-9
        )

    def cost(self, group: str, want: bool) -> Cost:
        """:data:`VALUE_WEIGHT` times how far the prior's forced accuracy on a set is from ``want``."""
        return lambda options: VALUE_WEIGHT * abs(self.tell(group, options) - float(want))

    def add(self, group: str, options: Sequence[str] | None, sign: int = 1) -> None:
        """Count a planned item (``sign`` -1: one dropped again) with ``options`` (answer first)."""
        if not options:
            return
        if sign < 0:
            self.keyed[group][options[0]] -= 1
        self.count[group] = self.count.get(group, 0) + sign
        self.hits[group] = self.hits.get(group, 0.0) + sign * self.tell(group, options)
        if sign > 0:
            keyed = self.keyed.setdefault(group, {})
            keyed[options[0]] = keyed.get(options[0], 0) + 1


def by_question_target(question: str, answer: str, sets: Sequence[Sequence[str]], close: bool) -> list:
    """Of ``sets`` (distractors), those on which the answer is the option closest in meaning to the
    question when ``close`` (a quarter of items, by their stratified centrality target), else those
    on which it is not; all of them when none fits, so the rule stays at chance over a release."""
    fit = [d for d in sets if (question_tell(question, [answer, *d]) > 0) == close]
    return fit or list(sets)
