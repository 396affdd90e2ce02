"""Categories a theme asks more candidates of than its World supports: one warning line each.

The requested counts come from the theme (``questions`` for icm, ``smm.tasks``, ``memeye``
cell targets); the produced ones from the candidates. The shortfall is written to the run
(``questions/shortfall.json``), carried in the funnel and listed by the release card.
"""

from __future__ import annotations

from collections import Counter

from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import Theme

# families that already log one warning per short category while planning (smm and memeye
# questions modules): ``warning_lines`` leaves theirs out, so each category is said once
SELF_WARNING = frozenset({"smm", "memeye"})
HINTS = {
    "icm": "more people, activities, places, objects or clips give more",
    "smm": "more entities, attributes, preferences, tools or sources give more",
    "memeye": "more scenes, sessions or changing keys give more",
}


def requested(theme: Theme) -> dict[str, int]:
    """Candidates the theme asks for, per category."""
    if theme.family == "smm" and theme.smm is not None:
        return theme.smm.tasks.counts()
    if theme.family == "memeye" and theme.memeye is not None:
        return theme.memeye.cell_targets()
    return theme.questions.counts()


def shortfall(theme: Theme, questions: list[Question]) -> list[dict]:
    """``[{category, requested, produced, reason}]`` for each category that fell short."""
    made = Counter(q.category for q in questions)
    hint = HINTS.get(theme.family, "a larger World gives more")
    out = []
    for cat, want in sorted(requested(theme).items()):
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


def warning_lines(short: list[dict]) -> list[str]:
    """One line per short category (those a family already warned about while planning excepted)."""
    short = [s for s in short if s.get("family") not in SELF_WARNING]
    return [
        f"shortfall: {s['category']}: asked for {s['requested']}, got {s['produced']}: {s['reason']}"
        for s in short
    ]
