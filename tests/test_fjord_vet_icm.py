"""Issue 30's icm Done-when points on an unseen-domain theme of our own: a winter at a fjord-side
veterinary practice in Norway (tests/themes/fjord_vet_icm.yaml), with a titled vet and accented
names, a horse and a clinic cat in the cast, a mountain pasture at 1,150 m, a coast, a field, a
ferry car deck and two rooms of one surgery.

Unit tests read the planned world and draw scenes directly; the integration tests build the theme
once (10 clips at 320x180) and measure its rendered stills: per-place mean colour and colour
histograms (places of different kinds look different, and so do two rooms), the near-white share of
the lower half of winter stills of the mountain pasture (snow), and the kept items (one about an
animal at least)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from mnemoforge.backends.image.procedural import ProceduralImageBackend
from mnemoforge.backends.image.protocol import SceneRequest
from mnemoforge.generators.icm.place_look import shot_time_of_day
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.generators.icm.world_rules import world_problems
from mnemoforge.generators.names import parts
from mnemoforge.schemas.theme import Theme
from mnemoforge.theme_io import load_theme

from .conftest import TEST_THEMES

VET = TEST_THEMES / "fjord_vet_icm.yaml"
ANIMALS = {"bjorka": ("Bjørka", "horse"), "tassen": ("Tassen", "cat")}


def _white_lower(img: np.ndarray) -> float:
    """Share of the lower half's pixels that are near white (every channel above 200): snow."""
    low = img[img.shape[0] // 2 :]
    return float((low.min(axis=2) > 200).mean())


def _hist(img: np.ndarray, bins: int = 4) -> np.ndarray:
    """A normalised joint RGB histogram (``bins`` levels per channel)."""
    q = (img // (256 // bins)).reshape(-1, 3)
    idx = q[:, 0] * bins * bins + q[:, 1] * bins + q[:, 2]
    h = np.bincount(idx, minlength=bins**3).astype(float)
    return h / h.sum()


def _hist_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Total variation distance of two stills' colour histograms (0 same, 1 disjoint colours)."""
    return float(np.abs(_hist(a) - _hist(b)).sum() / 2)


def _scene(kind: str, name: str, indoor: bool, **kw: object) -> np.ndarray:
    req = SceneRequest(width=320, height=180, place_name=name, place_kind=kind, indoor=indoor, **kw)  # type: ignore[arg-type]  # fmt: skip
    return np.asarray(ProceduralImageBackend().scene(req).convert("RGB")).astype(int)


def test_the_theme_declares_a_titled_vet_animals_and_places_by_kind() -> None:
    theme = load_theme(VET)
    vet = theme.person("solvi")
    assert (parts(vet).title, parts(vet).given, parts(vet).family) == ("Dr.", "Sølvi", "Årdal")
    assert {a.id: (a.name, a.species) for a in theme.animals} == ANIMALS
    kinds = {p.id: (p.kind, p.indoor) for p in theme.places}
    assert kinds["skala_pasture"] == ("mountain", False) and kinds["car_deck"] == ("vehicle", True)
    assert kinds["nesvik_quay"] == ("coast", False) and kinds["surgery"] == ("room", True)


def test_who_rules_are_honoured_in_the_planned_world() -> None:
    """``who.required`` brings Håkon to every farm call, ``who.people`` admits only Ingrid (and
    the protagonist) to surgery hours, ``who.exclude`` keeps her off the ferry."""
    theme = load_theme(VET)
    world = plan_world(theme, theme.seed, 30)
    by_act: dict[str, list[list[str]]] = {}
    for e in world.events:
        by_act.setdefault(e.activity, []).append(list(e.participants))
    assert by_act["farm_call"] and all({"hakon", "solvi"} <= set(p) for p in by_act["farm_call"])
    assert by_act["surgery_hours"] and all(set(p) <= {"solvi", "ingrid"} for p in by_act["surgery_hours"])
    assert by_act["ferry_crossing"] and all("ingrid" not in p for p in by_act["ferry_crossing"])
    assert world_problems(theme, world) == []


def test_a_required_person_outside_who_people_is_still_admitted() -> None:
    data = yaml.safe_load(VET.read_text(encoding="utf-8"))
    data["activities"][1]["who"] = {"people": ["ingrid"], "required": ["eirik"]}
    data["activities"][1]["max_people"] = 3
    theme = Theme.model_validate(data)
    world = plan_world(theme, theme.seed, 30)
    hours = [set(e.participants) for e in world.events if e.activity == "surgery_hours"]
    assert hours and all("eirik" in p and p <= {"solvi", "ingrid", "eirik"} for p in hours)


def test_ordinary_domain_nouns_are_not_refused_in_an_icm_theme(tmp_path: Path) -> None:
    """icm has no visual-word rule: 'radio', 'log' and 'snow' in lines, object names and place
    names pass the schema and every pre-build check (``theme check``)."""
    from mnemoforge.theme_checks import check_theme

    data = yaml.safe_load(VET.read_text(encoding="utf-8"))
    data["places"][3]["name"] = "the radio deck"
    data["objects"][0]["name"] = "snow log"
    path = tmp_path / "vet.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    theme = check_theme(path)  # raises ThemeError naming every problem
    said = " ".join(x for a in theme.activities for x in a.bank().small_talk).lower()
    assert {"radio", "log", "snow"} <= set(said.replace(".", " ").replace(",", " ").split())
    assert theme.places[3].name == "the radio deck" and theme.objects[0].name == "snow log"


def test_dusk_at_five_in_january_follows_the_norwegian_calendar() -> None:
    theme = load_theme(VET)
    world = plan_world(theme, theme.seed, 30)
    cal = world.calendar
    rise, sunset = cal.daylight(dt.date(2027, 1, 15))
    assert 15.0 <= sunset <= 16.5 and rise >= 8.5  # 61 deg N: short days
    assert shot_time_of_day(cal, dt.datetime(2027, 1, 15, 17, 0)) == "evening"  # dusk, not afternoon
    assert shot_time_of_day(cal, dt.datetime(2027, 1, 15, 18, 0)) == "night"
    assert shot_time_of_day(cal, dt.datetime(2027, 1, 15, 13, 0)) == "afternoon"


def test_dusk_and_rain_are_drawn() -> None:
    """The light of the hour and the plan's weather change the still: a quay at evening is darker
    than at noon, and rain draws streaks a clear day has not."""
    quay = {"kind": "coast", "name": "the Nesvik quay", "indoor": False}
    noon = _scene(**quay, time_of_day="afternoon", weather="overcast")
    dusk = _scene(**quay, time_of_day="evening", weather="overcast")
    assert noon.mean() - dusk.mean() > 25, (noon.mean(), dusk.mean())
    clear = _scene(**quay, time_of_day="afternoon", weather="sunny")
    rain = _scene(**quay, time_of_day="afternoon", weather="light rain")
    changed = (np.abs(clear - rain).sum(axis=2) > 40).mean()
    assert changed > 0.02, changed


def test_the_mountain_pasture_draws_snow_in_winter_only() -> None:
    pasture = {"kind": "mountain", "name": "the Skåla pasture", "indoor": False}
    assert _white_lower(_scene(**pasture, snow=True)) > 0.5
    assert _white_lower(_scene(**pasture, snow=False)) < 0.1


def test_each_shot_is_drawn_with_the_light_weather_and_snow_its_plan_says() -> None:
    """The scene request of every planned shot carries the calendar's light and the plan's weather,
    snow where the season and altitude (or a snowy day) put it, and the animals whose companion is
    in frame."""
    from mnemoforge.generators.icm.album import plan_album
    from mnemoforge.generators.icm.family import FAMILY
    from mnemoforge.generators.icm.render import scene_request

    theme = load_theme(VET)
    world = FAMILY.plan(theme, theme.seed)
    clips, _ = plan_album(theme, world)
    shots = [s for c in clips if not c.calibration for s in c.shots]
    snowy = {s.place: 0 for s in shots}
    for s in shots:
        req = scene_request(theme, world, s)
        assert req.time_of_day == s.time_of_day == shot_time_of_day(world.calendar, s.start)
        assert req.weather == s.weather and req.place_kind == world.place(s.place).kind
        snowy[s.place] += req.snow
        if s.place == "skala_pasture":
            assert req.snow and s.season == "winter"  # 1,150 m is a mountain: snow all winter
        elif s.place in ("surgery", "treatment_room", "car_deck"):
            assert not req.snow  # indoors
        else:  # the yard at 40 m and the quay: snow only on a snowy day
            assert req.snow == ("snow" in s.weather), (s.id, s.weather)
        assert len(req.animals) == len(s.animals) == sum(p in s.visible for p in ("hakon", "ingrid"))
    assert snowy.get("skala_pasture"), "no shot at the mountain pasture"


# ---- the built theme --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def vet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from mnemoforge.pipeline import build

    res = build(VET, outputs=tmp_path_factory.mktemp("vet"), workers=2)
    return res.release_dir, res.run_dir


def _shots(run: Path) -> list[dict]:
    clips = [json.loads(x) for x in (run / "episodes" / "clips.jsonl").read_text().splitlines()]
    return [s for c in clips if not c.get("calibration") for s in c["shots"]]


def _still(run: Path, shot: dict) -> np.ndarray:
    return np.asarray(Image.open(run / "media" / "shots" / f"{shot['id']}.png").convert("RGB")).astype(int)


@pytest.mark.integration
def test_animals_have_anchors_shots_lines_and_an_identity_item(vet) -> None:  # type: ignore[no-untyped-def]
    release, run = vet
    anchors = json.loads((run / "media" / "anchors.json").read_text())
    for aid in ANIMALS:
        assert Path(anchors[aid]).name.startswith("animal_")
        assert Image.open(run / anchors[aid]).size == (256, 256)
    shots = _shots(run)
    with_animal = [s for s in shots if s.get("animals")]
    assert {a for s in with_animal for a in s["animals"]} == set(ANIMALS)
    companions = {"bjorka": "hakon", "tassen": "ingrid"}
    for s in with_animal:  # beside their people, never speaking
        assert all(companions[a] in s["visible"] for a in s["animals"])
        assert all(d["speaker"] not in ANIMALS for d in s["dialogue"])
    said = " ".join(d["text"] for s in shots for d in s["dialogue"])
    assert "Bjørka" in said or "Tassen" in said
    kept = [json.loads(x) for x in (release / "data" / "icm" / "questions.jsonl").read_text().splitlines()]
    about = [q for q in kept if q["program"]["fn"] == "animal_along"]
    assert about, "no kept identity item about an animal"
    for q in about:
        name, species = next(v for v in ANIMALS.values() if v[0] == q["answer"])
        assert q["category"] == "identity_recall" and f"Which {species}" in q["question"]


@pytest.mark.integration
def test_places_of_different_kinds_render_visibly_differently(vet) -> None:  # type: ignore[no-untyped-def]
    _, run = vet
    by_place: dict[str, list[np.ndarray]] = {}
    for s in _shots(run):
        if s["composition"] == "wide":
            by_place.setdefault(s["place"], []).append(_still(run, s))
    kinds = {p.id: p.kind for p in load_theme(VET).places}
    assert len({kinds[p] for p in by_place}) >= 4, sorted(by_place)  # six places of five kinds
    mean_still = {p: np.mean(imgs, axis=0) for p, imgs in by_place.items()}
    mean_colour = {p: m.reshape(-1, 3).mean(axis=0) for p, m in mean_still.items()}
    places = sorted(by_place)
    for i, a in enumerate(places):
        for b in places[i + 1 :]:
            pixel = np.abs(mean_still[a] - mean_still[b]).mean()
            hist = _hist_distance(by_place[a][0], by_place[b][0])
            colour = np.abs(mean_colour[a] - mean_colour[b]).sum()
            assert pixel > 20 and hist > 0.15, (a, b, pixel, hist, colour)


@pytest.mark.integration
def test_winter_shots_of_the_mountain_pasture_show_snow(vet) -> None:  # type: ignore[no-untyped-def]
    _, run = vet
    pasture = [s for s in _shots(run) if s["place"] == "skala_pasture"]
    assert pasture and all(s["season"] == "winter" for s in pasture)
    wide = [s for s in pasture if s["composition"] == "wide" and s["time_of_day"] != "night"]
    assert wide
    for s in wide:
        assert _white_lower(_still(run, s)) > 0.3, s["id"]


def _overlap(a: list[int], b: list[int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.integration
def test_no_animal_covers_a_face_and_the_face_audit_passes(vet) -> None:  # type: ignore[no-untyped-def]
    """The horse and the cat stand behind their people: in the render record of every shot no
    animal box meets a face box, and the render audit (face sizes, faces in frame) finds nothing."""
    _, run = vet
    drawn = [json.loads(p.read_text()) for p in (run / "media" / "drawn").glob("*.json")]
    shots = [s for d in drawn for s in d["shots"] if s.get("animals")]
    assert {s["composition"] for s in shots} >= {"medium"}, "no medium shot with an animal"
    for s in shots:
        faces = [p["face"] for p in s["people"] if p["face"]]
        for a in s["animals"]:
            assert a["box"] and not any(_overlap(a["box"], f) for f in faces), (s["shot"], a, faces)
    report = json.loads((run / "media" / "render_audit.json").read_text())
    assert report["mismatches"] == 0 and report["shots_audited"] > 0, report["problems"][:5]


@pytest.mark.integration
def test_a_planned_rainy_day_shows_rain_on_the_still(tmp_path: Path) -> None:
    """The practice in April (spring: 'light rain' is in the season's weather), six clips: every
    outdoor shot the plan gives rain is drawn with rain streaks. The still is the scene drawn with
    the shot's own weather (byte for byte) and differs from the same scene on a cloudy day."""
    import dataclasses

    from mnemoforge.backends.image.scenery import weather_kind
    from mnemoforge.generators.icm.render import scene_request
    from mnemoforge.pipeline import build
    from mnemoforge.schemas.episodes import Clip
    from mnemoforge.schemas.world import World

    data = yaml.safe_load(VET.read_text(encoding="utf-8"))
    data["start"], data["end"] = dt.date(2027, 4, 5), dt.date(2027, 5, 28)
    data["album"]["clips"] = 6
    theme_path = tmp_path / "vet_spring.yaml"
    theme_path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    res = build(theme_path, outputs=tmp_path / "out", workers=2)
    run = res.run_dir
    theme = load_theme(theme_path)
    world = World.model_validate_json((run / "world" / "world.json").read_text(encoding="utf-8"))
    clips = [Clip.model_validate_json(x) for x in (run / "episodes" / "clips.jsonl").read_text().splitlines()]
    rainy = [s for c in clips if not c.calibration for s in c.shots
             if weather_kind(s.weather) == "rain" and not world.place(s.place).indoor]  # fmt: skip
    assert rainy, "the spring plan gives no outdoor rain"
    backend = ProceduralImageBackend()
    matched = 0
    for s in rainy:
        still = _still(run, {"id": s.id})
        req = scene_request(theme, world, s)
        own = np.asarray(backend.scene(req).convert("RGB")).astype(int)
        if not np.array_equal(own, still):
            continue  # a retake (another seed): not comparable pixel by pixel
        matched += 1
        dry = np.asarray(backend.scene(dataclasses.replace(req, weather="cloudy")).convert("RGB")).astype(int)
        streaks = (np.abs(still - dry).sum(axis=2) > 40).mean()
        assert streaks > 0.01, (s.id, streaks)
    assert matched, "no rainy still could be compared"
