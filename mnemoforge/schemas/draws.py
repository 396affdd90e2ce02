"""The drawing library's parts as theme data: what a declared object looks like and which of its
attributes the pictures show (a board's gist, a colour, a count, a written label, a table-top's
order, a held thing, a map's pin). Both picture families use them: memeye's scenes and icm's
objects (``schemas/object_parts.py``); the World's timelines supply the values.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_serializer, model_validator

from mnemoforge.schemas.limits import MAX_ITEMS, MAX_NAME, Name
from mnemoforge.schemas.memeye_map import MapDraw
from mnemoforge.schemas.strict import Strict

_Strict = Strict  # unknown keys, inf/NaN and unbounded text are errors (schemas/strict.py)
# state key -> the declared drawable that carries it (``DrawsSpec``)
SHARED_DRAWABLES = {
    "gist": "board", "colour": "colour", "count": "count", "label": "label", "order": "table",
    "presence": "person", "marked": "map",
}  # fmt: skip


class BoardDraw(_Strict):
    """X1 gist as a board with a short text list (a whiteboard surgery list, a chalkboard menu)."""

    noun: str = Field(
        min_length=1,
        max_length=MAX_NAME,
        description="what the board is, as questions say it: 'the whiteboard'",
    )
    lists: list[list[Name]] = Field(
        min_length=4,
        max_length=MAX_ITEMS,
        description="the lists the board can show (>= 4: the options), 1-4 short lines each",
    )
    per_scene: bool = Field(
        default=False,
        description="each scene has its own (one per place); default: one object seen in every scene "
        "of the scenario, holding one value at a time",
    )

    @model_validator(mode="after")
    def _lines(self) -> BoardDraw:
        for i, lst in enumerate(self.lists):
            if not 1 <= len(lst) <= 4 or any(not x.strip() or len(x) > 28 or set(x) & set("/,") for x in lst):
                raise ValueError(f"lists.{i}: 1-4 lines of at most 28 characters, without '/' or ','")
        joined = [" / ".join(x) for x in self.lists]
        if len(set(joined)) != len(joined):
            raise ValueError("lists: two lists are the same")
        return self


ANIMALS = ("dog", "cat", "horse", "bird")


class ColourDraw(_Strict):
    """X4 colour on a drawable of the library (an animal's collar, a mug, a door, a vehicle...).
    An animal (dog, cat, horse, bird) is drawn by its declared look: ``size``, ``coat`` colour and
    ``markings`` (its collar, halter or leg ring carries the asked colour)."""

    drawable: Literal[
        "dog", "cat", "horse", "bird", "mug", "door", "bag", "vase", "cap", "vehicle", "aircraft"
    ] = Field(
        description="what carries the colour (dog, cat: the collar; horse: the halter; bird: a leg "
        "ring; vehicle: a van's body; aircraft: a small plane's fuselage)"
    )
    size: Literal["small", "medium", "large"] | None = Field(
        default=None, description="an animal's size in its place; default: it fills its place"
    )
    coat: str | None = Field(
        default=None, pattern=r"^#[0-9a-fA-F]{6}$", description="an animal's coat colour; default per species"
    )
    markings: Literal["none", "spots", "patch", "blaze", "stripes"] = Field(
        default="none", description="an animal's markings (a white blaze, a patch over the eye...)"
    )
    noun: str = Field(
        min_length=1,
        max_length=MAX_NAME,
        description='the coloured part as questions say it: "the dog\'s collar"',
    )
    per_scene: bool = Field(
        default=False,
        description="each scene has its own (one per place); default: one object seen in every scene "
        "of the scenario, holding one value at a time",
    )


class CountDraw(_Strict):
    """X4 count drawn as a row of one drawable of the library (boxes, bottles, tins, coins)."""

    drawable: Literal["box", "bottle", "tin", "coin", "book", "cone"] = Field(description="what is counted")
    noun: str = Field(
        min_length=1,
        max_length=MAX_NAME,
        description="plural, as questions say it: 'gauze boxes on the shelf'",
    )
    colour: str = Field(default="#b04a30", pattern=r"^#[0-9a-fA-F]{6}$", description="their colour")
    container: Literal["bin", "crate", "basket"] | None = Field(
        default=None, description="the items stand in an open bin, crate or basket; default: in a row"
    )
    per_scene: bool = Field(
        default=False,
        description="each scene has its own (one per place); default: one object seen in every scene "
        "of the scenario, holding one value at a time",
    )


def _short_names(names: list[str], what: str) -> None:
    low = [n.strip().lower() for n in names]
    if len(set(low)) != len(low):
        raise ValueError(f"{what}: names must be distinct")
    for i, n in enumerate(names):
        if not n.strip() or len(n) > 16 or set(n) & set("/,"):
            raise ValueError(f"{what}.{i}: a name of at most 16 characters, without '/' or ','")


LabelType = Literal["level", "count", "time", "code"]
# a declared value type -> its default range (level, count: integers; time: hours of the day)
LABEL_RANGES: dict[str, tuple[int, int]] = {"level": (1, 5), "count": (0, 99), "time": (6, 22)}
CHART_STEPS = 12  # the most values a chart's bar tells apart (its axis is a few dozen px high)


class LabelDraw(_Strict):
    """X4 written value on a drawable (a sign on a post, a board, a screen, a tag). ``type`` says
    what the value is and how it is drawn: a ``level`` in ``range`` ("3"), a ``count`` ("42"), a
    ``time`` of day ("14:30", hours in ``range``); ``code`` (default): the kind's label format
    (only with a scene pack: ``memeye.scene_packs``)."""

    drawable: Literal["sign", "board", "screen", "tag", "chart"] = Field(
        default="sign",
        description="what the value is written on (top right; a tag: bottom right); chart: a bar "
        "chart whose last bar stands at the value (a level or count of at most 12 values), the value "
        "written above it",
    )
    type: LabelType = Field(default="code", description="the value's type: level, count, time or code")
    range: tuple[int, int] | None = Field(
        default=None, description="lowest and highest value (time: hours); default per type"
    )
    noun: str = Field(
        min_length=1,
        max_length=MAX_NAME,
        description="the text as questions say it: 'the number on the gate sign'",
    )
    per_scene: bool = Field(
        default=False,
        description="each scene has its own (one per place); default: one object seen in every scene "
        "of the scenario, holding one value at a time",
    )

    @model_validator(mode="after")
    def _range(self) -> LabelDraw:
        if self.range is not None:
            lo, hi = self.range
            if self.type == "code":
                raise ValueError(
                    "range: a `code` label has the kind's format; give a type (level, count, time)"
                )
            top = 23 if self.type == "time" else 9999
            if not 0 <= lo < hi <= top or (self.type != "time" and hi - lo < 3):
                raise ValueError(f"range: [low, high] with 0 <= low < high <= {top} and at least four values")
        return self

    @model_validator(mode="after")
    def _chart(self) -> LabelDraw:
        if self.drawable == "chart":
            if self.type not in ("level", "count"):
                raise ValueError("drawable chart: a bar's level is a number; give type level or count")
            lo, hi = self.bounds()
            if hi - lo + 1 > CHART_STEPS:
                raise ValueError(
                    f"drawable chart: range [{lo}, {hi}] has {hi - lo + 1} values; a bar shows at most "
                    f"{CHART_STEPS} levels apart (declare a range)"
                )
        return self

    def bounds(self) -> tuple[int, int]:
        """The declared range, else the type's default."""
        return self.range or LABEL_RANGES[self.type]


class TableDraw(_Strict):
    """A table-top arrangement: four objects in a row, each with its name written on a card in
    front of it; carries the ``order`` variable (X3), which replaces the scene gist (X1)."""

    noun: str = Field(
        min_length=1,
        max_length=MAX_NAME,
        description="the table as questions say it: 'the counter top'",
    )
    items: list[Name] = Field(min_length=4, max_length=4, description="the four objects on it")
    per_scene: bool = Field(
        default=False,
        description="each scene has its own (one per place); default: one object seen in every scene "
        "of the scenario, holding one value at a time",
    )

    @model_validator(mode="after")
    def _names(self) -> TableDraw:
        _short_names(self.items, "items")
        return self


class PersonDraw(_Strict):
    """A recurring person of the cast (drawn in their own colours) holding one object of a
    declared set; carries the ``presence`` variable (X2: which one is there), which replaces the
    left region item."""

    cast: str = Field(max_length=MAX_NAME, description="cast id of the person")
    holds: list[Name] = Field(min_length=4, max_length=8, description="the objects they may hold (>= 4)")

    @model_validator(mode="after")
    def _names(self) -> PersonDraw:
        _short_names(self.holds, "holds")
        return self


class DrawsSpec(_Strict):
    """What a scenario's pictures draw instead of the kind's built-in board, colour object,
    countables or tag, and the extra drawables (a table-top arrangement, a cast person)."""

    board: BoardDraw | None = Field(
        default=None, description="X1 gist: a board with one of the declared lists"
    )
    colour: ColourDraw | None = Field(default=None, description="X4 colour on a declared drawable")
    count: CountDraw | None = Field(default=None, description="X4 count of a declared drawable")
    label: LabelDraw | None = Field(default=None, description="X4 text on a sign")
    table: TableDraw | None = Field(default=None, description="four named objects in a row (order, X3)")
    person: PersonDraw | None = Field(
        default=None, description="a cast member holding one object (presence, X2)"
    )
    map: MapDraw | None = Field(
        default=None, description="a map with named locations, a pin at one (marked, X3)"
    )

    @model_validator(mode="after")
    def _one_centre(self) -> DrawsSpec:
        if self.board is not None and self.table is not None:
            raise ValueError("table: a table-top arrangement takes the board's place; declare one of them")
        return self

    @model_serializer(mode="wrap")
    def _drop_new_defaults(self, handler: Any) -> dict[str, Any]:  # themes before maps dump as they did
        out = handler(self)
        if out.get("map") is None:
            out.pop("map", None)
        return out

    def shared_keys(self) -> dict[str, str]:
        """key -> drawable for the declared drawables that are one object across the scenario's
        scenes (a person always is; the others unless ``per_scene``): one timeline each."""
        out = {}
        for key, name in SHARED_DRAWABLES.items():
            d = getattr(self, name)
            if d is not None and not getattr(d, "per_scene", False):
                out[key] = name
        return out
