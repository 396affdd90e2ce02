"""A declared map (``scenarios.*.draws.map``, issue 30's "charts and maps"): named locations on a
trail map, a floor plan or a district map and a pin at one of them, the ``marked`` variable (X3)
whose value comes from the World's timeline. The schema's refusals; the drawing (the places stand
alike in every picture, only the pin moves; same state, same bytes); the render audit reads the
pin from the pixels; the OCR read-back reads the names; a real build asks where the pin is."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from mnemoforge import yaml_io
from mnemoforge.backends.image.visual_map import PIN_INK, pinned_at
from mnemoforge.backends.image.visual_scene import SceneState, render_scene, save_png
from mnemoforge.generators.memeye.drawn import drawn_problem
from mnemoforge.schemas.memeye_map import MapDraw
from mnemoforge.theme_io import parse_theme

THEME = Path(__file__).parent / "themes/dolomites_rescue_memeye.yaml"
PLACES = ("Boè summit", "Piz Pordoi", "Val Lasties", "Sella towers", "Col Rodella", "Mesules")


def _scene(
    marked: str, style: str = "trail", places: tuple[str, ...] = PLACES, width: int = 512
) -> SceneState:
    return SceneState(
        kind="room", gist="", left="", right="", mark=-1, colour="", count=-1, label="", seed=3,
        width=width, height=width * 3 // 4, map_places=places, map_style=style, marked=marked,
    )  # fmt: skip


def test_a_map_declares_four_to_six_distinct_short_places() -> None:
    m = MapDraw(noun="the trail map", marker="the rescue team", places=list(PLACES))
    assert m.style == "trail" and m.places[0] == "Boè summit"
    with pytest.raises(ValidationError, match="at least 4"):
        MapDraw(noun="the trail map", places=["hut", "col", "lake"])
    with pytest.raises(ValidationError, match="names must be distinct"):
        MapDraw(noun="the trail map", places=["hut", "Hut", "col", "lake"])
    with pytest.raises(ValidationError, match=r"places.3: a name of at most 16 characters"):
        MapDraw(noun="the trail map", places=["hut", "col", "lake", "the long ridge to the summit"])


def _data() -> dict:
    return yaml_io.safe_load(THEME.read_text(encoding="utf-8"))


def test_the_marked_key_needs_a_map_and_the_map_takes_the_instances_place() -> None:
    data = _data()
    data["memeye"]["scenarios"][1]["draws"].pop("map")
    data["memeye"]["scenarios"][1]["changes"].append({"key": "marked", "after": "2027-02-01"})
    with pytest.raises(ValueError, match=r"memeye.scenarios.1.changes.1.key: 'marked' needs a `draws.map`"):
        parse_theme(data, THEME)
    data = _data()
    data["memeye"]["scene_packs"] = ["home_scenes"]
    data["memeye"]["scenarios"][0]["changes"].append({"key": "mark", "after": "2027-02-01"})
    with pytest.raises(ValueError, match=r"'mark' is not drawn in this scenario \(its `draws.map` takes"):
        parse_theme(data, THEME)


@pytest.mark.parametrize("style", ["trail", "floor", "district"])
def test_the_pin_is_read_from_the_pixels_at_every_place(tmp_path: Path, style: str) -> None:
    """Every place as the marked one: the render audit finds the pin (its ink) in the picture with
    its tip on that place's dot (''), and calls any other place ``wrong:marked``; the names are
    written at a legible size; the places stand alike whatever is marked (only the pin moves)."""
    pictures = {}
    for name in PLACES:
        img, layout = render_scene(_scene(name, style))
        path = tmp_path / f"{name}.png"
        save_png(img, str(path))
        assert pinned_at(img, layout["map"]) == name
        assert drawn_problem("marked", name, layout, path) == ""
        other = PLACES[(PLACES.index(name) + 1) % len(PLACES)]
        assert drawn_problem("marked", other, layout, path) == "wrong:marked"
        assert all(b[3] - b[1] >= 12 for b in layout["map"]["labels"].values())
        pictures[name] = (np.asarray(img, dtype=int), layout)
    a, la = pictures[PLACES[0]]
    b, lb = pictures[PLACES[3]]
    assert la["map"]["places"] == lb["map"]["places"] and la["map"]["labels"] == lb["map"]["labels"]
    changed = np.argwhere(np.abs(a - b).sum(axis=2) > 0)
    for y, x in changed:  # every changed pixel is near one of the two pins
        near = [abs(x - p[0]) <= 12 and -24 <= y - p[1] <= 4 for p in (la["map"]["pin"], lb["map"]["pin"])]
        assert any(near), (x, y)


def test_an_undrawn_or_unpinned_map_is_refused(tmp_path: Path) -> None:
    img, layout = render_scene(_scene("Mesules"))
    save_png(img, str(tmp_path / "m.png"))
    assert drawn_problem("marked", "Mesules", {}, tmp_path / "m.png") == "undrawn:marked"
    assert drawn_problem("marked", "Lake Como", layout, tmp_path / "m.png") == "wrong:marked"
    bare, layout2 = render_scene(_scene(""))  # a map without its pin
    save_png(bare, str(tmp_path / "b.png"))
    assert "pin" not in layout2["map"] and not (np.asarray(bare) == np.array(PIN_INK)).all(axis=2).any()
    assert drawn_problem("marked", "Mesules", layout2, tmp_path / "b.png") == "undrawn:marked"
    small = {**layout, "map": {**layout["map"], "labels": {"Mesules": [0, 0, 40, 8]}}}
    assert drawn_problem("marked", "Mesules", small, tmp_path / "m.png") == "small:marked"


def test_a_map_is_drawn_the_same_bytes_from_the_same_state() -> None:
    def png(s: SceneState) -> bytes:
        buf = io.BytesIO()
        render_scene(s)[0].save(buf, format="PNG", optimize=False, compress_level=6)
        return buf.getvalue()

    assert png(_scene("Val Lasties")) == png(_scene("Val Lasties"))
    assert png(_scene("Val Lasties")) != png(_scene("Val Lasties", places=(*PLACES[:5], "Piz Boè")))


@pytest.mark.parametrize("width", [384, 512])
def test_the_names_on_a_map_read_back(width: int) -> None:
    pytest.importorskip("rapidocr_onnxruntime")
    from mnemoforge.generators.memeye.ocr import names, read_text

    for style, places in (("trail", PLACES), ("floor", ("kitchen", "bunk room", "boot room", "stove nook"))):
        img, layout = render_scene(_scene(places[1], style, places, width))
        for name, box in layout["map"]["labels"].items():
            got, score = read_text(img, box, True)
            assert score >= 0.6 and names(got, name, places), (width, style, name, got)


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mnemoforge.pipeline import build

    return build(THEME, outputs=tmp_path_factory.mktemp("map_build"), workers=1).release_dir


@pytest.mark.integration
def test_a_real_build_asks_where_the_pin_is(release: Path) -> None:
    """Items about both maps: the answer is the place the World's timeline holds at the evidence
    picture, the options are other declared places (a Y3 item offers the earlier place), and the
    render audit and the OCR read-back kept them."""
    from mnemoforge.exporters.tables import read_jsonl
    from mnemoforge.schemas.world import World

    world = World.model_validate_json((release / "data/world.json").read_text())
    qs = read_jsonl(release / "data/memeye/questions.jsonl")
    maps = [q for q in qs if q["labels"]["key"] == "marked"]
    assert {q["category"] for q in maps} == {"X3_Y1", "X3_Y3"}, [q["question"] for q in qs]
    trail = next(q for q in maps if "trail map" in q["question"])
    assert (
        "here is the rescue team marked on the trail map" in trail["question"]
    )  # a seeded lead-in before it
    assert trail["answer"] in PLACES and set(trail["options"]) <= set(PLACES) and len(trail["options"]) == 4
    states = [f for f in world.facts if f.object == "marked" and f.id in trail["facts_read"]]
    assert len({f.value for f in states}) == 2 and max(states, key=lambda f: f.at).value == trail["answer"]
    plan = next(q for q in maps if "floor plan" in q["question"])
    assert plan["answer"] in ("kitchen", "bunk room", "boot room", "stove nook")
    verdicts = [json.loads(x) for x in (release / "gates/verdicts.jsonl").read_text().splitlines() if x]
    for q in maps:
        drawn = next(v for v in verdicts if v["item"] == q["id"] and v["gate"] == "memeye_drawn")
        assert drawn["keep"] and drawn["reason"].endswith("drawn as read"), drawn
        legible = [v for v in verdicts if v["item"] == q["id"] and v["gate"] == "memeye_legible"]
        assert not legible or (legible[0]["keep"] and legible[0]["reason"].startswith("read back: "))


@pytest.mark.integration
def test_the_release_ships_the_pin_where_the_world_has_it(release: Path) -> None:
    """Each picture of a map: the pin read from the shipped picture's pixels is the World's value
    at the picture's time; the contact sheet has a row for the map."""
    from PIL import Image

    from mnemoforge.exporters.report_memeye_objects import part_boxes
    from mnemoforge.exporters.tables import read_jsonl
    from mnemoforge.generators.timelines import TimelineIndex
    from mnemoforge.schemas.world import World

    world = World.model_validate_json((release / "data/world.json").read_text())
    index = TimelineIndex(world)
    rounds = {r["round"]: r for r in read_jsonl(release / "data/memeye/rounds.jsonl")}
    seen = 0
    for row in read_jsonl(release / "data/memeye/annotations/layouts.jsonl"):
        lay = row["layout"] if isinstance(row["layout"], dict) else json.loads(row["layout"])
        if "map" not in lay:
            continue
        oid = "call_log_marked" if set(lay["map"]["places"]) == set(PLACES) else "hut_log_marked"
        when = dt.datetime.fromisoformat(rounds[row["observation"]]["timestamp"])
        value = index.value_at(oid, "marked", when)
        with Image.open(release / row["path"]) as img:
            assert pinned_at(img, lay["map"]) == value == lay["map"]["marked"], row["observation"]
        assert "map" in part_boxes(lay)
        seen += 1
    assert seen >= 8
