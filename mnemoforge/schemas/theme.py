"""Theme: the researcher-written description a benchmark is planned from.

Themes are validated data (YAML via ``safe_load``). Everything here is declarative;
the planner in ``mnemoforge.generators.icm.world`` turns it into a seeded ``World``.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    Field,
    ValidationError,
    WithJsonSchema,
    model_serializer,
    model_validator,
)

from mnemoforge import registry
from mnemoforge.schemas.animals import AnimalSpec
from mnemoforge.schemas.build_settings import (
    BUILTIN_ANSWERERS,
    DEFAULT_PANELS,
    MINILM_MEMBERS,
    OPTION_SOLVER_MEMBERS,
    GateSpec,
    RenderSpec,
    TextSpec,
    drop_defaults,
)
from mnemoforge.schemas.calendar import CalendarSpec
from mnemoforge.schemas.cast import (
    ID_RE,
    AppearanceSpec,
    HexColor,
    Outfit,
    PersonSpec,
    RelationSpec,
    VoiceSpec,
    _one_line,
)
from mnemoforge.schemas.icm_rules import Day, LineBank, WhoSpec
from mnemoforge.schemas.limits import (
    MAX_CAST,
    MAX_DESCRIPTION,
    MAX_ITEMS,
    MAX_NAME,
    MAX_PATH,
    MAX_QUESTIONS,
    MAX_SPAN_DAYS,
    MAX_YEAR,
    MIN_YEAR,
    Lines,
    Name,
)
from mnemoforge.schemas.memeye import DrawsSpec, MemEyeSpec
from mnemoforge.schemas.object_parts import check_object_parts
from mnemoforge.schemas.smm import SmmSpec
from mnemoforge.schemas.strict import Strict
from mnemoforge.schemas.variants import VariantName, VariantSpec, check_variants

MAX_SHOTS_PER_CLIP = 20  # a clip is at most a few minutes of 4-8 s shots
MAX_SEED = 2**63 - 1  # seeds are stored as BIGINT (catalog) and fed to derive_rng
# re-exported: the build settings live in schemas/build_settings.py, the cast in schemas/cast.py
__all__ = [
    "BUILTIN_ANSWERERS",
    "AppearanceSpec",
    "Outfit",
    "PersonSpec",
    "RelationSpec",
    "VoiceSpec",
    "DEFAULT_PANELS",
    "MINILM_MEMBERS",
    "OPTION_SOLVER_MEMBERS",
    "GateSpec",
    "RenderSpec",
    "Strict",
    "TextSpec",
    "Theme",
]

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


FAMILY_HELP = "icm: identity-centric video; smm: source-distributed; memeye: visual"


def _registered_family(name: str) -> str:
    """A family some installed package registers (the built-ins, or a plugin's)."""
    known = registry.names(registry.FAMILIES_GROUP)
    if name not in known:
        raise ValueError(f"unknown family {name!r}; registered: {', '.join(known)}")
    return name


class Theme(Strict):
    """The root of a theme file."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$", max_length=MAX_NAME, description="release name")
    title: str = Field(max_length=200, description="title of the dataset card")
    description: str = Field(
        default="", max_length=MAX_DESCRIPTION, description="a paragraph for the dataset card"
    )
    version: str = Field(
        default="0.1.0",
        pattern=r"^\d+\.\d+\.\d+$",
        max_length=32,
        description="release version; a release is never overwritten",
    )
    license: str = Field(default="cc-by-4.0", max_length=MAX_NAME, description="licence id of the dataset")
    # any registered family (``mnemoforge.registry``); the JSON schema lists the built-in ones
    family: Annotated[
        str,
        AfterValidator(_registered_family),
        WithJsonSchema({"enum": list(registry.BUILTIN[registry.FAMILIES_GROUP]), "type": "string"}),
    ] = Field(default=registry.DEFAULT_FAMILY, description=FAMILY_HELP)
    families: list[Annotated[str, AfterValidator(_registered_family)]] | None = Field(
        default=None,
        min_length=2,
        max_length=8,
        description="one world in several families (docs/cross-family.md): each family's section is "
        "required, `family` must be one of them, and the release adds a `cross` config",
    )
    protagonist: str | None = Field(
        default=None,
        max_length=MAX_NAME,
        description="person id whose memory it is (default: the first cast member)",
    )
    start: dt.date = Field(description="first day of the timeline")
    end: dt.date = Field(description="end of the timeline; after start")
    seed: int = Field(
        default=0,
        ge=0,
        le=MAX_SEED,
        description="default world seed; --seed overrides it (release NAME-sSEED)",
    )
    cast: list[PersonSpec] = Field(min_length=1, max_length=MAX_CAST, description="the recurring people")
    relations: list[RelationSpec] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="who is related to whom"
    )
    animals: list[AnimalSpec] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="icm: animals of the cast (drawn beside their companions, never speaking)",
    )
    places: list[PlaceSpec] = Field(
        min_length=1, max_length=MAX_ITEMS, description="where events and scenes happen"
    )
    objects: list[ObjectSpec] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="things people own and bring along"
    )
    calendar: CalendarSpec | None = Field(
        default=None, description="country/region holidays, weekend, seasons and daylight (docs/calendar.md)"
    )
    activities: list[ActivitySpec] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="event kinds on the timeline (required for icm)",
    )
    album: AlbumSpec = Field(
        default_factory=AlbumSpec, description="icm: the album's size, frames and dialogue"
    )
    smm: SmmSpec | None = Field(default=None, description="required for family smm")
    memeye: MemEyeSpec | None = Field(default=None, description="required for family memeye")
    render: RenderSpec = Field(default_factory=RenderSpec, description="which backends render the media")
    gates: GateSpec = Field(default_factory=GateSpec, description="answerer panels of the quality gates")
    text: TextSpec = Field(default_factory=TextSpec, description="opt-in model-written text")
    questions: QuestionMix = Field(default_factory=QuestionMix, description="icm: items kept per category")
    variants: dict[VariantName, VariantSpec] | None = Field(
        default=None,
        description="icm, smm: sizes of the length variants `build --variants` emits (docs/variants.md); "
        "oracle, s, m and l have defaults",
    )
    prices: dict[str, Any] | str | None = Field(
        default=None,
        max_length=MAX_PATH,
        description="price overrides over assets/prices.yaml (a mapping, or a YAML file path relative "
        "to the theme's folder)",
    )

    @model_serializer(mode="wrap")
    def _drop_prices_default(self, handler: Any) -> dict[str, Any]:
        out = drop_defaults(self, handler(self), ("prices", "calendar", "variants", "families"))
        if not out.get("animals", 1):
            out.pop("animals", None)
        return out

    @model_validator(mode="before")
    @classmethod
    def _family_section(cls, data: Any) -> Any:
        """A family section belongs to its family only (checked before the section's own fields)."""
        known = registry.names(registry.FAMILIES_GROUP)  # an unknown one is said at `family`
        if isinstance(data, dict) and "family" not in data and isinstance(data.get("families"), list):
            data = {**data, "family": data["families"][0]} if data["families"] else data
        if isinstance(data, dict) and data.get("family", registry.DEFAULT_FAMILY) in known:
            family = data.get("family", registry.DEFAULT_FAMILY)
            listed = data.get("families")
            ok = isinstance(listed, list) and all(isinstance(f, str) for f in listed)
            allowed = set(listed) if ok else set()
            for fam in (f for f in known if f in cls.model_fields):  # a family's own section
                if data.get(fam) is not None and family != fam and fam not in allowed:
                    raise ValueError(
                        f"{fam}: section only allowed with family {fam} or {fam} in families "
                        f"(family is {family!r})"
                    )
        return data

    @model_validator(mode="after")
    def _referential_integrity(self) -> Theme:
        if self.end <= self.start:
            raise ValueError(f"end: {self.end} must be after start ({self.start})")
        for side in ("start", "end"):
            year = getattr(self, side).year
            if not MIN_YEAR <= year <= MAX_YEAR:
                raise ValueError(f"{side}: year {year} is outside {MIN_YEAR}-{MAX_YEAR} (holiday tables)")
        if (self.end - self.start).days > MAX_SPAN_DAYS:
            raise ValueError(
                f"end: the theme spans {(self.end - self.start).days} days; at most {MAX_SPAN_DAYS} "
                "(ten years: the calendar and planners walk it day by day)"
            )
        if self.family in type(self).model_fields and getattr(self, self.family) is None:
            raise ValueError(f"{self.family}: section required (family is {self.family!r})")
        _families(self)
        people = _unique("cast", [p.id for p in self.cast])
        places = _unique("places", [p.id for p in self.places])
        objects = _unique("objects", [o.id for o in self.objects])
        _unique("activities", [a.id for a in self.activities])
        _unique_names(
            "cast", [(f"cast.{i}.{k}", n) for i, p in enumerate(self.cast) for k, n in _person_names(p)]
        )
        _unique_names("places", [(f"places.{i}.name", p.name) for i, p in enumerate(self.places)])
        _unique_names("objects", [(f"objects.{i}.name", o.name) for i, o in enumerate(self.objects)])
        if self.render.image == "diffusers" and not self.render.image_model:
            raise ValueError("render.image_model: required when render.image is 'diffusers'")
        if self.protagonist is not None and self.protagonist not in people:
            raise ValueError(f"protagonist: unknown person {self.protagonist!r}")
        for i, r in enumerate(self.relations):
            for side in ("a", "b"):
                if getattr(r, side) not in people:
                    raise ValueError(f"relations.{i}.{side}: unknown person {getattr(r, side)!r}")
        for i, o in enumerate(self.objects):
            if o.owner is not None and o.owner not in people:
                raise ValueError(f"objects.{i}.owner: unknown person {o.owner!r}")
        check_object_parts(self.objects, places)
        _animals(self, people | places | objects)
        for i, p in enumerate(self.cast):
            if p.signature_object is not None and p.signature_object not in objects:
                raise ValueError(f"cast.{i}.signature_object: unknown object {p.signature_object!r}")
        for i, a in enumerate(self.activities):
            for j, pl in enumerate(a.places):
                if pl not in places:
                    raise ValueError(f"activities.{i}.places.{j}: unknown place {pl!r}")
            if a.min_people > len(self.cast):
                raise ValueError(
                    f"activities.{i}.min_people: more than the {len(self.cast)} people in the cast"
                )
            for key in ("people", "exclude", "required"):
                for j, pid in enumerate(getattr(a.who, key)):
                    if pid not in people:
                        raise ValueError(f"activities.{i}.who.{key}.{j}: unknown person {pid!r}")
            _required_fit(i, a, self.protagonist or self.cast[0].id)
            kinds = {r.kind for r in self.relations}
            for j, k in enumerate(a.who.relations):
                if k not in kinds:
                    raise ValueError(
                        f"activities.{i}.who.relations.{j}: no relation of kind {k!r} in relations"
                    )
        for section in (self.smm, self.memeye):  # every family section present (one, or several families)
            if section is not None:
                section.check(self)
        if self.variants is not None:
            check_variants(self.variants)
        return self

    def person(self, pid: str) -> PersonSpec:
        return next(p for p in self.cast if p.id == pid)


def _families(theme: Theme) -> None:
    """``families:`` names each family once, includes ``family`` (the release's first family), and
    every listed family that has a section of its own has it."""
    if theme.families is None:
        return
    for i, fam in enumerate(theme.families):
        if fam in theme.families[:i]:
            raise ValueError(f"families.{i}: {fam!r} is listed twice")
        if fam in type(theme).model_fields and getattr(theme, fam) is None:
            raise ValueError(f"{fam}: section required ({fam!r} is in families)")
    if theme.family not in theme.families:
        raise ValueError(
            f"family: {theme.family!r} is not in families {theme.families} (name one of them, or "
            f"leave it out: the first listed is the default)"
        )


def _animals(theme: Theme, taken: set[str]) -> None:
    """Animal ids unique (also against people, places and objects), companions in the cast,
    names told apart from the cast's."""
    people = {p.id for p in theme.cast}
    _unique("animals", [a.id for a in theme.animals])
    for i, a in enumerate(theme.animals):
        if a.id in taken:
            raise ValueError(f"animals.{i}.id: {a.id!r} is also a person, place or object id")
        for j, pid in enumerate(a.companions):
            if pid not in people:
                raise ValueError(f"animals.{i}.companions.{j}: unknown person {pid!r}")
    _unique_names(
        "cast",
        [(f"cast.{i}.{k}", n) for i, p in enumerate(theme.cast) for k, n in _person_names(p)]
        + [(f"animals.{i}.name", a.name) for i, a in enumerate(theme.animals)],
    )


def _required_fit(i: int, a: ActivitySpec, protagonist: str) -> None:
    """``who.required`` people can all come: none excluded, and they fit ``max_people``."""
    where = f"activities.{i}.who.required"
    for j, pid in enumerate(a.who.required):
        if pid in a.who.exclude:
            raise ValueError(f"{where}.{j}: {pid!r} is also in who.exclude")
        if pid == protagonist and a.who.protagonist == "excluded":
            raise ValueError(f"{where}.{j}: {pid!r} is the protagonist, whom who.protagonist excludes")
    if len(set(a.who.required)) != len(a.who.required):
        raise ValueError(f"{where}: a person is named twice")
    need = set(a.who.required) | ({protagonist} if a.who.protagonist == "required" else set())
    if len(need) > a.max_people:
        raise ValueError(f"{where}: {len(need)} people must come, more than max_people {a.max_people}")


def _person_names(p: PersonSpec) -> list[tuple[str, str]]:
    return [("name", p.name)] + [(f"aliases.{j}", a) for j, a in enumerate(p.aliases) if a != p.name]


def _unique_names(what: str, named: list[tuple[str, str]]) -> None:
    """Display names questions and answers use must tell their bearers apart (case-insensitive)."""
    seen: dict[str, str] = {}
    for path, name in named:
        key = " ".join(name.lower().split())
        owner = seen.get(key)
        if owner is not None and owner.split(".")[:2] != path.split(".")[:2]:
            raise ValueError(f"{path}: {name!r} is also the name at {owner}; {what} must be told apart")
        seen.setdefault(key, path)


def _unique(field: str, ids: list[str]) -> set[str]:
    seen: set[str] = set()
    for i, x in enumerate(ids):
        if x in seen:
            raise ValueError(f"{field}.{i}.id: duplicate id {x!r}")
        seen.add(x)
    return seen
