"""What a theme's World is made of: places by kind, objects and how they are drawn, the activities
events follow, the question mix and the album's shape.

Part of the theme schema; ``schemas/theme.py`` re-exports the specs.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationError, model_serializer, model_validator

from mnemoforge.schemas.build_settings import drop_defaults
from mnemoforge.schemas.cast import ID_RE, HexColor, _one_line
from mnemoforge.schemas.icm_rules import Day, LineBank, WhoSpec
from mnemoforge.schemas.limits import (
    MAX_ITEMS,
    MAX_NAME,
    MAX_QUESTIONS,
    Lines,
    Name,
)
from mnemoforge.schemas.memeye import DrawsSpec
from mnemoforge.schemas.strict import Strict

MAX_SHOTS_PER_CLIP = 20  # a clip is at most a few minutes of 4-8 s shots

PlaceKind = Literal[
    "home", "outdoor", "venue", "work", "shop", "transit",
    "room", "vehicle", "street", "coast", "mountain", "forest", "field", "airfield", "helipad",
]  # fmt: skip

OUTDOOR_PLACE_KINDS = ("street", "coast", "mountain", "forest", "field", "airfield", "helipad")
PlaceProp = Literal[
    "desk", "shelf", "table", "bench", "bed", "counter", "screen", "map", "radio", "stove",
    "tree", "rock", "fence", "hut", "lamp", "windsock", "car", "boat", "flag",
]  # fmt: skip


class PlaceSpec(Strict):
    """A place. ``kind`` says what it is and how it is drawn (docs/families/icm.md, places by kind):
    the first six are the original kinds (their look is unchanged); room, vehicle, street, coast,
    mountain, forest, field, airfield and helipad draw a background of their own, seeded per place."""

    id: str = Field(pattern=ID_RE, max_length=MAX_NAME, description="place id")
    name: str = Field(min_length=1, max_length=MAX_NAME, description="how it is named, e.g. 'the riverside'")
    kind: PlaceKind = Field(
        default="venue", description="kind of place: how it is drawn and its default event hours"
    )
    indoor: bool = Field(
        default=True,
        description="drawn as a room (false: outdoors); default false for street, coast, mountain, "
        "forest, field, airfield and helipad",
    )
    sign: Annotated[str, AfterValidator(_one_line)] | None = Field(
        default=None,
        max_length=MAX_NAME,
        description="legible text shown in wide shots (a pixel fact)",
    )
    palette: list[HexColor] = Field(
        default_factory=list, max_length=3, description="colours of the drawn scene"
    )
    props: list[PlaceProp] = Field(
        default_factory=list, max_length=4, description="background props drawn at the place (new kinds)"
    )
    altitude_m: int | None = Field(
        default=None, ge=-500, le=9000, description="metres above sea level: snow above album.snow_line_m"
    )

    @model_validator(mode="before")
    @classmethod
    def _outdoor_kinds(cls, data: Any) -> Any:
        if isinstance(data, dict) and "indoor" not in data and data.get("kind") in OUTDOOR_PLACE_KINDS:
            data = {**data, "indoor": False}
        return data

    @model_serializer(mode="wrap")
    def _drop_new_defaults(self, handler: Any) -> dict[str, Any]:  # themes before them dump as they did
        out = handler(self)
        for key in ("props", "altitude_m"):
            if out.get(key) in (None, []):
                out.pop(key, None)
        return out


PropShape = Literal[
    "cup",
    "tin",
    "book",
    "bag",
    "phone",
    "bottle",
    "ball",
    "umbrella",
    "guitar",
    "camera",
    "plant",
    "laptop",
    "box",
]


class ObjectSpec(Strict):
    id: str = Field(pattern=ID_RE, max_length=MAX_NAME, description="object id")
    name: str = Field(min_length=1, max_length=MAX_NAME, description="how it is named, e.g. 'red kite'")
    owner: str | None = Field(default=None, max_length=MAX_NAME, description="person id of its owner")
    color: HexColor = Field(default="#808080", description="its colour")
    label: str | None = Field(
        default=None, max_length=MAX_NAME, description="small text printed on it (a pixel fact)"
    )
    shape: PropShape | None = Field(default=None, description="what it is drawn as (default: from its name)")
    place: str | None = Field(
        default=None,
        max_length=MAX_NAME,
        description="icm: the place it stands at (a board on the wall, a shelf): drawn in its wide shots",
    )
    draws: DrawsSpec | None = Field(
        default=None,
        description="icm: the drawing library's part that draws it (the memeye `draws` schema, one "
        "part: label, count, map or colour; docs/families/icm.md)",
    )

    @model_serializer(mode="wrap")
    def _drop_new_defaults(self, handler: Any) -> dict[str, Any]:  # themes before parts dump as they did
        out = handler(self)
        for key in ("place", "draws"):
            if out.get(key) is None:
                out.pop(key, None)
        return out


class ActivitySpec(Strict):
    """An event kind the planner schedules on the timeline."""

    id: str = Field(pattern=ID_RE, max_length=MAX_NAME, description="activity id")
    verb: str = Field(min_length=1, max_length=MAX_NAME, description="past-tense phrase, e.g. 'went rowing'")
    noun: str = Field(min_length=1, max_length=MAX_NAME, description="noun phrase, e.g. 'the hike'")
    places: list[Name] = Field(min_length=1, max_length=MAX_ITEMS, description="place ids where it happens")
    min_people: int = Field(default=2, ge=1, le=6, description="fewest people at one event")
    max_people: int = Field(default=4, ge=1, le=6, description="most people at one event")
    weight: float = Field(
        default=1.0, gt=0, le=1000, description="how often, relative to the other activities (<= 1000)"
    )
    max_per_month: int | None = Field(
        default=None, ge=1, le=100, description="at most this many events a month"
    )
    who: WhoSpec = Field(default_factory=WhoSpec, description="who may take part")
    hours: tuple[int, int] | None = Field(default=None, description="start hour window [from, to], 0-23")
    days: list[Day] = Field(
        default_factory=list, max_length=9, description="allowed days (weekday, weekend, monday, ...)"
    )
    lines: Lines | LineBank = Field(
        default_factory=list,
        description="small-talk templates ({other}, {name}, {place}, {noun}, {object}), or a line bank "
        "(its small talk replaces the album's, its other wordings add to the album's)",
    )

    @model_validator(mode="after")
    def _people_range(self) -> ActivitySpec:
        if self.min_people > self.max_people:
            raise ValueError(f"min_people ({self.min_people}) > max_people ({self.max_people})")
        if self.hours is not None and not 0 <= self.hours[0] <= self.hours[1] <= 23:
            raise ValueError(f"hours: expected [from, to] with 0 <= from <= to <= 23, got {list(self.hours)}")
        if isinstance(self.lines, list):
            try:
                LineBank(small_talk=self.lines)  # slot check
            except ValidationError as e:  # named as written: lines.N, not the bank's small_talk.N
                msg = str(e.errors()[0]["msg"]).removeprefix("Value error, ")
                raise ValueError(re.sub(r"^small_talk\.", "lines.", msg)) from None
        return self

    def bank(self) -> LineBank:
        """This activity's line bank (a plain list is its small talk)."""
        return LineBank(small_talk=self.lines) if isinstance(self.lines, list) else self.lines


