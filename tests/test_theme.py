from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.theme_checks import check_theme
from mnemoforge.theme_io import DEFAULT_THEME, ThemeError, load_theme, parse_theme
from mnemoforge.theme_starter import starter_theme

from .conftest import small_theme_data


def test_default_theme_is_the_icm_life_album() -> None:
    t = load_theme(DEFAULT_THEME)
    assert len(t.cast) == 6
    assert all(p.age >= 18 for p in t.cast)
    assert (t.start, t.end) == (dt.date(2025, 5, 1), dt.date(2026, 5, 1))
    assert t.protagonist == "li_ming"
    # every person has a face anchor spec and a distinct voice
    assert len({(p.voice.voice, p.voice.variant, p.voice.pitch) for p in t.cast}) == 6
    assert len({p.appearance.signature_outfit.top_color for p in t.cast}) == 6


def _problems(data: dict) -> list[tuple[str, str]]:
    with pytest.raises(ThemeError) as e:
        parse_theme(data, Path("bad.yaml"))
    assert "bad.yaml" in str(e.value)
    return e.value.problems


def test_missing_field_is_named() -> None:
    data = small_theme_data()
    del data["cast"][1]["role"]
    assert _problems(data) == [("cast.1.role", "required field is missing")]


def test_wrong_type_is_named_with_the_value() -> None:
    data = small_theme_data()
    data["cast"][0]["age"] = "old"
    ((field, msg),) = _problems(data)
    assert field == "cast.0.age" and "'old'" in msg


def test_unknown_person_in_relation() -> None:
    data = small_theme_data()
    data["relations"][0]["b"] = "zed"
    ((field, msg),) = _problems(data)
    assert field == "relations.0.b" and "unknown person 'zed'" in msg


def test_dates_out_of_order() -> None:
    data = small_theme_data()
    data["start"], data["end"] = data["end"], data["start"]
    ((field, msg),) = _problems(data)
    assert field == "end" and "must be after start" in msg


def test_unknown_key_and_bad_colour() -> None:
    data = small_theme_data()
    data["cast"][0]["favourite"] = "x"
    data["cast"][1]["appearance"]["skin_tone"] = "pink"
    problems = dict(_problems(data))
    assert "unknown field" in problems["cast.0.favourite"]
    assert "#a1b2c3" in problems["cast.1.appearance.skin_tone"]


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "broken.yaml"
    p.write_text("name: x\ncast: [\n  - a: 1\n")
    with pytest.raises(ThemeError) as e:
        load_theme(p)
    assert e.value.problems[0][0].startswith("line ")


def test_cli_theme_check_reports_without_traceback(tmp_path: Path) -> None:
    data = small_theme_data()
    data["relations"][0]["a"] = "nobody"
    p = tmp_path / "t.yaml"
    p.write_text(yaml.safe_dump(data))
    r = CliRunner().invoke(app, ["theme", "check", str(p)])
    assert r.exit_code == 2
    assert "relations.0.a" in r.output and "Traceback" not in r.output
    ok = CliRunner().invoke(app, ["theme", "check", str(DEFAULT_THEME)])
    assert ok.exit_code == 0 and "6 people" in ok.output


def test_cli_output_is_not_wrapped_on_long_paths(tmp_path: Path) -> None:
    """A long checkout path must not make rich break the summary line (CI runs under /check/...)."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    p = deep / "life_album.yaml"
    p.write_text(DEFAULT_THEME.read_text())
    ok = CliRunner().invoke(app, ["theme", "check", str(p)])
    assert ok.exit_code == 0
    assert ok.output.count("\n") == 1 and "6 people, 8 places" in ok.output


def test_theme_new_writes_a_commented_valid_theme(tmp_path: Path) -> None:
    dest = tmp_path / "mine.yaml"
    r = CliRunner().invoke(app, ["theme", "new", "my_album", "--dest", str(dest)])
    assert r.exit_code == 0, r.output
    text = dest.read_text()
    assert text.count("#") > 20  # it is commented
    assert load_theme(dest).name == "my_album"
    with pytest.raises(ValueError):
        starter_theme("Bad Name")


@pytest.mark.parametrize("family", ["smm", "memeye"])
def test_theme_new_for_other_families_builds_from_the_shipped_example(tmp_path: Path, family: str) -> None:
    dest = tmp_path / "mine.yaml"
    r = CliRunner().invoke(app, ["theme", "new", "my_bench", "--dest", str(dest), "--family", family])
    assert r.exit_code == 0, r.output
    t = load_theme(dest)
    assert (t.name, t.family, t.title) == ("my_bench", family, "My Bench")
    assert getattr(t, family) is not None
    bad = CliRunner().invoke(
        app, ["theme", "new", "x", "--dest", str(tmp_path / "x.yaml"), "--family", "nope"]
    )
    assert bad.exit_code != 0 and "family 'nope'" in bad.output


def test_voices_the_engine_cannot_speak_are_named() -> None:
    data = small_theme_data()
    data["cast"][0]["voice"] = {"voice": "en-gb", "variant": "f9"}
    problems = dict(_problems(data))
    assert "no voice 'en-gb'" in problems["cast.0.voice.voice"]
    assert "no variant 'f9'" in problems["cast.0.voice.variant"]


def test_diffusers_needs_a_model() -> None:
    data = small_theme_data()
    data["render"] = {"image": "diffusers"}
    assert _problems(data) == [("render.image_model", "required when render.image is 'diffusers'")]


def test_family_sections_must_match_the_family(tmp_path: Path) -> None:
    """A family's section is required for that family and refused for the others."""
    data = small_theme_data()
    data["family"] = "smm"
    p = tmp_path / "t.yaml"
    p.write_text(yaml.safe_dump(data))
    with pytest.raises(ThemeError) as e:
        load_theme(p)
    assert "smm: section required" in str(e.value) and str(p) in str(e.value)
    data["family"] = "icm"
    data["memeye"] = {}
    p.write_text(yaml.safe_dump(data))
    with pytest.raises(ThemeError) as e:
        load_theme(p)
    assert "memeye: section only allowed with family memeye" in str(e.value)
    del data["memeye"]
    data["activities"] = []
    p.write_text(yaml.safe_dump(data))
    load_theme(p)  # the schema names no family; the icm family's own check refuses it
    with pytest.raises(ThemeError) as e:
        check_theme(p)
    assert "activities: at least one activity is required for family icm" in str(e.value)


def test_unknown_family_plugin_is_named() -> None:
    from mnemoforge.generators.families import get_family

    assert get_family("icm").name == "icm"
    with pytest.raises(KeyError, match="unknown family 'nope'"):
        get_family("nope")
