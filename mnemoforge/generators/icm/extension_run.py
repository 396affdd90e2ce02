"""The album extension rendered (``build --variants ... --extend K``): a run folder holding the
album and its extension, what a variant freeze reads instead of the run (``variant_extension.py``).

The extension's clips are rendered by the album's renderer (``render.render_clips``, in the render
stage's worker processes) and audited against their observations like the album's
(``media/render_audit_extension.json``); the album's media are hard links to the run's (copies
where links fail), so the run and its plain release stay as they are.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.icm import captions, render, render_pool
from mnemoforge.generators.icm.extension import plan_extension
from mnemoforge.generators.icm.render_audit import RenderAuditError, audit_path
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout

AUDIT = "render_audit_extension.json"


def load_clips(root: Path) -> list[Clip]:
    return [Clip.model_validate(r) for r in read_jsonl(RunLayout(root).clips)]


def render_clips(out: RunLayout, theme: Theme, world: World, clips: list[Clip], workers: int) -> list[dict]:
    """Render ``clips`` into ``out`` (its observations: theirs) and audit them; their media rows."""
    if workers <= 1:
        st = render.RenderState.create(theme, world, out)
        rows = [r for rs in render.render_clips(st, clips) for r in rs]
    else:
        with render_pool.start_pool(out, theme, world, workers) as pool:
            rows = render_pool.pooled_render(pool, clips, workers)
    report = render.render_audit(out, theme, world, clips)
    audit = out.media / AUDIT
    atomic.write_json(audit, report)
    audit_path(out.media).unlink(missing_ok=True)
    if report["mismatches"]:
        raise RenderAuditError(report["problems"])
    drawn = [out.media / "drawn" / f"{c.id}.json" for c in clips]
    records = [render._row(out, p, "render_record") for p in drawn]
    return rows + records + [render._row(out, audit, "render_audit")]


def _link(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists():
        return
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def write_extended_run(
    theme: Theme, world: World, base: RunLayout, n: int, dest: Path, workers: int = 1
) -> RunLayout:
    """A run folder at ``dest`` holding the album and ``n`` extension clips (``plan_extension``):
    the extended World, the album's and the extension's clips, observations and captions (stream
    order), and a media index of the album's media and the extension's."""
    clips = load_clips(base.root)
    ext = plan_extension(theme, world, clips, n)
    out = RunLayout(dest)
    atomic.write_json(out.world, ext.world)
    atomic.write_jsonl(out.clips, ext.clips)
    atomic.write_jsonl(out.observations, ext.observations)  # what the render audit reads
    ext_rows = render_clips(out, theme, ext.world, ext.clips, workers)
    base_rows = read_jsonl(base.media_index)
    for r in base_rows:
        _link(base.root / r["path"], out.root / r["path"])
    atomic.write_jsonl(out.media_index, sorted([*base_rows, *ext_rows], key=lambda r: r["path"]))
    if base.voice_check.is_file():  # the album's voices (the extension's are the same people's)
        _link(base.voice_check, out.voice_check)
    every = sorted([*clips, *ext.clips], key=lambda c: (c.index, c.id))
    atomic.write_jsonl(out.clips, every)
    obs = [Observation.model_validate(r) for r in read_jsonl(base.observations)] + ext.observations
    atomic.write_jsonl(out.observations, sorted(obs, key=lambda o: (o.order, o.id)))
    atomic.write_jsonl(out.captions, captions.album_captions(ext.world, every))
    return out
