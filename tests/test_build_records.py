"""What a real build records about itself: the rejected items and the funnel's reasons, and the
`mnemoforge catalog` command over its catalog (the session's small build, read-only)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.validators.gate_runner import gates_for


def _first_rejections(verdicts: list[dict], order: list[str]) -> dict[str, dict[str, str]]:
    """gate -> {item: reason} for the gate that rejected each item first (the funnel's order)."""
    by_gate: dict[str, dict[str, dict]] = {}
    for v in verdicts:
        by_gate.setdefault(v["gate"], {})[v["item"]] = v
    alive = {v["item"] for v in verdicts}
    out: dict[str, dict[str, str]] = {}
    for gate in order:
        out[gate] = {i: v["reason"] for i, v in by_gate.get(gate, {}).items() if i in alive and not v["keep"]}
        alive -= set(out[gate])
    return out


def test_rejected_items_and_funnel_reasons_follow_the_verdicts(tiny_build) -> None:  # type: ignore[no-untyped-def]
    res = tiny_build[2]
    rel = res.release_dir
    verdicts = read_jsonl(rel / "gates/verdicts.jsonl")
    funnel = json.loads((rel / "gates/funnel.json").read_text())
    stats = json.loads((rel / "dataset_statistics.json").read_text())["questions"]
    candidates = read_jsonl(res.run_dir / "questions/candidates.jsonl")
    kept = read_jsonl(rel / "data/icm/questions.jsonl")
    rejected = read_jsonl(rel / "gates/rejected.jsonl")

    order = [s["gate"] for s in funnel["stages"]]
    assert order == [g.name for g in gates_for("icm")]
    first = _first_rejections(verdicts, order)
    # the rejected table is exactly the candidates the gates dropped, each a whole question row
    assert {q["id"] for q in rejected} == {q["id"] for q in candidates} - {q["id"] for q in kept}
    assert {q["id"] for q in rejected} == {i for items in first.values() for i in items}
    by_id = {q["id"]: q for q in candidates}
    assert all(q == by_id[q["id"]] for q in rejected)
    assert len(rejected) + len(kept) == len(candidates) == funnel["candidates"] == stats["candidates"]
    assert len(kept) == funnel["kept"] == stats["kept"]

    alive = len(candidates)
    for st in funnel["stages"]:
        reasons = first[st["gate"]]
        want = Counter(r.split(":")[0] for r in reasons.values())
        assert st["reasons"] == dict(want), st["gate"]  # counted by reason, from that gate's verdicts
        assert st["rejected"] == len(reasons) == sum(st["reasons"].values()), st["gate"]
        alive -= st["rejected"]
        assert st["kept"] == alive, st["gate"]
        assert all(r.strip() for r in reasons.values()), st["gate"]  # no silent drop
    # this build asks for 12 of 14 candidates: the quota trims the surplus and says so
    quota = next(s for s in funnel["stages"] if s["gate"] == "category_quota")
    assert set(quota["reasons"]) <= {"surplus"}
    assert sum(s["rejected"] for s in funnel["stages"]) == len(rejected) > 0
    # the card's gate table and the reasons agree with the funnel
    card = (rel / "README.md").read_text()
    for st in funnel["stages"]:
        assert f"| `{st['gate']}` |" in card and f"| {st['rejected']} | {st['kept']} |" in card


def _catalog(outputs: Path, sql: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, ["catalog", sql, "--outputs", str(outputs)], terminal_width=200)


def test_catalog_command_prints_query_results(tiny_build) -> None:  # type: ignore[no-untyped-def]
    _, outputs, res = tiny_build
    kept = read_jsonl(res.release_dir / "data/icm/questions.jsonl")
    sql = "SELECT category, count(*) AS n FROM questions WHERE kept GROUP BY category ORDER BY 1"
    r = _catalog(outputs, sql)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    header = next(i for i, line in enumerate(lines) if "category" in line)
    assert re.search(r"\bn\b", lines[header]), r.output  # the column names are the query's
    rows = [re.findall(r"[^\s│┃|]+", line) for line in lines[header + 1 :]]
    got = {cells[0]: int(cells[1]) for cells in rows if len(cells) == 2 and cells[1].isdigit()}
    assert got == dict(Counter(q["category"] for q in kept)), r.output
    r = _catalog(outputs, "SELECT run_id, theme, seed FROM runs")
    assert r.exit_code == 0 and res.run_dir.name in r.output and "tiny" in r.output, r.output


def test_catalog_command_errors_name_the_catalog(tiny_build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, outputs, _ = tiny_build
    catalog = outputs / "catalog.duckdb"
    before = catalog.read_bytes()
    bad = _catalog(outputs, "SELECT nope FROM questions")
    assert bad.exit_code != 0 and str(catalog) in bad.output and "nope" in bad.output
    assert "Traceback" not in bad.output
    write = _catalog(outputs, "DELETE FROM questions")
    assert write.exit_code != 0 and "read-only" in write.output and str(catalog) in write.output
    assert catalog.read_bytes() == before  # nothing changed
    none = _catalog(tmp_path / "empty", "SELECT 1")
    assert none.exit_code != 0 and "no catalog yet" in none.output
    assert not (tmp_path / "empty").exists()
