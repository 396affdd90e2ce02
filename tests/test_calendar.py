"""A theme's calendar as data (generators/calendar.py): holidays and weekends from the `holidays`
library for the country the theme names, the theme's extra days, seasons by hemisphere and
daylight from the solar formula; nothing for a theme without a calendar; and no country,
festival or season name in the package's Python."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import holidays
import pytest
from pydantic import ValidationError

import mnemoforge
from mnemoforge.dates import named_days
from mnemoforge.generators.calendar import build_calendar, day_length
from mnemoforge.schemas.calendar import CalendarSpec

SPAN = (dt.date(2026, 1, 1), dt.date(2026, 12, 31))


def test_no_calendar_no_holidays_no_seasons() -> None:
    cal = build_calendar(None, *SPAN)
    assert cal.holidays == [] and cal.months == [] and cal.country is None
    assert cal.weekend == [5, 6] and cal.season(dt.date(2026, 7, 1)) is None
    assert cal.is_working_day(dt.date(2026, 12, 25))  # nothing is invented: a Friday like another


def test_country_holidays_come_from_the_library() -> None:
    cal = build_calendar(CalendarSpec(country="KE"), *SPAN)
    lib = holidays.country_holidays("KE", years=[2026], language="en_US")
    assert {(h.date, h.name) for h in cal.holidays} == {(d, str(n)) for d, n in lib.items()}
    assert cal.holiday_on(dt.date(2026, 6, 1)) == "Madaraka Day"
    assert not cal.is_working_day(dt.date(2026, 6, 1)) and cal.is_working_day(dt.date(2026, 6, 2))
    assert cal.library and cal.library.startswith("holidays ")


def test_regions_extra_days_and_weekends() -> None:
    sp = build_calendar(CalendarSpec(country="BR", subdiv="SP"), *SPAN)
    br = build_calendar(CalendarSpec(country="BR"), *SPAN)
    assert len(sp.holidays) > len(br.holidays)  # the state's own days too
    extra = CalendarSpec.model_validate({"extra": [{"date": "2026-03-03", "name": "Harvest Fair"}]})
    cal = build_calendar(extra, *SPAN)
    assert [(h.date, h.name, h.source) for h in cal.holidays] == [
        (dt.date(2026, 3, 3), "Harvest Fair", "theme")
    ]
    il = build_calendar(CalendarSpec(country="IL"), *SPAN)
    assert il.weekend == sorted(holidays.country_holidays("IL", years=[2026]).weekend)  # Friday-Saturday
    own = build_calendar(CalendarSpec(weekend=["friday"]), *SPAN)
    assert own.weekend == [4] and own.is_weekend(dt.date(2026, 1, 2))


def test_seasons_by_hemisphere_and_daylight_by_latitude() -> None:
    north = build_calendar(CalendarSpec(latitude=61.5), *SPAN)
    south = build_calendar(CalendarSpec(latitude=-36.8), *SPAN)
    tropics = build_calendar(CalendarSpec(latitude=-0.4), *SPAN)
    jan = dt.date(2026, 1, 15)
    assert (north.season(jan), south.season(jan), tropics.season(jan)) == ("winter", "summer", "tropical")
    assert len(north.months) == 12
    assert day_length(61.5, dt.date(2026, 12, 21)) < 7 < 17 < day_length(61.5, dt.date(2026, 6, 21))
    assert abs(day_length(0.0, dt.date(2026, 3, 20)) - 12) < 0.2
    assert day_length(78.0, dt.date(2026, 12, 21)) == 0 and day_length(78.0, dt.date(2026, 6, 21)) == 24
    # clock time: solar noon moves by the offset from the time zone's meridian (standard time, no
    # daylight saving: Oslo's mid-June sun rises about 02:55 and sets about 21:45 at UTC+1)
    oslo = build_calendar(CalendarSpec(latitude=59.9, longitude=10.75, utc_offset=1), *SPAN)
    m = oslo.month(dt.date(2026, 6, 15))
    assert m is not None and m.sunrise is not None and m.sunset is not None
    assert "02:40" < m.sunrise < "03:20" and "21:20" < m.sunset < "22:00"


def test_unknown_codes_are_theme_errors() -> None:
    with pytest.raises(ValidationError, match="country: 'XX' is not a country code"):
        CalendarSpec(country="XX")
    with pytest.raises(ValidationError, match="subdiv: 'ZZ' is not a region of BR"):
        CalendarSpec(country="BR", subdiv="ZZ")
    with pytest.raises(ValidationError, match="declared twice"):
        CalendarSpec.model_validate(
            {"extra": [{"date": "2026-01-02", "name": "A"}, {"date": "2026-01-02", "name": "B"}]}
        )


def test_named_days_of_labels() -> None:
    assert named_days("on-call weekend") == frozenset({5, 6})
    assert named_days("on-call weekend", (4, 5)) == frozenset({4, 5})
    assert named_days("Saturday shift") == frozenset({5})
    assert named_days("weekday rota") == frozenset({0, 1, 2, 3, 4})
    assert named_days("Monday or Friday") is None and named_days("deadline") is None


def test_no_country_festival_or_season_in_python() -> None:
    words = re.compile(
        r"spring festival|labou?r day|national day|christmas|thanksgiving|\b(winter|summer|autumn|spring)\b",
        re.IGNORECASE,
    )
    root = Path(mnemoforge.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if words.search(line) and "theme draft" not in line:  # a CLI example's free-text prompt
                found.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    assert found == []
