"""Tests for the offline procedural image backend (Pillow)."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

from mnemoforge.backends.image import (
    ImageBackend,
    PersonPlacement,
    ProceduralImageBackend,
    PropPlacement,
    SceneRequest,
    png_bytes,
)
from mnemoforge.backends.image.colors import rgb
from mnemoforge.backends.image.fonts import renderable
from mnemoforge.schemas.theme import AppearanceSpec, Outfit


def _outfit(oid: str, top: str, bottom: str, style: str = "tshirt", pattern: str = "plain") -> Outfit:
    return Outfit(id=oid, label=oid, top_style=style, top_color=top, bottom_color=bottom, pattern=pattern)


ANA = AppearanceSpec(
    face_shape="oval", skin_tone="#f1c8a8", hair_style="long", hair_color="#6b3a1e", eye_color="#3a7d44",
    accessories=["earrings"], build="slim", height=0.92,
    signature_outfit=_outfit("red_tee", "#d0312d", "#2b3a67"),
    wardrobe=[_outfit("green_sweater", "#2e8b57", "#333333", "sweater"),
              _outfit("striped", "#1f5fbf", "#333333", "shirt", "stripes")],
)
BEN = AppearanceSpec(
    face_shape="square", skin_tone="#8d5524", hair_style="short", hair_color="#1b1b1b", eye_color="#4b2e1e",
    facial_hair="beard", accessories=["glasses"], build="broad", height=1.12,
    signature_outfit=_outfit("blue_jacket", "#1f5fbf", "#c2b280", "jacket"),
)
CLEO = AppearanceSpec(
    face_shape="heart", skin_tone="#e0ac69", hair_style="bun", hair_color="#d4a017", eye_color="#2a6fb0",
    accessories=["hat"], build="medium",
    signature_outfit=_outfit("yellow_dress", "#f2c12e", "#5a3e2b", "dress", "dots"),
)


def _person(a: AppearanceSpec, top: str, oid: str = "o") -> AppearanceSpec:
    """``a`` with a plain t-shirt of colour ``top`` as its only outfit."""
    return a.model_copy(update={"signature_outfit": _outfit(oid, top, "#202020"), "wardrobe": []})


def _req(**kw: object) -> SceneRequest:
    base = SceneRequest(
        width=320, height=180, place_name="Rosa's Cafe", place_kind="venue", indoor=True,
        palette=("#e8d5b7", "#6b4423", "#b5651d"), sign="Rosa's Cafe", time_of_day="afternoon",
        weather="clear", people=(PersonPlacement(ANA, "red_tee"), PersonPlacement(BEN, "blue_jacket")),
        extras=2, props=(PropPlacement("mug", "#ffffff", "BEST DAD", 1),), composition="wide", seed=7,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def _arr(img: Image.Image) -> np.ndarray:
    return np.asarray(img, dtype=np.int16)


def _luma(img: Image.Image) -> float:
    return float(np.asarray(img.convert("L"), dtype=np.float64).mean())


def _near(arr: np.ndarray, color: str, tol: int = 6) -> np.ndarray:
    """Boolean mask of pixels within ``tol`` of ``color`` on every channel."""
    return (np.abs(arr[..., :3] - np.array(rgb(color))) <= tol).all(axis=-1)


def _patch(img: Image.Image, box: tuple[int, int, int, int], fx: float, fy: float, r: int = 2) -> np.ndarray:
    """Median colour of a small patch at fractional position (fx, fy) of ``box``."""
    x = round(box[0] + fx * (box[2] - box[0]))
    y = round(box[1] + fy * (box[3] - box[1]))
    return np.median(_arr(img)[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3), axis=0)


@pytest.fixture(scope="module")
def backend() -> ProceduralImageBackend:
    return ProceduralImageBackend()


def test_backend_satisfies_protocol(backend: ProceduralImageBackend) -> None:
    assert isinstance(backend, ImageBackend)
    img = backend.portrait(ANA, size=128)
    assert img.mode == "RGB" and img.size == (128, 128)
    assert backend.scene(_req(width=200, height=120)).size == (200, 120)


def test_portrait_is_deterministic(backend: ProceduralImageBackend) -> None:
    a = backend.portrait(ANA)
    random.seed(123)  # global random state must not matter
    b = ProceduralImageBackend().portrait(ANA)
    assert a.tobytes() == b.tobytes()
    assert png_bytes(a) == png_bytes(b)


def test_scene_is_deterministic_and_seeded(backend: ProceduralImageBackend) -> None:
    req = _req(weather="light rain", indoor=False, place_kind="outdoor", extras=4)
    a = backend.scene(req)
    random.seed(999)
    b = ProceduralImageBackend().scene(req)
    assert a.tobytes() == b.tobytes()
    assert png_bytes(a) == png_bytes(b)
    assert backend.scene(replace(req, seed=8)).tobytes() != a.tobytes()


def test_different_people_look_clearly_different(backend: ProceduralImageBackend) -> None:
    pa, pb, pc = (_arr(backend.portrait(x)) for x in (ANA, BEN, CLEO))
    for x, y in ((pa, pb), (pa, pc), (pb, pc)):
        assert np.abs(x - y).mean() > 25  # mean absolute difference over all channels
    # a person's skin colour covers a good share of their portrait and little of someone else's
    assert _near(pa, ANA.skin_tone).mean() > 0.04
    assert _near(pb, BEN.skin_tone).mean() > 0.015  # beard and glasses cover part of it
    assert _near(pb, ANA.skin_tone).mean() < 0.005
    assert _near(pa, BEN.skin_tone).mean() < 0.005


@pytest.mark.parametrize("person", [ANA, BEN, CLEO])
def test_portrait_features_where_expected(backend: ProceduralImageBackend, person: AppearanceSpec) -> None:
    img, geom = backend.portrait_with_layout(person, size=256)
    skin, hair, top = (np.array(rgb(c)) for c in (person.skin_tone, person.hair_color,
                                                   person.signature_outfit.top_color))
    assert np.abs(_patch(img, geom.face, 0.3, 0.63) - skin).max() <= 8  # cheek
    if "hat" not in person.accessories:
        assert np.abs(_patch(img, geom.face, 0.5, 0.06) - hair).max() <= 8  # top of the head
    assert np.abs(_patch(img, geom.torso, 0.62, 0.9) - top).max() <= 8  # chest, off the centre line
    eye = _near(_arr(img)[geom.face[1]:geom.face[3], geom.face[0]:geom.face[2]], person.eye_color, tol=10)
    assert eye.sum() >= 10  # both irises visible
    assert _near(_arr(img), "#dee3ea", tol=0).mean() > 0.25  # plain background


def test_accessories_and_facial_hair_are_drawn(backend: ProceduralImageBackend) -> None:
    plain = ANA.model_copy(update={"accessories": []})
    shaved = BEN.model_copy(update={"facial_hair": "none", "accessories": []})
    img_a, img_p = _arr(backend.portrait(ANA)), _arr(backend.portrait(plain))
    gold = "#e6b428"  # earrings
    assert _near(img_a, gold, 0).sum() > 20 and _near(img_p, gold, 0).sum() == 0
    img_b, geom = backend.portrait_with_layout(BEN)
    img_s = backend.portrait(shaved)
    beard = _near(_arr(img_b), BEN.hair_color, 10)[geom.face[1]:geom.face[3], geom.face[0]:geom.face[2]]
    no_beard = _near(_arr(img_s), BEN.hair_color, 10)[geom.face[1]:geom.face[3], geom.face[0]:geom.face[2]]
    assert beard.mean() > no_beard.mean() + 0.1
    assert np.abs(_arr(img_b) - _arr(img_s)).mean() > 3


def test_outfit_change_recolours_the_torso(backend: ProceduralImageBackend) -> None:
    base = _req(people=(PersonPlacement(ANA, "red_tee"),), props=(), extras=0, composition="close",
                focus_index=0)
    colours = {}
    for oid in ("red_tee", "green_sweater"):
        img, layout = backend.scene_with_layout(replace(base, people=(PersonPlacement(ANA, oid),)))
        torso = layout.torsos[0]
        assert torso is not None
        colours[oid] = _patch(img, torso, 0.5, 0.75)
        region = _arr(img)[torso[1]:torso[3], torso[0]:torso[2]]
        assert _near(region, ANA.outfit(oid).top_color, 0).mean() > 0.3
    assert np.abs(colours["red_tee"] - np.array(rgb("#d0312d"))).max() <= 2
    assert np.abs(colours["green_sweater"] - np.array(rgb("#2e8b57"))).max() <= 2
    # the face is unchanged by the outfit
    f1 = backend.scene_with_layout(replace(base, people=(PersonPlacement(ANA, "red_tee"),)))
    f2 = backend.scene_with_layout(replace(base, people=(PersonPlacement(ANA, "green_sweater"),)))
    face = f1[1].faces[0]
    assert face is not None and f1[1].faces[0] == f2[1].faces[0]
    crop = (face[0], face[1], face[2], face[1] + (face[3] - face[1]) // 2)
    assert f1[0].crop(crop).tobytes() == f2[0].crop(crop).tobytes()


def test_patterned_outfit_shows_two_tones(backend: ProceduralImageBackend) -> None:
    img, layout = backend.scene_with_layout(
        _req(people=(PersonPlacement(ANA, "striped"),), props=(), extras=0, composition="close",
             focus_index=0))
    t = layout.torsos[0]
    assert t is not None
    w, h = t[2] - t[0], t[3] - t[1]
    region = _arr(img)[t[1] + h // 2:t[3], t[0] + w * 55 // 100:t[0] + w * 64 // 100]
    base = _near(region, "#1f5fbf", 0).mean()
    assert 0.2 < base < 0.8  # stripes: the base colour and a contrasting shade alternate


@pytest.mark.parametrize("indoor,kind", [(True, "home"), (False, "outdoor"), (False, "shop")])
def test_time_of_day_lighting(backend: ProceduralImageBackend, indoor: bool, kind: str) -> None:
    imgs = {t: backend.scene(_req(indoor=indoor, place_kind=kind, time_of_day=t))
            for t in ("morning", "afternoon", "evening", "night")}
    lum = {t: _luma(i) for t, i in imgs.items()}
    assert lum["night"] < 0.7 * lum["afternoon"]
    assert lum["night"] < lum["evening"] < lum["afternoon"] + 1
    assert lum["morning"] > lum["evening"]

    def rb(img: Image.Image) -> float:
        a = np.asarray(img, dtype=np.float64)
        return float(a[..., 0].mean() / a[..., 2].mean())

    assert rb(imgs["night"]) < rb(imgs["afternoon"])  # bluer
    assert rb(imgs["evening"]) > rb(imgs["afternoon"])  # warmer


def test_people_left_to_right_in_blocking_order(backend: ProceduralImageBackend) -> None:
    tops = ("#e01010", "#10c020", "#1030e0")
    people = tuple(PersonPlacement(_person(p, c), "o") for p, c in zip((ANA, BEN, CLEO), tops, strict=True))
    for order in ((0, 1, 2), (2, 0, 1)):
        req = _req(people=tuple(people[i] for i in order), props=(), extras=0, sign=None)
        arr = _arr(backend.scene(req))
        xs = []
        for i in order:
            cols = np.nonzero(_near(arr, tops[i], 0).sum(axis=0) >= 3)[0]
            assert len(cols) >= 5, f"top colour {tops[i]} not found"
            xs.append(cols.mean())
        assert xs == sorted(xs)


def test_layout_boxes_follow_composition(backend: ProceduralImageBackend) -> None:
    faces = {}
    for comp in ("wide", "medium", "close"):
        focus = 1 if comp == "close" else None
        _, layout = backend.scene_with_layout(_req(composition=comp, focus_index=focus))
        faces[comp] = [f[3] - f[1] if f else 0 for f in layout.faces]
        # every person a shot lists is drawn, close shots included (a two-shot), left to right
        assert all(b is not None for b in layout.people)
        assert layout.people[0][0] < layout.people[1][0]  # type: ignore[index]
    assert max(faces["wide"]) < max(faces["medium"]) < max(faces["close"])
    assert faces["close"][1] > 0.25 * 180


def test_taller_person_stands_taller(backend: ProceduralImageBackend) -> None:
    short = ANA.model_copy(update={"height": 0.88})
    tall = ANA.model_copy(update={"height": 1.14})
    _, layout = backend.scene_with_layout(_req(people=(PersonPlacement(short, "red_tee"),
                                                       PersonPlacement(tall, "red_tee")), props=()))
    s, t = layout.faces
    assert s is not None and t is not None and t[1] < s[1] - 5


def test_sign_is_legible_dark_on_light(backend: ProceduralImageBackend) -> None:
    for comp in ("wide", "medium", "close"):
        solo = _req().people[:1] if comp == "close" else _req().people  # a close two-shot fills the frame
        img, layout = backend.scene_with_layout(
            _req(composition=comp, focus_index=0, sign="Rosa's Cafe", people=solo, props=())
        )
        assert layout.sign is not None
        x0, y0, x1, y1 = layout.sign
        assert 0 <= x0 < x1 <= 320 and 0 <= y0 < y1 <= 180
        lum = np.asarray(img.convert("L").crop(layout.sign), dtype=np.int16)
        light, dark = (lum > 200).mean(), (lum < 70).mean()
        assert light > 0.4 and 0.04 < dark < 0.5
        assert y1 - y0 >= 12  # text at least ~9 px tall
    a = backend.scene(_req(sign="OPEN"))
    b = backend.scene(_req(sign="SHUT"))
    assert a.tobytes() != b.tobytes()
    assert backend.scene_with_layout(_req(sign=None))[1].sign is None


def test_props_drawn_in_colour_with_label_and_held(backend: ProceduralImageBackend) -> None:
    props = (PropPlacement("backpack", "#ff00aa", "SALE", 1), PropPlacement("book", "#00aaff", None, None))
    img, layout = backend.scene_with_layout(_req(props=props, composition="medium"))
    arr = _arr(img)
    held, free = layout.props
    assert held is not None and free is not None
    assert _near(arr[held[1]:held[3], held[0]:held[2]], "#ff00aa", 0).sum() > 20
    assert _near(arr[free[1]:free[3], free[0]:free[2]], "#00aaff", 0).sum() > 20
    holder = layout.people[1]
    assert holder is not None
    assert holder[0] <= (held[0] + held[2]) / 2 <= holder[2] + 0.1 * 320  # at the holder's hand
    # the label prints dark text on a light tag at the bottom of the prop box
    tag = np.asarray(img.convert("L").crop((held[0], held[3] - 12, held[2], held[3])), dtype=np.int16)
    assert (tag > 200).mean() > 0.2 and (tag < 80).mean() > 0.03


def test_extras_are_grey_and_faceless(backend: ProceduralImageBackend) -> None:
    req = _req(extras=4, people=(), props=(), sign=None)
    img, layout = backend.scene_with_layout(req)
    assert len(layout.extras) == 4
    none = backend.scene(replace(req, extras=0))
    diff = np.abs(_arr(img) - _arr(none)).sum(axis=-1) > 0
    changed = _arr(img)[diff]
    assert len(changed) > 200
    spread = changed.max(axis=-1) - changed.min(axis=-1)
    assert (spread <= 14).mean() > 0.95  # grey pixels only: no skin, hair or outfit colours


@pytest.mark.parametrize("weather,colour", [("heavy rain", (200, 212, 232)), ("snow", (252, 252, 255))])
def test_weather_hint_outdoors(backend: ProceduralImageBackend, weather: str,
                               colour: tuple[int, int, int]) -> None:
    req = _req(indoor=False, place_kind="outdoor", people=(), props=(), extras=0)
    wet = (_arr(backend.scene(replace(req, weather=weather))) == colour).all(axis=-1).sum()
    dry = (_arr(backend.scene(replace(req, weather="clear"))) == colour).all(axis=-1).sum()
    assert wet > 50 and dry == 0


def test_request_validation() -> None:
    with pytest.raises(ValueError):
        _req(people=tuple(PersonPlacement(ANA, "red_tee") for _ in range(7)))
    with pytest.raises(ValueError):
        _req(extras=5)
    with pytest.raises(ValueError):
        _req(props=(PropPlacement("mug", "#ffffff", None, 5),))
    with pytest.raises(KeyError):
        _req(people=(PersonPlacement(ANA, "no_such_outfit"),), props=())


@pytest.mark.parametrize("n", [1, 4, 6])
def test_many_people_and_sizes_render(backend: ProceduralImageBackend, n: int) -> None:
    people = tuple(PersonPlacement(p, p.signature_outfit.id) for p in [ANA, BEN, CLEO] * 2)[:n]
    for comp in ("wide", "medium", "close"):
        for w, h in ((320, 180), (64, 64), (1280, 720)):
            img, layout = backend.scene_with_layout(_req(people=people, composition=comp, width=w, height=h,
                                                         props=(), time_of_day="night", weather="snow"))
            assert img.size == (w, h) and len(layout.people) == n


def test_held_prop_stays_in_view_in_close_shots(backend: ProceduralImageBackend) -> None:
    req = _req(props=(PropPlacement("camera", "#ff00aa", "Nikon", 1),), composition="close", focus_index=1)
    img, layout = backend.scene_with_layout(req)
    box = layout.props[0]
    assert box is not None and box[3] <= 180
    assert _near(_arr(img)[box[1]:box[3], box[0]:box[2]], "#ff00aa", 0).sum() > 50
    # inside a camera move's stays-in-frame region, the held prop and both faces stay inside it
    safe = (64, 18, 256, 162)
    _, moved = backend.scene_with_layout(replace(req, safe=safe))
    for b in (*moved.props, *moved.faces):
        assert b is not None and safe[0] <= b[0] and b[2] <= safe[2] and safe[1] <= b[1] and b[3] <= safe[3]


def test_text_missing_from_the_font_is_folded() -> None:
    backend = ProceduralImageBackend()
    # accented Latin is drawn (Noto Sans covers it), not folded to its ASCII spelling
    accented = backend.scene(_req(sign="Caf\u00e9 Zo\u00eb"))
    plain = backend.scene(_req(sign="Cafe Zoe"))
    assert accented.tobytes() != plain.tobytes()
    # a script no shipped font covers (Ethiopic) is drawn as its transliteration, never as boxes
    assert renderable("\u1230\u120b\u121d") == "SeLaM"
    ethiopic = backend.scene(_req(sign="\u1230\u120b\u121d"))
    assert ethiopic.tobytes() == backend.scene(_req(sign="SeLaM")).tobytes()
