"""Country calendars from the ``holidays`` library: which codes it knows, a country's holidays
and weekend. Plain values in and out (no schema types), so theme validation can use it."""

from __future__ import annotations

import datetime as dt
from functools import cache

DEFAULT_WEEKEND = (5, 6)  # Saturday, Sunday: what `days: [weekend]` means without a calendar
WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def country_problem(country: str, subdiv: str | None = None) -> str | None:
    """Why ``country``/``subdiv`` is not a calendar the ``holidays`` library knows, or None."""
    import holidays

    supported = holidays.list_supported_countries()
    if country not in supported:
        return (
            f"country: {country!r} is not a country code the holidays library knows "
            f"(ISO 3166-1, e.g. {', '.join(sorted(supported)[:6])}, ...)"
        )
    if subdiv is not None and subdiv not in supported[country]:
        known = ", ".join(supported[country][:8]) or "none"
        return f"subdiv: {subdiv!r} is not a region of {country} the holidays library knows (e.g. {known})"
    return None


@cache
def country_days(
    country: str, subdiv: str | None, first_year: int, last_year: int
) -> tuple[tuple[tuple[dt.date, str], ...], tuple[int, ...], str]:
    """((date, English name where the library has it), ...), the weekend days (0 = Monday) and
    the library's version, for the years ``first_year``..``last_year``."""
    import holidays

    years = list(range(first_year, last_year + 1))
    probe = holidays.country_holidays(country, subdiv=subdiv, years=years[:1])
    langs = getattr(probe, "supported_languages", ()) or ()
    lang = next((x for x in ("en_US", "en_GB", "en") if x in langs), None)
    days = holidays.country_holidays(country, subdiv=subdiv, years=years, language=lang)
    found = tuple((d, str(n)) for d, n in sorted(days.items()))
    weekend = tuple(sorted(getattr(days, "weekend", DEFAULT_WEEKEND)))
    return found, weekend, f"holidays {holidays.__version__}"


def weekend_days(
    year: int, country: str | None, subdiv: str | None = None, names: list[str] | None = None
) -> tuple[int, ...]:
    """The weekend in ``year``: the theme's own names, else the country's, else Saturday and Sunday."""
    if names is not None:
        return tuple(sorted(WEEKDAY_NAMES.index(n) for n in names))
    if country is None:
        return DEFAULT_WEEKEND
    return country_days(country, subdiv, year, year)[1]


def holidays_version() -> str:
    """The ``holidays`` library's version (its data is part of a calendar theme's cache keys)."""
    import holidays

    return str(holidays.__version__)
