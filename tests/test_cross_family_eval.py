"""Evaluating a multi-family release (docs/cross-family.md, "Evaluating"): every family's items and
the cross items, each cross item answered from the agent views of the families its evidence
spans; one table with a row per family and ``cross``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.evaluation.models import Reply

PARTS = ["icm", "smm", "memeye", "cross", "all"]


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_each_cross_item_reads_exactly_the_families_its_evidence_spans(world_release) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.evaluation.views import agent_view
    from mnemoforge.exporters.views import forbidden_fields

    root = world_release.release_dir
    view = agent_view(root)
    keys = {r["id"]: r for r in _rows(root / "data/cross/questions.jsonl")}
    assert view.family == "cross" and [i.id for i in view.items] == list(keys)
    assert view.haystacks is not None
    hist = {r["item"]: r["families"] for r in _rows(root / "agent/cross/histories.jsonl")}
    for item in view.items:
        shown = view.for_item(item.id).history(item.cutoff)
        fams = {o["id"].split(":", 1)[0] for o in shown}
        evidence = keys[item.id]["evidence"]
        assert fams == {e.split(":", 1)[0] for e in evidence} == set(hist[item.id]), item.id
        assert len(fams) >= 2
        assert set(evidence) <= {o["id"] for o in shown}  # every evidence observation is there
        # everything of those families and nothing else: their whole timelines, in time order
        n = sum(len(_rows(root / f"families/{f}/agent/{f}/observations.jsonl")) for f in fams)
        assert len(shown) == n
        assert [o["timestamp"] for o in shown] == sorted(o["timestamp"] for o in shown)
        assert not any(forbidden_fields(o) for o in shown)
    media = [m for o in view.observations for m in o.get("media") or []]
    assert media and all((root / m).is_file() for m in media)  # paths under families/F/
    captioned = {c["observation"] for c in view.captions if "observation" in c}
    assert captioned <= {o["id"] for o in view.observations}  # caption references qualified too


def test_evaluate_a_multi_family_release_row_per_family_and_cross(world_release, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = world_release.release_dir
    out = tmp_path / "ev"
    runner = CliRunner()
    n = len(_rows(root / "data/cross/questions.jsonl"))  # glassworks_world keeps 146 (docs)
    assert n >= 50
    for method in ("oracle_evidence", "question_only"):
        r = runner.invoke(
            app,
            ["evaluate", str(root), "--method", method, "--model", "symbolic", "--out", str(out / method)],
        )
        assert r.exit_code == 0, r.output
        assert f"   cross: {n} items, {n} answered" in r.output
    table = json.loads((out / "oracle_evidence/families.json").read_text())
    assert [row["part"] for row in table["rows"]] == PARTS
    # the exact solver over the gold evidence answers every part, the cross items included
    assert all(row["score"] == 1.0 and row["failed"] == 0 for row in table["rows"])
    blind = json.loads((out / "question_only/families.json").read_text())
    assert all(row["score"] == 0.0 for row in blind["rows"])  # no memory, no answer
    md = (out / "oracle_evidence/families.md").read_text()
    assert all(f"| `{p}` |" in md for p in PARTS)
    cross = json.loads((out / "oracle_evidence/cross/results.json").read_text())
    assert cross["family"] == "cross" and cross["summary"]["items"] == n
    assert set(cross["tables"]["families"]) == {"icm,memeye", "icm,smm", "memeye,smm"}
    assert "when_brought" in cross["tables"]["bridge"]
    assert "Cross items by family pair" in (out / "oracle_evidence/cross/summary.md").read_text()
    # each family's part reads its own release, whose World is the root's
    smm = json.loads((out / "oracle_evidence/smm/results.json").read_text())
    assert smm["release"].endswith("families/smm") and smm["family"] == "smm"


def test_evaluate_matrix_and_a_method_that_fits_some_parts(world_release, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = world_release.release_dir
    matrix = tmp_path / "m.yaml"
    matrix.write_text("methods: [caption_memory, full_context_text]\nmodels: [symbolic]\n")
    r = CliRunner().invoke(
        app, ["evaluate", str(root), "--matrix", str(matrix), "--out", str(tmp_path / "mx")]
    )
    assert r.exit_code == 0, r.output
    md = (tmp_path / "mx/summary.md").read_text()
    assert "| method × model | `icm` | `smm` | `memeye` | `cross` | `all` |" in md
    cap = next(line for line in md.splitlines() if line.startswith("| caption_memory"))
    assert cap.count("not run") == 2  # clip captions: an album's (icm) and the cross items' only
    assert "| full_context_text × symbolic | 100.0% | 100.0% | 100.0% | 100.0% | 100.0% |" in md
    runs = json.loads((tmp_path / "mx/matrix.json").read_text())["runs"]
    assert {r["family"] for r in runs} == {"icm", "smm", "memeye", "cross"}
    bad = CliRunner().invoke(
        app, ["evaluate", str(root), "--method", "retrieval", "--model", "symbolic", "--variants", "all"]
    )
    assert bad.exit_code != 0 and "no length variants" in bad.output


class _NoCross:
    """Answers every family's items ('A') and fails every call of a cross item."""

    id = name = "no-cross"
    max_context_chars, vision, max_images, workers = 10**6, False, 0, 1
    decoding: dict = {}
    prices: dict = {}

    def generate(self, request):  # type: ignore[no-untyped-def]
        if request.item_id.startswith("x_"):
            return Reply("", False, "server down")
        return Reply("A", True)


