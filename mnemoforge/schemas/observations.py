"""Observations: what the agent sees, each tied to the facts it expresses and how."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

from pydantic import Field

from mnemoforge.schemas.world import Record


class Channel(StrEnum):
    """The channel a fact is expressed in; drives modality-necessity checks."""

    pixel = "pixel"
    scene = "scene"
    speech = "speech"
    text = "text"
    caption = "caption"


class Expression(Record):
    fact: str
    channel: Channel


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
