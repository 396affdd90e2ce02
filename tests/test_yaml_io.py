"""yaml_io reads with libyaml's parser (PyYAML's wheels ship it) and gives exactly the data the
pure-Python safe loader gives, for every YAML file the project ships; the theme loader built on it
still rejects duplicate keys and keeps dates as text."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mnemoforge import yaml_io
from mnemoforge.theme_io import ThemeError, ThemeLoader, load_theme

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(
    p for d in ("assets", "tests/themes", "deploy") if (ROOT / d).is_dir() for p in (ROOT / d).rglob("*.y*ml")
)


def test_the_fast_parser_is_in_use() -> None:
    assert yaml.__with_libyaml__ and yaml_io.SafeLoader is yaml.CSafeLoader
    assert issubclass(ThemeLoader, yaml.CSafeLoader)


def test_same_data_as_the_pure_python_loader_for_every_shipped_file() -> None:
    assert len(SHIPPED) >= 10
    for path in SHIPPED:
        text = path.read_text(encoding="utf-8")
        assert yaml_io.safe_load(text) == yaml.load(text, Loader=yaml.SafeLoader), path  # noqa: S506


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("name: a\nname: b\n", "duplicate key 'name' (first at line 1)"),
        ("name: [a\n", "not valid YAML"),
    ],
)
def test_theme_loader_errors_name_the_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    with pytest.raises(ThemeError) as err:
        load_theme(path)
    assert str(path) in str(err.value) and problem in str(err.value) and "line 2" in str(err.value)


def test_dates_stay_text() -> None:
    assert yaml.load("start: 2025-02-30\n", Loader=ThemeLoader) == {"start": "2025-02-30"}  # noqa: S506
