"""Prefect tasks and the build flow. Imported by ``mnemoforge.flows.build`` after it has set
Prefect's settings; tasks live at module level so process and Dask runners can pickle them.

Stages are coarse tasks cached on their content key (theme bytes, seed, code version, stage
version and source) with persisted results. Render is split into shards of clips, run on the
flow's task runner (threads, processes, Dask), then finished by one cached task.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from mnemoforge import faults
from mnemoforge.generators.icm import render
from mnemoforge.generators.icm.family import load_clips
from mnemoforge.hashing import content_hash
from mnemoforge.pipeline import (
    STAGE_FUNCS,
    BuildContext,
    load_world,
    prepare,
    stage_freeze,
)
from mnemoforge.store.stages import is_fresh, run_stage


def _stage_key(context: object, params: dict) -> str:
    ctx: BuildContext = params["ctx"]
    return content_hash("stage", params["stage"], ctx.key(params["stage"]), str(ctx.run.root.resolve()))


@task(name="stage", cache_key_fn=_stage_key, persist_result=True)
def stage_task(ctx: BuildContext, stage: str) -> bool:
    ran = dict(STAGE_FUNCS)[stage](ctx)
    faults.checkpoint(f"after:{stage}")
    return ran


@task(name="render-shard", cache_policy=NO_CACHE, persist_result=False)
def render_shard_task(ctx: BuildContext, clip_ids: list[str]) -> list[dict]:
    """Render some clips; idempotent (finished files are skipped), so it is never cached."""
    wanted = set(clip_ids)
    clips = [c for c in load_clips(ctx.run.root) if c.id in wanted]
    return render.render_shard(ctx.run, ctx.theme, load_world(ctx.run), clips)


@task(name="render", cache_key_fn=_stage_key, persist_result=True)
def render_finish_task(ctx: BuildContext, stage: str, rows: list[dict]) -> bool:
    run = ctx.run

    def work() -> list[Path]:
        return render.finish_render(run, ctx.theme, load_world(run), load_clips(run.root), rows, ctx.workers)

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


@flow(name="mnemoforge-build", log_prints=False, persist_result=False)
def build(theme_path: str, seed: int, outputs: str, workers: int = 2) -> str:
    """plan → episodes → render (sharded) → questions → gates → freeze."""
    ctx = BuildContext(Path(theme_path), Path(outputs), seed, workers)
    prepare(ctx)

    sharded = ctx.theme.family == "icm"  # album clips render as shards; other families in one task
    for name, _ in STAGE_FUNCS:
        fresh = is_fresh(ctx.run, name, ctx.key(name))
        report(name, "start")
        if name == "render" and sharded and not fresh:
            shards = render.shard_clips(load_clips(ctx.run.root), workers)
            futures = [render_shard_task.submit(ctx, [c.id for c in shard]) for shard in shards]
            rows, total, done = [], sum(len(s) for s in shards), 0
            for shard, f in zip(shards, futures, strict=True):  # in order: a clip count per shard
                rows += f.result()
                done += len(shard)
                report("render", f"{done}/{total} clips")
            state = render_finish_task.with_options(refresh_cache=True)(
                ctx, "render", rows, return_state=True
            )
        elif name == "render" and sharded:
            state = render_finish_task(ctx, "render", [], return_state=True)
        else:
            state = stage_task.with_options(name=name, refresh_cache=not fresh)(ctx, name, return_state=True)
        state.result()  # re-raise a failed stage
        report(name, "cached" if fresh else state.name)  # fresh: its content key matched
    report("freeze", "start")
    dest = freeze_task(ctx)
    report("freeze", "ran")
    return dest
