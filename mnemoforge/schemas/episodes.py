"""Episodes of the identity-centric video family: clips made of shots."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import Field, model_serializer

from mnemoforge.schemas.world import Record

Camera = Literal["static", "pan_left", "pan_right", "zoom_in", "zoom_out"]
Composition = Literal["wide", "medium", "close"]
TimeOfDay = Literal["morning", "afternoon", "evening", "night"]
AudioStrategy = Literal["ambient_only", "ambient_sfx", "soft_single_line", "soft_dialogue"]


class DialogueLine(Record):
    id: str
    speaker: str
    text: str
    names_said: list[str] = Field(default_factory=list, description="person ids whose name is spoken")
    facts: list[str] = Field(default_factory=list, description="fact ids this line states (speech channel)")

    def as_script(self, speaker_name: str) -> str:
        """The ICM 'Name: line' form."""
        return f"{speaker_name}: {self.text}"


class Shot(Record):
    id: str
    clip_id: str
    index: int
    start: dt.datetime
    duration_s: Literal[4, 6, 8]
    place: str
    time_of_day: TimeOfDay
    day_of_week: str
    season: str
    occasion: str
    weather: str
    visible: list[str] = Field(max_length=6, description="person ids, left-to-right order")
    extras: int = Field(default=0, ge=0, le=4)
    focus: list[str] = Field(default_factory=list)
    outfits: dict[str, str] = Field(default_factory=dict)
    props: list[str] = Field(default_factory=list, description="object ids in frame")
    holders: dict[str, str] = Field(default_factory=dict, description="object id -> person id holding it")
    composition: Composition = "wide"
    camera: Camera = "static"
    blocking: str = ""
    dialogue: list[DialogueLine] = Field(default_factory=list)
    audio_strategy: AudioStrategy = "ambient_only"
    audio_cues: list[str] = Field(default_factory=list)
    evidence_facts: list[str] = Field(default_factory=list)
    animals: list[str] = Field(default_factory=list, description="animal ids in frame, beside a companion")
    parts: list[str] = Field(
        default_factory=list, description="declared objects drawn by a library part (a board, a shelf, a map)"
    )

    @model_serializer(mode="wrap")
    def _drop_no_animals(self, handler: Any) -> dict[str, Any]:  # shots before animals dump as they did
        out = handler(self)
        for key in ("animals", "parts"):
            if not out.get(key, 1):
                out.pop(key, None)
        return out


class Clip(Record):
    id: str
    index: int
    event: str | None = Field(description="event id; None for the calibration clip")
    start: dt.datetime
    day_of_week: str
    season: str
    occasion: str
    calibration: bool = False
    shots: list[Shot]

    @property
    def duration_s(self) -> int:
        return sum(s.duration_s for s in self.shots)
