"""English day and month names, independent of the process locale.

``strftime("%A")`` and ``"%B"`` follow ``LC_TIME``, so a release built under a French or
Turkish locale would hash differently; every generated text and figure takes its names here.
"""

from __future__ import annotations

import datetime as dt
import re

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def weekday_name(d: dt.date) -> str:
    """``"Monday"`` … ``"Sunday"``."""
    return WEEKDAYS[d.weekday()]


def weekday_abbr(d: dt.date) -> str:
    """``"Mon"`` … ``"Sun"``."""
    return WEEKDAYS[d.weekday()][:3]


def month_name(d: dt.date | int) -> str:
    """``"January"`` … ``"December"`` for a date or a month number (1–12)."""
    return MONTHS[(d if isinstance(d, int) else d.month) - 1]


def month_abbr(d: dt.date | int) -> str:
    """``"Jan"`` … ``"Dec"``."""
    return month_name(d)[:3]


def parse_month_day(text: str) -> dt.date | None:
    """Parse English dates with month names (``"3 Mar 2025"``, ``"March 3, 2025"``) without
    ``strptime("%b")``, which reads month names in the process locale; ``None`` if not one."""
    words = text.replace(",", " ").split()
    if len(words) != 3:
        return None
    months = {m.casefold(): i for i, m in enumerate(MONTHS, 1)} | {
        m[:3].casefold(): i for i, m in enumerate(MONTHS, 1)
    }
    for day_i, mon_i in ((0, 1), (1, 0)):
        month = months.get(words[mon_i].casefold())
        if month and words[day_i].isdigit() and words[2].isdigit():
            try:
                return dt.date(int(words[2]), month, int(words[day_i]))
            except ValueError:
                return None
    return None


WEEKDAY_WORDS = tuple(w.lower() for w in WEEKDAYS)


def named_days(text: str, weekend: list[int] | tuple[int, ...] = (5, 6)) -> frozenset[int] | None:
    """The weekdays (0 = Monday) a label or name asks for: one named weekday ('Saturday shift'),
    the weekend ('on-call weekend') or working weekdays ('weekday rota'); None when it names none
    or several days."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    named = {WEEKDAY_WORDS.index(w) for w in words if w in WEEKDAY_WORDS}
    if len(named) == 1:
        return frozenset(named)
    if named:
        return None
    if words & {"weekend", "weekends"}:
        return frozenset(weekend)
    if words & {"weekday", "weekdays"}:
        return frozenset(range(7)) - frozenset(weekend)
    return None
