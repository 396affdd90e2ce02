"""Words the smm schema and its cross-field checks share: weekday names and the conversational
source kinds."""

from __future__ import annotations

import re

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def named_weekday(text: str) -> int | None:
    """The weekday (0 = Monday) a name mentions ('Saturday morning shift' -> 5), if exactly one."""
    days = {WEEKDAYS.index(w) for w in re.findall(r"[a-z]+", text.lower()) if w in WEEKDAYS}
    return next(iter(days)) if len(days) == 1 else None


CONVERSATIONAL = ("group_chat", "dm", "assistant_chat")
