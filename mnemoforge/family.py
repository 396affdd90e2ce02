"""The family contract: what a benchmark family implements and what shared code may ask of it.

A family turns a theme into World → episodes → media → questions. The pipeline
(``mnemoforge.pipeline``) owns run folders, caching, gates and freezing; a family owns what is
specific to its benchmark. Every family writes the same run-folder files the shared stages read
(``world/world.json``, ``episodes/observations.jsonl``, ``episodes/captions.jsonl``,
``media/index.jsonl``, ``questions/candidates.jsonl``), plus any files of its own under
``episodes/``, and contributes its own release tables, statistics and gates.

Families subclass ``Family`` and register an instance in the ``mnemoforge.families`` entry-point
group (``mnemoforge.registry``); ``mnemoforge.generators.families.get_family`` looks them up.
This module imports no family and no registry (families import it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from mnemoforge.exporters.report_part import ReportPart
    from mnemoforge.schemas.episodes import Clip
    from mnemoforge.schemas.observations import Observation
    from mnemoforge.schemas.questions import Question
    from mnemoforge.schemas.theme import Theme
    from mnemoforge.schemas.world import World
    from mnemoforge.store.layout import RunLayout
    from mnemoforge.validators.gates import Gate

OnProgress = Callable[[int, int], None]

# optional theme settings a family may honour (``Family.theme_options``); ``theme check`` rejects
# one the theme's family would ignore, naming the field
THEME_OPTIONS = frozenset(
    {
        "text.plan",  # a model proposes the World's event outlines
        "text.plan_shots",  # a model proposes the shots of each clip
        *(f"render.{f}" for f in (
            "image", "image_model", "image_steps", "image_api", "video", "video_api", "speech", "speech_api",
        )),  # fmt: skip
    }
)


class ShotAsks(NamedTuple):
    """The ``text.plan_shots`` requests a build would send, for ``build --preflight`` to price."""

    prompts: list[str]  # one per call, exactly as the build writes it
    clips: int  # clips whose shots are asked for
    shots: int  # the shots their procedural plans have (replies are priced per shot)


class PreflightAlbum(NamedTuple):
    """What ``build --preflight`` costs an album of video clips from (``Family.preflight_album``)."""

    world: World
    clips: list[Clip]
    line_seconds: Callable[[World, str, str], float]  # (world, speaker id, text) -> seconds spoken
    # minutes the same plan takes with another setting of a length knob ({"knob: value": minutes})
    alternatives: Mapping[str, float] = {}
    shot_asks: ShotAsks | None = None  # with ``text.plan_shots``: the model calls it makes


@dataclass(frozen=True)
class ReleaseInput:
    """What a family sees when writing its release tables and statistics."""

    theme: Theme
    world: World
    run_root: Path
    observations: list[Observation]
    kept: list[Question]
    media: list[dict]


class Family:
    """One benchmark family: subclass it, implement the four generation stages, and override the
    optional parts whose defaults do not fit. Methods are plain functions of their inputs (no
    global state). Register an instance in the ``mnemoforge.families`` entry-point group
    (``mnemoforge.registry``); shared code asks the family object, never its name."""

    name: str = ""
    # source modules per stage ("plan", "episodes", "render", "questions"): part of the cache keys
    stage_modules: Mapping[str, tuple[ModuleType, ...]] = {}
    # modules that register this family's question programs (imported before an unknown program
    # is looked up)
    program_modules: tuple[str, ...] = ()
    # the category_quota gate keeps the family's category split after the gates
    keep_split: bool = False
    # the optional theme settings (``THEME_OPTIONS``) this family reads; a theme that sets another
    # one fails ``theme check`` (the build would silently ignore it)
    theme_options: frozenset[str] = frozenset()
    # whether ``render`` spreads its work over ``workers`` processes (else ``--workers`` is an error)
    uses_workers: bool = True
    # one line on what its benchmarks hold (``theme draft`` tells the model)
    description: str = ""
    # a shipped, commented theme (a file name under ``assets/themes/``, or a path) that
    # ``theme new --family NAME`` renames; None: no starter (the default family has the album one)
    example_theme: str | None = None

    # -- the four generation stages (required) --

    def plan(self, theme: Theme, seed: int) -> World:
        """The seeded ground truth."""
        raise NotImplementedError(f"family {self.name!r} has no plan stage")

    def episodes(self, theme: Theme, world: World, run: RunLayout) -> list[Path]:
        """Write ``run.observations``, ``run.captions`` and family files under ``episodes/``
        atomically; return the paths written."""
        raise NotImplementedError(f"family {self.name!r} has no episodes stage")

    def render(
        self, theme: Theme, world: World, run: RunLayout, workers: int, on_progress: OnProgress | None
    ) -> list[Path]:
        """Render media under ``run.media`` and write ``run.media_index`` (rows: path, kind,
        bytes, sha256, …); return the paths written."""
        raise NotImplementedError(f"family {self.name!r} has no render stage")

    def questions(self, theme: Theme, world: World, run: RunLayout) -> list[Question]:
        """Candidate questions (answers computed by registered programs)."""
        raise NotImplementedError(f"family {self.name!r} has no questions stage")

    # -- render in shards (optional): a task runner spreads the shards over its workers --

    # what a shard's items are called in progress lines ("3/10 clips"); None: the family renders
    # in one task (``render``), and the orchestrator's task runner has nothing to spread
    shard_unit: str | None = None

    def render_shards(self, run: RunLayout, workers: int) -> list[list[str]]:
        """The ids of the items to render, split into shards (the split never changes the media)."""
        raise NotImplementedError(f"family {self.name!r} does not render in shards")

    def render_shard(self, theme: Theme, world: World, run: RunLayout, ids: list[str]) -> list[dict]:
        """Render these items in this process (idempotent: finished files are skipped); media rows."""
        raise NotImplementedError(f"family {self.name!r} does not render in shards")

    def finish_render(
        self, theme: Theme, world: World, run: RunLayout, rows: list[dict], workers: int
    ) -> list[Path]:
        """After every shard: write ``run.media_index`` from the shards' rows; the paths written."""
        raise NotImplementedError(f"family {self.name!r} does not render in shards")

    # -- optional parts (defaults: nothing of the family's own) --

    def check_theme(self, theme: Theme) -> list[str]:
        """Every check the build would make of this theme, without building: problems as
        ``"field.path: what is wrong (what to write instead)"``; empty when the theme builds.
        ``theme check`` and ``build`` both call it before any work starts."""
        return []

    def theme_warnings(self, theme: Theme) -> list[str]:
        """Lines ``theme check`` prints as warnings (the theme builds, but less than it asks)."""
        return []

    # the reason a short category gives ("the World supports only 3 … candidates (<hint>)")
    shortfall_hint: str = "a larger World gives more"
    # whether the family's questions stage already logs one warning per short category (then the
    # build's shortfall lines leave its categories out, so each is said once; and the gates add none)
    warns_own_shortfall: bool = False

    def requested(self, theme: Theme) -> dict[str, int]:
        """Candidates the theme asks for, per category (default: the theme's ``questions`` mix)."""
        return dict(theme.questions.counts())

    def quotas(self, theme: Theme) -> dict[str, int] | None:
        """Items kept per category after the gates (over-generated families); None: no targets."""
        return None

    def gates(self) -> list[Gate]:
        """Exact family gates run after the shared ones (taxonomy audits and the like)."""
        return []

    def release_tables(self, data: ReleaseInput, root: Path) -> dict[str, str]:
        """Write family tables under ``root/data/<family>/``; return {config name: relative path}."""
        return {}

    def statistics(self, data: ReleaseInput) -> dict[str, Any]:
        """Family keys merged into ``dataset_statistics.json`` (a ``questions`` dict merges into
        the shared ``questions`` block)."""
        return {}

    def counts(self, stats: dict[str, Any]) -> dict[str, int]:
        """Family counts for the release manifest (e.g. clips, sources, sessions)."""
        return {}

    def contents_line(self, stats: dict[str, Any]) -> str:
        """One line for the changelog and card: what the release holds besides questions."""
        return ""

    def card_section(self, stats: dict[str, Any]) -> str:
        """Markdown for the dataset card: how the family's items are built and what they hold."""
        return ""

    # the ``data/<family>/`` tables a memory system may read besides questions and observations,
    # with the columns it may read (None: every column but ``exporters.views.AGENT_FORBIDDEN``);
    # tables not listed are evaluator keys only (``exporters.views.agent_tables``)
    agent_tables: Mapping[str, tuple[str, ...] | None] = {}

    def preflight_media(self, theme: Theme, world: World) -> tuple[int, int, str]:
        """For ``build --preflight`` (families without clips): the images the renderer will
        draw, the candidates the questions stage will make, and what the images are."""
        return 0, sum(self.requested(theme).values()), "no media"

    def preflight_album(self, theme: Theme, seed: int) -> PreflightAlbum | None:
        """For ``build --preflight``, a family whose episodes are video clips with speech: the
        planned World, its clips and how long a line takes to say (shared code costs the stills,
        shots, speech and length alternatives from them, without rendering). None (the default):
        the family is costed from ``preflight_media``."""
        return None

    def fit_length(self, theme: Theme, seed: int, ref_minutes: float) -> dict[str, Any] | None:
        """``build --preflight --fit-length``: the settings tried to bring the planned video to
        ``ref_minutes`` (``{"lines": [what each try gave, ...], "knobs": {field: value} or None
        when none fits, "minutes": what the fit gives}``). None: the family has no length knobs."""
        return None

    def preflight_candidates(self, theme: Theme) -> int:
        """Candidates the questions stage makes, as ``build --preflight`` prices them with a
        ``preflight_album`` (default: the theme's question total)."""
        return theme.questions.total

    # -- model planners (opt-in theme settings, each listed in ``theme_options`` when supported) --

    def model_plan(self, theme: Theme, seed: int, run: RunLayout) -> list[Path]:
        """The plan stage with ``text.plan``: a text model proposes the World's content, validated
        into it; write ``run.world`` (and any lineage) and return the paths written."""
        raise NotImplementedError(f"family {self.name!r} has no model planner (text.plan)")

    def model_plan_inputs(self, theme: Theme) -> list[object]:
        """With ``text.plan`` or ``text.plan_shots``: what the build's cache keys carry besides the
        theme (the model planners' code and prompts), so a changed prompt re-plans."""
        return []

    def realiser(self, theme_bytes: bytes, world: World) -> Callable[[Question], list[str] | None] | None:
        """The texts the generator could have written for a released question (``verify``
        compares them with the release's); None: the family's texts are not checked."""
        return None

    # -- length variants (``build --variants``, ``mnemoforge/variants.py``) --

    # what one episode of a variant is called ("clips", "sessions"); None: no length variants
    variant_unit_name: str | None = None

    def variant_unit(self, obs: Observation) -> str:
        """The episode an observation belongs to: a variant keeps or leaves out whole episodes."""
        return obs.episode

    # modality ablations ``build --variants`` also knows: name -> what the agent still gets
    ablations: Mapping[str, str] = {}

    def ablate(self, name: str, obs: Observation, captions: Mapping[str, dict]) -> Observation | None:
        """An observation as the ablation ``name`` leaves it (None: left out); ``captions``: the
        release's caption rows by observation id (for an ablation that shows captions instead)."""
        raise KeyError(f"family {self.name!r} has no ablation {name!r}")

    def write_ablation_media(self, name: str, root: Path, paths: list[str]) -> None:
        """Write into the release ``root`` the media the ablation's observations name that the
        release lacks (icm ``no_audio``: muted clips); by default an ablation names none."""

    def check_ablation_media(self, name: str, root: Path, paths: list[str]) -> list[str]:
        """``verify``: problems with those media (empty: none)."""
        return [
            f"{p}: missing (ablation {name!r} lists it)"
            for p in sorted(set(paths))
            if not (root / p).is_file()
        ]

    def variant_capacity(self, theme: Theme) -> int | None:
        """The World's episodes as the theme fixes them before planning (``theme check`` rejects a
        variant size above it); None: known only once the episodes are written."""
        return None

    extends: bool = False
    """The family can extend a run with more episodes of its World (``build --extend``)."""

    def variant_extension(
        self, theme: Theme, world: World, run_root: Path, n: int
    ) -> tuple[World, list[Observation]] | None:
        """``n`` more episodes of ``world`` for the longer length variants, never evidence: the
        World with their events and their observations, placed in the run's stream by time
        (``variant_extension.extend``; icm: ``generators/icm/extension.py``); None: the family has none."""
        return None

    def write_variant_extension(
        self, theme: Theme, world: World, run_root: Path, n: int, dest: Path, workers: int
    ) -> Path | None:
        """The same extension rendered: a run folder at ``dest`` holding the run and the ``n``
        episodes (World, episodes, observations, captions, media and its index), what a variant
        freeze then reads instead of the run; None: the family has no extension."""
        return None

    # -- evaluation (``mnemoforge evaluate``, harness tasks) --

    # the table keys a scored item is reported under, in table order; harness tasks group their
    # metrics by the last one
    eval_keys: tuple[str, ...] = ("category",)
    # the tables ``summary.md`` shows, key -> title (the seed benchmark's own tables)
    eval_titles: Mapping[str, str] = {"category": "By category"}

    def eval_group(self, category: str, labels: Mapping[str, str]) -> dict[str, str]:
        """An item's value of each ``eval_keys`` key (from its category and labels)."""
        return {"category": category}

    def report_part(self) -> ReportPart | None:
        """What ``mnemoforge report`` shows of this family (``exporters/report_part.py``: the
        generic part shows episodes derived from observations; override it in the family's
        package). None: the family's episodes are clips of shots (the report's album pages)."""
        from mnemoforge.exporters.report_part import ReportPart

        return ReportPart()
