"""The memeye drawables beyond board/colour/count (a vehicle, a sign, a table-top arrangement, a
cast person holding an object) and the ``order`` and ``presence`` state variables they carry.

Unit tests read the drawn state back from the pixels; the build test uses
``tests/themes/quay_watch.yaml`` (no pack, a vocabulary of its own) and checks schedules,
X/Y labels, stale states among the options and the pictures against the World's facts."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

import pytest
from PIL import Image

from mnemoforge import yaml_io
from mnemoforge.backends.image.colors import rgb
from mnemoforge.backends.image.visual_figures import INKS
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.memeye.vocab import ORDER_SEP, colour_hex, rotations
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import load_theme

from .conftest import TEST_THEMES
from .test_theme_leakage import leaks, memeye_texts
from .test_visual_drawables import _colours

ITEMS = ("shackle", "buoy", "oilskin", "lantern")  # as tests/themes/quay_watch.yaml declares them
HOLDS = ("boathook", "mooring rope", "chart tube", "fender")


def test_order_options_are_rotations() -> None:
    value = ORDER_SEP.join(ITEMS)
    rots = rotations(value)
    assert len(set(rots)) == 4 and value in rots
    for k in range(4):  # every object once at every position
        assert sorted(r.split(ORDER_SEP)[k] for r in rots) == sorted(ITEMS)


@pytest.fixture(scope="module")
def quay(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from mnemoforge.pipeline import build

    return build(TEST_THEMES / "quay_watch.yaml", outputs=tmp_path_factory.mktemp("quay"), workers=1)


def _states(world: World) -> dict[tuple[str, str], list[tuple[dt.datetime, str]]]:
    out: dict[tuple[str, str], list[tuple[dt.datetime, str]]] = defaultdict(list)
    for f in world.facts:
        if f.kind == "state" and f.at is not None:
            out[(f.subject, f.object)].append((f.at, f.value or ""))
    return {k: sorted(v) for k, v in out.items()}


def test_order_and_presence_follow_their_schedules(quay) -> None:  # type: ignore[no-untyped-def]
    world = World.model_validate_json((quay.release_dir / "data/world.json").read_text())
    st = _states(world)
    # presence: one person, so one timeline seen from both slip scenes, changing at the first photo
    # on/after each date (never a copy per scene)
    held = st[("slip_log_presence", "presence")]
    assert ("slip_log_sc1", "presence") not in st and ("slip_log_sc2", "presence") not in st
    assert len(held) == 3 and all(v in HOLDS for _, v in held)
    assert held[1][0].date() >= dt.date(2027, 7, 1) and held[2][0].date() >= dt.date(2027, 8, 10)
    assert held[0][1] != held[1][1] != held[2][1]
    order = st[("bench_log_order", "order")]  # one workbench: every 25 days at most, rotations
    assert len(order) >= 2
    assert all((b[0] - a[0]).days >= 25 for a, b in zip(order, order[1:], strict=False))
    assert all(v in rotations(order[0][1]) for _, v in order)
    # the berth signs are one per berth (`per_scene`): only the first one is renumbered
    assert ("slip_log_sc2", "label") not in st and ("slip_log_sc1", "label") in st
    assert world.entity("slip_log_colour").kind == "object"  # the quay van: one, in both scenes
    keys = {f.object for f in world.facts if f.subject.startswith("bench_log")}
    assert "gist" not in keys and "order" in keys  # the table stands where the gist would be
    assert "left" not in {f.object for f in world.facts if f.subject.startswith("slip_log")}
    for t in world.timelines:  # one value per interval everywhere
        spans = sorted(t.spans, key=lambda x: x.start)
        assert all(a.end is not None and a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))


def test_order_and_presence_items_are_labelled_with_stale_options(quay) -> None:  # type: ignore[no-untyped-def]
    release = quay.release_dir
    world = World.model_validate_json((release / "data/world.json").read_text())
    qs = read_jsonl(release / "data/memeye/questions.jsonl")
    by_key = defaultdict(list)
    for q in qs:
        by_key[q["labels"]["key"]].append(q)
    assert {q["labels"]["x"] for q in by_key["order"]} == {"X3"}
    assert {q["labels"]["x"] for q in by_key["presence"]} == {"X2"}
    for key in ("order", "presence", "colour", "label"):
        y3 = [q for q in by_key[key] if q["labels"]["y"] == "Y3"]
        assert y3, key
        for q in y3:
            read = sorted((world.fact(f) for f in q["facts_read"]), key=lambda f: str(f.at))
            stale = [f.value for f in read if f.kind == "state" and f.value != q["answer"]]
            assert stale and stale[-1] in q["options"] and len(set(q["options"])) == 4, q
    assert all("Oskar" in q["question"] for q in by_key["presence"])
    assert all("workbench" in q["question"] for q in by_key["order"])
    assert any("the quay van" in q["question"] for q in by_key["colour"])
    stats = (release / "dataset_statistics.json").read_text()
    assert '"presence"' in stats and '"order"' in stats


def test_quay_pictures_show_the_facts(quay) -> None:  # type: ignore[no-untyped-def]
    release, run = quay.release_dir, quay.run_dir
    world = World.model_validate_json((release / "data/world.json").read_text())
    layouts = {r["observation"]: r["layout"] for r in read_jsonl(run / "episodes/memeye_layouts.jsonl")}
    seen = set()
    for o in read_jsonl(release / "data/memeye/observations.jsonl"):
        if not o["media"]:
            continue
        lay, img = layouts[o["id"]], Image.open(release / o["media"][0]).convert("RGB")
        v = {world.fact(e["fact"]).object: world.fact(e["fact"]).value for e in o["expresses"]}
        if o["source"] == "bench_log":
            assert [r["item"] for r in lay["table"]] == (v["order"] or "").split(ORDER_SEP)
            for r in lay["table"]:
                assert INKS[ITEMS.index(r["item"])] in _colours(img, r["box"])
            seen.add("table")
        else:
            assert lay["person"]["item"] == v["presence"]
            assert INKS[HOLDS.index(v["presence"] or "")] in _colours(img, lay["person"]["box"])
            assert img.getpixel(tuple(lay["colour_point"])) == rgb(colour_hex(v["colour"] or ""))
            seen.add("person")
    assert seen == {"table", "person"}


def test_quay_release_leaks_nothing(quay) -> None:  # type: ignore[no-untyped-def]
    texts = memeye_texts(quay.release_dir)
    assert len(texts) > 20
    assert leaks(texts, "quay_watch.yaml") == []


def test_theme_check_refuses_variables_without_their_drawable(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import yaml

    data = yaml_io.safe_load((TEST_THEMES / "quay_watch.yaml").read_text(encoding="utf-8"))
    data["memeye"]["scenarios"][1]["changes"].append({"key": "presence", "after": "2027-07-01"})
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    want = r"memeye.scenarios.1.changes.1.key: 'presence' needs a `draws.person`"
    with pytest.raises(ValueError, match=want):
        theme = load_theme(path)
        assert theme.memeye is not None
        theme.memeye.check(theme)
