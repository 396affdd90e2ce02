"""Scene packs: what the memeye drawing library draws for each built-in scene kind, by the names
of its drawables (the renderer is keyed by them: ``visual_gists.GISTS``, ``visual_scene.ITEMS``).

A pack is data, ``assets/scene_packs/<name>.yaml`` (``home_scenes``: rooms, game tables, fitness
dashboards, town streets, shop shelves). A theme opts into one by name (``memeye.scene_packs``);
without one, a picture draws only the scenario's declared drawables, and nothing is asked about
a value the theme did not declare. How a kind is *spoken* about (what the picture is, "the price
on the hanging tag") comes from a content pack's ``memeye.kinds.<kind>.vocab``, or is composed
in generic grammar from these names (``generators/memeye/vocab.base_vocab``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from mnemoforge.backends.image.visual_gists import GISTS
from mnemoforge.backends.image.visual_props import ITEMS as PROP_ITEMS
from mnemoforge.backends.image.visual_shelf import ITEMS as SHELF_ITEMS

PACKS = Path(__file__).resolve().parents[3] / "assets" / "scene_packs"


@dataclass(frozen=True)
class KindDrawables:
    """The drawables of one scene kind (empty: the kind draws only what a theme declares)."""

    gists: tuple[str, ...] = ()  # X1: what the centre of the picture draws
    gist_noun: str = ""  # what a gist is, as a plain noun ("game", "weather")
    items: tuple[str, ...] = ()  # X2: region drawables (two per picture, >= 5 to draw options from)
    instances: str = ""  # X3: the four look-alike instances (plural)
    detail: str = ""  # X3: the small detail one of them carries
    countables: str = ""  # X4: the countable drawable (plural)
    colour_object: str = ""  # X4: the small object carrying the colour


EMPTY = KindDrawables()


def pack_names() -> list[str]:
    """The scene packs shipped in ``assets/scene_packs``."""
    return sorted(p.stem for p in PACKS.glob("*.yaml"))


@cache
def load_scene_pack(name: str) -> dict[str, KindDrawables]:
    """kind -> drawables of one scene pack; a name the library cannot draw is an error naming it."""
    path = PACKS / f"{name}.yaml"
    if not path.is_file():
        raise ValueError(f"unknown scene pack {name!r}; packs are {', '.join(pack_names())}")
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out: dict[str, KindDrawables] = {}
    for kind, d in (raw.get("kinds") or {}).items():
        if kind not in GISTS:
            raise ValueError(f"{path.name}: kinds.{kind}: no such scene kind ({', '.join(GISTS)})")
        missing = [n for n in d.get("items", []) if n not in PROP_ITEMS and n not in SHELF_ITEMS]
        if missing:
            raise ValueError(f"{path.name}: kinds.{kind}.items: the library cannot draw {missing}")
        out[kind] = KindDrawables(
            GISTS[kind], str(d["gist_noun"]), tuple(d["items"]), str(d["instances"]), str(d["detail"]),
            str(d["countables"]), str(d["colour_object"]),
        )  # fmt: skip
    return out


def kind_drawables(kind: str, packs: tuple[str, ...] | list[str]) -> KindDrawables:
    """The drawables of ``kind`` from the first opted-in pack that has it, else ``EMPTY``."""
    for name in packs:
        got = load_scene_pack(name).get(kind)
        if got is not None:
            return got
    return EMPTY


CATALOG = load_scene_pack("home_scenes")  # the shipped pack (tests read its words)
