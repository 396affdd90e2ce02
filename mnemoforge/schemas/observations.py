"""Observations: what the agent sees, each tied to the facts it expresses and how."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Literal

from pydantic import Field

from mnemoforge.schemas.world import Record


class Channel(StrEnum):
    """The channel a fact is expressed in; drives modality-necessity checks."""

    pixel = "pixel"
    scene = "scene"
    speech = "speech"
    text = "text"
    caption = "caption"


Granularity = Literal["X1", "X2", "X3", "X4"]


class Expression(Record):
    """A fact carried by an observation, in a channel; images also say at which visual
    granularity (MemEye's X1 scene, X2 region, X3 instance, X4 pixel)."""

    fact: str
    channel: Channel
    granularity: Granularity | None = None


class Observation(Record):
    """One unit of evidence: a shot, a spoken line, a message, an image, a table cell."""

    id: str
    source: str
    episode: str
    kind: str
    timestamp: dt.datetime
    order: int = Field(description="global position in the agent's stream (clip index for video)")
    content: str = ""
    people: list[str] = Field(default_factory=list)
    expresses: list[Expression] = Field(default_factory=list)
    media: list[str] = Field(default_factory=list, description="release-relative media paths")
    evidence_eligible: bool = True

    def fact_ids(self) -> set[str]:
        return {e.fact for e in self.expresses}
