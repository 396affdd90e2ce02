"""Theme section of the visual-centric family (MemEye): scenarios, sessions, X×Y cell targets.

A scenario is one life task (a boat repair, a chess-club scorebook, a pantry stock list, a bus
route): a few recurring *scenes* the user photographs over several chat sessions. ``kind``
picks the renderer and the visual vocabulary (``room``, ``board``, ``dashboard``, ``street``,
``shelf``).
``check`` validates references against the rest of the theme.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator

from mnemoforge.schemas.draws import (
    ANIMALS,
    CHART_STEPS,
    LABEL_RANGES,
    SHARED_DRAWABLES,
    BoardDraw,
    ColourDraw,
    CountDraw,
    DrawsSpec,
    LabelDraw,
    PersonDraw,
    TableDraw,
)
from mnemoforge.schemas.limits import MAX_ITEMS, MAX_NAME, MAX_SETTINGS, MAX_SPAN_DAYS, Name
from mnemoforge.schemas.strict import Strict

if TYPE_CHECKING:
    from mnemoforge.schemas.theme import Theme

SceneKind = Literal["room", "board", "dashboard", "street", "shelf"]
X_LABELS = ("X1", "X2", "X3", "X4")
Y_LABELS = ("Y1", "Y2", "Y3")
CELLS = tuple(f"{x}_{y}" for x in X_LABELS for y in Y_LABELS)


__all__ = [
    "ANIMALS",
    "CHART_STEPS",
    "LABEL_RANGES",
    "SHARED_DRAWABLES",
    "BoardDraw",
    "ColourDraw",
    "CountDraw",
    "DrawsSpec",
    "LabelDraw",
    "PersonDraw",
    "TableDraw",
]  # re-exported: the parts live in schemas/draws.py
_Strict = Strict  # unknown keys, inf/NaN and unbounded text are errors (schemas/strict.py)


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
