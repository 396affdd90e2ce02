"""Draw the docs' pictures of the place kinds, the cast animals and declared parts
(docs/families/img/): one small PNG per place kind (a summer day, and the mountain again in
winter), one of the four species, and one of two rooms whose objects declare library parts (a
written level on a board and a map with a pin; a shelf of counted boxes).

    python scripts/place_kind_pictures.py [OUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

from mnemoforge.backends.image.animal_figure import AnimalPlacement, animal_anchor
from mnemoforge.backends.image.landscapes import KINDS
from mnemoforge.backends.image.procedural import ProceduralImageBackend, png_bytes
from mnemoforge.backends.image.protocol import PartPlacement, SceneRequest

PROPS = {
    "room": ("desk", "shelf"), "vehicle": (), "street": ("lamp", "car"), "coast": ("boat",),
    "mountain": ("hut", "rock"), "forest": ("tree",), "field": ("fence",), "airfield": ("windsock",),
    "helipad": ("windsock",),
}  # fmt: skip


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    backend = ProceduralImageBackend()
    for kind in KINDS:
        for snow in (False, True) if kind == "mountain" else (False,):
            req = SceneRequest(width=240, height=136, place_name=f"a {kind}", place_kind=kind,
                               indoor=kind in ("room", "vehicle"), decor=PROPS[kind], snow=snow,
                               weather="snow" if snow else "clear", seed=1)  # fmt: skip
            name = f"place_{kind}{'_winter' if snow else ''}.png"
            (out / name).write_bytes(png_bytes(backend.scene(req)))
    animals = [
        AnimalPlacement("dog", "medium", "#7a4a24", "blaze", collar="#d02020"),
        AnimalPlacement("cat", "medium", "#404040", "socks"),
        AnimalPlacement("horse", "large", "#a06a3a", "blaze"),
        AnimalPlacement("bird", "medium", "#3a70c0", "patch", "#f0d040"),
    ]
    strip = Image.new("RGB", (4 * 120, 120), "white")
    for i, a in enumerate(animals):
        strip.paste(animal_anchor(a, 120), (i * 120, 0))
    (out / "animals.png").write_bytes(png_bytes(strip))
    places = ("North Mole", "Fish Quay", "Ice Plant", "Fuel Berth", "Lock Gate")
    rooms = [
        ("the harbour office", "PIER HOUSE", (
            PartPlacement("swell_board", "label", "board", "3", lo=1, hi=5),
            PartPlacement("berth_chart", "map", "map", "Fish Quay", places=places, style="district"),
        )),
        ("the net store", "STORE 3", (
            PartPlacement("buoy_shelf", "count", "box", "5", colour="#d05020"),
            PartPlacement("buoy_crate", "count", "cone", "4", colour="#e08020", container="crate"),
        )),
    ]  # fmt: skip
    sheet = Image.new("RGB", (2 * 480 + 8, 270), "white")
    for i, (name, sign, parts) in enumerate(rooms):
        req = SceneRequest(width=480, height=270, place_name=name, place_kind="work", indoor=True,
                           sign=sign, parts=parts, seed=1)  # fmt: skip
        sheet.paste(backend.scene(req), (i * 488, 0))
    (out / "parts.png").write_bytes(png_bytes(sheet))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/families/img"))
