from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.validators.gate_runner import gates_for

from .conftest import linked_copy


def test_gate_command_reuses_cached_verdicts(tiny_build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, outputs, built = tiny_build  # the session's build, on a linked copy: `gate` rewrites its run folder
    copy = linked_copy(outputs, tmp_path / "out")
    res = SimpleNamespace(run_dir=copy / built.run_dir.relative_to(outputs))
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
