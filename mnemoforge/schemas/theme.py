"""Theme: the researcher-written description a benchmark is planned from.

Themes are validated data (YAML via ``safe_load``). Everything here is declarative;
the planner in ``mnemoforge.generators.icm.world`` turns it into a seeded ``World``.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_serializer, model_validator

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
from mnemoforge.schemas.icm_rules import Day, LineBank, WhoSpec
from mnemoforge.schemas.memeye import MemEyeSpec
from mnemoforge.schemas.smm import SmmSpec
from mnemoforge.schemas.strict import Strict

ID_RE = r"^[a-z][a-z0-9_]*$"
MAX_SEED = 2**63 - 1  # seeds are stored as BIGINT (catalog) and fed to derive_rng
HEX_RE = re.compile(r"^#[0-9a-fA-F]{6}$")
# re-exported: the build settings live in schemas/build_settings.py
__all__ = [
    "BUILTIN_ANSWERERS",
    "DEFAULT_PANELS",
    "MINILM_MEMBERS",
    "OPTION_SOLVER_MEMBERS",
    "GateSpec",
    "RenderSpec",
    "Strict",
    "TextSpec",
    "Theme",
]

FaceShape = Literal["oval", "round", "square", "heart", "long"]
HairStyle = Literal["short", "long", "bun", "curly", "bald", "ponytail", "bob", "buzz"]
FacialHair = Literal["none", "beard", "moustache", "stubble"]
Accessory = Literal["glasses", "sunglasses", "earrings", "hat", "cap", "scarf", "headband", "necklace"]
TopStyle = Literal["tshirt", "shirt", "sweater", "jacket", "dress", "hoodie", "blazer"]
Pattern = Literal["plain", "stripes", "dots", "check"]
Build = Literal["slim", "medium", "broad"]




def _hex(v: str) -> str:
    if not HEX_RE.match(v):
        raise ValueError(f"expected a colour like '#a1b2c3', got {v!r}")
    return v.lower()


HexColor = Annotated[str, AfterValidator(_hex)]


class Outfit(Strict):
    """One wardrobe option; a shot plan names the outfit a person wears."""

    id: str = Field(pattern=ID_RE)
    label: str
    top_style: TopStyle = "tshirt"
    top_color: HexColor
    bottom_color: HexColor
    pattern: Pattern = "plain"


class AppearanceSpec(Strict):
    """Compact appearance spec: the face anchor a renderer draws from."""

    face_shape: FaceShape
    skin_tone: HexColor
    hair_style: HairStyle
    hair_color: HexColor
    eye_color: HexColor
    facial_hair: FacialHair = "none"
    accessories: list[Accessory] = Field(default_factory=list, max_length=3)
    headwear_color: HexColor | None = Field(default=None, description="hat/cap/headband colour")
    build: Build = "medium"
    height: float = Field(default=1.0, ge=0.85, le=1.15)
    signature_outfit: Outfit
    wardrobe: list[Outfit] = Field(default_factory=list, max_length=5)

    @model_validator(mode="after")
    def _unique_outfits(self) -> AppearanceSpec:
        ids = [o.id for o in self.outfits()]
        if len(ids) != len(set(ids)):
            raise ValueError(f"outfit ids must be unique, got {ids}")
        return self

    def outfits(self) -> list[Outfit]:
        """Signature outfit first, then the wardrobe options."""
        return [self.signature_outfit, *self.wardrobe]

    def outfit(self, outfit_id: str) -> Outfit:
        for o in self.outfits():
            if o.id == outfit_id:
                return o
        raise KeyError(outfit_id)


class VoiceSpec(Strict):
    """A fixed voice per person (espeak-ng by default)."""

    engine: Literal["espeak", "piper", "coqui"] = "espeak"
    voice: str = "en-us"
    variant: str = ""
    pitch: int = Field(default=50, ge=0, le=99)
    pitch_range: int = Field(default=50, ge=0, le=99)
    rate: int = Field(default=165, ge=80, le=400)
    semitones: float = Field(default=0.0, ge=-12, le=12)
    reference_wav: str | None = Field(default=None, description="coqui: clip whose voice is cloned")


class PersonSpec(Strict):
    """A cast member. Name parts (``given``, ``family``, ``title``) may be given; those left out are
    read from ``name`` (``generators/names.py``), and ``name`` left out is composed from them."""

    id: str = Field(pattern=ID_RE)
    name: str = Field(min_length=1, description="display name (default: title, given and family name)")
    given: str | None = Field(default=None, min_length=1, description="given name (default: from name)")
    family: str | None = Field(default=None, min_length=1, description="family name (default: from name)")
    title: str | None = Field(default=None, min_length=1, description="e.g. 'Dr.' (default: from name)")
    name_order: Literal["given_first", "family_first"] = Field(
        default="given_first", description="family_first: the family name is written first (王芳)"
    )
    aliases: list[str] = Field(default_factory=list, description="what friends call them, first one used")
    spoken: str | None = Field(
        default=None,
        min_length=1,
        description="the name in Latin letters as an English voice should say it (default: anyascii)",
    )
    role: str
    gender: Literal["female", "male", "nonbinary"]
    age: int = Field(ge=18, le=100)
    appearance: AppearanceSpec
    voice: VoiceSpec = Field(default_factory=VoiceSpec)
    signature_object: str | None = None
    habits: list[str] = Field(default_factory=list)
    preferences: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _compose_name(cls, data: Any) -> Any:
        """``name`` left out: composed from the parts given."""
        if isinstance(data, dict) and not data.get("name") and (data.get("given") or data.get("family")):
            from mnemoforge.generators.names import compose

            order = data.get("name_order") or "given_first"
            parts = (str(data.get(k) or "") for k in ("given", "family", "title"))
            data = {**data, "name": compose(*parts, order=order)}
        return data

    @model_validator(mode="after")
    def _name_parts(self) -> PersonSpec:
        from mnemoforge.generators.names import parts, scripts, split_name

        try:
            n = parts(self)
        except ValueError as e:
            raise ValueError(f"name: {e}") from None
        if not (n.given or n.family):
            raise ValueError(f"name: {self.name!r} has no given or family name, only a title")
        for key in ("given", "family", "title"):
            value = getattr(self, key)
            if value is not None and value not in self.name:
                raise ValueError(f"{key}: {value!r} is not part of name {self.name!r}")
        if self.spoken is not None:
            if scripts(self.spoken) - {"LATIN"}:
                raise ValueError(f"spoken: {self.spoken!r} must be in Latin letters (a voice reads it)")
            split_name(self.spoken, self.name_order)
        return self


class RelationSpec(Strict):
    a: str
    b: str
    kind: str = Field(min_length=1, description="e.g. spouse, sibling, friend, colleague, parent")
    a_calls_b: str | None = Field(default=None, description="how a refers to b, e.g. 'my sister'")
    address: Literal["formal", "colleague", "friend"] | None = Field(
        default=None,
        description="the register the two address each other in (default: from the kind, "
        "assets/lexicon/names.yaml)",
    )

    @model_validator(mode="after")
    def _two_people(self) -> RelationSpec:
        if self.a == self.b:
            raise ValueError(f"b: a relation needs two different people, got {self.a!r} twice")
        return self


class PlaceSpec(Strict):
    id: str = Field(pattern=ID_RE)
    name: str
    kind: Literal["home", "outdoor", "venue", "work", "shop", "transit"] = "venue"
    indoor: bool = True
    sign: str | None = Field(default=None, description="legible text shown in the scene")
    palette: list[HexColor] = Field(default_factory=list, max_length=3)


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
    id: str = Field(pattern=ID_RE)
    name: str
    owner: str | None = None
    color: HexColor = "#808080"
    label: str | None = Field(default=None, description="small text printed on it (a pixel fact)")
    shape: PropShape | None = Field(default=None, description="what it is drawn as (default: from its name)")


class ActivitySpec(Strict):
    """An event kind the planner schedules on the timeline."""

    id: str = Field(pattern=ID_RE)
    verb: str = Field(description="past-tense phrase, e.g. 'went rowing'")
    noun: str = Field(description="noun phrase, e.g. 'the hike'")
    places: list[str] = Field(min_length=1)
    min_people: int = Field(default=2, ge=1, le=6)
    max_people: int = Field(default=4, ge=1, le=6)
    weight: float = Field(default=1.0, gt=0, description="how often, relative to the other activities")
    max_per_month: int | None = Field(default=None, ge=1, description="at most this many events a month")
    who: WhoSpec = Field(default_factory=WhoSpec)
    hours: tuple[int, int] | None = Field(default=None, description="start hour window [from, to], 0-23")
    days: list[Day] = Field(default_factory=list, description="allowed days (weekday, weekend, monday, ...)")
    lines: list[str] | LineBank = Field(
        default_factory=list,
        description="small-talk templates, or a line bank per function (small_talk, relation, habit, "
        "choice, place)",
    )

    @model_validator(mode="after")
    def _people_range(self) -> ActivitySpec:
        if self.min_people > self.max_people:
            raise ValueError(f"min_people ({self.min_people}) > max_people ({self.max_people})")
        if self.hours is not None and not 0 <= self.hours[0] <= self.hours[1] <= 23:
            raise ValueError(f"hours: expected [from, to] with 0 <= from <= to <= 23, got {list(self.hours)}")
        if isinstance(self.lines, list):
            LineBank(small_talk=self.lines)  # slot check
        return self

    def bank(self) -> LineBank:
        """This activity's line bank (a plain list is its small talk)."""
        return LineBank(small_talk=self.lines) if isinstance(self.lines, list) else self.lines