ICM_MIX = {"identity_recall": 400, "cross_episode_retrieval": 500, "profile_inference": 317}


class QuestionMix(Strict):
    """How many items of each category a release keeps after the gates (1.5 x + 1 candidates are
    planned per category).

    Categories left unset share ``total`` in ICM-Bench's proportions (400 / 500 / 317).
    """

    total: int = Field(
        default=60,
        ge=0,
        le=MAX_QUESTIONS,
        description="items kept, split 400 : 500 : 317 over the categories left unset",
    )
    identity_recall: int | None = Field(
        default=None, ge=0, le=MAX_QUESTIONS, description="fix the number of Identity Recall items"
    )
    cross_episode_retrieval: int | None = Field(
        default=None,
        ge=0,
        le=MAX_QUESTIONS,
        description="fix the number of Cross-Episode Identity Retrieval items",
    )
    profile_inference: int | None = Field(
        default=None,
        ge=0,
        le=MAX_QUESTIONS,
        description="fix the number of Long-Term Identity Profile Inference items",
    )

    def counts(self) -> dict[str, int]:
        fixed = {c: getattr(self, c) for c in ICM_MIX if getattr(self, c) is not None}
        free = [c for c in ICM_MIX if c not in fixed]
        rest = max(0, self.total - sum(fixed.values()))
        weight = sum(ICM_MIX[c] for c in free)
        out = dict(fixed)
        shares = {c: rest * ICM_MIX[c] / weight for c in free}
        for c in free:
            out[c] = int(shares[c])
        # largest remainders get the leftover units, so the parts add up to the total
        for c in sorted(free, key=lambda c: (out[c] - shares[c], c))[: rest - sum(out[c] for c in free)]:
            out[c] += 1
        return {c: out[c] for c in ICM_MIX}


