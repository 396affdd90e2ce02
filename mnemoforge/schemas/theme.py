"""Theme: the researcher-written description a benchmark is planned from.

Themes are validated data (YAML via ``safe_load``). Everything here is declarative;
the planner in ``mnemoforge.generators.icm.world`` turns it into a seeded ``World``.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    Field,
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
    AppearanceSpec,
    Outfit,
    PersonSpec,
    RelationSpec,
    VoiceSpec,
)
from mnemoforge.schemas.limits import (
    MAX_CAST,
    MAX_DESCRIPTION,
    MAX_ITEMS,
    MAX_NAME,
    MAX_PATH,
    MAX_SPAN_DAYS,
    MAX_YEAR,
    MIN_YEAR,
)
from mnemoforge.schemas.memeye import MemEyeSpec
from mnemoforge.schemas.object_parts import check_object_parts
from mnemoforge.schemas.setting import (
    ICM_MIX,
    MAX_SHOTS_PER_CLIP,
    OUTDOOR_PLACE_KINDS,
    ActivitySpec,
    AlbumSpec,
    ObjectSpec,
    PlaceSpec,
    QuestionMix,
)
from mnemoforge.schemas.smm import SmmSpec
from mnemoforge.schemas.strict import Strict
from mnemoforge.schemas.variants import VariantName, VariantSpec, check_variants

MAX_SEED = 2**63 - 1  # seeds are stored as BIGINT (catalog) and fed to derive_rng
# re-exported: the build settings live in schemas/build_settings.py, the cast in schemas/cast.py,
# places, objects, activities, the question mix and the album in schemas/setting.py
__all__ = [
    "ICM_MIX",
    "MAX_SHOTS_PER_CLIP",
    "OUTDOOR_PLACE_KINDS",
    "ActivitySpec",
    "AlbumSpec",
    "ObjectSpec",
    "PlaceSpec",
    "QuestionMix",
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
