"""The calendar of a theme: declared as data (a country or region code, extra days, a latitude),
realised in the World as a record an auditor can read (``world.json`` → ``calendar``).

The theme's ``calendar:`` section (``CalendarSpec``) names a country (ISO 3166-1 alpha-2) and
optionally a region (``subdiv``), extra days off (a local festival, a company day), a weekend
override, and a latitude (seasons by hemisphere, daylight) with an optional longitude and UTC
offset (daylight in clock time). Public holidays and the weekend come from the ``holidays``
library for the named country; nothing is invented for a theme without a calendar: it gets no
holidays, no seasons and no daylight, and the Saturday–Sunday weekend its ``days:`` rules assume.
See ``docs/calendar.md``.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mnemoforge.country_calendars import DEFAULT_WEEKEND, WEEKDAY_NAMES, country_problem
from mnemoforge.schemas.limits import MAX_ITEMS, MAX_NAME
from mnemoforge.schemas.strict import Strict

__all__ = ["DEFAULT_WEEKEND", "WEEKDAY_NAMES"]
WeekdayName = Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


class ExtraDay(Strict):
    """A day off the theme adds to the country's holidays (or declares without a country)."""

    date: dt.date = Field(description="the day, YYYY-MM-DD")
    name: str = Field(
        min_length=1, max_length=MAX_NAME, description="what the day is called, e.g. 'Estate Day'"
    )


class CalendarSpec(Strict):
    """The ``calendar:`` section of a theme."""

    country: str | None = Field(
        default=None,
        pattern=r"^[A-Z]{2,3}$",
        description="ISO 3166-1 code ('KE', 'NO', 'CN'): public holidays and the weekend from `holidays`",
    )
    subdiv: str | None = Field(
        default=None, max_length=MAX_NAME, description="a region code of the country ('BY', 'SP')"
    )
    extra: list[ExtraDay] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="more days off, with their names"
    )
    weekend: list[WeekdayName] | None = Field(
        default=None, description="weekend days (default: the country's, else saturday and sunday)"
    )
    latitude: float | None = Field(
        default=None, ge=-90, le=90, description="degrees north: seasons by hemisphere, daylight hours"
    )
    longitude: float | None = Field(default=None, ge=-180, le=180, description="degrees east (daylight)")
    utc_offset: float | None = Field(
        default=None, ge=-12, le=14, description="clock hours ahead of UTC (daylight in clock time)"
    )

    @model_validator(mode="after")
    def _known(self) -> CalendarSpec:
        if self.subdiv is not None and self.country is None:
            raise ValueError("subdiv: a region needs its country")
        if self.country is not None:
            problem = country_problem(self.country, self.subdiv)
            if problem:
                raise ValueError(problem)
        days = [e.date for e in self.extra]
        for i, d in enumerate(days):
            if d in days[:i]:
                raise ValueError(f"extra.{i}.date: {d} is declared twice")
        if self.weekend is not None and len(set(self.weekend)) != len(self.weekend):
            raise ValueError("weekend: a day is named twice")
        return self


class DateRange(Strict):
    """Days ``from``..``to``, both included."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, populate_by_name=True, serialize_by_alias=True
    )

    start: dt.date = Field(alias="from", description="first day, YYYY-MM-DD")
    end: dt.date = Field(alias="to", description="last day (included), YYYY-MM-DD")

    @model_validator(mode="after")
    def _ordered(self) -> DateRange:
        if self.end < self.start:
            raise ValueError(f"to: {self.end} is before from ({self.start})")
        return self


class AvailabilitySpec(Strict):
    """When a person can take part in events (``cast.*.availability``); unset parts restrict nothing."""

    days: list[str] = Field(
        default_factory=list,
        max_length=9,
        description="weekday, weekend, or day names (monday ...): the days they come",
    )
    hours: tuple[int, int] | None = Field(default=None, description="[from, to]: hours an event may start")
    away: list[DateRange] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="stretches they are away"
    )

    @model_validator(mode="after")
    def _valid(self) -> AvailabilitySpec:
        for i, d in enumerate(self.days):
            if d not in (*WEEKDAY_NAMES, "weekday", "weekend"):
                raise ValueError(f"days.{i}: {d!r} is not weekday, weekend or a day name")
        if self.hours is not None and not 0 <= self.hours[0] <= self.hours[1] <= 23:
            raise ValueError(f"hours: expected [from, to] with 0 <= from <= to <= 23, got {list(self.hours)}")
        return self

    def allows(self, when: dt.datetime, weekend: list[int] | tuple[int, ...] = DEFAULT_WEEKEND) -> bool:
        """Whether an event starting at ``when`` fits (its day, its hour, not while away)."""
        d = when.date()
        if any(r.start <= d <= r.end for r in self.away):
            return False
        if self.hours is not None and not self.hours[0] <= when.hour <= self.hours[1]:
            return False
        if self.days:
            kind = "weekend" if d.weekday() in weekend else "weekday"
            return WEEKDAY_NAMES[d.weekday()] in self.days or kind in self.days
        return True


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Holiday(_Record):
    date: dt.date
    name: str
    source: Literal["country", "theme"] = "country"


class MonthLight(_Record):
    """Sunrise and sunset (``HH:MM``) on the 15th of a month, and the month's season."""

    month: str  # "YYYY-MM"
    season: str | None = None
    sunrise: str | None = None
    sunset: str | None = None


class WorldCalendar(_Record):
    """The calendar the World was planned with: every holiday inside the span, the weekend, and
    per month the season and daylight (absent where the theme declares no latitude)."""

    country: str | None = None
    subdiv: str | None = None
    library: str | None = Field(default=None, description="the holidays library version the data came from")
    weekend: list[int] = Field(default_factory=lambda: list(DEFAULT_WEEKEND), description="0 = Monday")
    holidays: list[Holiday] = Field(default_factory=list)
    months: list[MonthLight] = Field(default_factory=list)
    latitude: float | None = None

    def holiday_on(self, d: dt.date) -> str | None:
        """The holiday's name on ``d`` (several joined with '; '), or None."""
        names = [h.name for h in self.holidays if h.date == d]
        return "; ".join(names) if names else None

    def is_weekend(self, d: dt.date) -> bool:
        return d.weekday() in self.weekend

    def is_working_day(self, d: dt.date) -> bool:
        """Neither a weekend day nor a holiday of the calendar."""
        return not self.is_weekend(d) and self.holiday_on(d) is None

    def month(self, d: dt.date) -> MonthLight | None:
        key = f"{d.year:04d}-{d.month:02d}"
        return next((m for m in self.months if m.month == key), None)

    def season(self, d: dt.date) -> str | None:
        m = self.month(d)
        return m.season if m is not None else None

    def daylight(self, d: dt.date) -> tuple[float, float] | None:
        """(sunrise, sunset) on ``d``'s month in hours of the day (6.5 = 06:30), or None."""
        m = self.month(d)
        if m is None or m.sunrise is None or m.sunset is None:
            return None
        rise_h, rise_m = map(int, m.sunrise.split(":"))
        set_h, set_m = map(int, m.sunset.split(":"))
        return rise_h + rise_m / 60, set_h + set_m / 60
