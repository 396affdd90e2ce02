"""The render stage with a model-backed image backend (tiny diffusers pipeline, offline)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from mnemoforge.backends.registry import SpeechBackends, image_backend
from mnemoforge.backends.speech import EspeakBackend
from mnemoforge.schemas.theme import RenderSpec

from .conftest import small_theme_data


def test_registry_defaults_are_offline() -> None:
    from mnemoforge.backends.image.procedural import ProceduralImageBackend

    assert isinstance(image_backend(RenderSpec()), ProceduralImageBackend)
    speech = SpeechBackends()
    assert isinstance(speech["espeak"], EspeakBackend) and speech["espeak"] is speech["espeak"]
    with pytest.raises(ImportError, match="coqui"):
        speech["coqui"]


# on test_image_diffusers' worker: torch, diffusers and transformers are imported once per run
# (about 5 CPU-s), not once on each worker
@pytest.mark.xdist_group("tests/test_image_diffusers.py")
@pytest.mark.integration  # loads a (tiny, seeded) diffusers pipeline
def test_build_renders_shots_with_a_diffusers_pipeline(tmp_path: Path) -> None:
    pytest.importorskip("diffusers", reason="needs the ml extra: pip install 'mnemoforge[ml]'")
    from mnemoforge.backends.image.diffusion_tiny import tiny_pipeline
    from mnemoforge.pipeline import build

    model = tmp_path / "tiny-sd"
    tiny_pipeline(0).save_pretrained(model)
    data = small_theme_data(clips=3)  # 320x180: the render audit's face-size floor holds there
    data["render"] = {"image": "diffusers", "image_model": str(model), "image_steps": 2}
    theme = tmp_path / "t.yaml"
    theme.write_text(yaml.safe_dump(data, sort_keys=False))
    res = build(theme, outputs=tmp_path / "out", workers=1)
    shots = sorted((res.release_dir / "media/shots").glob("*.png"))
    assert shots
    for p in shots:
        assert Image.open(p).size == (320, 180)
    anchors = sorted((res.release_dir / "media/anchors").glob("*.png"))
    assert len(anchors) == 3 and len({p.read_bytes() for p in anchors}) == 3  # three different faces
    # the pixels came from the diffusers pipeline, not the procedural renderer: the same theme
    # rendered procedurally gives other pictures for every shot and face
    data["render"] = {"image": "procedural"}
    theme.write_text(yaml.safe_dump(data, sort_keys=False))
    proc = build(theme, outputs=tmp_path / "proc", workers=1)
    for p in [*shots, *anchors]:
        q = proc.release_dir / p.relative_to(res.release_dir)
        a = np.asarray(Image.open(p).convert("RGB"), dtype=np.float64)
        b = np.asarray(Image.open(q).convert("RGB").resize(Image.open(p).size), dtype=np.float64)
        assert np.abs(a - b).mean() > 10.0, p.name


def test_voice_check_samples_evenly_over_speakers() -> None:
    import random
    from collections import Counter

    from mnemoforge.generators.icm.render import stratified_sample

    lines = {
        "a": [Path(f"a{i}") for i in range(10)],
        "b": [Path(f"b{i}") for i in range(500)],
        "c": [Path(f"c{i}") for i in range(300)],
    }
    picked = stratified_sample(lines, 600, random.Random(1))
    assert Counter(p for p, _ in picked) == {"a": 10, "b": 295, "c": 295}
    assert len(set(picked)) == 600 and picked == stratified_sample(lines, 600, random.Random(1))
    assert len(stratified_sample(lines, 10_000, random.Random(1))) == 810  # small albums: every line
