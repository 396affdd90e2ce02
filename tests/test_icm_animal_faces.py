"""Cast animals stand behind the people and never over a face (issue 30): in wide, medium and
close shots a horse, a dog and a cat beside one to three people keep their box clear of every
face box of the layout, the faces' pixels are the same as in the still drawn without the animal,
and the animal is still drawn (its coat shows)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mnemoforge.backends.image.animal_figure import AnimalPlacement
from mnemoforge.backends.image.procedural import ProceduralImageBackend
from mnemoforge.backends.image.protocol import PersonPlacement, SceneRequest
from mnemoforge.theme_io import load_theme

from .conftest import TEST_THEMES

COATS = {"horse": "#7a4a28", "dog": "#3a3a3a", "cat": "#d08a40"}


def _overlap(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _people(n: int) -> tuple[PersonPlacement, ...]:
    theme = load_theme(TEST_THEMES / "fjord_vet_icm.yaml")
    cast = theme.cast[:n]
    return tuple(PersonPlacement(p.appearance, p.appearance.signature_outfit.id) for p in cast)


@pytest.mark.parametrize("composition", ["wide", "medium", "close"])
@pytest.mark.parametrize("species", ["horse", "dog", "cat"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_no_animal_covers_a_face(composition: str, species: str, n: int) -> None:
    backend = ProceduralImageBackend()
    animals = tuple(AnimalPlacement(species, "large", COATS[species], beside=k % n) for k in range(min(2, n)))
    for seed in range(3):
        req = SceneRequest(width=320, height=180, place_name="the yard", place_kind="field", indoor=False,
                           people=_people(n), composition=composition, seed=seed, animals=animals)  # type: ignore[arg-type]  # fmt: skip
        img, layout = backend.scene_with_layout(req)
        bare, bare_layout = backend.scene_with_layout(dataclasses.replace(req, animals=()))
        assert layout.faces == bare_layout.faces  # the animals move no one
        faces = [f for f in layout.faces if f is not None]
        assert len(faces) == n
        pix, bare_pix = np.asarray(img).astype(int), np.asarray(bare).astype(int)
        for box in layout.animals:
            assert box is not None
            assert not any(_overlap(box, f) for f in faces), (composition, species, n, seed, box, faces)
        for f in faces:  # each face is drawn exactly as without the animals
            x0, y0, x1, y1 = f
            assert np.array_equal(pix[y0:y1, x0:x1], bare_pix[y0:y1, x0:x1])
        coat = np.array([int(COATS[species][k : k + 2], 16) for k in (1, 3, 5)])
        shows = (np.abs(pix - coat).sum(axis=2) < 40).sum() - (np.abs(bare_pix - coat).sum(axis=2) < 40).sum()
        assert shows > 40, (composition, species, n, seed, shows)  # the animal is still seen
