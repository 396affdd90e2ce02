"""The diary's World: where the diarist spends each day of the theme (one ``at_place`` fact a day)."""

from __future__ import annotations

import datetime as dt

from mnemoforge.generators.declared import assemble_world, cast_people
from mnemoforge.hashing import content_hash, short
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Fact, World

MAX_DAYS = 14  # a diary of at most two weeks (the theme's first days)
ENTRY_HOUR = 20  # the entry is written in the evening


def days(theme: Theme) -> list[dt.date]:
    n = min(MAX_DAYS, (theme.end - theme.start).days + 1)
    return [theme.start + dt.timedelta(days=i) for i in range(n)]


def plan_world(theme: Theme, seed: int) -> World:
    """Deterministic in (theme, seed): each day one of the theme's places, never twice in a row."""
    diarist = theme.protagonist or theme.cast[0].id
    places = [p.id for p in theme.places]
    facts, last = [], None
    for day in days(theme):
        rng = derive_rng(seed, "diary", day.isoformat())
        place = rng.choice([p for p in places if p != last] or places)
        last = place
        at = dt.datetime.combine(day, dt.time(ENTRY_HOUR))
        fid = f"f_day_{short(content_hash(seed, day.isoformat(), place))}"
        facts.append(Fact(id=fid, kind="at_place", subject=diarist, object=place, at=at))
    return assemble_world(theme, seed, diarist, cast_people(theme), facts)
