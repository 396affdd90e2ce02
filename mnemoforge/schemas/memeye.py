"""Theme section of the visual-centric family (MemEye): scenarios, sessions, X×Y cell targets.

A scenario is one life task (a boat repair, a chess-club scorebook, a pantry stock list, a bus
route): a few recurring *scenes* the user photographs over several chat sessions. ``kind``
picks the renderer and the visual vocabulary (``room``, ``board``, ``dashboard``, ``street``,
``shelf``).
``check`` validates references against the rest of the theme.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_serializer, model_validator

from mnemoforge.schemas.limits import MAX_ITEMS, MAX_NAME, MAX_SETTINGS, MAX_SPAN_DAYS, Name
from mnemoforge.schemas.memeye_map import MapDraw
from mnemoforge.schemas.strict import Strict

if TYPE_CHECKING:
    from mnemoforge.schemas.theme import Theme

SceneKind = Literal["room", "board", "dashboard", "street", "shelf"]
X_LABELS = ("X1", "X2", "X3", "X4")
Y_LABELS = ("Y1", "Y2", "Y3")
CELLS = tuple(f"{x}_{y}" for x in X_LABELS for y in Y_LABELS)


_Strict = Strict  # unknown keys, inf/NaN and unbounded text are errors (schemas/strict.py)
# state key -> the declared drawable that carries it (``DrawsSpec``)
SHARED_DRAWABLES = {
    "gist": "board", "colour": "colour", "count": "count", "label": "label", "order": "table",
    "presence": "person", "marked": "map",
}  # fmt: skip


ChangeKey = Literal["gist", "left", "mark", "colour", "count", "label", "order", "presence", "marked"]


class ChangeSpec(_Strict):
    """A state variable of a scenario's scenes and its schedule (exactly one of ``after``,
    ``dates``, ``every_days``, ``restock``). The value changes at the first photo that follows
    each scheduled moment; the earlier states stay in the stream as stale states (Y3)."""

    key: ChangeKey = Field(
        description="what changes: gist (X1), left item (X2), presence (X2: what the declared person "
        "holds), marked instance, order (X3: the left-to-right order on the declared table) or marked "
        "(X3: the location the declared map's pin marks), colour, count or label (X4)"
    )
    scenes: list[int] | None = Field(
        default=None, max_length=4, description="indexes of the scenes it applies to; default all"
    )
    after: dt.date | None = Field(default=None, description="one change, at the first photo after this date")
    dates: list[dt.date] = Field(
        default_factory=list,
        max_length=MAX_SPAN_DAYS,
        description="a change at the first photo on/after each",
    )
    every_days: int | None = Field(default=None, ge=1, le=365, description="a change at most every N days")
    restock: bool = Field(default=False, description="count only: drops photo by photo, then is restocked")

    @model_validator(mode="after")
    def _one_schedule(self) -> ChangeSpec:
        n = sum([self.after is not None, bool(self.dates), self.every_days is not None, self.restock])
        if n != 1:
            raise ValueError("give exactly one schedule: after, dates, every_days or restock")
        if self.restock and self.key != "count":
            raise ValueError("restock applies to key count only")
        if self.key == "label" and (self.every_days is not None or len(self.dates) > 1):
            raise ValueError("a label changes once (after or one date): its options are nudges of one base")
        return self


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


class ScenarioSpec(_Strict):
    """One life scenario: recurring scenes shown across sessions (each scene in ≥ 2 sessions)."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=MAX_NAME, description="scenario id")
    title: str = Field(min_length=1, max_length=MAX_NAME, description="its title, e.g. 'Home Renovation'")
    kind: SceneKind = Field(description="the renderer and its visual vocabulary")
    scenes: list[Name] = Field(
        min_length=2, max_length=4, description="scene names as the user says them, e.g. 'the boathouse'"
    )
    sessions: int = Field(
        default=4, ge=2, le=20, description="chat sessions; each shows two scenes (>= scenes)"
    )
    chat_rounds: int = Field(default=1, ge=0, le=4, description="image-free rounds per session")
    place: str | None = Field(default=None, max_length=MAX_NAME, description="place id where the scenes are")
    draws: DrawsSpec = Field(default_factory=DrawsSpec, description="drawables of the library to use")
    changes: list[ChangeSpec] = Field(
        default_factory=list,
        max_length=MAX_SETTINGS,
        description="declared state variables with schedules; none: changes_per_scene keys change once",
    )


