"""Prefect flow for ``build``: the same stage functions as ``mnemoforge.pipeline``, as cached tasks.

Each stage is one coarse task (render parallelises inside itself), so orchestration overhead
stays small. A task's cache key is the stage's content key (theme bytes, seed, code version,
stage version and source), and its result is persisted, so a re-run skips finished stages.
A stage whose outputs were removed or altered is refreshed instead of trusted.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from mnemoforge import faults
from mnemoforge.hashing import content_hash
from mnemoforge.pipeline import STAGE_FUNCS, BuildContext, prepare, stage_freeze
from mnemoforge.store.layout import OutputsLayout
from mnemoforge.store.stages import is_fresh
from mnemoforge.theme_io import load_theme


def _prefect_env(outputs: Path) -> None:
    """Local, offline defaults; a user's own PREFECT_* settings win."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    os.environ.setdefault("PREFECT_RESULTS_PERSIST_BY_DEFAULT", "true")
    os.environ.setdefault(
        "PREFECT_RESULTS_LOCAL_STORAGE_PATH", str(OutputsLayout(outputs).prefect_results.resolve())
    )
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


def _stage_key(context: object, params: dict) -> str:
    ctx: BuildContext = params["ctx"]
    return content_hash("stage", params["stage"], ctx.key(params["stage"]), str(ctx.run.root.resolve()))


def build_flow(
    theme: Path,
    *,
    seed: int | None = None,
    outputs: Path = Path("outputs"),
    workers: int = 2,
    progress: Callable[[str, str], None] | None = None,
) -> Path:
    """Run the build as a Prefect flow (embedded mode, no server needed); returns the release folder.

    ``progress(stage, state)`` receives each stage's Prefect state name ('Completed' or 'Cached').
    """
    _prefect_env(outputs)
    from prefect import flow, task

    @task(name="stage", cache_key_fn=_stage_key, persist_result=True)
    def stage_task(ctx: BuildContext, stage: str) -> bool:
        ran = dict(STAGE_FUNCS)[stage](ctx)
        faults.checkpoint(f"after:{stage}")
        return ran

    @task(name="freeze", persist_result=False)
    def freeze_task(ctx: BuildContext) -> str:
        return str(stage_freeze(ctx))

    @flow(name="mnemoforge-build", log_prints=False, persist_result=False)
    def build(theme_path: str, seed: int, outputs: str, workers: int) -> str:
        ctx = BuildContext(Path(theme_path), Path(outputs), seed, workers, progress)
        prepare(ctx)
        for name, _ in STAGE_FUNCS:
            fresh = is_fresh(ctx.run, name, ctx.key(name))
            state = stage_task.with_options(name=name, refresh_cache=not fresh)(ctx, name, return_state=True)
            state.result()  # re-raise a failed stage
            if progress:
                progress(name, state.name)
        return freeze_task(ctx)

    t = load_theme(theme)
    return Path(build(str(theme), t.seed if seed is None else seed, str(outputs), workers))