def test_failed_cross_calls_are_failures_not_wrong_answers(world_release, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.evaluation.multi import evaluate_multi
    from mnemoforge.evaluation.runner import failure_summary

    rows, results = evaluate_multi(world_release.release_dir, "question_only", _NoCross(), tmp_path / "ev")
    n = len(_rows(world_release.release_dir / "data/cross/questions.jsonl"))
    by = {r["part"]: r for r in rows}
    assert by["cross"]["failed"] == by["cross"]["items"] == n and by["cross"]["score"] is None
    assert by["smm"]["failed"] == 0 and by["smm"]["score"] is not None
    assert by["all"]["failed"] == n and by["all"]["answered"] == by["all"]["items"] - n
    line = failure_summary(results)
    assert line is not None and f"question_only × no-cross (cross): {n} of {n}" in line
    with pytest.raises(ValueError, match="no length variants"):
        evaluate_multi(world_release.release_dir, "question_only", _NoCross(), tmp_path / "v", variant="s")


def test_report_a_multi_family_release(world_release, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import re
    import shutil

    root = Path(shutil.copytree(world_release.release_dir, tmp_path / "glassworks_world" / "0.1.0"))
    runner = CliRunner()
    r = runner.invoke(app, ["evaluate", str(root), "--method", "oracle_evidence", "--model", "symbolic"])
    assert r.exit_code == 0, r.output  # default --out: <release>-eval/, where the report looks
    r = runner.invoke(app, ["report", str(root), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "rep/index.html").read_text()
    ids = re.findall(r'<section id="([^"]+)"', page)
    assert ids == ["icm", "smm", "memeye", "cross", "evaluation"]
    for fam in ("icm", "smm", "memeye"):  # each family's full report, over the one World
        sub = (tmp_path / "rep" / fam / "index.html").read_text()
        assert '<section id="cast">' in sub and "<span>people</span>" in sub
        assert f'href="{fam}/index.html"' in page
    cross = page[page.index('<section id="cross">') : page.index('<section id="evaluation">')]
    kept = _rows(root / "data/cross/questions.jsonl")
    pairs = sorted({q["labels"]["families"] for q in kept})
    assert f"<th>bridge \\ evidence from</th>{''.join(f'<th>{p}</th>' for p in pairs)}<th>all</th>" in cross
    totals = "".join(f'<td class="n">{sum(q["labels"]["families"] == p for q in kept)}</td>' for p in pairs)
    assert f'<td>all</td>{totals}<td class="n">{len(kept)}</td>' in cross
    assert "one_family_insufficient" in cross and (tmp_path / "rep/figures/cross_funnel.png").is_file()
    ev = page[page.index('<section id="evaluation">') :]
    assert "<th>icm</th><th>smm</th><th>memeye</th><th>cross</th>" in ev
    assert ev.count("100.0 (100.0)") >= 4  # oracle × symbolic: every part answered
