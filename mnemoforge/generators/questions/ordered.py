"""Rules a test-taker applies to ordered options (counts, numbers, dates, times) without memory:
the option closest to the options' mean, the median, the largest, the smallest.

Where every option reads as a value on one scale (:func:`values`) each rule scores the options;
elsewhere it does not apply (``None``). Option sets drawn so the answer's rank among the four is
uniform over a program's items keep each at chance.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence

_NUM = re.compile(r"^-?\d+(?:\.\d+)?$")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")


def value(option: str) -> float | None:
    """The option on a numeric scale: a number, an ISO date (day number), a time (minutes)."""
    s = option.strip()
    if _NUM.match(s):
        return float(s)
    m = _TIME.match(s)
    if m:
        return float(int(m.group(1)) * 60 + int(m.group(2)))
    try:
        return float(dt.date.fromisoformat(s).toordinal())
    except ValueError:
        return None


def values(options: Sequence[str]) -> list[float] | None:
    """Every option's value, or None when one is not ordered (or two are equal)."""
    out = [value(o) for o in options]
    if len(out) < 2 or any(v is None for v in out) or len(set(out)) < len(out):
        return None
    return [float(v) for v in out if v is not None]


def closest_to_mean(options: Sequence[str]) -> list[float] | None:
    vs = values(options)
    if vs is None:
        return None
    mean = sum(vs) / len(vs)
    return [-round(abs(v - mean), 9) for v in vs]


def median(options: Sequence[str]) -> list[float] | None:
    """Closest to the median (with an even count, the two middle options tie)."""
    vs = values(options)
    if vs is None:
        return None
    s = sorted(vs)
    mid = (s[(len(s) - 1) // 2] + s[len(s) // 2]) / 2
    return [-round(abs(v - mid), 9) for v in vs]


def largest(options: Sequence[str]) -> list[float] | None:
    return values(options)


def smallest(options: Sequence[str]) -> list[float] | None:
    vs = values(options)
    return None if vs is None else [-v for v in vs]


SOLVERS: dict[str, Callable[[Sequence[str]], list[float] | None]] = {
    "closest_to_mean": closest_to_mean,
    "median": median,
    "largest": largest,
    "smallest": smallest,
}


def rank(options: Sequence[str], index: int = 0) -> int | None:
    """The rank of ``options[index]`` among ordered options (0 = smallest), or None."""
    vs = values(options)
    return None if vs is None else sorted(vs).index(vs[index])
