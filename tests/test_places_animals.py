"""Places by kind (their own backgrounds, snow by season and altitude, dusk by the calendar),
animals in the cast (anchor, shots, named by a companion, recall items) and ``who.required``.

Unit tests draw scenes directly; the build test (integration) builds the alpine rescue theme
(tests/themes/alpine_rescue_icm.yaml, 10 clips at 320x180) and reads its release."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from mnemoforge.backends.image.animal_figure import animal_anchor, placement
from mnemoforge.backends.image.procedural import ProceduralImageBackend
from mnemoforge.backends.image.protocol import SceneRequest
from mnemoforge.generators.icm.place_look import snow_on_ground, time_of_day
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.generators.icm.world_rules import world_problems
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Place
from mnemoforge.theme_io import ThemeError, load_theme

from .conftest import TEST_THEMES

ALPINE = TEST_THEMES / "alpine_rescue_icm.yaml"
KINDS = ("room", "vehicle", "street", "coast", "mountain", "forest", "field", "airfield", "helipad")


def _data() -> dict:
    return yaml.safe_load(ALPINE.read_text(encoding="utf-8"))


def _scene(kind: str, name: str = "the place", **kw: object) -> np.ndarray:
    req = SceneRequest(width=320, height=180, place_name=name, place_kind=kind,
                       indoor=kind in ("room", "vehicle"), **kw)  # type: ignore[arg-type]  # fmt: skip
    return np.asarray(ProceduralImageBackend().scene(req).convert("RGB")).astype(int)


def _white_lower(img: np.ndarray) -> float:
    """Share of the lower half's pixels that are near white (every channel above 200)."""
    low = img[img.shape[0] // 2 :]
    return float((low.min(axis=2) > 200).mean())


def test_snow_lies_on_a_mountain_in_winter_and_not_in_summer() -> None:
    assert _white_lower(_scene("mountain", snow=True)) > 0.6
    assert _white_lower(_scene("mountain", snow=False)) < 0.1
    assert _white_lower(_scene("forest", snow=True)) > 0.5


def test_place_kinds_and_places_look_different() -> None:
    means = {k: _scene(k).reshape(-1, 3).mean(axis=0) for k in KINDS}
    for i, a in enumerate(KINDS):
        for b in KINDS[i + 1 :]:
            diff = np.abs(_scene(a) - _scene(b)).mean()
            assert diff > 12, (a, b, diff)  # pixel by pixel
    assert len({tuple(np.round(m)) for m in means.values()}) == len(KINDS)
    # two rooms of one building: their own colours and layout, from their names
    one, two = _scene("room", "the radio room"), _scene("room", "the gear room")
    assert np.abs(one.reshape(-1, 3).mean(0) - two.reshape(-1, 3).mean(0)).sum() > 20


def test_declared_props_are_drawn() -> None:
    bare = _scene("room", "the radio room")
    furnished = _scene("room", "the radio room", decor=("radio", "map", "shelf"))
    assert (np.abs(bare - furnished).sum(axis=2) > 30).mean() > 0.02


def test_snow_rule_reads_kind_altitude_season_and_weather() -> None:
    hut = Place(id="h", name="the hut", kind="mountain", indoor=False, altitude_m=2100)
    lane = Place(id="l", name="the lane", kind="street", indoor=False, altitude_m=900)
    high_field = Place(id="f", name="the alp", kind="field", indoor=False, altitude_m=2000)
    room = Place(id="r", name="the room", kind="room", indoor=True, altitude_m=2100)
    assert snow_on_ground(hut, "winter", "clear and cold", 1800)
    assert not snow_on_ground(hut, "summer", "sunny", 1800)
    assert snow_on_ground(high_field, "winter", "overcast", 1800)
    assert not snow_on_ground(high_field, "winter", "overcast", 2500)  # below a higher snow line
    assert not snow_on_ground(lane, "winter", "overcast", 1800)
    assert snow_on_ground(lane, "winter", "snow", 1800)  # a snowy day anywhere outdoors
    assert not snow_on_ground(room, "winter", "snow", 1800)
    assert not snow_on_ground(hut, "", "clear", 1800)  # no latitude, no seasons


def test_dusk_follows_the_calendar() -> None:
    january = (8.1, 16.9)  # sunrise and sunset, hours
    assert time_of_day(dt.datetime(2027, 1, 10, 17, 15), january) == "evening"
    assert time_of_day(dt.datetime(2027, 1, 10, 18, 45), january) == "night"
    assert time_of_day(dt.datetime(2027, 1, 10, 7, 30), january) == "night"
    assert time_of_day(dt.datetime(2027, 1, 10, 15, 0), january) == "afternoon"
    assert time_of_day(dt.datetime(2027, 1, 10, 18, 45)) == "evening"  # no latitude: by the clock


def test_places_of_an_outdoor_kind_are_outdoors_unless_said() -> None:
    theme = load_theme(ALPINE)
    assert [p.indoor for p in theme.places] == [False, False, False, True, True]
    data = _data()
    data["places"][1]["indoor"] = True  # a covered helipad, declared
    assert Theme.model_validate(data).places[1].indoor


def test_old_place_and_line_bank_dumps_are_unchanged() -> None:
    theme = load_theme(TEST_THEMES / "tea_estate_icm.yaml")
    dumped = theme.model_dump(mode="json")
    assert all(set(p) == {"id", "name", "kind", "indoor", "sign", "palette"} for p in dumped["places"])
    assert "animals" not in dumped and "animal" not in dumped["album"]["dialogue"]
    assert "snow_line_m" not in dumped["album"]


def test_animal_anchor_is_a_drawn_animal_in_its_coat() -> None:
    theme = load_theme(ALPINE)
    for a in theme.animals:
        img = np.asarray(animal_anchor(placement(a), 128)).astype(int)
        coat = np.array([int(a.coat[k : k + 2], 16) for k in (1, 3, 5)])
        share = (np.abs(img - coat).sum(axis=2) < 30).mean()
        assert 0.04 < share < 0.6, (a.id, share)
    one, two = (np.asarray(animal_anchor(placement(a), 128)).astype(int) for a in theme.animals)
    assert np.abs(one - two).mean() > 10


@pytest.mark.parametrize(
    ("path", "value", "field", "message"),
    [
        (("animals", 0, "companions", 0), "nobody", "animals.0.companions.0", "unknown person 'nobody'"),
        (("animals", 0, "name"), "Gian Tscharner", "animals.0.name", "also the name at cast.1.name"),
        (("animals", 0, "id"), "gian", "animals.0.id", "also a person, place or object id"),
        (("animals", 0, "species"), "dragon", "animals.0.species", "dog"),
        (("activities", 0, "who", "required", 0), "nobody", "activities.0.who.required.0", "unknown person"),
        (("places", 0, "kind"), "glacier", "places.0.kind", "mountain"),
        (("places", 0, "props", 0), "igloo", "places.0.props.0", "windsock"),
    ],
)
def test_bad_declarations_name_their_field(tmp_path: Path, path: tuple, value: object, field: str,
                                           message: str) -> None:  # fmt: skip
    data = _data()
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    theme = tmp_path / "t.yaml"
    theme.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(ThemeError) as err:
        load_theme(theme)
    assert any(f == field and message in m for f, m in err.value.problems), err.value.problems


def test_required_people_come_to_every_event() -> None:
    theme = load_theme(ALPINE)
    world = plan_world(theme, 3, 30)
    drills = [e for e in world.events if e.activity == "search_drill"]
    assert drills and all("gian" in e.participants for e in drills)
    assert world_problems(theme, world) == []
    data = _data()
    data["activities"][0]["who"] = {"required": ["gian"], "exclude": ["gian"]}
    with pytest.raises(ValueError, match=r"who.required.0: 'gian' is also in who.exclude"):
        Theme.model_validate(data)
    data["activities"][0]["who"] = {"required": ["gian", "seraina", "duri", "ladina"]}
    with pytest.raises(ValueError, match=r"who.required: 4 people must come, more than max_people 3"):
        Theme.model_validate(data)


@pytest.fixture(scope="module")
def alpine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from mnemoforge.pipeline import build

    res = build(ALPINE, outputs=tmp_path_factory.mktemp("alpine"), workers=2)
    return res.release_dir, res.run_dir


def _clips(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "episodes" / "clips.jsonl").read_text().splitlines()]


