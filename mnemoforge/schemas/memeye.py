"""Theme section of the visual-centric family (MemEye): scenarios, sessions, X×Y cell targets.

A scenario is one life task (home renovation, a card-game playlog, a health dashboard, outdoor
navigation): a few recurring *scenes* the user photographs over several chat sessions. ``kind``
picks the renderer and the visual vocabulary (``room``, ``board``, ``dashboard``, ``street``,
``shelf``).
``check`` validates references against the rest of the theme.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from mnemoforge.schemas.theme import Theme

SceneKind = Literal["room", "board", "dashboard", "street", "shelf"]
X_LABELS = ("X1", "X2", "X3", "X4")
Y_LABELS = ("Y1", "Y2", "Y3")
CELLS = tuple(f"{x}_{y}" for x in X_LABELS for y in Y_LABELS)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class ScenarioSpec(_Strict):
    """One life scenario: recurring scenes shown across sessions (each scene in ≥ 2 sessions)."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str = Field(min_length=1)
    kind: SceneKind
    scenes: list[str] = Field(
        min_length=2, max_length=4, description="scene names as the user says them, e.g. 'the spare room'"
    )
    sessions: int = Field(default=4, ge=2, le=20)
    chat_rounds: int = Field(default=1, ge=0, le=4, description="image-free rounds per session")
    place: str | None = Field(default=None, description="place id where the scenes are")


class MemEyeSpec(_Strict):
    """The ``memeye:`` section of a theme."""

    user: str | None = Field(default=None, description="cast id of the user; default: the protagonist")
    assistant: str = "Assistant"
    scenarios: list[ScenarioSpec] = Field(min_length=1)
    per_cell: int = Field(default=5, ge=0, le=200, description="candidates planned per X×Y cell")
    changes_per_scene: int = Field(
        default=2, ge=1, le=5, description="keys that change once in each scene (more feeds the Y3 cells)"
    )
    targets: dict[str, int] = Field(
        default_factory=dict, description="per-cell overrides, keys like 'X3_Y2' (candidates)"
    )
    image_width: int = Field(default=512, ge=256, le=1024)
    image_height: int = Field(default=384, ge=192, le=768)

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
            if n < 0:
                raise ValueError(f"memeye.targets.{key}: must be >= 0, got {n}")
        seen: set[str] = set()
        for i, s in enumerate(self.scenarios):
            if s.id in seen:
                raise ValueError(f"memeye.scenarios.{i}.id: duplicate scenario id {s.id!r}")
            seen.add(s.id)
            if s.place is not None and s.place not in places:
                raise ValueError(f"memeye.scenarios.{i}.place: unknown place {s.place!r}")
            names = [n.strip().lower() for n in s.scenes]
            if len(set(names)) != len(names):
                raise ValueError(f"memeye.scenarios.{i}.scenes: scene names must be unique, got {s.scenes}")
            # each scene must be shown in at least two sessions (an update needs a later photo)
            if s.sessions < len(s.scenes):
                raise ValueError(
                    f"memeye.scenarios.{i}.sessions: {s.sessions} sessions cannot show each of "
                    f"{len(s.scenes)} scenes twice (need >= {len(s.scenes)})"
                )
