from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.pipeline import build
from mnemoforge.validators.gate_runner import gates_for

from .conftest import small_theme_data


def test_gate_command_reuses_cached_verdicts(tmp_path: Path) -> None:
    theme = tmp_path / "t.yaml"
    theme.write_text(yaml.safe_dump(small_theme_data(clips=4), sort_keys=False))
    res = build(theme, outputs=tmp_path / "out", workers=2)
    before = (res.run_dir / "gates/verdicts.jsonl").read_bytes()
    r = CliRunner().invoke(app, ["gate", str(res.run_dir)])
    assert r.exit_code == 0, r.output
    assert "0 computed" in r.output and " computed, 0 cached" not in r.output  # all from the cache
    assert (res.run_dir / "gates/verdicts.jsonl").read_bytes() == before
    only = CliRunner().invoke(app, ["gate", str(res.run_dir), "--only", "oracle"])
    assert only.exit_code == 0 and only.output.count("kept from last run") == len(gates_for("icm")) - 1
    funnel = json.loads((res.run_dir / "gates/funnel.json").read_text())
    assert [s["gate"] for s in funnel["stages"]][-2:] == ["answer_balance", "category_quota"]
    bad = CliRunner().invoke(app, ["gate", str(res.run_dir), "--only", "nonsense"])
    assert bad.exit_code == 2 and "unknown gate" in bad.output
