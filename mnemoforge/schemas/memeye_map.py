"""A declared map of a memeye scenario (``scenarios.*.draws.map``): named locations drawn on a
trail map, a floor plan or a district map, and a pin at one of them. The pin's location is the
``marked`` state variable (X3: which of the look-alike locations carries the pin), read from the
World's timeline like every other declared value, so it can change over time ("where is the
rescue team marked on the trail map now?"). ``backends/image/visual_map.py`` draws it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from mnemoforge.schemas.limits import MAX_NAME, Name
from mnemoforge.schemas.strict import Strict


class MapDraw(Strict):
    """A map with 4-6 named locations, each a dot with its name beside it; a pin marks one (the
    ``marked`` variable, X3), which replaces the scene pack's row of marked instances (``mark``)."""

    noun: str = Field(
        min_length=1, max_length=MAX_NAME, description="the map as questions say it: 'the trail map'"
    )
    marker: str | None = Field(
        default=None,
        max_length=MAX_NAME,
        description="what the pin stands for, as questions say it: 'the rescue team' (\"Where is the "
        'rescue team marked on the trail map?"); default: the question asks which place is marked',
    )
    style: Literal["trail", "floor", "district"] = Field(
        default="trail", description="a trail map, a floor plan or a district map"
    )
    places: list[Name] = Field(
        min_length=4, max_length=6, description="the named locations (4-6; the options are among them)"
    )
    per_scene: bool = Field(
        default=False,
        description="each scene has its own (one per place); default: one object seen in every scene "
        "of the scenario, holding one value at a time",
    )

    @model_validator(mode="after")
    def _names(self) -> MapDraw:
        low = [n.strip().lower() for n in self.places]
        if len(set(low)) != len(low):
            raise ValueError("places: names must be distinct")
        for i, n in enumerate(self.places):
            if not n.strip() or len(n) > 16 or set(n) & set("/,>"):
                raise ValueError(f"places.{i}: a name of at most 16 characters, without '/', ',' or '>'")
        return self
