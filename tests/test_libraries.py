"""Library-backed helpers: articles (inflect), Porter2 stems, one colour namer, locale-free dates,
the Arrow-fed one-transaction catalog, probing without moviepy, spawned smm render workers."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import yaml

from mnemoforge.backends.image import colors
from mnemoforge.backends.image.diffusion import appearance_prompt
from mnemoforge.backends.video.probe import ffmpeg_exe, probe
from mnemoforge.dates import month_abbr, month_name, parse_month_day, weekday_name
from mnemoforge.english.words import fix_articles, with_article
from mnemoforge.generators.icm.album import plan_album
from mnemoforge.generators.icm.captions import person_description
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.generators.tool_calls import normalise_value
from mnemoforge.store.catalog import TABLES, Catalog
from mnemoforge.theme_io import load_theme
from mnemoforge.validators.answerers.lexical import rank_items
from mnemoforge.validators.answerers.protocol import ContextItem
from mnemoforge.validators.answerers.textnorm import proper_nouns, stem, tokens

from .conftest import ROOT, small_theme_data

# ------------------------------------------------------------------------------- articles


@pytest.mark.parametrize(
    "phrase, expected",
    [
        ("user researcher", "a user researcher"),
        ("university lecturer", "a university lecturer"),
        ("HR manager", "an HR manager"),
        ("hour", "an hour"),
        ("oval", "an oval"),
        ("umbrella", "an umbrella"),
    ],
)
def test_with_article_follows_pronunciation(phrase: str, expected: str) -> None:
    assert with_article(phrase) == expected


def test_fix_articles_rechooses_each_article_but_leaves_letters_alone() -> None:
    text = "I'd like a oat latte. An user said plan A is an hour away. A HR call."
    assert fix_articles(text) == "I'd like an oat latte. A user said plan A is an hour away. An HR call."


def test_album_calibration_and_captions_use_the_right_article(tmp_path: Path) -> None:
    data = small_theme_data()
    data["cast"][0]["role"] = "user researcher"
    data["cast"][1]["role"] = "HR manager"
    data["cast"][1]["appearance"]["signature_outfit"]["label"] = "umbrella-print dress"
    path = tmp_path / "roles.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    theme = load_theme(path)
    world = plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, _ = plan_album(theme, world)
    lines = [line.text for shot in clips[0].shots for line in shot.dialogue]
    assert any("I'm a user researcher," in t for t in lines), lines
    assert any("I'm an HR manager," in t for t in lines), lines
    p = world.person(data["cast"][1]["id"])
    assert "in an umbrella-print dress" in person_description(p, p.appearance.signature_outfit.id)


# -------------------------------------------------------------------------------- stemmer


def test_porter2_stems_inflections_together() -> None:
    assert stem("hikes") == stem("hiking") == stem("hiked") == stem("hike")
    assert stem("cities") == stem("city") and stem("running") == "run"


def test_names_stay_intact_and_apart_from_common_words() -> None:
    texts = ["Yesterday James brought jam for Charles.", "Did James bring the jam?"]
    names = proper_nouns(texts)
    assert {"james", "charles"} <= names and "jam" not in names
    toks = tokens(texts[0], names=names)
    assert "james" in toks and "charles" in toks and "jam" in toks
    assert stem("james") != stem("jam")  # even unprotected, Porter2 no longer merges them


def test_lexical_ranking_matches_a_name_at_sentence_start_and_mid_sentence() -> None:
    items = [
        ContextItem("o1", "James said the jam was sweet."),
        ContextItem("o2", "We sat with the jam jar on the table."),
    ]
    assert rank_items("What did James say about the jam?", items)[0] == 0


# ---------------------------------------------------------------------------------- colour


def test_one_colour_namer_for_prompts_and_captions(tmp_path: Path) -> None:
    theme = load_theme(ROOT / "assets" / "themes" / "life_album.yaml")
    world = plan_world(theme, theme.seed, 3)
    for person in world.people:
        a = person.appearance
        if a.hair_style == "bald":
            continue
        word = colors.hair_colour_name(a.hair_color)
        assert f"{word} hair" in person_description(person, None)
        assert word in appearance_prompt(a, a.signature_outfit.id)
    assert colors.rgb("#abc") == (170, 187, 204) == colors.rgb("#aabbcc")
    assert colors.rgb("navy") == (0, 0, 128) and colors.colour_name("#2b3a67") == "navy"
    assert colors.hair_colour_name("#e3c16f") == "blonde"
    # measured in CIE Lab: a mid grey is grey (RGB "redmean" distance called it light brown)
    assert colors.hair_colour_name("#7a7a7a") == "grey" and colors.colour_name("#7a7a7a") == "grey"


# ----------------------------------------------------------------------------------- dates


def test_day_and_month_names_do_not_come_from_the_locale() -> None:
    d = dt.date(2025, 3, 3)
    assert (weekday_name(d), month_name(d), month_abbr(d)) == ("Monday", "March", "Mar")
    assert parse_month_day("3 Mar 2025") == parse_month_day("March 3, 2025") == d
    assert normalise_value("3 March 2025") == normalise_value("2025-03-03")
    src = "\n".join(p.read_text() for p in (ROOT / "mnemoforge").rglob("*.py") if p.name != "dates.py")
    # no strftime/format spec with a locale-dependent name directive anywhere in the code
    assert not re.search(r"strftime\([^)]*%[aAbBp]", src)
    assert not re.search(r"\{[\w.]+:[^}]*%[aAbBp]", src)


# --------------------------------------------------------------------------------- catalog


def _rows(n: int) -> list[dict]:
    return [
        {"path": f"media/{i}.png", "kind": "still", "bytes": i, "sha256": f"{i:064x}", "duration_s": None}
        for i in range(n)
    ]


def test_catalog_indexes_a_run_in_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "c.duckdb"
    with Catalog(path) as cat:
        cat.index_run("r1", "t", 1, "0.1.0", "sha", tmp_path)
        cat.index_media("r1", _rows(500))
        cat.index_release("r1", "t", "0.1.0", tmp_path, "m")
    with pytest.raises(RuntimeError), Catalog(path) as cat:  # a failure inside rolls back everything
        cat.index_media("r1", _rows(3))
        cat.index_run("r1", "t", 2, "0.1.0", "sha", tmp_path)
        raise RuntimeError("indexing failed midway")
    with Catalog(path, read_only=True) as cat:
        assert cat.counts("r1") == {t: {"runs": 1, "media": 500, "releases": 1}.get(t, 0) for t in TABLES}
        assert cat.query("SELECT seed FROM runs") == [(1,)]
        assert cat.query("SELECT count(*) FROM media WHERE duration_s IS NULL") == [(500,)]
        with pytest.raises(duckdb.Error):
            cat.query("DELETE FROM media")


def test_catalog_command_is_read_only(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    with Catalog(tmp_path / "catalog.duckdb") as cat:
        cat.index_media("r1", _rows(2))
    r = CliRunner().invoke(app, ["catalog", "SELECT count(*) AS n FROM media", "--outputs", str(tmp_path)])
    assert r.exit_code == 0 and "2" in r.output
    bad = CliRunner().invoke(app, ["catalog", "DELETE FROM media", "--outputs", str(tmp_path)])
    assert bad.exit_code == 2 and "read-only" in bad.output and "Traceback" not in bad.output
    with Catalog(tmp_path / "catalog.duckdb", read_only=True) as cat:
        assert cat.query("SELECT count(*) FROM media") == [(2,)]


# ------------------------------------------------------------------------------------ probe


def test_probe_reads_headers_without_moviepy(tmp_path: Path) -> None:
    ff = ffmpeg_exe()
    av, wav = tmp_path / "av.mp4", tmp_path / "a.wav"
    gen = ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=12"]
    tone = ["-f", "lavfi", "-i", "sine=frequency=440"]
    subprocess.run(
        [ff, "-y", "-loglevel", "error", *gen, *tone, "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p"]
        + ["-c:a", "aac", "-shortest", str(av)],
        check=True,
    )
    subprocess.run([ff, "-y", "-loglevel", "error", *tone, "-t", "1.25", str(wav)], check=True)
    info = probe(av)
    assert (info.has_video, info.has_audio, info.width, info.height, info.fps) == (True, True, 64, 48, 12.0)
    assert info.duration_s == pytest.approx(2.0, abs=0.1)
    a = probe(wav)
    assert (a.has_video, a.has_audio, a.duration_s) == (False, True, pytest.approx(1.25, abs=0.01))
    (tmp_path / "bad.mp4").write_bytes(b"not media")
    with pytest.raises(OSError):
        probe(tmp_path / "bad.mp4")
    code = (
        "import sys, mnemoforge.backends.video, mnemoforge.generators.icm.render; "
        "print('moviepy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------------- workers


@pytest.mark.integration  # spawns a process pool of render workers
def test_smm_render_pool_spawns_and_renders_the_same_bytes(smm_release, tmp_path: Path, monkeypatch) -> None:
    from concurrent.futures import ProcessPoolExecutor

    from mnemoforge.generators.smm import render
    from mnemoforge.pipeline import load_world
    from mnemoforge.store.layout import RunLayout

    methods: list[str] = []

    class Recording(ProcessPoolExecutor):
        def __init__(self, *args, mp_context=None, **kwargs) -> None:  # type: ignore[no-untyped-def]
            methods.append(mp_context.get_start_method() if mp_context else "default")
            super().__init__(*args, mp_context=mp_context, **kwargs)

    monkeypatch.setattr(render, "ProcessPoolExecutor", Recording)
    run_dir = tmp_path / smm_release.run_dir.name
    shutil.copytree(smm_release.run_dir, run_dir)
    run = RunLayout(run_dir)
    before = run.media_index.read_bytes()
    run.media_index.unlink()
    theme = load_theme(run_dir / "theme.yaml")
    render.render_run(theme, load_world(run), run, workers=2)
    assert methods == ["spawn"]
    assert run.media_index.read_bytes() == before
