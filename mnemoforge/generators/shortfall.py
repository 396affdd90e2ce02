"""Categories a release holds fewer items of than its theme asks for: one warning line each.

The requested counts come from the theme, as the family reads it (``Family.requested``). A
category is short when the World yields too few candidates (written to the run as
``questions/shortfall.json`` by the questions stage) or, for families that do not warn while
planning, when too few candidates survive the gates (:func:`after_gates`, added by the gates
stage). The shortfall is carried in the funnel and listed by the release card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from mnemoforge.family import Family
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.verdicts import Verdict


def shortfall(theme: Theme, family: Family, questions: list[Question]) -> list[dict]:
    """``[{category, requested, produced, reason}]`` for each category that fell short."""
    made = Counter(q.category for q in questions)
    hint = family.shortfall_hint
    out = []
    for cat, want in sorted(family.requested(theme).items()):
        got = made.get(cat, 0)
        if got < want:
            reason = f"the World supports only {got} distinct {cat} candidates ({hint})"
            out.append(
                {
                    "category": cat,
                    "requested": want,
                    "produced": got,
                    "reason": reason,
                    "family": theme.family,
                }
            )
    return out


def after_gates(
    theme: Theme, family: Family, questions: list[Question], verdicts: list[Verdict], before: list[dict]
) -> list[dict]:
    """``before`` (too few candidates) plus each other category whose *kept* items fall short of
    the request, its reason naming the gates that rejected most (first rejecting gate per item)
    and how many survivors were left out to keep the requested split (``category_quota``)."""
    if family.warns_own_shortfall:
        return list(before)
    category = {q.id: q.category for q in questions}
    first: dict[str, str] = {}
    for v in verdicts:  # in gate order: the first rejecting gate of each item
        if not v.keep and v.item not in first:
            first[v.item] = v.gate
    kept = Counter(c for i, c in category.items() if i not in first)
    candidates = Counter(category.values())
    out, seen = list(before), {s["category"] for s in before}
    for cat, want in sorted(family.requested(theme).items()):
        got = kept.get(cat, 0)
        if cat in seen or got >= want:
            continue
        by = Counter(g for i, g in first.items() if category.get(i) == cat)
        split = by.pop("category_quota", 0)
        top = ", ".join(f"{g} {n}" for g, n in sorted(by.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
        reason = f"the gates kept {got + split} of {candidates[cat]} candidates"
        reason += f" (rejected most by {top})" if top else ""
        if split:
            reason += f"; {split} survivors left out to keep the requested split"
        out.append(
            {"category": cat, "requested": want, "produced": got, "reason": reason, "family": theme.family}
        )
    return out


def warning_lines(short: list[dict], warned: Callable[[str], bool] = lambda _family: False) -> list[str]:
    """One line per short category (those of a family that ``warned`` while planning excepted)."""
    short = [s for s in short if not warned(str(s.get("family")))]
    return [
        f"shortfall: {s['category']}: asked for {s['requested']}, got {s['produced']}: {s['reason']}"
        for s in short
    ]
