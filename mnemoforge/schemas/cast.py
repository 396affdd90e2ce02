"""The cast a theme declares: people (looks, outfits, voices) and the relations between them.

Part of the theme schema; ``schemas/theme.py`` re-exports the specs.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from mnemoforge import registry
from mnemoforge.schemas.build_settings import registered
from mnemoforge.schemas.calendar import AvailabilitySpec
from mnemoforge.schemas.limits import MAX_ALIASES, MAX_ITEMS, MAX_NAME, MAX_PATH, Name, Text
from mnemoforge.schemas.strict import Strict

ID_RE = r"^[a-z][a-z0-9_]*$"
HEX_RE = re.compile(r"^#[0-9a-fA-F]{6}$")

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


def _one_line(v: str) -> str:
    """Drawn text is one line: a newline or another control character drew a taller sign than its
    box, which the frame then cut (found by benchmarks/faults.py's control_chars class)."""
    if any(ord(c) < 32 or ord(c) == 127 for c in v):
        raise ValueError("drawn on one line: remove the control characters (newline, tab, escape…)")
    return v


class Outfit(Strict):
    """One wardrobe option; a shot plan names the outfit a person wears."""

    id: str = Field(
        pattern=ID_RE, max_length=MAX_NAME, description="outfit id, unique among the person's outfits"
    )
    label: str = Field(max_length=MAX_NAME, description="how captions name it: 'red top'")
    top_style: TopStyle = Field(default="tshirt", description="what the top is drawn as")
    top_color: HexColor = Field(description="colour of the top")
    bottom_color: HexColor = Field(description="colour of the trousers or skirt")
    pattern: Pattern = Field(default="plain", description="pattern on the top")


class AppearanceSpec(Strict):
    """Compact appearance spec: the face anchor a renderer draws from."""

    face_shape: FaceShape = Field(description="outline of the drawn face")
    skin_tone: HexColor = Field(description="skin colour")
    hair_style: HairStyle = Field(
        description="hair as drawn (a hat or cap hides short, buzz, bald and bun hair)"
    )
    hair_color: HexColor = Field(description="hair colour")
    eye_color: HexColor = Field(description="eye colour")
    facial_hair: FacialHair = Field(default="none", description="drawn facial hair")
    accessories: list[Accessory] = Field(
        default_factory=list,
        max_length=3,
        description="worn accessories (scarves and necklaces are not drawn)",
    )
    headwear_color: HexColor | None = Field(
        default=None, description="hat/cap/headband colour (default: derived from the face)"
    )
    build: Build = Field(default="medium", description="body build as drawn")
    height: float = Field(default=1.0, ge=0.85, le=1.15, description="drawn height relative to the average")
    signature_outfit: Outfit = Field(
        description="the outfit of the calibration clip, one of the outfits shots pick"
    )
    wardrobe: list[Outfit] = Field(
        default_factory=list,
        max_length=5,
        description="more outfits; each clip dresses a person in one of them",
    )

    @model_validator(mode="after")
    def _unique_accessories(self) -> AppearanceSpec:
        for i, a in enumerate(self.accessories):
            if a in self.accessories[:i]:
                raise ValueError(
                    f"accessories.{i}: duplicate accessory {a!r} (each is worn once; remove this entry)"
                )
        return self

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

    # any registered speech engine (``mnemoforge.speech_backends``); the JSON schema lists the built-ins
    engine: registered(registry.SPEECH_BACKENDS_GROUP, "speech engine") = Field(  # type: ignore[valid-type]
        default="espeak", description="speech engine (piper: extra tts; coqui: extra coqui, voice cloning)"
    )
    voice: str = Field(
        default="en-us", max_length=MAX_NAME, description="espeak language voice, e.g. en-us, en"
    )
    variant: str = Field(
        default="", max_length=MAX_NAME, description="espeak voice variant: m1-m8, f1-f5, ... (empty: none)"
    )
    pitch: int = Field(default=50, ge=0, le=99, description="base pitch, 0-99")
    pitch_range: int = Field(default=50, ge=0, le=99, description="pitch variation, 0-99")
    rate: int = Field(default=165, ge=80, le=400, description="speaking rate, words per minute")
    semitones: float = Field(
        default=0.0,
        ge=-12,
        le=12,
        description="pitch and formant shift in semitones (a smaller or larger voice)",
    )
    reference_wav: str | None = Field(
        default=None, max_length=MAX_PATH, description="coqui: clip whose voice is cloned (theme-relative)"
    )


class PersonSpec(Strict):
    """A cast member. Name parts (``given``, ``family``, ``title``) may be given; those left out are
    read from ``name`` (``generators/names.py``), and ``name`` left out is composed from them."""

    id: str = Field(
        pattern=ID_RE, max_length=MAX_NAME, description="person id, used by relations, objects and activities"
    )
    name: str = Field(
        min_length=1,
        max_length=MAX_NAME,
        description="full name, as written (default: title, given and family name composed)",
    )
    given: str | None = Field(
        default=None, min_length=1, max_length=MAX_NAME, description="given name (default: read from name)"
    )
    family: str | None = Field(
        default=None, min_length=1, max_length=MAX_NAME, description="family name (default: read from name)"
    )
    title: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_NAME,
        description="title written before the name, e.g. 'Dr.' (default: read from name)",
    )
    name_order: Literal["given_first", "family_first"] = Field(
        default="given_first", description="family_first: the family name is written first (王芳)"
    )
    aliases: list[Name] = Field(
        default_factory=list,
        max_length=MAX_ALIASES,
        description="other names people use for them; friends use the first",
    )
    spoken: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_NAME,
        description="the name in Latin letters as an English voice should say it (default: anyascii)",
    )
    role: str = Field(max_length=MAX_NAME, description="occupation or role, e.g. teacher")
    gender: Literal["female", "male", "nonbinary"] = Field(
        description="for pronouns, 'the woman/man with ...' and relation words"
    )
    age: int = Field(ge=18, le=100, description="age in years")
    appearance: AppearanceSpec = Field(description="face anchor: what the renderer draws")
    voice: VoiceSpec = Field(
        default_factory=VoiceSpec, description="voice anchor: one fixed voice for every line"
    )
    signature_object: str | None = Field(
        default=None, max_length=MAX_NAME, description="object id of the object they are known by"
    )
    habits: list[Text] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="habits others mention, e.g. 'cycles to work'"
    )
    preferences: dict[Name, Name] = Field(
        default_factory=dict,
        max_length=MAX_ITEMS,
        description="choices by kind, e.g. {drink: black coffee}, made at events",
    )
    availability: AvailabilitySpec | None = Field(
        default=None, description="when they can take part: days, hours, stretches away"
    )

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
    a: str = Field(max_length=MAX_NAME, description="person id")
    b: str = Field(max_length=MAX_NAME, description="person id (not a)")
    kind: str = Field(
        min_length=1, max_length=MAX_NAME, description="e.g. spouse, sibling, friend, colleague, parent"
    )
    a_calls_b: str | None = Field(
        default=None, max_length=MAX_NAME, description="how a refers to b, e.g. 'my sister'"
    )
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