class AlbumSpec(Strict):
    clips: int = Field(
        default=24, ge=2, le=5000, description="clips in the album, the calibration clip 0 included"
    )
    shots_per_clip: tuple[int, int] = Field(default=(1, 3), description="[lo, hi] shots per clip")
    shot_durations: list[Literal[4, 6, 8]] = Field(
        default_factory=lambda: [4, 6, 8], min_length=1, description="shot lengths to draw from, in seconds"
    )
    width: int = Field(default=640, ge=64, le=1920, description="frame width in pixels (even)")
    height: int = Field(default=360, ge=64, le=1080, description="frame height in pixels (even)")
    fps: int = Field(default=12, ge=1, le=60, description="frames per second of the clips")
    camera_moves: float = Field(
        default=0.35, ge=0, le=1,
        description="chance a procedural shot keeps the pan or zoom it drew (0: every shot static)",
    )  # fmt: skip
    dialogue: LineBank = Field(default_factory=LineBank, description="wordings shared by every activity")
    max_line_repeats: int = Field(
        default=3, ge=1, le=1000, description="no line text more often in a release"
    )
    min_face_px: int = Field(
        default=48, ge=0, le=1080, description="render audit: least face height, close/medium"
    )
    dialogue_model: bool = Field(default=False, description="reword lines with text.backend (validated)")
    shot_length: Literal["any", "shortest"] = Field(
        default="any",
        description="any: each shot draws one of shot_durations its speech fits; shortest: the shortest "
        "that fits (album length, and video cost, near ICM-Bench's 10 s a clip; see build --preflight)",
    )

    talk_density: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="how often choices, promises, plans, habits and relations come up (and are spoken): "
        "1 as planned; lower shortens the album and its speech (fewer such items to ask about)",
    )

    snow_line_m: int = Field(
        default=1800, ge=0, le=9000,
        description="outdoor places at or above this altitude_m show snow in the calendar's snow seasons",
    )  # fmt: skip

    @model_serializer(mode="wrap")
    def _drop_new_defaults(self, handler: Any) -> dict[str, Any]:  # themes before them dump as they did
        return drop_defaults(self, handler(self), ("shot_length", "talk_density", "snow_line_m"))

    @model_validator(mode="after")
    def _ranges(self) -> AlbumSpec:
        lo, hi = self.shots_per_clip
        if not 1 <= lo <= hi <= MAX_SHOTS_PER_CLIP:
            raise ValueError(
                f"shots_per_clip: expected [lo, hi] with 1 <= lo <= hi <= {MAX_SHOTS_PER_CLIP}, "
                f"got [{lo}, {hi}]"
            )
        for side in ("width", "height"):
            if getattr(self, side) % 2:
                raise ValueError(f"{side}: must be even (H.264 video), got {getattr(self, side)}")
        return self
