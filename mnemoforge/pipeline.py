"""The build as plain functions: plan → episodes → render → questions → gates → freeze.

Each stage reads its inputs from the run folder and writes its outputs there atomically, so
stages run in any process (Prefect tasks, workers) and a killed build resumes where it stopped.
``mnemoforge.flows.build`` wraps these same functions in Prefect tasks. What the stages read back
from the run folder and the inputs of their cache keys besides code live in ``run_inputs.py``.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from mnemoforge import faults
from mnemoforge import progress as progress_bus
from mnemoforge import variants as variants_mod
from mnemoforge.country_calendars import holidays_version
from mnemoforge.exporters import release as release_mod
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators import coherence, option_balance, shortfall
from mnemoforge.generators.families import Family, get_family
from mnemoforge.generators.questions import options as icm_options
from mnemoforge.generators.questions import paraphrase as paraphrase_mod
from mnemoforge.hashing import content_hash, sha256_bytes, source_hash
from mnemoforge.implementation import code_version, release_version, variant_note
from mnemoforge.run_inputs import (  # re-exported: callers import these from the pipeline
    RunStateError,
    lexicon_hash,
    load_observations,
    load_questions,
    load_run_meta,
    load_verdicts,
    load_world,
    model_plan_hash,
    paraphrase_with_model,
    production_prices,
    prompts_hash,
    shortfall_path,
)
from mnemoforge.schemas.packs import packs_hash
from mnemoforge.schemas.theme import Theme
from mnemoforge.store import atomic, ledger, locks, retakes
from mnemoforge.store.catalog import Catalog
from mnemoforge.store.code_deps import reachable_sources
from mnemoforge.store.layout import STAGES, OutputsLayout, RunLayout, make_run_id
from mnemoforge.store.stages import is_fresh, run_stage
from mnemoforge.theme_io import load_theme
from mnemoforge.validators import (
    gate_runner,
    human_review,
    panel_gates,
    perceivable,
    sentence_retrieval,
    shortcut_stats,
    text_retrieval,
)
from mnemoforge.validators import gates as gates_mod
from mnemoforge.validators.answerers import lexical, option_solvers, textnorm
from mnemoforge.validators.answerers import retrieval as answer_retrieval

# modules whose source is part of each stage's cache key (besides the family's own)
STAGE_SOURCES = {
    "questions": (  # icm planning screens sets with the panel's text solver and the gate's retrieval
        paraphrase_mod,
        option_balance,
        icm_options,
        option_solvers,
        sentence_retrieval,
        text_retrieval,
        panel_gates,
        lexical,
        textnorm,
    ),
    "gates": (
        gates_mod,
        panel_gates,
        gate_runner,
        option_solvers,
        shortcut_stats,
        perceivable,
        text_retrieval,
        answer_retrieval,
    ),
}
STAGE_VERSIONS = {"plan": "1", "episodes": "1", "render": "1", "questions": "1", "gates": "1"}

Progress = Callable[[str, str], None]


@dataclass
class BuildContext:
    """Everything that determines a run; cheap to pickle into a Prefect task."""

    theme_path: Path
    outputs: Path
    seed: int
    workers: int = 2
    progress: Progress | None = field(default=None, repr=False, compare=False)
    theme_bytes: bytes = b""
    theme_dir: Path | None = None
    """Where the theme's relative paths start (default: the theme file's folder; a run folder's
    copy of the theme takes the folder its run was built from, ``run.json``'s ``theme_dir``)."""
    variants: tuple[str, ...] = ()
    """Length variants the freeze writes (``build --variants``; ``mnemoforge/variants.py``): the run
    is the same with or without them, only the release differs (and is named apart)."""
    extend: int = 1
    """``build --extend K``: the length variants draw filler from the run's World with ``K`` times
    its episodes (more of the same World, rendered for them; ``mnemoforge/variant_extension.py``)."""
    theme: Theme = field(init=False)

    def __post_init__(self) -> None:
        self.theme = load_theme(self.theme_path, base=self.theme_dir)
        self.theme_bytes = Path(self.theme_path).read_bytes()

    @classmethod
    def of_run(cls, run_dir: Path) -> BuildContext:
        """The context of an existing run folder (``gate``, ``freeze``, ``review``)."""
        meta = load_run_meta(run_dir)
        base = Path(meta["theme_dir"]) if meta.get("theme_dir") else None
        run_dir = Path(run_dir)
        return cls(run_dir / "theme.yaml", run_dir.parent.parent, int(meta["seed"]), theme_dir=base)

    @property
    def family(self) -> Family:
        return get_family(self.theme.family)

    @property
    def theme_sha(self) -> str:
        return sha256_bytes(self.theme_bytes)

    @property
    def layout(self) -> OutputsLayout:
        return OutputsLayout(Path(self.outputs))

    @property
    def run(self) -> RunLayout:
        return self.layout.run(make_run_id(self.theme.name, self.theme_sha, self.seed))

    @property
    def release_name(self) -> str:
        name = self.theme.name if self.seed == self.theme.seed else f"{self.theme.name}-s{self.seed}"
        name = f"{name}-{'-'.join(self.variants)}" if self.variants else name  # e.g. album-oracle-s-m-l
        return f"{name}-x{self.extend}" if self.extend > 1 else name

    def key(self, stage: str) -> str:
        """Cache key: theme content, seed, code version, and each stage's version and source so far."""
        parts: list[object] = [self.theme_sha, self.seed, code_version(), self.theme.family]
        parts.append(packs_hash(self.theme))  # the content packs the theme names
        parts.append(lexicon_hash())  # the shipped word lists (assets/lexicon/)
        if self.theme.calendar is not None and self.theme.calendar.country:  # the holiday data's version
            parts.append(holidays_version())
        fam = self.family.stage_modules
        for s in STAGES[: STAGES.index(stage) + 1]:
            mods = (*fam.get(s, ()), *STAGE_SOURCES.get(s, ()))
            if s in STAGE_VERSIONS:  # the named modules and the generation code they reach
                parts += [s, STAGE_VERSIONS[s], source_hash(*mods, *reachable_sources(*mods))]
        if self.theme.text.plan or self.theme.text.plan_shots:  # model planners (offline keys unchanged)
            parts.append(model_plan_hash(self.theme, self.family))
        if STAGES.index(stage) >= STAGES.index("questions"):
            parts.append(
                prompts_hash(self.theme)
            )  # a changed prompt re-runs the gates (cheaply: cached verdicts)
        takes = retakes.retakes_hash(self.run.root)
        if takes and STAGES.index(stage) >= STAGES.index("render"):
            parts.append(takes)  # shots a reviewer sent back are rendered again (absent: key unchanged)
        if stage == "gates" and (review := human_review.decisions_hash(self.run.root)):
            parts.append(review)  # a reviewer's decisions re-run the gates (absent: key unchanged)
        return content_hash(*parts)


