"""Judges for open answers, and their calibration on a generated control set.

A judge is ``exact`` (normalised exact match, no model) or a model (a SPEC as for ``--model``)
asked with a versioned prompt from ``assets/prompts/``: ``eval_judge_<family>_<category>``, else
``eval_judge_<family>``, else ``eval_judge``. Its id, prompt version and hash, and decoding are
recorded with every score.

**Calibration.** For each evaluated item the control set holds known-wrong answers (the item's
distractors, near-miss numbers, and for conflict items the stale value) and known-right rewordings
of the reference. The judge scores them all; the false-accept rate (wrong answers it accepts) and
the false-reject rate (right answers it rejects) are reported next to the scores.
"""

from __future__ import annotations

import re
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from mnemoforge.evaluation.keys import ItemKey
from mnemoforge.evaluation.models import EvalModel, EvalRequest
from mnemoforge.validators.answerers.judges import exact_match, parse_judge_reply
from mnemoforge.validators.prompts import Prompt, load_prompt

REWORDINGS = ("{a}", "It is {a}.", "I believe the answer is {a}.", "{a}, as far as I remember")
JUDGE_SYSTEM = "You are a careful, strict grader. Reply with one digit."


@dataclass(frozen=True)
class Verdict:
    score: float
    ok: bool
    raw: str
    prompt: str | None = None


def judge_prompt(family: str, category: str) -> Prompt:
    for name in (f"eval_judge_{family}_{category}", f"eval_judge_{family}", "eval_judge"):
        try:
            return load_prompt(name)
        except FileNotFoundError:
            continue
    raise FileNotFoundError("assets/prompts/eval_judge.txt is missing")


class Judge:
    """Scores (question, reference, response) triples: exact match, or a model with a versioned prompt."""

    def __init__(self, model: EvalModel | None = None) -> None:
        self.model = model
        self.id = "exact_match" if model is None else f"model:{model.id}"

    def record(self) -> dict[str, Any]:
        if self.model is None:
            return {"id": self.id, "kind": "exact"}
        return {"id": self.id, "kind": "model", "name": self.model.name, "decoding": self.model.decoding}

    def score(self, key: ItemKey, question: str, response: str, tag: str = "") -> Verdict:
        refs = [key.answer, *key.aliases]
        if self.model is None:
            return Verdict(float(any(exact_match(r, response) for r in refs)), True, response)
        prompt = judge_prompt(key.family, key.category)
        text = prompt.render(question=question, reference=" / ".join(refs), response=response)
        reply = self.model.generate(EvalRequest(f"{key.id}#judge{tag}", JUDGE_SYSTEM, text))
        pid = f"{prompt.name}@v{prompt.version}:{prompt.sha256[:12]}"
        if not reply.ok:
            return Verdict(0.0, False, reply.error or "", pid)
        value = parse_judge_reply(reply.text)
        if value is None:
            return Verdict(0.0, False, reply.text, pid)
        return Verdict(1.0 if value >= 0.5 else 0.0, True, reply.text, pid)


def _near_numbers(answer: str) -> list[str]:
    """The answer with one number moved by one (dates: the day)."""
    out = []
    for m in re.finditer(r"\d+", answer):
        n = int(m.group())
        for d in (1, -1):
            if n + d < 0:
                continue
            new = str(n + d).zfill(len(m.group()))
            cand = answer[: m.start()] + new + answer[m.end() :]
            if cand != answer and cand not in out:
                out.append(cand)
        break  # the first number only, so the set stays small
    return out


def control_set(key: ItemKey) -> list[dict[str, Any]]:
    """Known-wrong and known-right answers for one item (deterministic, no randomness needed)."""
    if key.kind == "call" or not key.answer:
        return []
    refs = {key.answer, *key.aliases}
    rows: list[dict[str, Any]] = []
    wrong = [o for o in (key.options or []) if o not in refs and not any(exact_match(r, o) for r in refs)]
    if wrong and key.category == "conflict_resolution":
        rows.append({"kind": "stale_value", "response": wrong[0], "right": False})
        wrong = wrong[1:]
    rows += [{"kind": "distractor", "response": o, "right": False} for o in wrong[:2]]
    rows += [
        {"kind": "near_miss_number", "response": o, "right": False} for o in _near_numbers(key.answer)[:1]
    ]
    for t in REWORDINGS[1:3]:
        rows.append({"kind": "rewording", "response": t.format(a=key.answer), "right": True})
    return rows


def calibrate(
    judge: Judge, keys: list[ItemKey], questions: dict[str, str], workers: int = 4
) -> dict[str, Any]:
    """Judge every item's control set; false-accept and false-reject rates, overall and per kind."""
    tasks = [(k, c, n) for k in keys for n, c in enumerate(control_set(k))]

    def run(t: tuple[ItemKey, dict, int]) -> Verdict:
        k, c, n = t
        return judge.score(k, questions[k.id], c["response"], tag=f":control{n}")

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        verdicts = list(pool.map(run, tasks))
    per: dict[str, list[tuple[bool, Verdict]]] = defaultdict(list)
    rows = []
    for (k, c, _), v in zip(tasks, verdicts, strict=True):
        per[c["kind"]].append((c["right"], v))
        rows.append({"item": k.id, **c, "accepted": v.ok and v.score >= 0.5, "judge_ok": v.ok, "raw": v.raw})
    wrong = [r for r in rows if not r["right"]]
    right = [r for r in rows if r["right"]]

    def rate(xs: list[dict], accepted: bool) -> float | None:
        return sum(r["accepted"] is accepted for r in xs) / len(xs) if xs else None

    return {
        "judge": judge.record(),
        "controls": len(rows),
        "known_wrong": len(wrong),
        "known_right": len(right),
        "false_accept": rate(wrong, True),
        "false_reject": rate(right, False),
        "invalid": sum(not r["judge_ok"] for r in rows) / len(rows) if rows else None,
        "by_kind": {
            kind: {"n": len(vs), "accept_rate": sum(v.ok and v.score >= 0.5 for _, v in vs) / len(vs)}
            for kind, vs in sorted(per.items())
        },
        "rows": rows,
    }
