"""Question families as plugins: each turns a theme into World → episodes → media → questions.

The pipeline (``mnemoforge.pipeline``) owns run folders, caching, gates and freezing; a family owns
what is specific to its benchmark. Every family writes the same run-folder files the shared
stages read (``world/world.json``, ``episodes/observations.jsonl``, ``episodes/captions.jsonl``,
``media/index.jsonl``, ``questions/candidates.jsonl``), plus any files of its own under
``episodes/``, and contributes its own release tables, statistics and gates.

Families are registered by name and imported lazily, so a build of one family never imports
another's renderers.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mnemoforge.schemas.observations import Observation
    from mnemoforge.schemas.questions import Question
    from mnemoforge.schemas.theme import Theme
    from mnemoforge.schemas.world import World
    from mnemoforge.store.layout import RunLayout
    from mnemoforge.validators.gates import Gate

OnProgress = Callable[[int, int], None]


@dataclass(frozen=True)
class ReleaseInput:
    """What a family sees when writing its release tables and statistics."""

    theme: Theme
    world: World
    run_root: Path
    observations: list[Observation]
    kept: list[Question]
    media: list[dict]


class Family(Protocol):
    """One benchmark family. Methods are plain functions of their inputs (no global state)."""

    name: str
    # source modules per stage ("plan", "episodes", "render", "questions"): part of the cache keys
    stage_modules: Mapping[str, tuple[ModuleType, ...]]

    def check_theme(self, theme: Theme) -> list[str]:
        """Every check the build would make of this theme, without building: problems as
        ``"field.path: what is wrong (what to write instead)"``; empty when the theme builds.
        ``theme check`` and ``build`` both call it before any work starts."""
        ...

    def plan(self, theme: Theme, seed: int) -> World:
        """The seeded ground truth."""
        ...

    def episodes(self, theme: Theme, world: World, run: RunLayout) -> list[Path]:
        """Write ``run.observations``, ``run.captions`` and family files under ``episodes/``
        atomically; return the paths written."""
        ...

    def render(
        self, theme: Theme, world: World, run: RunLayout, workers: int, on_progress: OnProgress | None
    ) -> list[Path]:
        """Render media under ``run.media`` and write ``run.media_index`` (rows: path, kind,
        bytes, sha256, …); return the paths written."""
        ...

    def questions(self, theme: Theme, world: World, run: RunLayout) -> list[Question]:
        """Candidate questions (answers computed by registered programs)."""
        ...

    def gates(self) -> list[Gate]:
        """Exact family gates run after the shared ones (taxonomy audits and the like)."""
        ...

    def release_tables(self, data: ReleaseInput, root: Path) -> dict[str, str]:
        """Write family tables under ``root/data/<family>/``; return {config name: relative path}."""
        ...

    def statistics(self, data: ReleaseInput) -> dict[str, Any]:
        """Family keys merged into ``dataset_statistics.json`` (a ``questions`` dict merges into
        the shared ``questions`` block)."""
        ...

    def counts(self, stats: dict[str, Any]) -> dict[str, int]:
        """Family counts for the release manifest (e.g. clips, sources, sessions)."""
        ...

    def contents_line(self, stats: dict[str, Any]) -> str:
        """One line for the changelog and card: what the release holds besides questions."""
        ...

    def card_section(self, stats: dict[str, Any]) -> str:
        """Markdown for the dataset card: how the family's items are built and what they hold."""
        ...


# name -> "module:attribute" of a Family instance
FAMILIES: dict[str, str] = {
    "icm": "mnemoforge.generators.icm.family:FAMILY",
    "smm": "mnemoforge.generators.smm.family:FAMILY",
    "memeye": "mnemoforge.generators.memeye.family:FAMILY",
}
# modules that register question programs (imported before an unknown program is looked up)
PROGRAM_MODULES = (
    "mnemoforge.generators.icm.programs",
    "mnemoforge.generators.icm.routine_programs",
    "mnemoforge.generators.smm.programs",
    "mnemoforge.generators.memeye.programs",
)


def get_family(name: str) -> Family:
    if name not in FAMILIES:
        raise KeyError(f"unknown family {name!r}; known: {sorted(FAMILIES)}")
    module, attr = FAMILIES[name].split(":")
    return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]


def import_program_modules() -> None:
    """Import every family's program module so its programs are registered (missing ones skipped)."""
    for m in PROGRAM_MODULES:
        try:
            importlib.import_module(m)
        except ModuleNotFoundError as e:
            if e.name != m:
                raise
