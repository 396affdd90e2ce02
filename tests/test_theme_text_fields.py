"""Text fields the build draws or fills are checked as the build uses them (issue 33, found by
benchmarks/faults.py's control_chars class): a place's sign is one drawn line (a newline drew a
taller sign that the frame cut, and the build ended in a render-audit traceback); an smm preference
line is a template with the slots {name} and {value} (a '{' without '}' failed only in the build's
dry run, as a 'build:' line naming no field); an activity's list of lines is named as written."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mnemoforge import yaml_io
from mnemoforge.theme_checks import check_theme
from mnemoforge.theme_io import ThemeError
from mnemoforge.theme_starter import starter_theme


def _one_error(tmp_path: Path, data: dict) -> tuple[str, str]:
    path = tmp_path / "theme.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ThemeError) as e:
        check_theme(path)
    assert len(e.value.problems) == 1, e.value.problems
    assert str(path) in str(e.value)
    return e.value.problems[0]


@pytest.mark.parametrize("sign", ["R\x00\x1b[2J\nIVER WALK", "RIVER\nWALK", "RIVER\tWALK"])
def test_a_sign_with_control_characters_is_one_error(tmp_path: Path, sign: str) -> None:
    data = yaml_io.safe_load(starter_theme("tiny"))
    data["places"][0]["sign"] = sign
    field, msg = _one_error(tmp_path, data)
    assert field == "places.0.sign" and "one line" in msg, (field, msg)


@pytest.mark.parametrize(
    ("bank", "line", "said"),
    [
        ("reports", "{\x00\x1b[2J\nname} went for the {value}.", "expected '}' before end of string"),
        ("phrases", "I'll take {value this time.", "expected '}' before end of string"),
        ("reports", "{who} went for the {value}.", "unknown slot {who}"),
        ("phrases", "{value:plural} for me.", "unknown slot {value:plural}"),
    ],
)
def test_a_preference_line_that_cannot_be_filled_names_its_field(
    tmp_path: Path, bank: str, line: str, said: str
) -> None:
    data = yaml_io.safe_load(starter_theme("tiny", "smm"))
    data["smm"]["preferences"][0][bank] = [line]
    field, msg = _one_error(tmp_path, data)
    assert field == f"smm.preferences.0.{bank}.0" and said in msg, (field, msg)


def test_filled_forms_of_the_english_layer_are_accepted(tmp_path: Path) -> None:
    data = yaml_io.safe_load(starter_theme("tiny", "smm"))
    data["smm"]["preferences"][0]["reports"] = ["{name} went for {value:a}."]
    path = tmp_path / "theme.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    check_theme(path)


@pytest.mark.parametrize(
    ("line", "said"),
    [("{\x00\x1b[2J\nother}, pass the lemonade!", "malformed template"), ("Hi {nobody}!", "not allowed")],
)
def test_an_activity_line_list_is_named_as_written(tmp_path: Path, line: str, said: str) -> None:
    """A plain list of lines is checked as the activity's small talk, but named `lines.N` (before:
    `small_talk.N`, a field the file does not have)."""
    data = yaml_io.safe_load(starter_theme("tiny"))
    data["activities"][0]["lines"] = [line]
    field, msg = _one_error(tmp_path, data)
    assert field == "activities.0.lines.0" and said in msg, (field, msg)
