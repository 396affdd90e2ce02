"""Render every shared picture from the facts its round expresses, and index the media.

``media/index.jsonl`` (shipped next to the pictures) holds only file facts: path, kind, size,
hash, round. The drawn layout of each picture (where the marked instance, the countables, the
colour object are: answers, in effect) goes to the run-folder diagnostics file
``episodes/memeye_layouts.jsonl`` (``LAYOUTS``), which tests read and the release ships only as
labelled ground truth under ``data/memeye/annotations/``.
"""

from __future__ import annotations

import json
from pathlib import Path

from mnemoforge.backends.image.visual_scene import SceneState, render_scene, save_png
from mnemoforge.family import OnProgress
from mnemoforge.generators.memeye.sessions import scene_of
from mnemoforge.generators.memeye.vocab import BACKDROPS, BOARD_SEP, ORDER_SEP, POSITIONS, colour_hex
from mnemoforge.generators.timelines import TimelineIndex
from mnemoforge.hashing import sha256_file
from mnemoforge.rng import derive_rng, derive_seed
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout

LAYOUTS = "episodes/memeye_layouts.jsonl"


def scene_state(
    world: World, o: Observation, width: int, height: int, index: TimelineIndex | None = None
) -> SceneState:
    """The picture's content: the values the World's timelines hold at the picture's time for
    the keys the observation expresses (the scene's own and its shared objects'), which are the
    values of the facts it claims (``generators/coherence.py`` checks they agree)."""
    scene = scene_of(o, world)
    assert scene is not None, o.id
    index = index or TimelineIndex(world)
    v = {}
    for e in o.expresses:
        f = world.fact(e.fact)
        v[f.object] = index.value_at(f.subject, f.object, o.timestamp) or f.value or ""
    attrs = world.entity(scene).attrs
    kind = attrs["kind"]
    draws = json.loads(attrs["draws"]) if attrs.get("draws") else {}
    board = tuple(v["gist"].split(BOARD_SEP)) if draws.get("board") else ()
    table, person, map_ = draws.get("table") or {}, draws.get("person") or {}, draws.get("map") or {}
    return SceneState(
        kind=kind,
        gist=v.get("gist", ""),
        left=v.get("left", ""),
        right=v.get("right", ""),  # a key the picture does not show (no scene pack) is not drawn
        mark=POSITIONS.index(v["mark"]) if "mark" in v else -1,
        colour=colour_hex(v["colour"]) if "colour" in v else "",
        count=int(v["count"]) if "count" in v else -1,
        label=v.get("label", ""),
        seed=derive_seed(world.seed, "memeye", "picture", scene),
        backdrop=derive_rng(world.seed, "memeye", "backdrop", scene).choice(BACKDROPS[kind]),
        width=width,
        height=height,
        board=board,
        colour_drawable=draws.get("colour", {}).get("drawable", ""),
        count_drawable=draws.get("count", {}).get("drawable", ""),
        count_colour=draws.get("count", {}).get("colour", ""),
        label_drawable=draws.get("label", {}).get("drawable", ""),
        label_range=_label_range(draws.get("label") or {}),
        count_container=(draws.get("count") or {}).get("container") or "",
        table_items=tuple(table.get("items", ())),
        order=tuple(v["order"].split(ORDER_SEP)) if table else (),
        person_colours=tuple(sorted((person.get("colours") or {}).items())),
        person_holds=tuple(person.get("holds", ())),
        held=v.get("presence", ""),
        person_name=person.get("name", ""),
        animal=_animal(draws.get("colour") or {}),
        map_places=tuple(map_.get("places", ())),
        map_style=map_.get("style", "trail"),
        marked=v.get("marked", ""),
    )


def _label_range(label: dict) -> tuple[int, ...]:
    """A declared chart's axis (low, high): its ``range``, else its type's default."""
    if label.get("drawable") != "chart":
        return ()
    from mnemoforge.schemas.memeye import LABEL_RANGES

    return tuple(label.get("range") or LABEL_RANGES[label.get("type", "level")])


def _animal(colour: dict) -> tuple[str, ...]:
    """A declared animal's look (size, coat, markings) when it declares one; () = the default."""
    look = (colour.get("size") or "", colour.get("coat") or "", colour.get("markings") or "none")
    return look if look != ("", "", "none") else ()


def render_images(
    run: RunLayout,
    world: World,
    observations: list[Observation],
    width: int,
    height: int,
    on_progress: OnProgress | None = None,
) -> list[Path]:
    """Write one PNG per image round, ``media/index.jsonl`` (paths relative to the run root) and
    the drawn layouts (``LAYOUTS``)."""
    rows, layouts = [], []
    todo = [o for o in observations if o.media]
    index = TimelineIndex(world)
    for k, o in enumerate(todo):
        state = scene_state(world, o, width, height, index)
        img, layout = render_scene(state)
        path = run.root / o.media[0]
        with atomic.atomic_path(path) as tmp:
            save_png(img, str(tmp))
        rows.append(
            {
                "path": o.media[0],
                "kind": o.kind,
                "bytes": path.stat().st_size,
                "sha256": sha256_file(path),
                "observation": o.id,
                "session": o.episode,
                "scene": scene_of(o, world),
                "width": width,
                "height": height,
            }
        )
        layouts.append({"observation": o.id, "path": o.media[0], "layout": layout})
        if on_progress:
            on_progress(k + 1, len(todo))
    atomic.write_jsonl(run.media_index, rows)
    atomic.write_jsonl(run.root / LAYOUTS, layouts)
    return [run.root / r["path"] for r in rows] + [run.media_index, run.root / LAYOUTS]
