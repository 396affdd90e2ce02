"""``mnemoforge build --preflight``: counts from the plan, costs from the price table, nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.production.preflight import preflight
from tests.conftest import small_theme_data

BACKEND = {
    "provider": "openai",
    "model": "gpt-4o-mini",
    "base_url": "http://127.0.0.1:9/v1",
    "api_key_env": None,
}


def _theme(tmp_path: Path, **text: object) -> Path:
    data = small_theme_data()
    data["text"] = {"backend": BACKEND, "paraphrase_questions": True, **text}
    data["gates"] = {
        "answerers": {"symbolic": {}, "lexical": {}, "judge": {"kind": "chat", **BACKEND}},
        "panels": {"oracle": ["symbolic"], "text_only_clue": ["lexical", "judge"]},
    }
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_preflight_counts_the_plan_and_prices_the_model_calls(tmp_path: Path) -> None:
    from mnemoforge.generators.icm import album
    from mnemoforge.generators.icm.world import plan_world
    from mnemoforge.theme_io import load_theme

    path = _theme(tmp_path, plan=True, plan_batch=2)
    pf = preflight(path)
    theme = load_theme(path)
    world = plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, _ = album.plan_album(theme, world)
    shots = [s for c in clips for s in c.shots]
    rows = {(r.stage, r.operation): r for r in pf.rows}
    assert rows[("render", "image")].images == len(shots) + len(theme.cast)
    assert rows[("render", "video")].video_seconds == sum(s.duration_s for s in shots)
    assert rows[("render", "speech")].calls == sum(len(s.dialogue) for s in shots)
    assert rows[("render", "speech")].speech_seconds > 0 and rows[("render", "image")].cost == 0
    n = theme.questions.total
    para, judge, plan = rows[("questions", "chat")], rows[("gates", "chat")], rows[("plan", "chat")]
    assert para.calls == judge.calls == n and para.model == judge.model == "gpt-4o-mini"
    assert plan.calls == -(-len(world.events) // 2)
    # gpt-4o-mini* in assets/prices.yaml: 0.15 / 0.60 per million tokens
    assert para.cost == pytest.approx(para.tokens_in * 0.15e-6 + para.tokens_out * 0.60e-6, abs=1e-6)
    assert pf.totals()["cost"] == pytest.approx(sum(r.cost for r in pf.rows))


def test_preflight_cli_writes_nothing_and_takes_a_prices_file(tmp_path: Path) -> None:
    path = _theme(tmp_path)
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  gpt-4o-mini*: {per_call: 1.0}\n")  # merged into the shipped entry
    before = sorted(p.name for p in tmp_path.iterdir())
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        r = CliRunner().invoke(app, ["build", str(path), "--preflight", "--json"])
        r2 = CliRunner().invoke(app, ["build", str(path), "--preflight", "--json", "--prices", str(prices)])
        table = CliRunner().invoke(app, ["build", str(path), "--preflight"])
    finally:
        os.chdir(cwd)
    assert r.exit_code == 0 and r2.exit_code == 0 and table.exit_code == 0, r.output + table.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no outputs/, no run folder, no release
    cheap, dear = json.loads(r.stdout), json.loads(r2.stdout)
    calls = sum(row["calls"] for row in dear["rows"] if row["model"] == "gpt-4o-mini")
    assert dear["totals"]["cost"] == pytest.approx(cheap["totals"]["cost"] + calls * 1.0)
    assert "estimated total" in table.output and "questions" in table.output


def test_preflight_names_a_bad_price_table(tmp_path: Path) -> None:
    path = _theme(tmp_path)
    bad = tmp_path / "bad.yaml"
    bad.write_text("models:\n  gpt-4o-mini: {per_token: 1}\n")
    r = CliRunner().invoke(app, ["build", str(path), "--preflight", "--prices", str(bad)])
    assert r.exit_code == 2 and "bad.yaml.models.gpt-4o-mini.per_token: unknown price field" in r.output
    assert "Traceback" not in r.output
