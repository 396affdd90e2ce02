"""Prefect tasks and the build flow. Imported by ``mnemoforge.flows.build`` after it has set
Prefect's settings; tasks live at module level so process and Dask runners can pickle them.

The flow runs the pipeline's own stage loop (``pipeline.stage_loop``) with a runner that wraps
each stage as a coarse task cached on its content key (theme bytes, seed, code version, stage
version and source) with persisted results. A family that renders in shards (``Family.shard_unit``)
has its render split into shard tasks on the flow's task runner (threads, processes, Dask), then
finished by one cached task. A ``families:`` theme's flow (``build_families``) runs that stage loop
once per family through ``multi_family.build_multi``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from mnemoforge import faults
from mnemoforge.hashing import content_hash
from mnemoforge.pipeline import (
    BuildContext,
    load_world,
    prepare,
    run_one_stage,
    stage_freeze,
    stage_loop,
)
from mnemoforge.store.stages import is_fresh, run_stage


def _stage_key(context: object, params: dict) -> str:
    ctx: BuildContext = params["ctx"]
    return content_hash("stage", params["stage"], ctx.key(params["stage"]), str(ctx.run.root.resolve()))


@task(name="stage", cache_key_fn=_stage_key, persist_result=True)
def stage_task(ctx: BuildContext, stage: str) -> bool:
    return run_one_stage(ctx, stage)[0]


@task(name="render-shard", cache_policy=NO_CACHE, persist_result=False)
def render_shard_task(ctx: BuildContext, ids: list[str]) -> list[dict]:
    """Render some items; idempotent (finished files are skipped), so it is never cached."""
    return ctx.family.render_shard(ctx.theme, load_world(ctx.run), ctx.run, ids)


@task(name="render", cache_key_fn=_stage_key, persist_result=True)
def render_finish_task(ctx: BuildContext, stage: str, rows: list[dict]) -> bool:
    run = ctx.run

    def work() -> list[Path]:
        return ctx.family.finish_render(ctx.theme, load_world(run), run, rows, ctx.workers)

    ran = run_stage(run, "render", ctx.key("render"), work)[1]
    faults.checkpoint("after:render")
    return ran


@task(name="freeze", cache_policy=NO_CACHE, persist_result=False)
def freeze_task(ctx: BuildContext) -> str:
    return str(stage_freeze(ctx))


# Progress display lives in the calling process only: a callback passed as a flow parameter
# would be shipped (with the flow run context) to process and Dask workers, and it cannot be.
PROGRESS: list[Callable[[str, str], None]] = []


def report(stage: str, state: str) -> None:
    for fn in PROGRESS:
        fn(stage, state)


def _render_sharded(ctx: BuildContext, fresh: bool) -> object:
    unit = ctx.family.shard_unit
    if fresh:
        return render_finish_task(ctx, "render", [], return_state=True)
    shards = ctx.family.render_shards(ctx.run, ctx.workers)
    futures = [render_shard_task.submit(ctx, shard) for shard in shards]
    rows, total, done = [], sum(len(s) for s in shards), 0
    for shard, f in zip(shards, futures, strict=True):  # in order: an item count per shard
        rows += f.result()
        done += len(shard)
        report("render", f"{done}/{total} {unit}")
    return render_finish_task.with_options(refresh_cache=True)(ctx, "render", rows, return_state=True)


def task_runner_stage(ctx: BuildContext, name: str) -> tuple[bool, str]:
    """``stage_loop``'s runner for the flow: the stage as a Prefect task (render in shards when the
    family renders in shards)."""
    fresh = is_fresh(ctx.run, name, ctx.key(name))
    if name == "render" and ctx.family.shard_unit is not None:
        state = _render_sharded(ctx, fresh)
    else:
        state = stage_task.with_options(name=name, refresh_cache=not fresh)(ctx, name, return_state=True)
    ran = state.result()  # type: ignore[attr-defined]  # re-raise a failed stage
    return bool(ran), "cached" if fresh else str(state.name)  # type: ignore[attr-defined]


@flow(name="mnemoforge-build-families", log_prints=False, persist_result=False)
def build_families(
    theme_path: str, seed: int, outputs: str, workers: int = 2, variants: tuple[str, ...] = ()
) -> str:
    """A ``families:`` theme (docs/cross-family.md): ``multi_family.build_multi`` with the stage loop
    of every family run by this flow's task runner (the same stage tasks and cache keys as a
    single-family flow), then the merge, the cross items and one release, in the flow."""
    from mnemoforge.multi_family import build_multi

    built = build_multi(
        Path(theme_path), seed=seed, outputs=Path(outputs), workers=workers, progress=report,
        variants=variants, runner=task_runner_stage,
    )  # fmt: skip
    return str(built.release_dir)


@flow(name="mnemoforge-build", log_prints=False, persist_result=False)
def build(
    theme_path: str,
    seed: int,
    outputs: str,
    workers: int = 2,
    variants: tuple[str, ...] = (),
    extend: int = 1,
) -> str:
    """plan → episodes → render (sharded) → questions → gates → freeze (with any length variants)."""
    ctx = BuildContext(
        Path(theme_path), Path(outputs), seed, workers, variants=tuple(variants), extend=extend
    )
    prepare(ctx)
    stage_loop(ctx, task_runner_stage, report)
    report("freeze", "start")
    dest = freeze_task(ctx)
    report("freeze", "ran")
    return dest
