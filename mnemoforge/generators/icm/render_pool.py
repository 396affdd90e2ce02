"""Where the album's clips render: worker processes (a local pool, or a task runner's shards).

Each worker renders its clips with :func:`~mnemoforge.generators.icm.render.render_clips`, which
draws and voices the next clip while ffmpeg encodes the current one. The pool gets the clips in
chunks, the costliest first (:func:`clip_cost`), so the last chunks are the cheapest and neither
core waits long for the other at the end. Which worker renders a clip, and when, never changes
what is written.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from mnemoforge.generators.icm.render import RenderState, finish_render, render_clips
from mnemoforge.generators.icm.render_voice import limit_blas_in_worker
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import ledger
from mnemoforge.store.layout import RunLayout

_STATE: dict[str, Any] = {}
RENDER_CHUNK = 4  # clips a render worker takes at a time (a clip is about 0.2-0.5 CPU-s)
_CAMERA_COST = {"static": 1.0, "pan_left": 1.5, "pan_right": 1.5, "zoom_in": 3.0, "zoom_out": 3.0}
"""Encode cost of a second of shot, relative to a still one (zooms resample every frame)."""


def _init_worker(
    theme_json: str, world_json: str, root: str, parent: int | None = None, ledger_stage: str | None = None
) -> None:
    from mnemoforge.lifecycle import exit_with_parent

    exit_with_parent(parent)  # a worker never outlives the build that started it
    limit_blas_in_worker()  # the voice check's numpy runs here too; threaded BLAS only spins
    if ledger_stage is not None:  # model calls of this worker go to the build's ledger and cache
        stack = contextlib.ExitStack()
        stack.enter_context(ledger.current_run(Path(root)))
        stack.enter_context(ledger.current_stage(ledger_stage))
        _STATE["ledger"] = stack
    theme, world = Theme.model_validate_json(theme_json), World.model_validate_json(world_json)
    _STATE["state"] = RenderState.create(theme, world, RunLayout(Path(root)))


def _render_chunk(clip_jsons: list[str]) -> list[dict]:
    clips = [Clip.model_validate_json(c) for c in clip_jsons]
    return [row for rows in render_clips(_STATE["state"], clips) for row in rows]


def clip_cost(clip: Clip) -> float:
    """A rough relative cost of rendering ``clip``: its seconds of picture weighted by camera move,
    plus a little per shot drawn and per line voiced. Only the order of clips uses it."""
    return sum(
        s.duration_s * _CAMERA_COST.get(s.camera, 1.0) + 0.5 + 0.5 * len(s.dialogue) for s in clip.shots
    )


def costliest_first(clips: list[Clip], size: int) -> list[list[int]]:
    """Indexes of ``clips`` in chunks of ``size``, the costliest clips first (ties: plan order)."""
    order = sorted(range(len(clips)), key=lambda i: (-clip_cost(clips[i]), i))
    return [order[i : i + size] for i in range(0, len(order), size)]


def start_pool(
    run: RunLayout, theme: Theme, world: World, workers: int, ledger_stage: str | None = None
) -> ProcessPoolExecutor:
    """``workers`` spawned render workers, each holding the theme and World (and, with a
    ``ledger_stage``, recording model calls into this run's ledger)."""
    args = (theme.model_dump_json(), world.model_dump_json(), str(run.root), os.getpid(), ledger_stage)
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=mp.get_context("spawn"), initializer=_init_worker, initargs=args
    )


def pooled_render(
    pool: ProcessPoolExecutor,
    clips: list[Clip],
    workers: int,
    on_clip: Callable[[int, int], None] | None = None,
) -> list[dict]:
    """Render ``clips`` on ``pool``; their media rows (in no particular order: the caller sorts)."""
    # chunks of about a second of work: the last one a worker takes leaves the other idle for at
    # most that long (840 clips in 16 chunks of 52 left a core idle for up to 9 s at the end)
    size = max(1, min(RENDER_CHUNK, len(clips) // (workers * 8)))
    futures = {
        pool.submit(_render_chunk, [clips[i].model_dump_json() for i in chunk]): len(chunk)
        for chunk in costliest_first(clips, size)
    }
    rows: list[dict] = []
    done = 0
    try:
        for fut in as_completed(futures):
            rows += fut.result()
            done += futures[fut]
            if on_clip:
                on_clip(done, len(clips))
    except BaseException:
        for fut in futures:
            fut.cancel()
        raise
    return rows


def render_run(
    run: RunLayout,
    theme: Theme,
    world: World,
    clips: list[Clip],
    workers: int = 2,
    on_clip: Callable[[int, int], None] | None = None,
) -> list[Path]:
    """Render everything with a local process pool; returns the stage outputs.

    ``on_clip(done, total)`` is called as clips finish, for progress display.
    """
    if workers <= 1:  # in this process: a state of its own (concurrent builds in threads share _STATE)
        st = RenderState.create(theme, world, run)
        rows: list[dict] = []
        for done, r in enumerate(render_clips(st, clips), 1):
            rows += r
            if on_clip:
                on_clip(done, len(clips))
        return finish_render(run, theme, world, clips, rows, workers)
    stage = ledger.stage_name() if ledger.run_root() is not None else None
    pool = start_pool(run, theme, world, workers, stage)
    try:
        rows = pooled_render(pool, clips, workers, on_clip)
        return finish_render(run, theme, world, clips, rows, workers, pool)
    finally:
        pool.shutdown(cancel_futures=True)


def render_shard(run: RunLayout, theme: Theme, world: World, clips: list[Clip]) -> list[dict]:
    """Render some clips in this process, one after another (a task runner gives the parallelism)."""
    with contextlib.ExitStack() as stack:
        if ledger.run_root() is None:  # a task runner's worker: record into this run's ledger
            stack.enter_context(ledger.current_run(run.root))
            stack.enter_context(ledger.current_stage("render"))
        st = RenderState.create(theme, world, run)
        return [row for rows in render_clips(st, clips) for row in rows]


def shard_clips(clips: list[Clip], workers: int, per_worker: int = 4) -> list[list[Clip]]:
    """Split clips into contiguous shards: a few per worker keeps orchestration overhead low
    while balancing load; the split never affects what is rendered."""
    n = max(1, min(len(clips), workers * per_worker))
    size = -(-len(clips) // n)
    return [clips[i : i + size] for i in range(0, len(clips), size)]