class MemEyeSpec(_Strict):
    """The ``memeye:`` section of a theme."""

    user: str | None = Field(
        default=None, max_length=MAX_NAME, description="cast id of the user; default: the protagonist"
    )
    assistant: str = Field(
        default="Assistant", max_length=MAX_NAME, description="the assistant's name in the chat"
    )
    scenarios: list[ScenarioSpec] = Field(
        min_length=1, max_length=MAX_SETTINGS, description="life scenarios, each a few recurring scenes"
    )
    per_cell: int = Field(
        default=5, ge=0, le=200, description="items kept per X×Y cell (1.5 x + 1 candidates are planned)"
    )
    changes_per_scene: int = Field(
        default=2, ge=1, le=5, description="keys that change once in each scene (more feeds the Y3 cells)"
    )
    targets: dict[Name, int] = Field(
        default_factory=dict,
        max_length=len(CELLS),
        description="per-cell overrides of per_cell, keys X1_Y1 .. X4_Y3 (at most 200 each)",
    )
    pack: str | None = Field(
        default=None,
        pattern=r"^[a-z][a-z0-9_]*$",
        description="content pack (assets/packs/<pack>.yaml) of chat lines; none: composed from the theme",
    )
    scene_packs: list[str] = Field(
        default_factory=list,
        max_length=8,
        description="scene packs (assets/scene_packs/<name>.yaml) whose built-in scenes the pictures may "
        "draw and ask about (e.g. home_scenes: rooms, streets, shelves); none: only the declared drawables",
    )
    visual_words: list[Name] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="more words the pictures show, never said in a text the agent reads "
        "(the visual-word rule)",
    )
    image_width: int = Field(default=512, ge=256, le=1024, description="picture width in pixels")
    image_height: int = Field(default=384, ge=192, le=768, description="picture height in pixels")

    def cell_targets(self) -> dict[str, int]:
        """Candidates to plan per cell (all 12 cells, in X-then-Y order)."""
        return {c: self.targets.get(c, self.per_cell) for c in CELLS}

    def check(self, theme: Theme) -> None:
        """Raise ``ValueError('memeye.<path>: …')`` for references the section alone cannot check."""
        people = {p.id for p in theme.cast}
        places = {p.id for p in theme.places}
        if self.user is not None and self.user not in people:
            raise ValueError(f"memeye.user: unknown person {self.user!r}")
        for key, n in self.targets.items():
            if key not in CELLS:
                raise ValueError(f"memeye.targets.{key}: unknown cell; cells are {', '.join(CELLS)}")
            if not 0 <= n <= 200:
                raise ValueError(f"memeye.targets.{key}: must be between 0 and 200 (as per_cell), got {n}")
        if sum(self.cell_targets().values()) == 0:
            field = "memeye.targets" if self.targets else "memeye.per_cell"
            raise ValueError(f"{field}: the theme asks for no questions (a release needs at least one)")
        if self.pack is not None:
            from mnemoforge.schemas.packs import load_pack

            try:
                load_pack(self.pack)
            except ValueError as e:
                raise ValueError(f"memeye.pack: {e}") from None
        from mnemoforge.backends.image.visual_catalog import pack_names

        for i, name in enumerate(self.scene_packs):
            if name not in pack_names():
                raise ValueError(
                    f"memeye.scene_packs.{i}: unknown scene pack {name!r}; "
                    f"packs are {', '.join(pack_names())}"
                )
        seen: set[str] = set()
        drawn: dict[str, int] = {}
        for i, s in enumerate(self.scenarios):
            if s.draws.person is not None:
                who = s.draws.person.cast
                if who in drawn:
                    raise ValueError(
                        f"memeye.scenarios.{i}.draws.person.cast: {who!r} is drawn in scenario "
                        f"{drawn[who]} too; a person is in one place and holds one thing at a time, so "
                        "draw them in one scenario"
                    )
                drawn[who] = i
            if s.id in seen:
                raise ValueError(f"memeye.scenarios.{i}.id: duplicate scenario id {s.id!r}")
            seen.add(s.id)
            if s.place is not None and s.place not in places:
                raise ValueError(f"memeye.scenarios.{i}.place: unknown place {s.place!r}")
            names = [n.strip().lower() for n in s.scenes]
            if len(set(names)) != len(names):
                raise ValueError(f"memeye.scenarios.{i}.scenes: scene names must be unique, got {s.scenes}")
            if s.draws.person is not None and s.draws.person.cast not in people:
                who = s.draws.person.cast
                raise ValueError(f"memeye.scenarios.{i}.draws.person.cast: unknown person {who!r}")
            if s.draws.label is not None and s.draws.label.type == "code" and not self.scene_packs:
                raise ValueError(
                    f"memeye.scenarios.{i}.draws.label.type: a `code` label takes a scene pack's format; "
                    "declare the value's type (level, count or time) or opt into memeye.scene_packs"
                )
            for j, c in enumerate(s.changes):
                need = {"order": ("table", s.draws.table), "presence": ("person", s.draws.person),
                        "marked": ("map", s.draws.map)}  # fmt: skip
                if c.key in need and need[c.key][1] is None:
                    raise ValueError(
                        f"memeye.scenarios.{i}.changes.{j}.key: {c.key!r} needs a `draws.{need[c.key][0]}` "
                        f"drawable in this scenario"
                    )
                gone = {"gist": ("table", s.draws.table), "left": ("person", s.draws.person),
                        "mark": ("map", s.draws.map)}  # fmt: skip
                if c.key in gone and gone[c.key][1] is not None:
                    raise ValueError(
                        f"memeye.scenarios.{i}.changes.{j}.key: {c.key!r} is not drawn in this scenario "
                        f"(its `draws.{gone[c.key][0]}` takes its place)"
                    )
                own = {"gist": "board", "colour": "colour", "count": "count", "label": "label"}
                if (
                    not self.scene_packs
                    and c.key not in need
                    and (c.key not in own or getattr(s.draws, own[c.key]) is None)
                ):
                    what = f"a `draws.{own[c.key]}` drawable" if c.key in own else "a scene pack"
                    raise ValueError(
                        f"memeye.scenarios.{i}.changes.{j}.key: {c.key!r} is not drawn in this scenario; "
                        f"declare {what} or opt into memeye.scene_packs (e.g. [home_scenes])"
                    )
                for k in c.scenes or []:
                    if not 0 <= k < len(s.scenes):
                        raise ValueError(f"memeye.scenarios.{i}.changes.{j}.scenes: no scene {k}")
                for d in [*c.dates, *([c.after] if c.after else [])]:
                    if not theme.start <= d <= theme.end:
                        raise ValueError(
                            f"memeye.scenarios.{i}.changes.{j}: {d} is outside the theme's span "
                            f"{theme.start}..{theme.end}"
                        )
                shared = s.draws.shared_keys()
                if c.key in shared and c.scenes is not None:
                    raise ValueError(
                        f"memeye.scenarios.{i}.changes.{j}.scenes: `draws.{shared[c.key]}` is one object "
                        f"seen in every scene of the scenario, so its {c.key} cannot change in some scenes "
                        "only; drop `scenes` or declare `per_scene: true` on the drawable (one per scene)"
                    )
                keys = [(c.key, k) for c in s.changes[:j] for k in (c.scenes or range(len(s.scenes)))]
                if any((c.key, k) in keys for k in (c.scenes or range(len(s.scenes)))):
                    raise ValueError(f"memeye.scenarios.{i}.changes.{j}: a second schedule for key {c.key!r}")
            # each scene must be shown in at least two sessions (an update needs a later photo)
            if s.sessions < len(s.scenes):
                raise ValueError(
                    f"memeye.scenarios.{i}.sessions: {s.sessions} sessions cannot show each of "
                    f"{len(s.scenes)} scenes twice (need >= {len(s.scenes)})"
                )
