"""Judges: exact match, token F1, and a wrapper turning any ``prompt -> text`` callable into a judge."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from mnemoforge.validators.answerers.protocol import JudgeScore
from mnemoforge.validators.answerers.textnorm import answer_parts, normalize

Reference = str | Sequence[str]


def _refs(reference: Reference) -> list[str]:
    return [reference] if isinstance(reference, str) else list(reference)


def exact_match(reference: str, response: str) -> bool:
    """Normalised equality; name lists ("A, B and C") compare as sets."""
    if normalize(reference) == normalize(response):
        return True
    ref, got = answer_parts(reference), answer_parts(response)
    return bool(ref) and ref == got


class ExactMatchJudge:
    """1 if the response equals the reference (or any alias) after normalisation, else 0."""

    id = "exact_match"

    def score(self, question: str, reference: Reference, response: str) -> JudgeScore:
        for ref in _refs(reference):
            if exact_match(ref, response):
                return JudgeScore(1.0, f"matches {ref!r}", response)
        return JudgeScore(0.0, "no reference matches", response)


def token_f1(reference: str, response: str) -> float:
    """SQuAD token F1 between normalised reference and response."""
    ref, got = normalize(reference).split(), normalize(response).split()
    if not ref or not got:
        return float(ref == got)
    common = sum((Counter(ref) & Counter(got)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(got), common / len(ref)
    return 2 * precision * recall / (precision + recall)


class TokenF1Judge:
    """Best token F1 over the reference and its aliases."""

    id = "token_f1"

    def score(self, question: str, reference: Reference, response: str) -> JudgeScore:
        best, ref = max((token_f1(r, response), r) for r in _refs(reference))
        return JudgeScore(best, f"token F1 {best:.3f} against {ref!r}", response)


JUDGE_TEMPLATE = """You are grading an answer to a question about a person's photo and video album.
Question: {question}
Reference answer: {reference}
Candidate answer: {response}
Is the candidate answer correct? Reply with a single number: 1 if correct, 0 if not \
(a value between 0 and 1 for partial credit), then optionally a short reason."""

_SCORE = re.compile(r"^\W*(?:score\s*[:=]?\s*)?(\d+(?:\.\d+)?|\.\d+)(?!\d|\.\d)", re.IGNORECASE)
_WORDS = {"correct": 1.0, "yes": 1.0, "incorrect": 0.0, "wrong": 0.0, "no": 0.0}


def parse_judge_reply(reply: str) -> float | None:
    """A score in [0, 1] from the reply's start ("1", "0.5", "Score: 0", "Correct"), else None."""
    text = reply.strip()
    m = _SCORE.match(text)
    if m:
        value = float(m.group(1))
        return value if 0.0 <= value <= 1.0 else None
    first = re.match(r"^\W*([a-z]+)", text.lower())
    return _WORDS.get(first.group(1)) if first else None


class ModelJudge:
    """A judge backed by any ``prompt -> text`` callable (a local model, a chat client).

    A malformed reply, or a call that raises, scores 0 with ``ok=False``; never an exception.
    """

    def __init__(self, generate: Callable[[str], str], name: str = "model", template: str = JUDGE_TEMPLATE):
        self.generate = generate
        self.template = template
        self.id = f"model_judge:{name}"

    def score(self, question: str, reference: Reference, response: str) -> JudgeScore:
        refs = _refs(reference)
        prompt = self.template.format(question=question, reference=" / ".join(refs), response=response)
        try:
            raw = self.generate(prompt)
        except Exception as e:  # a network or model failure is a verdict, not a crash
            return JudgeScore(0.0, f"judge call failed: {type(e).__name__}: {e}", "", ok=False)
        if not isinstance(raw, str):
            return JudgeScore(0.0, "malformed judge reply", repr(raw), ok=False)
        value = parse_judge_reply(raw)
        if value is None:
            return JudgeScore(0.0, "malformed judge reply", raw, ok=False)
        rest = raw.strip().split("\n", 1)
        reason = rest[1].strip() if len(rest) > 1 and rest[1].strip() else f"model scored {value:g}"
        return JudgeScore(value, reason, raw)
