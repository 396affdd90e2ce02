"""A panel of answerers with a decision rule, and rotation-averaged exact match for MCQ."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from mnemoforge.schemas.questions import Question
from mnemoforge.validators.answerers.judges import ExactMatchJudge
from mnemoforge.validators.answerers.protocol import LETTERS, Answer, Answerer, Context, Judge

Rule = Literal["any", "all", "majority"]
RULES: tuple[str, ...] = ("any", "all", "majority")


def apply_rule(rule: str, correct: Sequence[bool]) -> bool:
    """``any``: at least one; ``all``: every one (and at least one member); ``majority``: more than half."""
    if rule == "any":
        return any(correct)
    if rule == "all":
        return bool(correct) and all(correct)
    if rule == "majority":
        return sum(correct) * 2 > len(correct)
    raise ValueError(f"unknown panel rule {rule!r}; known: {', '.join(RULES)}")


@dataclass(frozen=True)
class PanelResult:
    """Each answerer's reply and correctness for one question, and the panel's verdict."""

    question: str
    answers: dict[str, Answer]
    correct: dict[str, bool]
    rule: str
    verdict: bool
    scores: dict[str, float] = field(default_factory=dict)


class Panel:
    """Answerers asked the same question; the rule turns their correctness into one verdict.

    An MCQ answer is correct when its letter is the reference's letter; an open answer when the
    judge (exact match by default) scores it at least ``threshold``. A failed answer is wrong.
    """

    def __init__(
        self,
        answerers: Sequence[Answerer],
        rule: Rule = "majority",
        judge: Judge | None = None,
        threshold: float = 0.5,
    ) -> None:
        if not answerers:
            raise ValueError("a panel needs at least one answerer")
        ids = [a.id for a in answerers]
        if len(set(ids)) != len(ids):
            raise ValueError(f"answerer ids must be unique: {ids}")
        apply_rule(rule, [])  # validates the rule name
        self.answerers, self.rule = list(answerers), rule
        self.judge: Judge = judge or ExactMatchJudge()
        self.threshold = threshold
        self._failures: list[Answer] = []
        self._failures_lock = threading.Lock()

    def drain_failures(self) -> list[Answer]:
        """The answers that were call failures since the last drain (the gate runner reads them
        after each item, to record the verdict as undecided and keep it out of the cache)."""
        with self._failures_lock:
            out, self._failures = self._failures, []
        return out

    @property
    def ids(self) -> list[str]:
        return [a.id for a in self.answerers]

    def ask(
        self,
        question: str,
        options: list[str] | None,
        reference: str,
        context: Context,
        aliases: Sequence[str] = (),
        memo: dict[str, Answer] | None = None,
    ) -> PanelResult:
        """Ask every answerer; ``reference`` is the answer text (for MCQ, one of ``options``).

        Open answers take the judge's best score over the reference and its ``aliases``. With a
        ``memo`` (one per option set, kept across rotations), an answerer whose choice does not
        depend on option order (``order_invariant = True``) is asked once; later rotations reuse
        its chosen text at its new letter.
        """
        gold = _reference_letter(options, reference) if options else None
        answers, correct, scores = {}, {}, {}
        for a in self.answerers:
            reuse = memo is not None and options and getattr(a, "order_invariant", False)
            if reuse and memo is not None and a.id in memo:
                ans = _moved(memo[a.id], options or [])
            else:
                ans = self._ask_one(a, question, options, context)
                if reuse and memo is not None:
                    memo[a.id] = ans
                if ans.call_failure:
                    with self._failures_lock:
                        self._failures.append(ans)
            answers[a.id] = ans
            if not ans.ok:
                scores[a.id] = 0.0
            elif options:
                scores[a.id] = float(ans.choice == gold)
            else:
                refs = [reference, *aliases]
                scores[a.id] = max(self.judge.score(question, r, ans.text).score for r in refs)
            correct[a.id] = ans.ok and scores[a.id] >= self.threshold
        verdict = apply_rule(self.rule, [correct[i] for i in self.ids])
        return PanelResult(question, answers, correct, self.rule, verdict, scores)

    @staticmethod
    def _ask_one(a: Answerer, question: str, options: list[str] | None, context: Context) -> Answer:
        try:
            ans = a.answer(question, options, context)
        except Exception as e:  # a broken plugin is marked, never a crash or a None row
            ans = Answer.failed(a.id, f"answerer raised {type(e).__name__}: {e}", call_failure="raised")
        if not isinstance(ans, Answer):
            ans = Answer.failed(a.id, f"answerer returned {type(ans).__name__}, not Answer")
        return ans

    def ask_question(self, q: Question, context: Context) -> PanelResult:
        """Ask a generated question as stored (options in their stored order)."""
        return self.ask(q.question, q.options, q.answer, context, q.answer_aliases)


def _moved(prev: Answer, options: Sequence[str]) -> Answer:
    """An order-invariant answer re-placed under the letter its option text has now."""
    if not prev.ok or prev.text not in options:
        return prev
    return Answer.mcq(prev.answerer_id, options, list(options).index(prev.text), prev.raw)


def _reference_letter(options: Sequence[str], reference: str) -> str:
    if reference not in options:
        raise ValueError(f"reference {reference!r} is not one of the options {list(options)}")
    return LETTERS[list(options).index(reference)]


@dataclass(frozen=True)
class RotationEM:
    """Rotation-averaged exact match: the fraction of rotations answered correctly."""

    per_answerer: dict[str, float]
    panel: float
    rule: str
    results: list[PanelResult]


def rotation_em(
    panel: Panel,
    question: str,
    options: Sequence[str],
    rotations: Sequence[Sequence[int]],
    reference: str,
    context: Context,
) -> RotationEM:
    """Ask the panel once per rotation (``rotation[k]`` is the option index shown under letter k).

    Returns each answerer's rotation-averaged exact match and the panel rule's, so an answerer
    that always says "A" scores 0.25 when four rotations move the answer through A-D.
    """
    if not rotations:
        raise ValueError("rotation_em needs at least one rotation")
    for rot in rotations:
        if sorted(rot) != list(range(len(options))):
            raise ValueError(f"rotation {list(rot)} is not a permutation of {len(options)} options")
    memo: dict[str, Answer] = {}  # order-invariant answerers are asked once for the option set
    results = [
        panel.ask(question, [options[i] for i in rot], reference, context, memo=memo) for rot in rotations
    ]
    n = len(results)
    per = {aid: sum(r.correct[aid] for r in results) / n for aid in panel.ids}
    return RotationEM(per, sum(r.verdict for r in results) / n, panel.rule, results)


def question_rotation_em(panel: Panel, q: Question, context: Context) -> RotationEM:
    """``rotation_em`` for a generated MCQ question (its options, rotations and answer)."""
    if not q.options or not q.rotations:
        raise ValueError(f"question {q.id} has no options and rotations")
    return rotation_em(panel, q.question, q.options, q.rotations, q.answer, context)
