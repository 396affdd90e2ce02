"""Planning against the text-only sentence solver: an item's option set is drawn so that reading
the agent-visible sentences (messages, transcripts, caption tables) without timestamps does not
pick the answer more often than chance over a category.

The shortcut panel's ``text_sentences`` solver (:class:`~mnemoforge.validators.sentence_retrieval.
SentenceIndex`) scores each option by the best sentence before the item's cutoff that states it
with the question's words. On a recall item ("who was with Ana at the market in May?") the
answer's name sits in a line of that visit, but so may the distractors' names in lines of other
visits: a set drawn among the people who were also talked about with the question's words leaves
the solver a tie or a wrong pick, and the asked time is what decides. :class:`TextShare` counts
the solver's forced accuracy on the planned items of each group (a category) and, once a group
has its chance share of answered items, costs every set the solver answers, so the option
search prefers one it does not; an item with no such set is passed over while the group is
full (:meth:`TextShare.tips`), as ``OptionRuleShare`` does for the lexical option-only rules.

The same share also holds the ``text_only_clue`` gate's retrieval solvers (:class:`GateRetrieval`:
BM25 and MiniLM over the text before the cutoff, a *decisive* pick rejects an item that claims
visual evidence): a set they answer costs more than any other, and an item whose best set they
still answer is passed over, since the gate would reject it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from mnemoforge.generators.option_balance import Cost
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.validators.answerers.option_solvers import forced_accuracy
from mnemoforge.validators.panel_gates import claims_visual
from mnemoforge.validators.sentence_retrieval import SentenceIndex, agent_passages
from mnemoforge.validators.text_retrieval import MINILM_MARGIN, TextHistory, decisive_pick, written_in

TEXT_WEIGHT = 4.0
"""The cost of a set the text solver answers once its group is full: more than any one option-only
tell off target (1 per rule) or the question-closeness cost, far below a refused set's penalty."""
GATE_WEIGHT = 50.0
"""The cost of a set the ``text_only_clue`` gate's retrieval answers (the gate would reject the item):
above every balance cost, below a set refused outright (``option_balance.PENALTY``)."""
SLACK = 1.0
"""Items' worth of solver hits a group may run over its chance share before an answered set is
passed over (the gates then drop some items, and a category of a few items keeps a free one)."""


class TextShare:
    """The text-only sentence solver's forced accuracy on the items planned so far, per group."""

    def __init__(
        self,
        observations: Iterable[Observation],
        captions: Iterable[Mapping[str, object]] = (),
        n: int = 4,
    ) -> None:
        obs = list(observations)
        self.index = SentenceIndex(agent_passages(obs, captions))
        self.gate = GateRetrieval(obs)
        self.n = n
        self.hits: dict[str, float] = {}
        self.count: dict[str, int] = {}
        self._scores: dict[tuple[str, int | None, str], float] = {}

    def tell(self, q: Question, options: Sequence[str]) -> float:
        """The solver's forced accuracy on ``options`` (the answer first) for ``q``'s question and
        cutoff; each option's score is its own (cached), whatever the set around it."""
        scores = []
        for o in options:
            k = (q.question, q.cutoff, o)
            if k not in self._scores:
                self._scores[k] = self.index.scores(q.question, [o], q.cutoff)[0]
            scores.append(self._scores[k])
        return forced_accuracy(scores, 0)

    def _room(self, group: str) -> float:
        """The solver accuracy the group's next item may have and stay within its chance share and
        :data:`SLACK`."""
        return (self.count.get(group, 0) + 1) / self.n + SLACK - self.hits.get(group, 0.0) + 1e-9

    def cost(self, group: str, q: Question) -> Cost:
        """A set cost (answer first) for ``q`` as the group stands now: :data:`TEXT_WEIGHT` times the
        solver's accuracy above chance on a set that would put the group over its room (0 for the
        others), plus :data:`GATE_WEIGHT` on a set the gate's retrieval answers."""
        visual = self.gate.applies(q)
        room = self._room(group)
        seen: dict[tuple[str, ...], float] = {}  # a small pool's draws repeat: each set once

        def c(options: Sequence[str]) -> float:
            key = tuple(options)
            if key not in seen:
                got = self.tell(q, options)
                over = got - 1.0 / len(options)
                extra = TEXT_WEIGHT * over if over > 0 and got > room else 0.0
                seen[key] = extra + (GATE_WEIGHT if visual and self.gate.picks(q, options) else 0.0)
            return seen[key]

        return c

    def tips(self, group: str, q: Question) -> bool:
        """Whether ``q``'s set (drawn) would put the group's answered share over its room, or is
        one the ``text_only_clue`` gate's retrieval answers."""
        if not q.options:
            return False
        if self.gate.applies(q) and self.gate.picks(q, q.options):
            return True
        return self.tell(q, q.options) > self._room(group)

    def add(self, group: str, q: Question, sign: int = 1) -> None:
        """Count a planned item (``sign`` -1: one dropped again)."""
        if q.options:
            self.count[group] = self.count.get(group, 0) + sign
            self.hits[group] = self.hits.get(group, 0.0) + sign * self.tell(q, q.options)


