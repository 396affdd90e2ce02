"""Tests for the diffusers image backend, on a tiny randomly initialised pipeline built offline."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

REASON = "needs the ml extra: pip install 'mnemoforge[ml]'"
# checked without importing: torch and diffusers are imported by the first test that runs here, so
# collecting the suite (once per xdist worker) does not pay for them
pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("torch", "diffusers", "transformers")), reason=REASON
)

from mnemoforge.backends.image import (  # noqa: E402
    ImageBackend,
    PersonPlacement,
    PropPlacement,
    SceneRequest,
    diffusion,
)
from mnemoforge.backends.image.diffusion import (  # noqa: E402
    DiffusersImageBackend,
    appearance_prompt,
    color_name,
    person_seed,
    scene_prompt,
    skin_tone_name,
)
from mnemoforge.backends.image.diffusion_tiny import tiny_pipeline  # noqa: E402
from mnemoforge.schemas.theme import AppearanceSpec, Outfit  # noqa: E402


def _outfit(oid: str, label: str, top: str, bottom: str, style: str = "tshirt", pattern: str = "plain",
            ) -> Outfit:
    return Outfit(id=oid, label=label, top_style=style, top_color=top, bottom_color=bottom, pattern=pattern)


ANA = AppearanceSpec(
    face_shape="oval", skin_tone="#f1c8a8", hair_style="long", hair_color="#6b3a1e", eye_color="#3a7d44",
    accessories=["earrings"], build="slim", height=0.92,
    signature_outfit=_outfit("red_tee", "red tee", "#d0312d", "#2b3a67"),
    wardrobe=[_outfit("striped", "striped work shirt", "#1f5fbf", "#333333", "shirt", "stripes")],
)
BEN = AppearanceSpec(
    face_shape="square", skin_tone="#8d5524", hair_style="short", hair_color="#1b1b1b", eye_color="#4b2e1e",
    facial_hair="beard", accessories=["glasses"], build="broad", height=1.12,
    signature_outfit=_outfit("blue_jacket", "blue jacket", "#1f5fbf", "#c2b280", "jacket"),
)
CLEO = AppearanceSpec(
    face_shape="heart", skin_tone="#e0ac69", hair_style="bun", hair_color="#d4a017", eye_color="#2a6fb0",
    accessories=["hat", "scarf"], build="medium",
    signature_outfit=_outfit("yellow_dress", "sunday dress", "#f2c12e", "#5a3e2b", "dress", "dots"),
)
SCENE = SceneRequest(
    width=96, height=54, place_name="Rosa's Cafe", place_kind="venue", indoor=True,
    palette=("#e8d5b7", "#6b4423"), sign="OPEN 24H", time_of_day="evening", weather="rainy",
    people=(PersonPlacement(BEN, "blue_jacket"), PersonPlacement(ANA, "striped", label="ANA")),
    extras=2, props=(PropPlacement("mug", "#ffffff", "BEST DAD", 0),), seed=7,
)


@pytest.fixture(scope="module")
def _one_thread() -> Iterator[None]:
    """One torch thread: on a busy 2-core machine OpenMP spin-waits make tiny convolutions ~100x slower."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def pipe(_one_thread: None) -> object:
    return tiny_pipeline(0)


def _backend(pipe: object, **kw: object) -> DiffusersImageBackend:
    return DiffusersImageBackend(pipeline=pipe, steps=2, **kw)  # type: ignore[arg-type]


def _px(img: object) -> np.ndarray:
    return np.asarray(img, dtype=np.int16)


def test_words_from_hex() -> None:
    assert color_name("#d0312d") == "red" and color_name("#2b3a67") == "navy"
    assert skin_tone_name("#f1c8a8") == "fair" and skin_tone_name("#8d5524") == "brown"
    assert skin_tone_name("#ffffff") == "very fair" and skin_tone_name("#000000") == "deep brown"


def test_appearance_prompt_words() -> None:
    a = appearance_prompt(ANA, "red_tee")
    assert a.startswith("a person with an oval face, fair skin, long brown hair, green eyes")
    for word in ("short, slim build", "wearing earrings", "'red tee'", "plain red t-shirt", "navy trousers"):
        assert word in a, word
    assert "'striped work shirt': a striped blue button-up shirt" in appearance_prompt(ANA, "striped")
    b = appearance_prompt(BEN, "blue_jacket")
    for word in ("brown skin", "short black hair", "a beard", "tall, broad build", "wearing glasses",
                 "'blue jacket': a plain blue jacket and beige trousers"):
        assert word in b, word
    c = appearance_prompt(CLEO, "yellow_dress")
    for word in ("golden blonde hair in a bun", "blue eyes", "wearing a hat and a scarf",
                 "'sunday dress': a polka-dot yellow dress"):
        assert word in c, word
    assert "trousers" not in c
    assert appearance_prompt(ANA, "red_tee") == a  # deterministic
    with pytest.raises(KeyError):
        appearance_prompt(ANA, "no_such_outfit")


