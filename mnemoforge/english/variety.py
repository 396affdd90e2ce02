"""Wording variety: no line said or written verbatim more than a cap of times in a release.

A :class:`Variety` counts every text it hands out. ``pick`` chooses among wordings of one line
(the least used under the cap, ties to the first); ``recast`` keeps a text under the cap and
otherwise rewords it with the variants ``assets/lexicon/line_variants.yaml`` lists for the
template it matches (``"{who} added a tab to the sheet."`` -> ``"{who} put a new tab in the
sheet."``), slots carried over. Both are pure functions of the order of calls, so a build that
hands out the same lines in the same order gets the same texts.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import yaml

VARIANTS_FILE = Path(__file__).resolve().parent.parent.parent / "assets" / "lexicon" / "line_variants.yaml"


@cache
def line_variants() -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    """(pattern of a template, its wordings) from ``assets/lexicon/line_variants.yaml``."""
    data = yaml.safe_load(VARIANTS_FILE.read_text(encoding="utf-8")) or {}
    out = []
    for template, variants in data.items():
        out.append((_pattern(template), (template, *variants)))
    return tuple(out)


def _pattern(template: str) -> re.Pattern[str]:
    parts = []
    for literal, field, _spec, _conv in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field:
            parts.append(f"(?P<{field}>.+?)")
    return re.compile("^" + "".join(parts) + "$")


class Variety:
    """Counts the texts of one release and keeps each under ``cap`` uses where it can."""

    def __init__(self, cap: int = 3) -> None:
        self.cap = cap
        self.used: Counter[str] = Counter()

    def pick(self, options: Sequence[str], force: bool = False) -> str | None:
        """The least used of ``options`` still under the cap (counted), or None; with ``force`` the
        least used one even past the cap (a line that must be said)."""
        fresh = [o for o in options if self.used[o] < self.cap] or (list(options) if force else [])
        if not fresh:
            return None
        choice = min(fresh, key=lambda o: self.used[o])
        self.used[choice] += 1
        return choice

    def fits(self, *texts: str) -> bool:
        """Each of ``texts`` can be used once more (not counted)."""
        return all(self.used[t] + list(texts).count(t) <= self.cap for t in texts)

    def count(self, *texts: str) -> None:
        """Count ``texts`` as used."""
        self.used.update(texts)

    def recast(self, text: str, prefix: str = "") -> str | None:
        """``prefix + text`` when under the cap, else ``prefix`` + a listed variant of ``text`` that
        is (counted); None when the text is at the cap and has no variant left."""
        if self.used[prefix + text] < self.cap:
            self.used[prefix + text] += 1
            return prefix + text
        for pattern, wordings in line_variants():
            m = pattern.match(text)
            if m:
                slots = m.groupdict()
                return self.pick([prefix + w.format(**slots) for w in wordings])
        return None
