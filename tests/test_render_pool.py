"""The render stage's scheduling changes when clips render, never what is written: the pipelined
renderer (next clip drawn while ffmpeg encodes this one) and the costliest-first pool give the
files and rows of rendering one clip after another."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemoforge.generators.icm import album, render, render_pool
from mnemoforge.generators.icm import world as world_mod
from mnemoforge.hashing import sha256_file
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.theme_io import load_theme

DEFAULT_THEME = Path(__file__).resolve().parents[1] / "assets" / "themes" / "life_album.yaml"


def _plan(**album_size: int) -> tuple[Theme, World, list[Clip]]:
    theme = load_theme(DEFAULT_THEME)
    size = {"clips": 3, "shots_per_clip": (1, 2), **album_size}
    theme = theme.model_copy(update={"album": theme.album.model_copy(update=size)})
    w = world_mod.plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, _ = album.plan_album(theme, w)
    return theme, w, clips


@pytest.fixture(scope="module")
def planned() -> tuple[Theme, World, list[Clip]]:
    """Three clips at the theme's size (the render audit's face sizes hold there)."""
    return _plan()


@pytest.fixture(scope="module")
def small() -> tuple[Theme, World, list[Clip]]:
    """The same clips drawn small: no render audit runs on them."""
    return _plan(width=256, height=144)


def _files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in sorted(root.rglob("*")) if p.is_file()}


def _run(root: Path, w: World, clips: list[Clip]) -> RunLayout:
    run = RunLayout(root)
    atomic.write_jsonl(run.observations, [o for c in clips for o in album.observations_for_clip(w, c)])
    return run


def test_pipelined_render_writes_what_one_at_a_time_writes(small, tmp_path: Path) -> None:
    theme, w, clips = small
    one = _run(tmp_path / "one", w, clips)
    st = render.RenderState.create(theme, w, one)
    rows_one = [r for c in clips for r in render.render_clip(st, c)]
    piped = _run(tmp_path / "piped", w, clips)
    rows_piped = [
        r for rs in render.render_clips(render.RenderState.create(theme, w, piped), clips) for r in rs
    ]
    assert rows_piped == rows_one  # same rows, in clip order
    assert _files(piped.root) == _files(one.root)
    assert not list(piped.root.rglob(f"{atomic.TMP_PREFIX}*"))  # no raw still or partial clip left


@pytest.mark.integration
def test_pooled_render_writes_what_one_process_writes(planned, tmp_path: Path) -> None:
    theme, w, clips = planned
    one = _run(tmp_path / "one", w, clips)
    render_pool.render_run(one, theme, w, clips, workers=1)
    pooled = _run(tmp_path / "pooled", w, clips)
    seen: list[tuple[int, int]] = []
    render_pool.render_run(pooled, theme, w, clips, workers=2, on_clip=lambda d, n: seen.append((d, n)))
    assert _files(pooled.root) == _files(one.root)
    assert seen[-1] == (len(clips), len(clips)) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert not list(pooled.root.rglob(f"{atomic.TMP_PREFIX}*"))


def test_costliest_clips_go_first(planned) -> None:
    _, _, clips = planned
    chunks = render_pool.costliest_first(clips, 3)
    flat = [i for c in chunks for i in c]
    assert sorted(flat) == list(range(len(clips))) and [len(c) for c in chunks][:-1] == [3] * (
        len(chunks) - 1
    )
    costs = [render_pool.clip_cost(clips[i]) for i in flat]
    assert costs == sorted(costs, reverse=True)
    zoom = clips[0].model_copy(
        update={"shots": [s.model_copy(update={"camera": "zoom_in"}) for s in clips[0].shots]}
    )
    still = clips[0].model_copy(
        update={"shots": [s.model_copy(update={"camera": "static"}) for s in clips[0].shots]}
    )
    assert render_pool.clip_cost(zoom) > render_pool.clip_cost(still)