ICM_MIX = {"identity_recall": 400, "cross_episode_retrieval": 500, "profile_inference": 317}


class QuestionMix(Strict):
    """How many candidates of each category to plan (before gates).

    Categories left unset share ``total`` in ICM-Bench's proportions (400 / 500 / 317).
    """

    total: int = Field(default=60, ge=0)
    identity_recall: int | None = Field(default=None, ge=0)
    cross_episode_retrieval: int | None = Field(default=None, ge=0)
    profile_inference: int | None = Field(default=None, ge=0)

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
    clips: int = Field(default=24, ge=2, le=5000)
    shots_per_clip: tuple[int, int] = (1, 3)
    shot_durations: list[Literal[4, 6, 8]] = Field(default_factory=lambda: [4, 6, 8], min_length=1)
    width: int = Field(default=640, ge=64, le=1920)
    height: int = Field(default=360, ge=64, le=1080)
    fps: int = Field(default=12, ge=1, le=60)
    camera_moves: float = Field(
        default=0.35, ge=0, le=1,
        description="chance a procedural shot keeps the pan or zoom it drew (0: every shot static)",
    )  # fmt: skip
    dialogue: LineBank = Field(default_factory=LineBank, description="wordings shared by every activity")
    max_line_repeats: int = Field(default=3, ge=1, description="no line text more often in a release")
    min_face_px: int = Field(default=48, ge=0, description="render audit: least face height, close/medium")
    dialogue_model: bool = Field(default=False, description="reword lines with text.backend (validated)")

    @model_validator(mode="after")
    def _ranges(self) -> AlbumSpec:
        lo, hi = self.shots_per_clip
        if not 1 <= lo <= hi:
            raise ValueError(f"shots_per_clip: expected [lo, hi] with 1 <= lo <= hi, got [{lo}, {hi}]")
        for side in ("width", "height"):
            if getattr(self, side) % 2:
                raise ValueError(f"{side}: must be even (H.264 video), got {getattr(self, side)}")
        return self