def test_scene_prompt_order_and_sign() -> None:
    p = scene_prompt(SCENE)
    assert p.startswith("wide shot photo of Rosa's Cafe, a venue indoors; warm evening light; rainy weather")
    assert 'a sign that reads "OPEN 24H"' in p and "2 people, from left to right" in p
    ben, ana = p.index("first: " + appearance_prompt(BEN, "blue_jacket")), p.index("second: a person")
    assert ben < ana and "striped work shirt" in p[ana:]
    assert 'name badge reading "ANA"' in p[ana:]
    assert 'a white mug labelled "BEST DAD" held by the first person' in p
    assert "2 other people in the background" in p
    close = scene_prompt(replace(SCENE, composition="close", focus_index=1))
    assert close.startswith("close-up shot") and "one person" in close
    assert "beard" not in close and "striped work shirt" in close


@pytest.mark.integration  # loads a (tiny, seeded) diffusers pipeline: torch and diffusers
def test_portrait_size_mode_and_determinism(pipe: object) -> None:
    be = _backend(pipe)
    assert isinstance(be, ImageBackend)
    img = be.portrait(ANA, 48)
    assert img.size == (48, 48) and img.mode == "RGB"
    assert be.portrait(CLEO, 40).size == (40, 40)
    again = _backend(pipe).portrait(ANA, 48)  # fresh backend: no cache, same person and seed
    assert np.array_equal(_px(img), _px(again))
    rebuilt = _backend(tiny_pipeline(0)).portrait(ANA, 48)  # weights are seeded too
    assert np.array_equal(_px(img), _px(rebuilt))
    other = be.portrait(BEN, 48)
    assert float(np.abs(_px(img) - _px(other)).mean()) > 8.0
    reseeded = _backend(pipe, seed=1).portrait(ANA, 48)
    assert float(np.abs(_px(img) - _px(reseeded)).mean()) > 8.0
    assert person_seed(ANA) == person_seed(ANA.model_copy()) != person_seed(BEN)


@pytest.mark.integration  # loads a (tiny, seeded) diffusers pipeline: torch and diffusers
def test_scene_size_and_determinism(pipe: object) -> None:
    be = _backend(pipe)
    img = be.scene(SCENE)
    assert img.size == (96, 54) and img.mode == "RGB"
    assert be._gen_size(96, 54) == (40, 24)  # native 32x32 area, 16:9, multiples of 8
    assert np.array_equal(_px(img), _px(_backend(pipe).scene(SCENE)))
    moved = be.scene(replace(SCENE, seed=8))
    assert float(np.abs(_px(img) - _px(moved)).mean()) > 8.0


@pytest.mark.integration  # loads a (tiny, seeded) diffusers pipeline: torch and diffusers
def test_loads_a_local_folder(pipe: object, tmp_path: Path) -> None:
    pipe.save_pretrained(tmp_path / "tiny-sd")  # type: ignore[attr-defined]
    loaded = DiffusersImageBackend(tmp_path / "tiny-sd", steps=2)
    assert np.array_equal(_px(loaded.portrait(BEN, 32)), _px(_backend(pipe).portrait(BEN, 32)))


def test_missing_model_errors(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(FileNotFoundError, match=str(missing)):
        DiffusersImageBackend(missing)
    with pytest.raises(FileNotFoundError, match="no-such-model"):
        DiffusersImageBackend(str(missing))


@pytest.mark.integration  # imports torch and diffusers to look the id up in the local cache
def test_a_hub_id_not_in_the_cache_says_how_to_allow_the_network() -> None:
    offline = DiffusersImageBackend("mnemoforge-tests/no-such-model")
    with pytest.raises(OSError, match="allow_network=True"):
        offline.portrait(ANA, 32)


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diffusion, "ML_MODULES", ("torch", "mnemoforge_no_such_module"))
    with pytest.raises(ImportError, match=r"mnemoforge_no_such_module: pip install 'mnemoforge\[ml\]'"):
        DiffusersImageBackend("anything")
