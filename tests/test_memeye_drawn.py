"""The memeye render audit per item (issue 30, ``validators/memeye_drawn.py``): each fact an item
reads is drawn in its evidence picture with the value read, at a legible size; a built release
keeps only items the audit passed."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemoforge.backends.image.visual_scene import SceneState, render_scene, save_png
from mnemoforge.generators.memeye.vocab import colour_hex
from mnemoforge.validators.memeye_drawn import drawn_problem

PERSON = (("skin", "#f0d0b8"), ("hair", "#505050"), ("top", "#8a5a30"), ("bottom", "#2a2a30"))


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    """A street picture with a dog in ochre, three tins, a sign reading 3 and the warden holding a
    trail axe."""
    scene = SceneState(
        kind="street", gist="", left="", right="", mark=-1, colour=colour_hex("ochre"), count=3,
        label="3", seed=3, width=384, height=288, colour_drawable="dog", count_drawable="tin",
        count_colour="#3070b0", label_drawable="sign", person_colours=PERSON,
        person_holds=("spotting scope", "trail axe", "first aid kit", "rain cape"), held="trail axe",
        animal=("medium", "#a06a30", "spots"),
    )  # fmt: skip
    img, layout = render_scene(scene)
    path = tmp_path_factory.mktemp("drawn") / "p.png"
    save_png(img, str(path))
    return layout, path


@pytest.mark.parametrize(
    "key, value, problem",
    [
        ("colour", "ochre", ""),
        ("colour", "teal", "wrong:colour"),
        ("count", "3", ""),
        ("count", "4", "wrong:count"),
        ("presence", "trail axe", ""),
        ("presence", "rain cape", "wrong:presence"),
        ("label", "3", ""),
        ("order", "a > b > c > d", "undrawn:order"),
        ("mark", "second", "undrawn:mark"),
    ],
)
def test_a_fact_is_drawn_as_read(drawn: tuple[dict, Path], key: str, value: str, problem: str) -> None:
    layout, path = drawn
    assert drawn_problem(key, value, layout, path) == problem


def test_a_label_written_below_the_legible_size_is_refused(drawn: tuple[dict, Path]) -> None:
    layout, path = drawn
    x0, y0, x1, _ = layout["label"]
    assert drawn_problem("label", "3", {**layout, "label": [x0, y0, x1, y0 + 8]}, path) == "small:label"


@pytest.mark.integration
def test_every_kept_item_passed_the_render_audit(tmp_path_factory: pytest.TempPathFactory) -> None:
    import json

    from mnemoforge.pipeline import build

    theme = Path(__file__).parent / "themes/sumava_ranger_memeye.yaml"
    rel = build(theme, outputs=tmp_path_factory.mktemp("drawn_build"), workers=1).release_dir
    kept = {json.loads(x)["id"] for x in (rel / "data/memeye/questions.jsonl").read_text().splitlines() if x}
    verdicts = [json.loads(x) for x in (rel / "gates/verdicts.jsonl").read_text().splitlines() if x]
    audit = {v["item"]: v for v in verdicts if v["gate"] == "memeye_drawn"}
    assert kept and kept <= set(audit)
    for item in kept:
        assert audit[item]["keep"] and audit[item]["reason"].endswith("drawn as read"), audit[item]
        assert int(audit[item]["reason"].split()[0]) >= 1, audit[item]
    # the report's contact sheet shows every drawn part of each scenario across time
    from mnemoforge.exporters.report import write_report
    from mnemoforge.exporters.report_memeye_objects import layouts, part_boxes

    site = write_report(rel, tmp_path_factory.mktemp("drawn_report") / "site").parent
    assert 'id="fig-object_sheet"' in (site / "index.html").read_text(encoding="utf-8")
    parts = {p for lay in layouts(_Src(rel)).values() for p in part_boxes(lay)}
    assert parts == {"colour", "label", "count", "table", "person"}, parts


class _Src:
    def __init__(self, root: Path) -> None:
        self.root = root


def test_the_docs_show_every_drawable_part_as_the_library_draws_it(tmp_path: Path) -> None:
    """docs/img/memeye/ holds one small picture per part, identical to what the gallery draws now,
    and the memeye page shows each."""
    from mnemoforge.backends.image.visual_gallery import write_gallery

    docs = Path(__file__).resolve().parent.parent / "docs"
    page = (docs / "families/memeye.md").read_text(encoding="utf-8")
    for path in write_gallery(tmp_path):
        shipped = docs / "img/memeye" / path.name
        assert shipped.read_bytes() == path.read_bytes(), f"redraw {shipped} (visual_gallery)"
        assert shipped.stat().st_size < 50_000 and f"img/memeye/{path.name}" in page, path.name


def test_an_aircraft_carries_the_colour_on_its_fuselage(tmp_path: Path) -> None:
    from mnemoforge.schemas.memeye import ColourDraw

    assert ColourDraw(drawable="aircraft", noun="the patrol plane").drawable == "aircraft"
    scene = SceneState(
        kind="street", gist="", left="", right="", mark=-1, colour=colour_hex("teal"), count=0, label="",
        seed=1, width=384, height=288, colour_drawable="aircraft",
    )  # fmt: skip
    img, layout = render_scene(scene)
    save_png(img, str(tmp_path / "a.png"))
    assert drawn_problem("colour", "teal", layout, tmp_path / "a.png") == ""
    assert drawn_problem("colour", "ochre", layout, tmp_path / "a.png") == "wrong:colour"
