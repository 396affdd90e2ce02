"""Contract for image backends: canonical portraits (face anchors) and composed scenes.

Every implementation must be deterministic: the same request (including ``seed``) gives
the same pixels. Requests are frozen dataclasses so they can be hashed for caching.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from PIL import Image

from mnemoforge.backends.image.animal_figure import AnimalPlacement
from mnemoforge.schemas.theme import AppearanceSpec

TimeOfDay = Literal["morning", "afternoon", "evening", "night"]
Composition = Literal["wide", "medium", "close"]

MAX_PEOPLE = 6
MAX_EXTRAS = 4

Box = tuple[int, int, int, int]
"""Pixel box ``(left, top, right, bottom)``, right/bottom exclusive."""


@dataclass(frozen=True)
class PersonPlacement:
    """One named person in a scene, wearing the outfit ``outfit_id`` of their appearance.

    ``label`` is optional small text shown on a name badge on the chest (a pixel fact).
    """

    appearance: AppearanceSpec
    outfit_id: str
    label: str | None = None


@dataclass(frozen=True)
class PropPlacement:
    """An object in the scene, drawn in ``color`` with optional small ``label`` text.

    ``holder_index`` is the index into ``SceneRequest.people`` of the person holding it,
    or ``None`` for a prop placed in the scene on its own.
    """

    name: str
    color: str
    label: str | None = None
    holder_index: int | None = None
    shape: str | None = None  # what it is drawn as (None: guessed from the name)


@dataclass(frozen=True)
class PartPlacement:
    """A declared object drawn by a part of the drawing library (``backends/image/scene_parts.py``):
    ``part`` (label, count, map, colour), its ``drawable`` and the ``value`` it shows (a written
    level, a count, the place a map's pin marks, a colour); the other fields are the part's
    declared look (a chart's range, the counted items' colour and container, a map's places)."""

    oid: str
    part: str
    drawable: str
    value: str
    colour: str = ""
    lo: int = 0
    hi: int = 0
    container: str = ""
    places: tuple[str, ...] = ()
    style: str = ""
    look: tuple[str, str, str] = ("", "", "none")  # an animal's size, coat, markings


@dataclass(frozen=True)
class SceneRequest:
    """Everything a backend needs to compose one still of a shot.

    ``people`` is in left-to-right (blocking) order. ``extras`` are faceless background
    figures. ``focus_index`` picks the person a ``close`` shot frames (``None``: all).
    """

    width: int
    height: int
    place_name: str
    place_kind: str
    indoor: bool
    palette: tuple[str, ...] = ()
    sign: str | None = None
    time_of_day: TimeOfDay = "afternoon"
    weather: str = "clear"
    people: tuple[PersonPlacement, ...] = ()
    extras: int = 0
    props: tuple[PropPlacement, ...] = ()
    composition: Composition = "wide"
    focus_index: int | None = None
    seed: int = 0
    safe: Box | None = None
    snow: bool = False  # snow lies on the ground (outdoor kinds of ``backends/image/landscapes.py``)
    decor: tuple[str, ...] = ()  # the place's declared background props (``place_props.DECOR``)
    animals: tuple[AnimalPlacement, ...] = ()  # cast animals, each beside a person of ``people``
    parts: tuple[PartPlacement, ...] = ()  # declared objects drawn by library parts (top corners)

    def __post_init__(self) -> None:
        if self.width < 16 or self.height < 16:
            raise ValueError(f"scene too small: {self.width}x{self.height}")
        if len(self.people) > MAX_PEOPLE:
            raise ValueError(f"at most {MAX_PEOPLE} people per scene, got {len(self.people)}")
        if not 0 <= self.extras <= MAX_EXTRAS:
            raise ValueError(f"extras must be in 0..{MAX_EXTRAS}, got {self.extras}")
        if self.focus_index is not None and not 0 <= self.focus_index < len(self.people):
            raise ValueError(f"focus_index {self.focus_index} out of range for {len(self.people)} people")
        for i, p in enumerate(self.props):
            if p.holder_index is not None and not 0 <= p.holder_index < len(self.people):
                raise ValueError(f"props.{i}.holder_index {p.holder_index} out of range")
        for p in self.people:
            p.appearance.outfit(p.outfit_id)  # KeyError for an unknown outfit


@dataclass(frozen=True)
class SceneLayout:
    """Where things landed in a rendered scene (for region-level evidence and tests).

    Boxes are clipped to the image; an entry is ``None`` when that item is not visible
    (e.g. people outside the focus in a close shot).
    """

    people: tuple[Box | None, ...] = ()
    faces: tuple[Box | None, ...] = ()
    torsos: tuple[Box | None, ...] = ()
    props: tuple[Box | None, ...] = ()
    sign: Box | None = None
    extras: tuple[Box, ...] = field(default_factory=tuple)
    sign_text: str | None = None
    prop_shapes: tuple[str, ...] = ()
    animals: tuple[Box | None, ...] = ()
    parts: tuple[dict, ...] = ()  # per ``SceneRequest.parts``: where it is drawn (``scene_parts``)


@runtime_checkable
class ImageBackend(Protocol):
    """Draws people and scenes. Implementations are registered by name in config."""

    def portrait(self, appearance: AppearanceSpec, size: int = 256) -> Image.Image:
        """Canonical face-anchor image: head and shoulders, signature outfit, plain background."""
        ...

    def scene(self, req: SceneRequest) -> Image.Image:
        """Compose one RGB still of ``req.width`` x ``req.height``."""
        ...
