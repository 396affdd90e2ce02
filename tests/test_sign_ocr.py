"""benchmarks/sign_ocr.py reads an icm release's drawn place signs back from the shipped stills and
counts those that read as the World's sign; a sign drawn with other text is listed as misread."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import sign_ocr  # noqa: E402


def _release(tmp: Path, drawn: dict[str, str]) -> Path:
    """A release folder whose World declares the sign SELLA 2100; one shot per entry of ``drawn``
    (shot id -> the text its still's sign shows), drawn as icm draws a sign (a framed tag)."""
    from mnemoforge.backends.image.fonts import text_tag

    rel = tmp / "rescue" / "0.1.0"
    (rel / "data/icm/annotations/drawn").mkdir(parents=True)
    (rel / "media/shots").mkdir(parents=True)
    world = {"places": [{"id": "sella_hut", "name": "the Sella hut", "sign": "SELLA 2100"}, {"id": "lane"}]}
    (rel / "data/world.json").write_text(json.dumps(world), encoding="utf-8")
    shots = []
    for shot, text in drawn.items():
        img = Image.new("RGB", (320, 180), (150, 170, 190))
        box = text_tag(ImageDraw.Draw(img), 140, 20, text, 16, (252, 248, 228), (30, 30, 30), (110, 70, 40))
        img.save(rel / "media/shots" / f"{shot}.png")
        shots.append({"shot": shot, "sign": {"text": text, "box": list(box)}})
    shots.append({"shot": "c0000_s01", "sign": None})  # a shot without a sign is not counted
    (rel / "data/icm/annotations/drawn/c0000.json").write_text(json.dumps({"shots": shots}), encoding="utf-8")
    return rel


def test_signs_read_as_the_world_and_a_wrong_sign_is_listed(tmp_path: Path) -> None:
    pytest.importorskip("rapidocr_onnxruntime")
    rel = _release(tmp_path, {"c0000_s00": "SELLA 2100", "c0001_s00": "SELVA 2100"})
    got = sign_ocr.probe(rel)
    assert (got["signs_drawn"], got["read_as_world"]) == (2, 1), got
    assert [m["shot"] for m in got["misread"]] == ["c0001_s00"]
    assert sign_ocr.main([str(rel), "--json", str(tmp_path / "s.json")]) == 0
    saved = json.loads((tmp_path / "s.json").read_text())
    assert saved["releases"]["rescue@0.1.0"]["read_as_world"] == 1 and saved["machine"]["cpu_count"]


@pytest.mark.parametrize(("omp", "want"), [("1", 1), ("3", 3), ("", None), ("two", None), ("0", None)])
def test_the_ocr_engine_takes_the_environment_thread_budget(
    monkeypatch: pytest.MonkeyPatch, omp: str, want: int | None
) -> None:
    from mnemoforge.backends.image.read_back import _threads

    monkeypatch.setenv("OMP_NUM_THREADS", omp)
    got = _threads()
    assert got == ({} if want is None else {"intra_op_num_threads": want, "inter_op_num_threads": 1})
