"""Asking for more items than a theme supports: one warning line per category, listed by the card."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from mnemoforge.cli import app

from .conftest import small_theme_data


def test_shortfall_is_one_warning_line_per_category_and_in_the_card(tmp_path: Path) -> None:
    data = small_theme_data(clips=3)
    data["questions"]["total"] = 100_000
    theme = tmp_path / "greedy.yaml"
    theme.write_text(yaml.safe_dump(data, sort_keys=False))
    r = CliRunner().invoke(
        app,
        [
            "build",
            str(theme),
            "--outputs",
            str(tmp_path / "out"),
            "--orchestrator",
            "local",
            "--workers",
            "1",
        ],
    )
    assert r.exit_code == 0, r.output
    release = Path(r.output.strip().splitlines()[-1])
    funnel = json.loads((release / "gates/funnel.json").read_text())
    short = {s["category"]: s for s in funnel["shortfall"]}
    assert set(short) == {"identity_recall", "cross_episode_retrieval", "profile_inference"}
    lines = [x for x in r.output.splitlines() if x.startswith("warning: shortfall: ")]
    assert len(lines) == 3, r.output  # one line per category, each with its reason
    for cat, s in short.items():
        assert s["produced"] < s["requested"] and "the World supports only" in s["reason"]
        (line,) = [x for x in lines if x.startswith(f"warning: shortfall: {cat}: ")]
        assert f"asked for {s['requested']}, got {s['produced']}" in line
    card = (release / "README.md").read_text()
    assert "**Shortfall.**" in card and all(f"| {c} | {s['requested']} |" in card for c, s in short.items())
