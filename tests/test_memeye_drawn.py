"""The memeye render audit per item (issue 30, ``generators/memeye/drawn.py``): each fact an item
reads is drawn in its evidence picture with the value read, at a legible size; a built release
keeps only items the audit passed."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemoforge.backends.image.visual_scene import SceneState, render_scene, save_png
from mnemoforge.generators.memeye.drawn import drawn_problem
from mnemoforge.generators.memeye.vocab import colour_hex

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


def _chart(value: str, rng: tuple[int, int] = (1, 5), width: int = 384) -> tuple[dict, object]:
    scene = SceneState(
        kind="room", gist="", left="", right="", mark=-1, colour="", count=0, label=value, seed=5,
        width=width, height=width * 3 // 4, label_drawable="chart", label_range=rng,
    )  # fmt: skip
    img, layout = render_scene(scene)
    return layout, img


@pytest.mark.parametrize("rng", [(1, 5), (0, 11), (10, 15)])
def test_a_chart_draws_its_last_bar_at_the_declared_value(tmp_path: Path, rng: tuple[int, int]) -> None:
    """A declared chart (``draws.label.drawable: chart``): every value of the range is drawn as the
    last bar's level and read back from the bar's height; any other value is ``wrong:label``; the
    bar is drawn in the chart ink, and the value is written above the chart at a legible size."""
    from mnemoforge.backends.image.visual_library import CHART_INK

    lo, hi = rng
    for value in range(lo, hi + 1):
        layout, img = _chart(str(value), rng)
        path = tmp_path / f"c{value}.png"
        img.save(path)  # type: ignore[attr-defined]
        assert drawn_problem("label", str(value), layout, path) == "", (value, layout["chart"])
        other = lo if value != lo else hi
        assert drawn_problem("label", str(other), layout, path) == "wrong:label"
        x0, y0, x1, y1 = layout["chart"]["bar"]
        assert img.getpixel(((x0 + x1) // 2, y1 - 1)) == CHART_INK  # type: ignore[attr-defined]
        assert layout["label"][3] - layout["label"][1] >= 12
    # the earlier bars are the same in every picture of the scene: only the last one moves
    (a, ia), (_, ib) = _chart(str(lo), rng), _chart(str(hi), rng)
    import numpy as np

    diff = np.argwhere(np.abs(np.asarray(ia, dtype=int) - np.asarray(ib, dtype=int)).sum(axis=2) > 0)
    in_axis = diff[diff[:, 0] >= a["chart"]["axis"][1]]  # below the written value
    assert len(in_axis) and in_axis[:, 1].min() >= a["chart"]["bar"][0], "an earlier bar moved"


def test_a_chart_needs_a_numeric_type_and_a_short_range() -> None:
    from pydantic import ValidationError

    from mnemoforge.schemas.memeye import LabelDraw

    assert LabelDraw(drawable="chart", type="level", noun="the risk bar").bounds() == (1, 5)
    assert LabelDraw(drawable="chart", type="count", range=(0, 11), noun="the sled count").bounds() == (0, 11)
    with pytest.raises(ValidationError, match="give type level or count"):
        LabelDraw(drawable="chart", noun="the risk bar")
    with pytest.raises(ValidationError, match=r"range \[0, 99\] has 100 values"):
        LabelDraw(drawable="chart", type="count", noun="the sled count")


@pytest.mark.parametrize("container", ["bin", "crate", "basket"])
def test_counted_items_stand_in_a_declared_container(tmp_path: Path, container: str) -> None:
    """``draws.count.container``: the items stand inside an open bin, crate or basket; each is
    counted (``memeye_drawn``) and lies inside the container's box; the container is drawn."""
    from mnemoforge.schemas.memeye import CountDraw

    assert CountDraw(drawable="bottle", noun="vials in the bin", container=container).container == container
    scene = SceneState(
        kind="shelf", gist="", left="", right="", mark=-1, colour="", count=6, label="", seed=2,
        width=384, height=288, count_drawable="bottle", count_colour="#3070b0", count_container=container,
    )  # fmt: skip
    img, layout = render_scene(scene)
    save_png(img, str(tmp_path / "b.png"))
    assert drawn_problem("count", "6", layout, tmp_path / "b.png") == ""
    assert drawn_problem("count", "5", layout, tmp_path / "b.png") == "wrong:count"
    assert layout["container"]["kind"] == container
    cx0, cy0, cx1, cy1 = layout["container"]["box"]
    for x0, y0, x1, y1 in layout["countables"]:
        assert cx0 <= x0 and x1 <= cx1 and cy0 <= y0 and y1 <= cy1
    bare = render_scene(SceneState(**{**scene.__dict__, "count_container": ""}))[0]
    import numpy as np

    box = np.asarray(img, dtype=int)[cy0:cy1, cx0:cx1]
    was = np.asarray(bare, dtype=int)[cy0:cy1, cx0:cx1]
    assert (np.abs(box - was).sum(axis=2) > 40).mean() > 0.3  # the container is seen
