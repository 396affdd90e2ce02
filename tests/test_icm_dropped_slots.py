"""An icm event slot that no day can hold (nobody free on its day nor on the same weekday 1-3 weeks
either way) is one shortfall warning line saying why, in ``theme check`` and in the build's
warnings, never dropped silently (issue 33 / 37 leftover)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.theme_io import parse_theme

from .conftest import small_theme_data

AWAY = {"start": "2025-06-20", "end": "2025-08-15"}  # the whole cast, most of the summer


def _data(away: bool) -> dict:
    data = small_theme_data(clips=12)
    if away:
        for p in data["cast"]:
            p["availability"] = {"away": [AWAY]}
    return data


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "mnemoforge.plan"]


def test_a_slot_nobody_can_hold_is_one_shortfall_line_saying_why(caplog: pytest.LogCaptureFixture) -> None:
    theme = parse_theme(_data(away=True), Path("theme.yaml"))
    with caplog.at_level(logging.WARNING, logger="mnemoforge.plan"):
        world = plan_world(theme, 1, 11)
    lines = _lines(caplog)
    assert lines and len(world.events) == 11 - len(lines), (len(world.events), lines)
    for line in lines:
        m = re.match(r"shortfall: events: slot (\d+) \((\w+) on (\d{4}-\d\d-\d\d)\) left out: (.*)$", line)
        assert m, line
        assert "2025-06-20" <= m.group(3) <= "2025-08-15", line  # a slot inside the away range
        assert "fewer than min_people" in m.group(4) and "lower album.clips" in m.group(4), line
    # nobody's event falls in the range: the slots there were the ones left out
    assert not [e for e in world.events if "2025-06-20" <= e.start.date().isoformat() <= "2025-08-15"]


def test_a_theme_whose_slots_all_fit_warns_nothing(caplog: pytest.LogCaptureFixture) -> None:
    theme = parse_theme(_data(away=False), Path("theme.yaml"))
    with caplog.at_level(logging.WARNING, logger="mnemoforge.plan"):
        world = plan_world(theme, 1, 11)
    assert not _lines(caplog) and len(world.events) == 11


def test_theme_check_prints_the_line_as_a_warning(tmp_path: Path) -> None:
    theme = tmp_path / "theme.yaml"
    theme.write_text(yaml.safe_dump(_data(away=True), sort_keys=False), encoding="utf-8")
    r = CliRunner().invoke(app, ["theme", "check", str(theme)])
    assert r.exit_code == 0, r.output
    warned = [ln for ln in r.output.splitlines() if ln.startswith("warning: shortfall: events: slot ")]
    assert warned and all("left out: on that day and the same weekday" in ln for ln in warned), r.output
    assert r.output.splitlines()[-1].startswith("OK ")


def test_the_build_holds_one_clip_fewer_per_slot_left_out_and_says_why(tmp_path: Path) -> None:
    """Before, a slot left out ended the build in a traceback ('10 clips planned, theme asks for 12')."""
    theme = tmp_path / "theme.yaml"
    theme.write_text(yaml.safe_dump(_data(away=True), sort_keys=False), encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(
        app, ["build", str(theme), "--outputs", str(out), "--orchestrator", "local", "--json"]
    )
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output
    summary = json.loads(r.output[r.output.index("{") :])
    lines = [w for w in summary["warnings"] if w.startswith("shortfall: events: slot ")]
    assert lines, summary["warnings"]
    clips = read_jsonl(Path(summary["release"]) / "data/icm/clips.jsonl")
    assert len(clips) == 12 - len(lines) and summary["totals"]["kept"] > 0
