"""A theme's calendar realised for its span: holidays and weekend from the ``holidays`` library,
the theme's extra days, and per month a season and the daylight hours.

Nothing here names a country, a festival or a season: holidays come from the library for the
country the theme names, season names and the weather of each season from
``assets/lexicon/seasons.yaml``. A theme without a calendar gets no holidays, no seasons and no
daylight (``WorldCalendar()``), and the Saturday–Sunday weekend of its ``days:`` rules.

Daylight uses the textbook solar formula (declination ``23.44° · sin(360° · (284 + N) / 365)``,
sunrise hour angle ``arccos(−tan φ · tan δ)``): day length ``2·ω₀/15`` hours centred on solar noon,
which is 12:00 local solar time, shifted to clock time by ``utc_offset − longitude/15`` hours when
the theme gives both (else solar time stands for clock time). Seasons are meteorological (three
months each) by hemisphere; between the tropics the lexicon's tropical season applies.
"""

from __future__ import annotations

import datetime as dt
import math
from functools import cache

from mnemoforge import yaml_io
from mnemoforge.country_calendars import country_days
from mnemoforge.schemas.calendar import (
    DEFAULT_WEEKEND,
    WEEKDAY_NAMES,
    CalendarSpec,
    Holiday,
    MonthLight,
    WorldCalendar,
)

TROPIC = 23.44  # degrees: between the tropics no four-season year
SEASONS_FILE = "seasons.yaml"


@cache
def lexicon() -> dict:
    """``assets/lexicon/seasons.yaml``: season by month per zone, weather per season."""
    from mnemoforge.theme_io import ASSETS

    return yaml_io.safe_load((ASSETS / "lexicon" / SEASONS_FILE).read_text(encoding="utf-8"))


def _country_days(spec: CalendarSpec, start: dt.date, end: dt.date) -> tuple[list[Holiday], set[int], str]:
    if spec.country is None:
        return [], set(DEFAULT_WEEKEND), ""
    found, weekend, library = country_days(spec.country, spec.subdiv, start.year, end.year)
    return [Holiday(date=d, name=n) for d, n in found if start <= d <= end], set(weekend), library


def _months(start: dt.date, end: dt.date) -> list[dt.date]:
    out, d = [], start.replace(day=1)
    while d <= end:
        out.append(d)
        d = (d + dt.timedelta(days=32)).replace(day=1)
    return out


def zone(latitude: float) -> str:
    """``north``, ``south`` or ``tropics`` (the lexicon's season tables)."""
    return "tropics" if abs(latitude) < TROPIC else "north" if latitude > 0 else "south"


def season_at(latitude: float | None, d: dt.date) -> str | None:
    if latitude is None:
        return None
    return str(lexicon()["seasons"][zone(latitude)][d.month])


def day_length(latitude: float, d: dt.date) -> float:
    """Hours from sunrise to sunset (0 in polar night, 24 in midnight sun)."""
    n = d.timetuple().tm_yday
    decl = math.radians(23.44) * math.sin(2 * math.pi * (284 + n) / 365)
    x = -math.tan(math.radians(latitude)) * math.tan(decl)
    if x >= 1:
        return 0.0
    if x <= -1:
        return 24.0
    return 2 * math.degrees(math.acos(x)) / 15


def _clock(hours: float) -> str:
    minutes = max(0, min(24 * 60 - 1, round(hours * 60)))
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def sun_times(spec: CalendarSpec, d: dt.date) -> tuple[str, str] | None:
    """Sunrise and sunset on ``d`` as ``HH:MM`` (clock time when longitude and offset are given)."""
    if spec.latitude is None:
        return None
    half = day_length(spec.latitude, d) / 2
    noon = 12.0
    if spec.longitude is not None and spec.utc_offset is not None:
        noon += spec.utc_offset - spec.longitude / 15
    return _clock(noon - half), _clock(noon + half)


def build_calendar(spec: CalendarSpec | None, start: dt.date, end: dt.date) -> WorldCalendar:
    """The World's calendar record for the span ``start``..``end`` (inclusive)."""
    if spec is None:
        return WorldCalendar()
    return _built(spec.model_dump_json(by_alias=True), start, end)


@cache
def _built(spec_json: str, start: dt.date, end: dt.date) -> WorldCalendar:
    spec = CalendarSpec.model_validate_json(spec_json)
    found, weekend, library = _country_days(spec, start, end)
    extra = [Holiday(date=e.date, name=e.name, source="theme") for e in spec.extra if start <= e.date <= end]
    if spec.weekend is not None:
        weekend = {WEEKDAY_NAMES.index(w) for w in spec.weekend}
    months = []
    for m in _months(start, end):
        mid = m.replace(day=15)
        sun = sun_times(spec, mid)
        months.append(
            MonthLight(
                month=f"{m.year:04d}-{m.month:02d}",
                season=season_at(spec.latitude, mid),
                sunrise=sun[0] if sun else None,
                sunset=sun[1] if sun else None,
            )
        )
    return WorldCalendar(
        country=spec.country,
        subdiv=spec.subdiv,
        library=library or None,
        weekend=sorted(weekend),
        holidays=sorted(found + extra, key=lambda h: (h.date, h.source, h.name)),
        months=months if spec.latitude is not None else [],
        latitude=spec.latitude,
    )


def weather_pool(cal: WorldCalendar, d: dt.date) -> list[str]:
    """The weather words a day may have: its season's (lexicon), else the season-free list."""
    lex = lexicon()
    season = cal.season(d)
    return list(lex["weather"][season] if season else lex["weather_any"])