def run_lock(ctx: BuildContext, on_wait: Callable[[str], None] | None = None) -> AbstractContextManager[None]:
    """The lock a build of this run holds from ``prepare`` to the end of freeze (see store/locks.py)."""
    return locks.file_lock(
        locks.run_lock_path(ctx.layout.runs, ctx.run.run_id), f"run {ctx.run.run_id}", on_wait=on_wait
    )


def prepare(ctx: BuildContext) -> RunLayout:
    """Create the run folder and sweep what a killed build of *this run* left (call under ``run_lock``).

    Only this run's temp files go: its run folder's ``.tmp-*`` and its own release staging
    folders. Other builds writing into the same outputs folder are never touched.
    """
    run = ctx.run
    run.root.mkdir(parents=True, exist_ok=True)
    atomic.sweep_temp_files(run.root)
    from mnemoforge.backends.speech.espeak import sweep_stale_tmpdirs

    sweep_stale_tmpdirs()  # speech engines' folders left by killed builds (their owners are dead)
    staging = ctx.layout.releases / ctx.release_name
    if staging.is_dir():
        for p in staging.glob(release_mod.staging_glob(run.run_id)):
            shutil.rmtree(p, ignore_errors=True)
    if not run.theme.exists() or run.theme.read_bytes() != ctx.theme_bytes:
        atomic.write_bytes(run.theme, ctx.theme_bytes)
    theme_prices = production_prices(ctx)
    if theme_prices is not None:  # the theme's price overrides, for the costs in the call ledger
        atomic.write_json(run.root / ledger.PRICES_FILE, theme_prices)
    atomic.write_json(
        run.run_json,
        {
            "run_id": run.run_id,
            "theme": ctx.theme.name,
            "seed": ctx.seed,
            "code_version": code_version(),
            "theme_sha256": ctx.theme_sha,
            "theme_dir": str(Path(ctx.theme_dir or Path(ctx.theme_path).parent).resolve()),
        },
    )
    return run


