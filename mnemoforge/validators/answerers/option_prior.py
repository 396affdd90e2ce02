"""An answerer that looks only at the option set: it finds the answer where the distractors give
it away, and abstains otherwise.

Generated distractors often betray the answer through their structure rather than their content:
each distractor changes one slot of the answer (the answer holds the majority value of every
slot), near variants are built around the answer (it is the one the others are closest to), the
parts of a total are offered next to it (it equals the sum of two options), or it alone has a
different form. This answerer tests those priors — the ones a model learns from option sets — and
answers only when one of them singles out exactly one option. Its choice depends on the option
set, never on their order, so on the option-only gate a hit is a hit under every rotation.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from itertools import combinations

from mnemoforge.validators.answerers.protocol import Answer, Context
from mnemoforge.validators.answerers.textnorm import normalize

_SLOTS = re.compile(r"\s*(?:;|/|,|\band\b|&)\s*")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")


def _slots(option: str) -> list[str]:
    return list(_slot_tuple(option))


@lru_cache(maxsize=65536)
def _slot_tuple(option: str) -> tuple[str, ...]:
    return tuple(normalize(p) for p in _SLOTS.split(option) if normalize(p))


def slot_majority(options: list[str]) -> int | None:
    """Multi-part options of one shape: the option holding the most frequent value of every slot."""
    parts = [_slots(o) for o in options]
    n = len(parts[0])
    if n < 2 or any(len(p) != n for p in parts):
        return None
    counts = [Counter(p[i] for p in parts) for i in range(n)]
    score = [sum(counts[i][p[i]] for i in range(n)) for p in parts]
    best = max(score)
    winners = [i for i, s in enumerate(score) if s == best]
    return winners[0] if len(winners) == 1 and best > n else None


def _form(option: str) -> str:
    """The option's shape: digits as 9, letters as a, runs collapsed ("27-14" -> "9-9")."""
    shape = re.sub(r"\d+", "9", normalize(option) if not re.search(r"\d", option) else option.lower())
    shape = re.sub(r"[a-z]+", "a", shape)
    return re.sub(r"\s+", " ", shape)


def unique_form(options: list[str]) -> int | None:
    """Options with figures in them (prices, scores, times): exactly one has a lone format.

    Word options are left alone: word counts vary naturally between names, so a lone shape there
    is chance, not a construction artefact."""
    if not all(re.search(r"\d", o) for o in options):
        return None
    forms = [_form(o) for o in options]
    counts = Counter(forms)
    if len(counts) != 2:
        return None
    lone = [i for i, f in enumerate(forms) if counts[f] == 1]
    return lone[0] if len(lone) == 1 else None


def _edit1(a: str, b: str) -> bool:
    """At most one substitution, insertion, deletion or adjacent transposition apart."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1
        return len(diff) == 1 or (swapped and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


@lru_cache(maxsize=65536)
def _near(a: str, b: str) -> bool:
    """Near variants: one edit apart, or the same parts in another order ("27-14" / "14-27")."""
    parts = lambda x: sorted(p for p in re.split(r"[^a-z0-9.]+", x) if p)  # noqa: E731
    return _edit1(a, b) or (a != b and parts(a) == parts(b))


def near_variant_centre(options: list[str]) -> int | None:
    """Near variants built around the answer: one option has more near variants among the others
    than any other option (and at least two)."""
    norm = [o.lower().strip() for o in options]
    if len(set(norm)) != len(norm):
        return None
    degree = [sum(_near(a, b) for j, b in enumerate(norm) if j != i) for i, a in enumerate(norm)]
    best = max(degree)
    winners = [i for i, d in enumerate(degree) if d == best]
    return winners[0] if len(winners) == 1 and best >= 2 else None


def sum_of_two(options: list[str]) -> int | None:
    """Numeric options where exactly one equals the sum of two others (its addends are offered)."""
    if not all(_NUMBER.match(o.strip()) for o in options):
        return None
    vals = [float(o) for o in options]
    hits = [
        i
        for i, v in enumerate(vals)
        if any(vals[a] + vals[b] == v for a, b in combinations([j for j in range(len(vals)) if j != i], 2))
    ]
    return hits[0] if len(hits) == 1 else None


PRIORS: dict[str, Callable[[list[str]], int | None]] = {
    "sum_of_two": sum_of_two,
    "slot_majority": slot_majority,
    "near_variant_centre": near_variant_centre,
    "unique_form": unique_form,
}


class OptionPriorAnswerer:
    """Answers MCQ from the option set alone when a structural prior singles one option out."""

    id = "option_prior:v1"
    order_invariant = True  # reads the option set, not its order (see panel)

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer:
        if not options or len(options) < 3:
            return Answer.failed(self.id, "open question: no option set to read")
        for name, prior in PRIORS.items():
            pick = prior(list(options))
            if pick is not None:
                return Answer.mcq(self.id, options, pick, json.dumps({"prior": name}))
        return Answer.failed(self.id, "no structural prior singles out an option")
