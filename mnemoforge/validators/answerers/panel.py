"""A panel of answerers with a decision rule, and rotation-averaged exact match for MCQ.

Model calls run concurrently: a panel asks its members at once, and ``rotation_em`` asks the
rotations at once (each through :func:`map_ordered`, a bounded thread pool whose results come
back in input order, so verdicts never depend on which call finishes first). Each network
backend still caps its own in-flight requests and request rate (``max_concurrency``,
``requests_per_second``); the gate runner adds a pool over items (:data:`PANEL_WORKERS`).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from mnemoforge.schemas.questions import Question
from mnemoforge.validators.answerers.judges import ExactMatchJudge
from mnemoforge.validators.answerers.protocol import LETTERS, Answer, Answerer, Context, Judge

T = TypeVar("T")
R = TypeVar("R")

PANEL_WORKERS = max(1, int(os.environ.get("MNEMOFORGE_PANEL_WORKERS", "8")))
"""Default concurrent model calls for gate panels (env ``MNEMOFORGE_PANEL_WORKERS``; 1 = serial)."""


def map_ordered(fn: Callable[[T], R], items: Iterable[T], workers: int) -> list[R]:
    """``[fn(x) for x in items]`` on up to ``workers`` threads; results in input order."""
    seq = list(items)
    if workers <= 1 or len(seq) <= 1:
        return [fn(x) for x in seq]
    # each call runs in a copy of the caller's context, so a failure sink set around the caller
    # (collect_failures) still receives what the worker threads record
    contexts = [contextvars.copy_context() for _ in seq]
    with ThreadPoolExecutor(max_workers=min(workers, len(seq))) as pool:
        return list(pool.map(lambda c, x: c.run(fn, x), contexts, seq))


_FAILURES: contextvars.ContextVar[list[Answer] | None] = contextvars.ContextVar(
    "panel_failures", default=None
)
_FAILURES_LOCK = threading.Lock()


@contextlib.contextmanager
def collect_failures() -> Iterator[list[Answer]]:
    """Collect the call failures (answers with ``call_failure`` set) of every panel asked inside
    the block, also from the threads :func:`map_ordered` starts; the gate runner wraps each item's
    check in it, to record the verdict as undecided and keep it out of the verdict cache."""
    sink: list[Answer] = []
    token = _FAILURES.set(sink)
    try:
        yield sink
    finally:
        _FAILURES.reset(token)


def _record_failure(ans: Answer) -> None:
    sink = _FAILURES.get()
    if sink is not None and ans.call_failure:
        with _FAILURES_LOCK:
            sink.append(ans)


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
        workers: int = 4,
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
        self.workers = workers

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
        order_inv = {a.id for a in self.answerers if memo is not None and options and _invariant(a)}
        todo = [a for a in self.answerers if not (a.id in order_inv and memo is not None and a.id in memo)]
        fresh = dict(
            zip(
                [a.id for a in todo],
                map_ordered(lambda a: self._ask_one(a, question, options, context), todo, self.workers),
                strict=True,
            )
        )
        for a in self.answerers:
            if a.id in fresh:
                ans = fresh[a.id]
                if a.id in order_inv and memo is not None:
                    memo[a.id] = ans
                _record_failure(ans)
            else:
                assert memo is not None
                ans = _moved(memo[a.id], options or [])
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


def _invariant(a: Answerer) -> bool:
    return bool(getattr(a, "order_invariant", False))


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
    shown = [[options[i] for i in rot] for rot in rotations]
    for a in panel.answerers:  # asked once, on the first rotation, before the rotations run at once
        if _invariant(a):
            memo[a.id] = panel._ask_one(a, question, shown[0], context)
    # with every member answered once above, the rotations only re-place letters: no threads
    workers = 1 if all(_invariant(a) for a in panel.answerers) else panel.workers
    results = map_ordered(
        lambda opts: panel.ask(question, opts, reference, context, memo=memo), shown, workers
    )
    n = len(results)
    per = {aid: sum(r.correct[aid] for r in results) / n for aid in panel.ids}
    return RotationEM(per, sum(r.verdict for r in results) / n, panel.rule, results)


def question_rotation_em(panel: Panel, q: Question, context: Context) -> RotationEM:
    """``rotation_em`` for a generated MCQ question (its options, rotations and answer)."""
    if not q.options or not q.rotations:
        raise ValueError(f"question {q.id} has no options and rotations")
    return rotation_em(panel, q.question, q.options, q.rotations, q.answer, context)
