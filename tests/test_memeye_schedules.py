"""Declared memeye state variables (``scenarios.*.changes``): each schedule shapes the states the
pictures show, every declared variable gets X/Y-labelled items with its stale state among the
options, and the release statistics report each variable and schedule."""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import load_theme

from .conftest import TEST_THEMES


def _states(world: World) -> dict[tuple[str, str], list[tuple[dt.datetime, str]]]:
    out: dict[tuple[str, str], list[tuple[dt.datetime, str]]] = defaultdict(list)
    for f in world.facts:
        if f.kind == "state" and f.at is not None:
            out[(f.subject, f.object)].append((f.at, f.value or ""))
    return {k: sorted(v) for k, v in out.items()}


def test_schedules_shape_the_states(bakery_release) -> None:  # type: ignore[no-untyped-def]
    theme = load_theme(TEST_THEMES / "bakery_log.yaml")
    assert theme.memeye is not None
    world = World.model_validate_json((bakery_release.release_dir / "data/world.json").read_text())
    st = _states(world)
    counter, proving = theme.memeye.scenarios[0], theme.memeye.scenarios[1]
    counts = [int(v) for _, v in st[("counter_log_sc1", "count")]]  # restock: drops, then restocked
    assert len(counts) >= 4
    assert any(b < a for a, b in zip(counts, counts[1:], strict=False))
    assert any(b > a for a, b in zip(counts, counts[1:], strict=False))
    gist = st[("counter_log_sc1", "gist")]  # every 40 days
    assert len(gist) >= 2
    assert all((b[0] - a[0]).days >= 40 for a, b in zip(gist, gist[1:], strict=False))
    after = next(c.after for c in proving.changes if c.key == "colour")
    colour = st[("proving_log_sc1", "colour")]  # once, at the first photo after the date
    assert len(colour) == 2 and colour[1][0].date() > after and colour[0][0].date() <= after
    marks = st[("proving_log_sc2", "mark")]  # at the first photo on/after each date
    assert len(marks) == 3 and ("proving_log_sc1", "mark") not in st
    assert counter.changes[0].scenes == [0] and ("counter_log_sc2", "count") not in st


def test_every_declared_variable_gets_items_with_the_stale_state(bakery_release) -> None:  # type: ignore[no-untyped-def]
    release = bakery_release.release_dir
    qs = read_jsonl(release / "data/memeye/questions.jsonl")
    world = World.model_validate_json((release / "data/world.json").read_text())
    stats = json.loads((release / "dataset_statistics.json").read_text())["memeye"]["scenarios"]
    for sid in ("counter_log", "proving_log", "yard_log"):
        for var in stats[sid]["state_variables"]:
            assert var["changes"] >= 1 and var["items"] >= 1, (sid, var)
            y3 = [q for q in qs if q["labels"]["scenario"] == sid and q["labels"]["key"] == var["key"]]
            assert all(q["labels"]["x"] == var["x"] for q in y3)
            for q in (q for q in y3 if q["labels"]["y"] == "Y3"):
                read = sorted((world.fact(f) for f in q["facts_read"]), key=lambda f: str(f.at))
                stale = [f.value for f in read if f.kind == "state" and f.value != q["answer"]]
                assert stale and stale[-1] in q["options"], q
    assert {v["schedule"].split()[0] for s in stats.values() for v in s.get("state_variables", [])} == {
        "restock",
        "every",
        "after",
        "dates",
    }


def test_declared_drawables_are_drawn_and_asked(bakery_release) -> None:  # type: ignore[no-untyped-def]
    """The whiteboard list is the proving scenes' gist (its lines written on the board), the yard
    dog's collar carries the colour and flour sacks are the countables, and questions say so."""
    from PIL import Image

    from mnemoforge.backends.image.colors import rgb
    from mnemoforge.generators.memeye.vocab import colour_hex

    theme = load_theme(TEST_THEMES / "bakery_log.yaml")
    assert theme.memeye is not None
    release, run = bakery_release.release_dir, bakery_release.run_dir
    board = theme.memeye.scenarios[1].draws.board
    assert board is not None
    lists = {", ".join(x) for x in board.lists}
    world = World.model_validate_json((release / "data/world.json").read_text())
    gists = {f.value for f in world.facts if f.object == "gist" and f.subject.startswith("proving_log")}
    assert gists and gists <= lists
    qs = read_jsonl(release / "data/memeye/questions.jsonl")
    asked = [q for q in qs if q["labels"]["scenario"] == "proving_log" and q["labels"]["key"] == "gist"]
    assert asked and all("proving whiteboard" in q["question"] for q in asked)
    assert all(set(q["options"]) <= lists for q in asked)
    yard = [q for q in qs if q["labels"]["scenario"] == "yard_log"]
    assert any("the yard dog's collar" in q["question"] for q in yard)
    layouts = {r["observation"]: r for r in read_jsonl(run / "episodes/memeye_layouts.jsonl")}
    for o in read_jsonl(release / "data/memeye/observations.jsonl"):
        if o["source"] != "yard_log" or not o["media"]:
            continue
        lay = layouts[o["id"]]["layout"] if "layout" in layouts[o["id"]] else layouts[o["id"]]
        img = Image.open(release / o["media"][0]).convert("RGB")
        assert lay["count_ink"] == [0xD8, 0xC8, 0xA0]  # the declared sack colour is what is counted
        for b in lay["countables"]:
            assert tuple(lay["count_ink"]) in {c for _, c in img.crop(tuple(b)).getcolors(1 << 16)}
        colour = next(
            world.fact(e["fact"]).value for e in o["expresses"] if world.fact(e["fact"]).object == "colour"
        )
        assert img.getpixel(tuple(lay["colour_point"])) == rgb(colour_hex(colour or ""))  # the collar
