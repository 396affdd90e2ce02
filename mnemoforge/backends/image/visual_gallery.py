"""One small picture per drawable part a memeye theme may declare (``scenarios.*.draws``), for the
documentation (``docs/img/memeye/``): the animals, the coloured objects, the written values on a
sign, board, screen and tag, a chart's bar, a board's lines, counted items (in a row, a bin, a
crate, a basket), a table-top with name cards, a cast person holding an object and a map with
named places and a pin at one.
``python -m mnemoforge.backends.image.visual_gallery DIR`` writes them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageDraw

from mnemoforge.backends.image import visual_figures as figures
from mnemoforge.backends.image import visual_library as library
from mnemoforge.backends.image.colors import WHITE, Box
from mnemoforge.backends.image.visual_animals import AnimalLook, draw_animal
from mnemoforge.backends.image.visual_map import draw_map
from mnemoforge.backends.image.visual_scene import save_png

W, H = 180, 120
COLLAR = (200, 60, 60)
PERSON = {"skin": (240, 208, 184), "hair": (80, 80, 80), "top": (138, 90, 48), "bottom": (42, 42, 48)}
Part = Callable[[ImageDraw.ImageDraw, Box], object]


def _animal(species: str, size: str, coat: str, markings: str) -> Part:
    return lambda d, b: draw_animal(d, AnimalLook(species, size, coat, markings), b, COLLAR)


def parts() -> dict[str, Part]:
    """Part name -> a function drawing it into a box."""
    out: dict[str, Part] = {
        "dog": _animal("dog", "large", "#3a3a3a", "patch"),
        "cat": _animal("cat", "small", "#d08a40", "stripes"),
        "horse": _animal("horse", "large", "#7a4a28", "blaze"),
        "bird": _animal("bird", "small", "#3070b0", "none"),
        "vehicle": lambda d, b: figures.draw_vehicle(d, b, (60, 110, 170)),
        "aircraft": lambda d, b: library.draw_aircraft(d, b, (220, 120, 40)),
        "mug": lambda d, b: library.draw_coloured(d, "mug", b, (42, 140, 140)),
        "sign": lambda d, b: figures.draw_sign(d, b, "3"),
        "screen": lambda d, b: library.draw_written(d, "screen", b, "14:30"),
        "written_board": lambda d, b: library.draw_written(d, "board", b, "27"),
        "board": lambda d, b: library.draw_board(d, b, ("lynx trail open", "bridge repairs")),
        "person": lambda d, b: figures.draw_person(
            d,
            b,
            PERSON,
            ["spotting scope", "trail axe", "rain cape", "first aid kit"],
            "trail axe",
            "Ludmila",
        ),
        "table": lambda d, b: figures.draw_table(
            d, b, ["lamp", "compass", "thermos", "rope"], ["thermos", "lamp", "rope", "compass"]
        ),
    }
    out["chart"] = lambda d, b: library.draw_chart(d, b, "4", 1, 5, (0.4, 0.8, 0.6))
    places = ("Sella hut", "Boè summit", "Val Lasties", "Pordoi")
    out["map"] = lambda d, b: draw_map(d, b, places, "Val Lasties")
    for kind in library.CONTAINERS:
        out[f"count_{kind}"] = lambda d, b, kind=kind: [
            library.draw_container(d, kind, (b[0] - 6, b[1] + 22, b[2] + 6, b[3] - 18)),
            *(
                library.draw_countable(
                    d, "bottle", (b[0] + k * 24, b[1] + 40, b[0] + k * 24 + 20, b[3] - 28), (200, 90, 50)
                )
                for k in range(5)
            ),
        ]
    for c in ("box", "bottle", "tin", "book"):
        out[f"count_{c}"] = lambda d, b, c=c: [
            library.draw_countable(
                d, c, (b[0] + k * 28, b[1] + 30, b[0] + k * 28 + 24, b[3] - 30), (48, 112, 176)
            )
            for k in range(5)
        ]
    return out


def draw_part(name: str) -> Image.Image:
    """One part on a white tile (``W`` × ``H`` px)."""
    img = Image.new("RGB", (W, H), WHITE)
    d = ImageDraw.Draw(img)
    box = (10, 6, W - 10, H - 6) if name in ("table", "board") else (30, 8, W - 30, H - 8)
    if name == "chart":
        box = (40, 6, W - 40, H - 6)
    if name == "map":
        box = (2, 2, W - 2, H - 2)
    if name == "person":
        box = (40, 4, W - 10, H - 2)
    parts()[name](d, box)
    return img


def write_gallery(folder: Path) -> list[Path]:
    """Every part as ``<folder>/<name>.png``; returns the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in parts():
        path = folder / f"{name}.png"
        save_png(draw_part(name), str(path))
        out.append(path)
    return out


if __name__ == "__main__":  # pragma: no cover
    for p in write_gallery(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img/memeye")):
        print(p)