def stage_plan(ctx: BuildContext) -> bool:
    run = ctx.run

    def work() -> list[Path]:
        if ctx.theme.text.plan:  # opt-in: a model proposes the World's content (Family.model_plan)
            return ctx.family.model_plan(ctx.theme, ctx.seed, run)
        world = coherence.check_world(ctx.family.plan(ctx.theme, ctx.seed), ctx.theme)  # fails loudly
        return [atomic.write_json(run.world, world)]

    return run_stage(run, "plan", ctx.key("plan"), work)[1]


def stage_episodes(ctx: BuildContext) -> bool:
    run = ctx.run

    def work() -> list[Path]:
        world = load_world(run)
        written = ctx.family.episodes(ctx.theme, world, run)
        # what the agent will see agrees with the World's timelines (else: a planner bug, loudly)
        broken = coherence.observation_problems(world, load_observations(run))
        if broken:
            raise coherence.IncoherentWorld(broken)
        return written

    return run_stage(run, "episodes", ctx.key("episodes"), work)[1]


def stage_render(ctx: BuildContext) -> bool:
    run = ctx.run

    def work() -> list[Path]:
        def on_item(done: int, total: int) -> None:
            progress_bus.advance("render", done, total)

        return ctx.family.render(ctx.theme, load_world(run), run, ctx.workers, on_item)

    return run_stage(run, "render", ctx.key("render"), work)[1]


def stage_questions(ctx: BuildContext) -> bool:
    run = ctx.run

    def work() -> list[Path]:
        w = load_world(run)
        qs = ctx.family.questions(ctx.theme, w, run)
        if ctx.theme.text.paraphrase_questions:
            qs = paraphrase_with_model(ctx.theme, w, qs)
        # `build` prints it from the funnel, one line each
        short = shortfall.shortfall(ctx.theme, ctx.family, qs)
        return [atomic.write_jsonl(run.candidates, qs), atomic.write_json(shortfall_path(run), short)]

    return run_stage(run, "questions", ctx.key("questions"), work)[1]


def gate_run(ctx: BuildContext, only: set[str] | None = None) -> gate_runner.GateRun:
    """Run the gates on the run's candidates and write verdicts and funnel (``mnemoforge gate``)."""
    run = ctx.run
    qs, obs = load_questions(run), load_observations(run)
    gctx = gates_mod.GateContext(load_world(run), {o.id: o for o in obs}, media_root=run.root)
    fam = ctx.family
    gctx.quotas = fam.quotas(ctx.theme)  # over-generated families: targets after gates (else None)
    gctx.keep_split = fam.keep_split
    previous = load_verdicts(run) if only is not None and run.verdicts.exists() else None
    with ledger.current_run(run.root), ledger.current_stage("gates"):  # `mnemoforge gate` records too
        result = gate_runner.run_all_gates(
            qs,
            gctx,
            ctx.theme.gates,
            cache_dir=run.gates_cache,
            only=only,
            previous=previous,
            family_gates=[*ctx.family.gates(), *human_review.review_gates(run.root)],
        )
    atomic.write_jsonl(run.verdicts, result.verdicts)
    funnel = gates_mod.funnel(qs, result.verdicts, result.gates)
    if (reviewed := human_review.coverage(run.root, qs)) is not None:
        funnel["human_review"] = reviewed  # review coverage, carried into the release and its card
        funnel["human_review"]["changes"] = human_review.review_changes(qs, result.verdicts, gctx)
    dropped = run.root / "episodes" / "coherence.json"
    if dropped.is_file():  # lines left out as incoherent by rule (coherence_text.py), unroutable items
        for key, block in json.loads(dropped.read_text()).items():
            if block.get("rejected") or block.get("items"):
                funnel[key] = {k: v for k, v in block.items() if k != "facts"}
    short = json.loads(shortfall_path(run).read_text()) if shortfall_path(run).is_file() else []
    short = shortfall.after_gates(ctx.theme, ctx.family, qs, result.verdicts, short)  # kept < requested: why
    if short:  # categories the theme asked more of than its World supports (listed by the card)
        funnel["shortfall"] = short
    atomic.write_json(run.funnel, funnel)
    return result


