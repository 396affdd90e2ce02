"""OCR read-back of the values memeye pictures write (issue 30, ``generators/memeye/ocr.py``):
RapidOCR reads every written drawable (a sign, a screen, a board, a tag, a board's lines, a
table-top's name cards, the card of what a person holds) back as the value drawn; a value drawn
too small is refused; in a built release every kept item's written values read back as the World's
values. Without the ``ocr`` extra the gate is left out with one warning line."""

from __future__ import annotations

import json
import logging

import pytest

from mnemoforge.backends.image.visual_scene import SceneState, render_scene
from mnemoforge.generators.memeye import ocr as memeye_ocr

BASE = dict(gist="", left="", right="", mark=-1, colour="", count=0, label="", seed=1, width=384, height=288)
PERSON = (("skin", "#f0d0b8"), ("hair", "#505050"), ("top", "#8a5a30"), ("bottom", "#2a2a30"))


def _written() -> list[tuple[str, SceneState, str]]:
    """(layout key, scene, what it writes) for each written drawable."""
    return [
        ("label", SceneState(kind="street", **{**BASE, "label": "3"}, label_drawable="sign"), "3"),
        ("label", SceneState(kind="street", **{**BASE, "label": "14:30"}, label_drawable="screen"), "14:30"),
        ("label", SceneState(kind="room", **{**BASE, "label": "27"}, label_drawable="board"), "27"),
        ("label", SceneState(kind="shelf", **{**BASE, "label": "42"}, label_drawable="tag"), "42"),
        (
            "label",
            SceneState(kind="room", **{**BASE, "label": "4"}, label_drawable="chart", label_range=(1, 5)),
            "4",
        ),
        (
            "gist",
            SceneState(kind="street", **BASE, board=("lynx trail", "rut season")),
            "lynx trail rut season",
        ),
        (
            "person",
            SceneState(
                kind="street",
                **BASE,
                person_colours=PERSON,
                person_holds=("anvil", "nail pouch", "hoof stand", "forge tongs"),
                held="nail pouch",
            ),
            "nail pouch",
        ),
    ]


@pytest.mark.parametrize("key, scene, text", _written(), ids=lambda x: x if isinstance(x, str) else "")
def test_each_written_drawable_reads_back(key: str, scene: SceneState, text: str) -> None:
    pytest.importorskip("rapidocr_onnxruntime")
    img, layout = render_scene(scene)
    box = layout["person"]["card"] if key == "person" else layout[key]
    got, score = memeye_ocr.read_text(img, box, lines=key != "label")
    assert memeye_ocr.normal(got) == memeye_ocr.normal(text) and score >= memeye_ocr.MIN_SCORE, (got, score)


def test_name_cards_read_as_their_object_among_the_declared_ones() -> None:
    """The name cards of a four-object table: at 512 px each reading names its own object among
    the four declared (at 384 px some readings are not exact: the cards are small); a blank box
    reads nothing."""
    pytest.importorskip("rapidocr_onnxruntime")
    items = ("headlamp", "compass", "snowshoes", "thermos")
    reads = {}
    for w, h in ((512, 384), (384, 288)):
        scene = SceneState(kind="room", **{**BASE, "width": w, "height": h}, table_items=items, order=items)
        img, layout = render_scene(scene)
        reads[w] = [memeye_ocr.read_text(img, r["card"], lines=True) for r in layout["table"]]
    pairs = zip(reads[512], items, strict=True)
    assert all(memeye_ocr.names(t, item, items) for (t, _), item in pairs), reads
    assert any(memeye_ocr.normal(t) != item for (t, _), item in zip(reads[384], items, strict=True)), reads
    assert memeye_ocr.read_text(img, [10, 10, 60, 40]) == ("", 0.0)


def test_a_reading_names_a_value_exactly_or_as_the_one_nearest_declared_name() -> None:
    items = ("headlamp", "compass", "snowshoes", "thermos")
    assert memeye_ocr.names("compa 5 5", "compass", items)  # letters read as digits
    assert not memeye_ocr.names("compass", "thermos", items)
    assert not memeye_ocr.names("hodarp", "headlamp", items)  # too unlike its name
    assert memeye_ocr.names("14:30", "14:30") and not memeye_ocr.names("14:38", "14:30")
    assert not memeye_ocr.names("8", "3", ("3", "8"))  # a written value must read exactly


def test_without_rapidocr_the_gate_is_left_out_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(memeye_ocr, "ocr_available", lambda: False)
    monkeypatch.setitem(memeye_ocr._NOTICE, "said", False)
    with caplog.at_level(logging.WARNING, logger="mnemoforge.memeye"):
        assert memeye_ocr.legibility_gates() == [] and memeye_ocr.legibility_gates() == []
    lines = [r.getMessage() for r in caplog.records if "OCR" in r.getMessage()]
    assert len(lines) == 1 and "mnemoforge[ocr]" in lines[0], lines


@pytest.mark.integration
def test_every_kept_item_reads_its_written_values_back(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A real build: the gate read written values back for kept items (the level on the paddock
    board, the lesson board's lines, what the farrier holds), each as the World's value."""
    pytest.importorskip("rapidocr_onnxruntime")
    from pathlib import Path

    from mnemoforge.exporters.tables import read_jsonl
    from mnemoforge.pipeline import build
    from mnemoforge.schemas.questions import Question
    from mnemoforge.schemas.world import World

    theme = Path(__file__).parent / "themes/riding_stable_memeye.yaml"
    rel = build(theme, outputs=tmp_path_factory.mktemp("ocr"), workers=1).release_dir
    world = World.model_validate_json((rel / "data/world.json").read_text())
    kept = {q["id"]: Question.model_validate(q) for q in read_jsonl(rel / "data/memeye/questions.jsonl")}
    verdicts = [json.loads(x) for x in (rel / "gates/verdicts.jsonl").read_text().splitlines() if x]
    legible = {v["item"]: v for v in verdicts if v["gate"] == "memeye_legible"}
    reading = [q for q in kept.values() if memeye_ocr.written_facts(world, q)]
    assert reading, "no kept item reads a written value"
    for q in reading:
        v = legible[q.id]
        assert v["keep"] and v["reason"].startswith("read back: "), v
        said = v["reason"].removeprefix("read back: ").split("; ")
        values = []  # (value, declared names): a board's lines read as one text, cards one by one
        for w in memeye_ocr.written_facts(world, q):
            values += [(w.value.replace(memeye_ocr.BOARD_SEP, " "), w.choices)]
            values += [(x, w.choices) for x in w.value.split(memeye_ocr.ORDER_SEP)]
        for s in said:
            assert any(memeye_ocr.names(s, v, choices) for v, choices in values), (s, values)
