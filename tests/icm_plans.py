"""Shipped icm themes planned, and their items generated, once per test session.

Several test modules read the same plan (the default album's World, clips and observations) and
the same items (``generate_icm`` with the theme's counts, screened or not); each used to plan and
generate its own copy (about 2 CPU-s a screened copy). ``tests/conftest.py``'s ``icm_plans``
fixture hands out one :class:`IcmPlans`, and its ``plans`` xdist group keeps its readers on one
worker. Lists are fresh copies of frozen records: a test may sort or extend what it gets.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from mnemoforge.generators.icm.album import plan_album
from mnemoforge.generators.icm.questions import generate_icm
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import THEMES_DIR, load_theme

EVERY = 1000
"""Items asked of a category to have all it gives (the default album's Profile category: 85)."""


@dataclass(frozen=True)
class Plan:
    """A shipped theme's album as a build plans it (its own seed, every clip)."""

    theme: Theme
    world: World
    clips: tuple[Clip, ...]
    observations: tuple[Observation, ...]

    @property
    def last(self) -> int:
        return self.theme.album.clips - 1


class IcmPlans:
    """``plan(file)`` and ``questions(file, screen)`` of a theme under ``assets/themes``."""

    @cache  # noqa: B019 - one instance per session, kept for the whole run
    def plan(self, theme_file: str = "life_album.yaml") -> Plan:
        theme = load_theme(THEMES_DIR / theme_file)
        world = plan_world(theme, theme.seed, theme.album.clips - 1)
        clips, obs = plan_album(theme, world)
        return Plan(theme, world, tuple(clips), tuple(obs))

    def questions(self, theme_file: str = "life_album.yaml", screen: bool = True) -> list[Question]:
        """``generate_icm`` with the theme's counts (``screen=False``: every form, those the
        cast-prior screen passes over too)."""
        return list(self._questions(theme_file, screen))

    def every(self, category: str, theme_file: str = "life_album.yaml") -> list[Question]:
        """Every item of ``category`` the album gives (far more asked than its candidates hold)."""
        return list(self._every(category, theme_file))

    @cache  # noqa: B019
    def _questions(self, theme_file: str, screen: bool) -> tuple[Question, ...]:
        p = self.plan(theme_file)
        counts = p.theme.questions.counts()
        return tuple(generate_icm(p.world, list(p.observations), counts, p.last, screen=screen))

    @cache  # noqa: B019
    def _every(self, category: str, theme_file: str) -> tuple[Question, ...]:
        p = self.plan(theme_file)
        return tuple(generate_icm(p.world, list(p.observations), {category: EVERY}, p.last))