def stage_gates(ctx: BuildContext) -> bool:
    run = ctx.run

    def work() -> list[Path]:
        gate_run(ctx)
        return [run.verdicts, run.funnel]

    return run_stage(run, "gates", ctx.key("gates"), work)[1]


def run_contents(ctx: BuildContext) -> release_mod.RunContents:
    """What a freeze writes of a finished run (with the context's length variants)."""
    run = data = ctx.run
    if ctx.extend > 1:  # the run with more episodes of its World (the questions and gates: the run's)
        from mnemoforge.variant_extension import extended_run

        data = RunLayout(extended_run(run, ctx.family, ctx.theme, ctx.key("gates"), ctx.extend, ctx.workers))
    return release_mod.RunContents(
        theme=ctx.theme,
        theme_bytes=ctx.theme_bytes,
        run_id=run.run_id,
        run_root=data.root,
        world=load_world(data),
        observations=load_observations(data),
        captions=read_jsonl(data.captions),
        questions=load_questions(run),
        verdicts=load_verdicts(run),
        funnel=json.loads(run.funnel.read_text()),
        media=read_jsonl(data.media_index),
        variants=variants_mod.resolve(ctx.theme, ctx.family, ctx.variants) if ctx.variants else [],
    )


def stage_freeze(ctx: BuildContext, version: str | None = None, notes: str | None = None) -> Path:
    contents = run_contents(ctx)
    version = release_version(version or ctx.theme.version)  # +no-minilm where MiniLM is missing
    dest = release_mod.freeze(contents, ctx.layout.release(ctx.release_name, version), version, notes)
    index_catalog(ctx, dest, version)
    return dest


def freeze_run(
    run_dir: Path, version: str, notes: str | None = None, variants: Sequence[str] = ()
) -> Path:
    """Freeze an existing, finished run folder as release ``version`` (``mnemoforge freeze``),
    with any length variants and ablations (``mnemoforge/variants.py``)."""
    run_dir = Path(run_dir)
    meta = load_run_meta(run_dir)
    ctx = BuildContext.of_run(run_dir)
    if variants:
        ctx.variants = tuple(variants)
        variants_mod.resolve(ctx.theme, ctx.family, ctx.variants)  # an unknown name: before the lock
    if ctx.run.root.resolve() != run_dir.resolve():
        raise RunStateError(
            f"{run_dir}: built by mnemoforge {meta.get('code_version')}, this is {code_version()}; "
            "freeze it with the version that built it, or rebuild"
        )
    with run_lock(ctx):
        missing = [s for s, _ in STAGE_FUNCS if not is_fresh(ctx.run, s, ctx.key(s))]
        if missing == ["gates"] and human_review.decisions_path(ctx.run.root).is_file():
            stage_gates(ctx)  # new review decisions: apply them (other verdicts come from the cache)
            missing = []
        if missing:
            raise RunStateError(
                f"{run_dir}: unfinished or stale stages {missing}; run `mnemoforge build` first"
            )
        return stage_freeze(ctx, version, notes)


def index_catalog(ctx: BuildContext, release_dir: Path, version: str) -> None:
    run = ctx.run
    qs, verdicts = load_questions(run), load_verdicts(run)
    episode_of = {o.id: o.episode for o in load_observations(run)}
    with locks.catalog_lock(ctx.layout.catalog), Catalog(ctx.layout.catalog) as cat:
        cat.index_run(run.run_id, ctx.theme.name, ctx.seed, code_version(), ctx.theme_sha, run.root)
        cat.index_questions(run.run_id, qs, gates_mod.kept_ids(verdicts), episode_of)
        cat.index_verdicts(run.run_id, verdicts)
        cat.index_media(run.run_id, read_jsonl(run.media_index))
        cat.index_release(
            run.run_id,
            ctx.release_name,
            version,
            release_dir,
            sha256_bytes((release_dir / release_mod.MANIFEST).read_bytes()),
        )