@pytest.mark.integration
def test_animals_have_anchors_shots_lines_and_kept_items(alpine) -> None:  # type: ignore[no-untyped-def]
    release, run = alpine
    anchors = json.loads((run / "media" / "anchors.json").read_text())
    for aid in ("rocco", "fenna"):
        img = Image.open(run / anchors[aid])
        assert img.size == (256, 256) and Path(anchors[aid]).name.startswith("animal_")
    shots = [s for c in _clips(run) for s in c["shots"]]
    seen = {a for s in shots for a in s.get("animals", [])}
    assert seen == {"rocco", "fenna"}
    for s in shots:  # with their companions only, never speaking
        assert all(d["speaker"] not in ("rocco", "fenna") for d in s["dialogue"])
    said = [d["text"] for s in shots for d in s["dialogue"]]
    assert any("Rocco" in t for t in said)
    drawn = [json.loads(p.read_text()) for p in (run / "media" / "drawn").glob("*.json")]
    boxes = [a["box"] for d in drawn for s in d["shots"] for a in s.get("animals", [])]
    assert boxes and all(b is not None for b in boxes)
    kept = [json.loads(x) for x in (release / "data" / "icm" / "questions.jsonl").read_text().splitlines()]
    about = [q for q in kept if q["program"]["fn"] == "animal_along"]
    assert about, "no kept identity item about an animal"
    assert all(q["answer"] in ("Rocco", "Fenna") and "Which dog" in q["question"] for q in about)


@pytest.mark.integration
def test_winter_mountain_shots_show_snow_and_kinds_differ(alpine) -> None:  # type: ignore[no-untyped-def]
    _, run = alpine
    shots = [s for c in _clips(run) if not c.get("calibration") for s in c["shots"]]
    by_place: dict[str, list[np.ndarray]] = {}
    for s in shots:
        img = np.asarray(Image.open(run / "media" / "shots" / f"{s['id']}.png").convert("RGB")).astype(int)
        by_place.setdefault(s["place"], []).append(img)
        if s["place"] == "sella_hut" and s["composition"] == "wide" and s["time_of_day"] != "night":
            assert _white_lower(img) > 0.3, s["id"]
    assert "sella_hut" in by_place
    # each place's mean still, compared pixel by pixel: kinds differ, and so do two rooms
    means = {p: np.mean(imgs, axis=0) for p, imgs in by_place.items()}
    assert len(means) >= 4
    places = sorted(means)
    for i, a in enumerate(places):
        for b in places[i + 1 :]:
            assert np.abs(means[a] - means[b]).mean() > 20, (a, b)


@pytest.mark.integration
def test_report_has_the_world_contact_sheet(alpine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.exporters.report import write_report

    release, _ = alpine
    write_report(release, tmp_path / "report")
    sheet = Image.open(tmp_path / "report" / "figures" / "world_sheet.png")
    html = (tmp_path / "report" / "index.html").read_text()
    assert "figures/world_sheet.png" in html
    # a row per place, object and animal
    assert sheet.height >= 34 + 130 * (5 + 2 + 2)
