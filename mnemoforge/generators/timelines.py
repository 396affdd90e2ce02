"""Timelines: every changing attribute of the World as one value per time interval.

The family planners decide the values (an object's colour, a scene's count, an entity's date, a
person's place); these helpers turn what they decided into ``Timeline`` records the World keeps,
so every renderer and check reads one source (``World.value_at``) and an auditor can verify that
no subject holds two values of one attribute at one time (``generators/coherence.py``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from mnemoforge.schemas.world import Fact, Span, Timeline, World

Step = tuple[dt.datetime, str, str | None]  # (from, value, fact id)


def stepped(subject: str, attribute: str, steps: Iterable[Step]) -> Timeline:
    """A step function: each value holds from its time until the next one's (the last: open)."""
    ordered = sorted(steps, key=lambda s: (s[0], s[2] or ""))
    spans = []
    for i, (at, value, fact) in enumerate(ordered):
        end = ordered[i + 1][0] if i + 1 < len(ordered) else None
        spans.append(Span(start=at, end=end, value=value, fact=fact))
    return Timeline(subject=subject, attribute=attribute, spans=spans)


def windows(subject: str, attribute: str, spans: Iterable[Span]) -> Timeline:
    """Closed intervals (an outing, a session) in time order; gaps are times the World says nothing."""
    return Timeline(
        subject=subject, attribute=attribute, spans=sorted(spans, key=lambda s: (s.start, s.fact or ""))
    )


def from_facts(facts: Iterable[Fact], kinds: tuple[str, ...] = ("attribute", "state")) -> list[Timeline]:
    """One stepped timeline per (subject, key) of the given fact kinds that carry a time."""
    groups: dict[tuple[str, str], list[Step]] = {}
    for f in facts:
        if f.kind in kinds and f.at is not None and f.value is not None:
            groups.setdefault((f.subject, f.object), []).append((f.at, f.value, f.id))
    return [stepped(s, a, steps) for (s, a), steps in sorted(groups.items())]


def sort_timelines(timelines: Iterable[Timeline]) -> list[Timeline]:
    return sorted(timelines, key=lambda t: (t.subject, t.attribute))


class TimelineIndex:
    """``(subject, attribute) -> Timeline`` over a World, for renderers asking many times."""

    def __init__(self, world: World) -> None:
        self._by = {(t.subject, t.attribute): t for t in world.timelines}

    def value_at(self, subject: str, attribute: str, when: dt.datetime) -> str | None:
        t = self._by.get((subject, attribute))
        return t.value_at(when) if t is not None else None

    def get(self, subject: str, attribute: str) -> Timeline | None:
        return self._by.get((subject, attribute))