class GateRetrieval:
    """The ``text_only_clue`` gate's BM25 and MiniLM retrieval (``validators/text_retrieval``) as a
    per-option score: each option's score depends on the question, the cutoff and the option alone,
    so the scores are kept and a set is judged from them (MiniLM only with the ``ml`` extra)."""

    def __init__(self, observations: Sequence[Observation]) -> None:
        from mnemoforge.validators.answerers import embed_cache

        self.history = TextHistory(observations)
        self.by_id = {o.id: o for o in observations}
        self.minilm = embed_cache.available()
        self._visual: dict[str, bool] = {}
        self._top: dict[tuple[str, int | None], tuple[int, list[str], list[int], np.ndarray | None]] = {}
        self._scores: dict[tuple[str, int | None, str], tuple[float, float]] = {}
        self._written: dict[tuple[str, int | None], bool] = {}

    def applies(self, q: Question) -> bool:
        """Whether the gate runs retrieval on ``q`` (an item that claims visual evidence)."""
        if q.id not in self._visual:
            self._visual[q.id] = claims_visual(q, [self.by_id[e] for e in q.evidence if e in self.by_id])
        return self._visual[q.id]

    def _question(self, q: Question) -> tuple[int, list[str], list[int], np.ndarray | None]:
        k = (q.question, q.cutoff)
        if k not in self._top:
            m, q_terms, top = self.history.bm25_top(q)
            self._top[k] = (m, q_terms, top, self.history.minilm_near(q) if self.minilm else None)
        return self._top[k]

    def _score(self, q: Question, option: str) -> tuple[float, float]:
        k = (q.question, q.cutoff, option)
        if k not in self._scores:
            m, q_terms, top, near = self._question(q)
            sem = 0.0
            if near is not None:
                from mnemoforge.validators.answerers import embed_cache

                sem = round(float(embed_cache.cosine(embed_cache.embed([option]), near).max()), 4)
            self._scores[k] = (self.history.bm25_option(option, m, q_terms, top), sem)
        return self._scores[k]

    def picks(self, q: Question, options: Sequence[str]) -> bool:
        """Whether BM25, or MiniLM on an answer written before the cutoff, picks ``options[0]``
        decisively, as ``text_retrieval.retrieval_shortcut`` does."""
        scores = [self._score(q, o) for o in options]
        if decisive_pick([b for b, _ in scores]) == 0:
            return True
        if not self.minilm or decisive_pick([s for _, s in scores], MINILM_MARGIN) != 0:
            return False
        k = (options[0], q.cutoff)
        if k not in self._written:
            trial = q.model_copy(update={"answer": options[0]})
            self._written[k] = written_in(trial, self.history.texts_before(trial))
        return self._written[k]


def joined(*costs: Cost | None) -> Cost | None:
    """One set cost summing the given ones (None where none is given)."""
    given = [c for c in costs if c is not None]
    if not given:
        return None
    return lambda options: sum(c(options) for c in given)
