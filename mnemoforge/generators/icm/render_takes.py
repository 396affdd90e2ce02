"""Re-render takes in the render (``review/retakes.json``, ``store/retakes.py``): a shot sent back
by a reviewer is drawn again with seeds of its own, and what its earlier take left is removed."""

from __future__ import annotations

import json
from pathlib import Path

from mnemoforge.rng import derive_seed
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.world import World


def shot_seed(world: World, kind: str, shot_id: str, take: int = 0) -> int:
    """The seed of a shot's still (``kind`` "scene") or generated clip ("video"); a re-render take
    (``review/retakes.json``) gets its own, so a model asked again answers afresh."""
    return derive_seed(world.seed, kind, shot_id, *([take] if take else []))


def drop_stale_takes(media: Path, takes: dict[str, int], clip: Clip, record_path: Path) -> None:
    """Remove what an earlier take of a re-rendered shot left (its still, its generated clip and
    what the fallback chain decided, the album clip holding it), so this render makes them anew."""
    if not any(s.id in takes for s in clip.shots):
        return
    try:
        rendered = {r["shot"]: r.get("take", 0) for r in json.loads(record_path.read_text())["shots"]}
    except (OSError, ValueError, KeyError):
        rendered = {}
    stale = [s.id for s in clip.shots if takes.get(s.id, 0) != rendered.get(s.id, 0)]
    for sid in stale:
        for p in (media / "shots" / f"{sid}.png", *(media / "veo" / f"{sid}{x}" for x in (".mp4", ".json"))):
            p.unlink(missing_ok=True)
    if stale:
        (media / "clips" / f"{clip.id}.mp4").unlink(missing_ok=True)
