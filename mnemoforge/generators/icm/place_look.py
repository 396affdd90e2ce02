"""How a place looks in a shot, from the calendar and the plan: the light of the hour (dusk comes
at the month's sunset where the theme declares a latitude) and snow on the ground (the calendar's
snow seasons at a mountain place or above ``album.snow_line_m``, or a snowy day outdoors)."""

from __future__ import annotations

import datetime as dt

from mnemoforge.backends.image.scenery import weather_kind
from mnemoforge.generators.calendar import lexicon
from mnemoforge.schemas.calendar import WorldCalendar
from mnemoforge.schemas.world import Place

DUSK_H = 1.5  # hours after sunset that still read as evening, not night


def time_of_day(t: dt.datetime, daylight: tuple[float, float] | None = None) -> str:
    """morning / afternoon / evening / night by the clock; with the month's ``(sunrise, sunset)``
    known, a shot after sunset is evening (night ``DUSK_H`` later) and one before sunrise night."""
    h = t.hour
    tod = "morning" if h < 12 else "afternoon" if h < 17 else "evening" if h < 20 else "night"
    if daylight is None:
        return tod
    hour = h + t.minute / 60
    rise, sunset = daylight
    if hour < rise or hour >= sunset + DUSK_H:
        return "night"
    if hour >= sunset and tod in ("morning", "afternoon"):
        return "evening"
    return tod


def shot_time_of_day(cal: WorldCalendar, t: dt.datetime) -> str:
    return time_of_day(t, cal.daylight(t.date()))


def snow_on_ground(place: Place, season: str, weather: str, snow_line_m: int) -> bool:
    """Whether snow lies at an outdoor ``place`` in a shot of this season and weather."""
    if place.indoor:
        return False
    if weather_kind(weather) == "snow":
        return True
    high = place.kind == "mountain" or (place.altitude_m is not None and place.altitude_m >= snow_line_m)
    return high and season in lexicon().get("snow_seasons", [])
