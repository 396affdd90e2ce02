"""Declared parts in album shots (issue 30: both picture families use the same library).

``tests/themes/harbour_office_icm.yaml`` declares three objects with the memeye ``draws`` schema:
a swell board (a written level), a berth chart (a map whose pin moves) and a shelf of spare buoys
(a count). The build draws them in the wide shots at their places with the values the World's
timelines hold; these tests read the values back from the pixels (RapidOCR for the written
level and the place names, the pin's ink, the counted boxes' ink) and compare them with the World.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from mnemoforge.backends.image.protocol import PartPlacement, SceneRequest
from mnemoforge.backends.image.read_back import normal, ocr_available, read_text
from mnemoforge.backends.image.visual_map import pinned_at
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.icm.parts_audit import PartCounts, part_problems
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import ThemeError, load_theme

from .conftest import TEST_THEMES

THEME = TEST_THEMES / "harbour_office_icm.yaml"
needs_ocr = pytest.mark.skipif(not ocr_available(), reason="needs the ocr extra (rapidocr-onnxruntime)")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from mnemoforge.pipeline import build

    res = build(THEME, outputs=tmp_path_factory.mktemp("harbour"), workers=1)
    return res.release_dir, res.run_dir


def _world(release: Path) -> World:
    return World.model_validate_json((release / "data/world.json").read_text(encoding="utf-8"))


def _drawn(run: Path) -> dict[str, dict]:
    """Shot id -> its render record (``media/drawn/<clip>.json``)."""
    out = {}
    for p in sorted((run / "media/drawn").glob("*.json")):
        out |= {s["shot"]: s for s in json.loads(p.read_text())["shots"]}
    return out


def _shots(run: Path) -> dict[str, dict]:
    clips = [Clip.model_validate(r) for r in read_jsonl(run / "episodes/clips.jsonl")]
    return {s.id: {"shot": s, "clip": c} for c in clips for s in c.shots}


def _theme_data() -> dict:
    return yaml.safe_load(THEME.read_text(encoding="utf-8"))


# --- the schema ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"draws": {"label": {"noun": "x", "type": "level"}, "count": {"drawable": "box", "noun": "y"}}},
         "objects.0.draws: an object draws exactly one part"),
        ({"draws": {"table": {"noun": "t", "items": ["a", "b", "c", "d"]}}}, "objects.0.draws: table"),
        ({"draws": {"label": {"noun": "x"}}}, "objects.0.draws: label.type"),
        ({"place": None}, "objects.0.place: an object that draws a part stands at a place"),
        ({"place": "quay"}, "objects.0.place: unknown place 'quay'"),
        ({"owner": "declan"}, "objects.0.owner: an object standing at a place"),
    ],
)  # fmt: skip
def test_a_declared_part_is_refused_naming_the_field(tmp_path: Path, change: dict, message: str) -> None:
    data = _theme_data()
    data["objects"][0] |= change
    if data["objects"][0].get("place") is None:
        data["objects"][0].pop("place", None)
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(ThemeError, match=message.replace("(", r"\(").replace(".", r"\.")):
        load_theme(path)


def test_the_object_draws_schema_is_memeyes_and_objects_without_parts_dump_as_before() -> None:
    from mnemoforge.schemas.memeye import DrawsSpec
    from mnemoforge.schemas.theme import ObjectSpec

    assert ObjectSpec.model_fields["draws"].annotation == DrawsSpec | None
    theme = load_theme(THEME)
    assert theme.objects[0].draws is not None and theme.objects[0].draws.label is not None
    plain = ObjectSpec(id="kite", name="red kite", owner="declan").model_dump()
    assert "draws" not in plain and "place" not in plain


# --- the World -----------------------------------------------------------------------------------


@pytest.mark.integration
def test_the_world_holds_each_shown_value_in_one_timeline(built: tuple[Path, Path]) -> None:
    release, _ = built
    world = _world(release)
    shows = [f for f in world.facts if f.kind == "shows"]
    assert {f.subject for f in shows} == {"swell_board", "berth_chart", "buoy_shelf"}
    for f in shows:
        assert f.at is not None and world.value_at(f.subject, f.object, f.at) == f.value
        assert world.event(f.event).place == world.object(f.subject).place  # type: ignore[arg-type]
    board = [f.value for f in shows if f.subject == "swell_board"]
    assert len(set(board)) > 1 and all(v in {"1", "2", "3", "4", "5"} for v in board)  # it changes


# --- the pictures --------------------------------------------------------------------------------


@pytest.mark.integration
@needs_ocr
def test_the_wide_shots_show_each_part_with_the_worlds_value(built: tuple[Path, Path]) -> None:
    """Read back from the pixels: the written level (OCR), the pin (its ink), the counted boxes
    (runs of their ink along the shelf)."""
    release, run = built
    world, drawn, shots = _world(release), _drawn(run), _shots(run)
    seen: dict[str, int] = {}
    for sid, rec in drawn.items():
        shot = shots[sid]["shot"]
        if shot.composition != "wide" or shot.clip_id == "c0000":
            assert "parts" not in rec
            continue
        here = {o.id for o in world.objects if o.place == shot.place and o.draws is not None}
        assert {p["oid"] for p in rec.get("parts", [])} == here, sid
        with Image.open(run / "media/shots" / f"{sid}.png") as img:
            img = img.convert("RGB")
            for p in rec.get("parts", []):
                key = {"label": "label", "count": "count", "map": "marked"}[p["part"]]
                want = world.value_at(p["oid"], key, shot.start)
                assert p["value"] == want, sid
                if p["part"] == "label":
                    got, _ = read_text(img, p["text"])
                    assert normal(got) == normal(want), (sid, got, want)
                elif p["part"] == "map":
                    assert pinned_at(img, p["map"]) == want, sid
                else:
                    x0, y0, x1, y1 = p["box"]
                    ink = (np.asarray(img.crop((x0, y0, x1, y1))) == np.array(p["ink"])).all(axis=2)
                    cols = ink.any(axis=0).astype(int)
                    runs = int(((cols[1:] == 1) & (cols[:-1] == 0)).sum() + cols[0])
                    assert runs == int(want), (sid, runs, want)
                seen[p["part"]] = seen.get(p["part"], 0) + 1
    assert set(seen) == {"label", "map", "count"}, seen


@pytest.mark.integration
def test_the_render_audit_read_every_part_back(built: tuple[Path, Path]) -> None:
    release, run = built
    report = json.loads((run / "media/render_audit.json").read_text())
    assert report["mismatches"] == 0 and report["parts_claimed"] >= 7
    if ocr_available():
        assert report["parts_ocr"] == "rapidocr"
        texts = {(r["shot"], r["text"]) for r in report["parts_read_back"]}
        world = _world(release)
        labels = [f for f in world.facts if f.kind == "shows" and f.object == "label"]
        for f in labels:  # every written level of a wide shot was read back as the World's
            shot = next(o for o in _observations(run) if f.id in o.fact_ids())
            assert (shot.id, f.value) in texts


def _observations(run: Path) -> list[Observation]:
    return [Observation.model_validate(r) for r in read_jsonl(run / "episodes/observations.jsonl")]


@pytest.mark.integration
@needs_ocr
def test_the_audit_refuses_a_part_drawn_with_another_value(built: tuple[Path, Path], tmp_path: Path) -> None:
    """A record that says it drew another value, and a still whose board shows another level."""
    release, run = built
    world, drawn = _world(release), _drawn(run)
    obs = next(o for o in _observations(run) if any("_shows_swell_board" in e.fact for e in o.expresses))
    rec = drawn[obs.id]
    assert part_problems(world, obs, rec, run / "media/shots", PartCounts()) == []
    lied = json.loads(json.dumps(rec))
    board = next(p for p in lied["parts"] if p["oid"] == "swell_board")
    board["value"] = "9"
    assert any("shows '9'" in x for x in part_problems(world, obs, lied, None, PartCounts()))
    stills = tmp_path / "shots"
    stills.mkdir()
    with Image.open(run / "media/shots" / f"{obs.id}.png") as img:
        img = img.convert("RGB")
    from PIL import ImageDraw

    x0, y0, x1, y1 = board["text"]
    d = ImageDraw.Draw(img)
    d.rectangle((x0 + 5, y0 + 5, x1 - 5, y1 - 5), fill=(250, 250, 248))  # the level wiped off
    img.save(stills / f"{obs.id}.png")
    got = part_problems(world, obs, rec, stills, PartCounts())
    assert any("swell_board: its written value" in x for x in got), got


# --- items ---------------------------------------------------------------------------------------


@pytest.mark.integration
def test_items_read_a_parts_value_from_the_world(built: tuple[Path, Path]) -> None:
    release, run = built
    world = _world(release)
    from mnemoforge.generators.icm.questions import _candidates
    from mnemoforge.generators.questions.common import EvidenceIndex, solve_candidates

    pool = [c for c in solve_candidates(world, EvidenceIndex(_observations(run)), _candidates(world))
            if c.template.program == "part_shown"]  # fmt: skip
    assert {c.template.id for c in pool} == {"recall.part.v1", "recall.part.count.v1", "recall.part.map.v1"}
    for c in pool:
        fact = next(world.fact(f) for f in c.read if "_shows_" in f)
        assert c.answer == fact.value == world.value_at(fact.subject, fact.object, fact.at)  # type: ignore[arg-type]
        assert all(o.kind == "shot" for o in c.evidence)  # seen in the wide shot, never said
    kept = [q for q in read_jsonl(release / "data/icm/questions.jsonl") if q["program"]["fn"] == "part_shown"]
    assert kept and all(q["answer"] in (q.get("options") or [q["answer"]]) for q in kept)


# --- determinism ---------------------------------------------------------------------------------


@pytest.mark.integration
def test_the_theme_builds_byte_identical(built: tuple[Path, Path], tmp_path: Path) -> None:
    from mnemoforge.pipeline import build

    release, _ = built
    again = build(THEME, outputs=tmp_path / "again", workers=1).release_dir
    assert (again / "MANIFEST.json").read_bytes() == (release / "MANIFEST.json").read_bytes()


# --- every part, drawn by the album backend ------------------------------------------------------


PARTS = [
    PartPlacement("a", "label", "sign", "4", lo=1, hi=5),
    PartPlacement("b", "label", "screen", "14:30", lo=6, hi=22),
    PartPlacement("c", "label", "tag", "37", lo=0, hi=99),
    PartPlacement("d", "label", "chart", "3", lo=1, hi=5),
    PartPlacement("e", "count", "bottle", "6", colour="#2060c0", container="bin"),
    PartPlacement("f", "map", "map", "Ice Plant", places=("North Mole", "Ice Plant", "Lock Gate", "Slipway")),
    PartPlacement("g", "colour", "vehicle", "#c02080"),
    PartPlacement("h", "colour", "dog", "#20a040", look=("medium", "#6a4a2a", "patch")),
]


@pytest.mark.parametrize("time_of_day", ["afternoon", "night"])
def test_every_part_is_drawn_with_its_value_in_its_own_inks(time_of_day: str) -> None:
    from mnemoforge.backends.image.procedural import ProceduralImageBackend
    from mnemoforge.backends.image.visual_library import chart_level

    for k in range(0, len(PARTS), 2):  # two parts per scene: the top corners
        parts = tuple(PARTS[k : k + 2])
        req = SceneRequest(width=640, height=360, place_name="the office", place_kind="work", indoor=True,
                           sign="PIER HOUSE", time_of_day=time_of_day, parts=parts, seed=3)  # type: ignore[arg-type]  # fmt: skip
        img, layout = ProceduralImageBackend().scene_with_layout(req)
        assert [p["oid"] for p in layout.parts] == [p.oid for p in parts]
        left, right = (p["box"] for p in layout.parts)
        assert left[2] < right[0] and left[0] >= 0 and right[2] <= 640
        for p, rec in zip(parts, layout.parts, strict=True):
            if p.part == "label" and ocr_available():
                got, _ = read_text(img, rec["text"])
                assert normal(got) == normal(p.value), (p, got)
            if p.drawable == "chart":
                chart = rec["chart"]
                assert chart_level(tuple(chart["bar"]), tuple(chart["axis"]), *chart["range"]) == 3
            if p.part == "count":
                assert len(rec["countables"]) == 6 and rec["container"]["kind"] == "bin"
            if p.part == "map":
                assert pinned_at(img, rec["map"]) == "Ice Plant"
            if p.part == "colour":  # the exact colour, whatever the light of the hour
                assert img.getpixel(tuple(rec["point"])) == (int(p.value[1:3], 16), int(p.value[3:5], 16),
                                                             int(p.value[5:7], 16))  # fmt: skip