class Theme(Strict):
    """The root of a theme file."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    title: str
    description: str = ""
    version: str = Field(default="0.1.0", pattern=r"^\d+\.\d+\.\d+$")
    license: str = "cc-by-4.0"
    family: Literal["icm", "smm", "memeye"] = Field(
        default="icm", description="icm: identity-centric video; smm: source-distributed; memeye: visual"
    )
    protagonist: str | None = None
    start: dt.date
    end: dt.date
    seed: int = Field(default=0, ge=0, le=MAX_SEED)
    cast: list[PersonSpec] = Field(min_length=1)
    relations: list[RelationSpec] = Field(default_factory=list)
    places: list[PlaceSpec] = Field(min_length=1)
    objects: list[ObjectSpec] = Field(default_factory=list)
    activities: list[ActivitySpec] = Field(default_factory=list, description="required for icm")
    album: AlbumSpec = Field(default_factory=AlbumSpec)
    smm: SmmSpec | None = Field(default=None, description="required for family smm")
    memeye: MemEyeSpec | None = Field(default=None, description="required for family memeye")
    render: RenderSpec = Field(default_factory=RenderSpec)
    gates: GateSpec = Field(default_factory=GateSpec)
    text: TextSpec = Field(default_factory=TextSpec)
    questions: QuestionMix = Field(default_factory=QuestionMix)
    prices: dict[str, Any] | str | None = Field(
        default=None, description="price overrides over assets/prices.yaml (a mapping, or a YAML file path)"
    )

    @model_serializer(mode="wrap")
    def _drop_prices_default(self, handler: Any) -> dict[str, Any]:
        return drop_defaults(self, handler(self), ("prices",))

    @model_validator(mode="before")
    @classmethod
    def _family_section(cls, data: Any) -> Any:
        """A family section belongs to its family only (checked before the section's own fields)."""
        if isinstance(data, dict):
            family = data.get("family", "icm")
            for fam in ("smm", "memeye"):
                if data.get(fam) is not None and family != fam:
                    raise ValueError(f"{fam}: section only allowed with family {fam} (family is {family!r})")
        return data

    @model_validator(mode="after")
    def _referential_integrity(self) -> Theme:
        if self.end <= self.start:
            raise ValueError(f"end: {self.end} must be after start ({self.start})")
        if self.family == "icm" and not self.activities:
            raise ValueError("activities: at least one activity is required for family icm")
        if self.family in ("smm", "memeye") and getattr(self, self.family) is None:
            raise ValueError(f"{self.family}: section required (family is {self.family!r})")
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
            for key in ("people", "exclude"):
                for j, pid in enumerate(getattr(a.who, key)):
                    if pid not in people:
                        raise ValueError(f"activities.{i}.who.{key}.{j}: unknown person {pid!r}")
            kinds = {r.kind for r in self.relations}
            for j, k in enumerate(a.who.relations):
                if k not in kinds:
                    raise ValueError(
                        f"activities.{i}.who.relations.{j}: no relation of kind {k!r} in relations"
                    )
        section = self.smm or self.memeye
        if section is not None:
            section.check(self)
        return self

    def person(self, pid: str) -> PersonSpec:
        return next(p for p in self.cast if p.id == pid)


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
