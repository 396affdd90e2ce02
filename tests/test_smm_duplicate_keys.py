"""A profile field or preference key declared twice is one clear theme error naming the entry
(before, it reached the World's coherence check as nine 'two_states' lines; found by
benchmarks/faults.py's duplicate_entry class)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mnemoforge import yaml_io
from mnemoforge.theme_io import THEMES_DIR


@pytest.mark.parametrize("section", ["profile", "preferences"])
def test_a_duplicated_key_is_one_line_naming_it(section: str, tmp_path: Path) -> None:
    data = yaml_io.safe_load((THEMES_DIR / "office_launch.yaml").read_text(encoding="utf-8"))
    entries = data["smm"][section]
    entries.append(dict(entries[0]))
    theme = tmp_path / "dup.yaml"
    theme.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    cli = str(Path(sys.executable).with_name("mnemoforge"))
    run = subprocess.run([cli, "theme", "check", str(theme)], capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and str(theme) in lines[0], lines
    assert f"smm.{section}.{len(entries) - 1}: duplicate id {entries[0]['key']!r}" in lines[0]