STAGE_FUNCS: list[tuple[str, Callable[[BuildContext], bool]]] = [
    ("plan", stage_plan),
    ("episodes", stage_episodes),
    ("render", stage_render),
    ("questions", stage_questions),
    ("gates", stage_gates),
]


# runs one stage of a context: (whether it ran, the state to report: "ran"/"cached" or the
# orchestrator's own state name)
StageRunner = Callable[[BuildContext, str], tuple[bool, str]]


def run_one_stage(ctx: BuildContext, name: str) -> tuple[bool, str]:
    """The plain executor: the stage function in this process."""
    ran = dict(STAGE_FUNCS)[name](ctx)
    faults.checkpoint(f"after:{name}")
    return ran, "ran" if ran else "cached"


def stage_loop(
    ctx: BuildContext, runner: StageRunner = run_one_stage, progress: Progress | None = None
) -> dict[str, bool]:
    """The stage sequence, once for every executor: plan → episodes → render → questions → gates
    (``build`` runs it in this process; the Prefect flow passes a runner that wraps stages as tasks)."""
    ran = {}
    for name, _ in STAGE_FUNCS:
        if progress:
            progress(name, "start")
        ran[name], state = runner(ctx, name)
        if progress:
            progress(name, state)
    return ran


@dataclass
class BuildResult:
    run_dir: Path
    release_dir: Path
    ran: dict[str, bool]


def check_variants_asked(ctx: BuildContext) -> None:
    """``--variants`` names the theme and family can build, and ``--extend`` a factor of at least 1
    with length variants to use it (else a ``VariantError`` naming the option)."""
    asked = variants_mod.resolve(ctx.theme, ctx.family, ctx.variants)
    if ctx.extend < 1:
        raise variants_mod.VariantError("--extend", f"a factor of at least 1, got {ctx.extend}")
    if ctx.extend > 1 and not any(not a.ablation for a in asked):
        raise variants_mod.VariantError("--extend", "needs length variants, e.g. --variants oracle,s,m,l")
    if ctx.extend > 1 and not ctx.family.extends:
        raise variants_mod.VariantError("--extend", f"family {ctx.family.name} has no extension (icm has)")


def warn_variant(ctx: BuildContext) -> None:
    """One warning line when this install builds another implementation than the standard one."""
    note = variant_note(ctx.theme.version)
    if note:
        logging.getLogger("mnemoforge").warning(note)


def build(
    theme_path: Path,
    *,
    seed: int | None = None,
    outputs: Path = Path("outputs"),
    workers: int = 2,
    progress: Progress | None = None,
    checked: bool = False,
    variants: Sequence[str] = (),
    extend: int = 1,
) -> BuildResult:
    """Build a release from a theme with plain function calls (no orchestrator). ``checked``: the
    caller has just run ``check_theme`` on this file and seed (the CLI does), so it is not run twice.
    ``variants``: length variants the release holds besides the full history (``mnemoforge/variants.py``)."""
    from mnemoforge.theme_checks import check_theme

    # fail fast, before anything is written
    theme = load_theme(theme_path) if checked else check_theme(theme_path, seed)
    ctx = BuildContext(
        Path(theme_path), Path(outputs), theme.seed if seed is None else seed, workers, progress,
        variants=tuple(variants), extend=extend,
    )  # fmt: skip
    if ctx.variants or extend != 1:  # fail fast: an unknown name, a family without variants
        check_variants_asked(ctx)
    warn_variant(ctx)
    with run_lock(ctx, on_wait=(lambda msg: progress("lock", msg)) if progress else None):
        run = prepare(ctx)
        ran = stage_loop(ctx, run_one_stage, progress)
        if progress:
            progress("freeze", "start")
        dest = stage_freeze(ctx)
        if progress:
            progress("freeze", "ran")
    return BuildResult(run.root, dest, ran)
