"""A memeye theme whose declarations support no item is one theme error, never an empty build
(issue 33, found by benchmarks/faults.py: ``memeye.scene_packs: []`` passed ``theme check`` and the
build then stopped with 0 candidates); one that supports some cells builds, with one shortfall line
per other cell; a duplicated accessory is one error naming it; the memeye starter declares its own
drawables and builds items without a scene pack."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge import yaml_io
from mnemoforge.cli import app
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.memeye.check import theme_warnings
from mnemoforge.theme_checks import check_theme
from mnemoforge.theme_io import ThemeError, parse_theme
from mnemoforge.theme_starter import starter_theme

from .test_memeye_declared import declared_names, declared_share, pack_phrases, release_texts


def _starter() -> dict:
    return yaml_io.safe_load(starter_theme("tiny_memeye", "memeye"))


def _bare(data: dict) -> dict:
    """``data`` with no scenario declaring anything (and so no state variable)."""
    out = copy.deepcopy(data)
    for sc in out["memeye"]["scenarios"]:
        sc.pop("draws", None)
        sc.pop("changes", None)
    return out


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "theme.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _one_error(theme: Path) -> tuple[str, str]:
    with pytest.raises(ThemeError) as e:
        check_theme(theme)
    assert len(e.value.problems) == 1, e.value.problems
    return e.value.problems[0]


def test_a_theme_that_declares_nothing_is_one_error_naming_the_cells_and_what_to_declare(
    tmp_path: Path,
) -> None:
    theme = _write(tmp_path, _bare(_starter()))
    field, msg = _one_error(theme)
    assert field == "memeye.scene_packs", msg
    assert "no item can be built" in msg and "(X1_Y1..Y3, X2_Y1/Y3, X3_Y1..Y3, X4_Y1..Y3)" in msg, msg
    for part in ("X1: `board`", "X2: `person`", "X3: `table`", "X4: `colour`, `count` or `label`"):
        assert part in msg, (part, msg)
    assert msg.endswith("or name a scene pack ([home_scenes])"), msg
    # the CLI: one line naming the file, exit 2; the build refuses it before writing anything
    r = CliRunner().invoke(app, ["theme", "check", str(theme)])
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert str(theme) in lines[0] and "memeye.scene_packs: no item can be built" in lines[0]
    out = tmp_path / "out"
    b = CliRunner().invoke(app, ["build", str(theme), "--outputs", str(out), "--orchestrator", "local"])
    assert b.exit_code == 2 and "no item can be built" in b.output, b.output
    assert not out.exists() or not any(out.rglob("MANIFEST*"))


def test_drawables_whose_cells_are_all_planned_at_zero_name_the_targets(tmp_path: Path) -> None:
    data = _bare(_starter())
    data["memeye"]["scenarios"][0]["draws"] = {"colour": {"drawable": "mug", "noun": "the painter's mug"}}
    data["memeye"]["per_cell"] = 0
    data["memeye"]["targets"] = {"X1_Y1": 3, "X2_Y1": 2}  # a mug supports X4 items only
    field, msg = _one_error(_write(tmp_path, data))
    assert field == "memeye.targets", msg
    assert "(X1_Y1, X2_Y1)" in msg and "X4_Y1" in msg and "(X1: `board`; X2: `person`)" in msg, msg


def test_a_theme_supporting_some_cells_builds_with_one_shortfall_line_per_other_cell(tmp_path: Path) -> None:
    data = _bare(_starter())
    data["memeye"]["scenarios"][0]["draws"] = {"colour": {"drawable": "mug", "noun": "the painter's mug"}}
    data["memeye"]["per_cell"] = 1
    data["memeye"]["targets"] = {}
    data["memeye"]["scenarios"] = data["memeye"]["scenarios"][:2]
    theme = _write(tmp_path, data)
    checked = check_theme(theme)  # no error: some cells get items
    lines = theme_warnings(checked)
    unsupported = [f"X{x}_Y{y}" for x in (1, 2, 3) for y in (1, 2, 3)]
    for cell in unsupported:  # one line per unsupported cell, saying what to declare
        mine = [w for w in lines if f"cell {cell} " in w]
        assert len(mine) == 1 and "nothing drawn supports it" in mine[0], (cell, lines)
    out = tmp_path / "out"
    r = CliRunner().invoke(
        app, ["build", str(theme), "--outputs", str(out), "--orchestrator", "local", "--json"]
    )
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output[r.output.index("{") :])
    assert summary["totals"]["kept"] > 0
    built_lines = [w for w in summary["warnings"] if "nothing drawn supports it" in w]
    assert sorted(re.findall(r"cell (X\d_Y\d)", " ".join(built_lines))) == unsupported, summary["warnings"]


def test_a_duplicated_accessory_is_one_error_naming_it(tmp_path: Path) -> None:
    data = _starter()
    acc = data["cast"][0]["appearance"]["accessories"]
    acc.append(acc[0])
    field, msg = _one_error(_write(tmp_path, data))
    assert field == f"cast.0.appearance.accessories.{len(acc) - 1}", (field, msg)
    assert f"duplicate accessory {acc[0]!r}" in msg


@pytest.mark.parametrize("targets", [{}, {"X4_Y1": 2}])
def test_a_theme_asking_for_no_question_is_refused_before_any_build(tmp_path: Path, targets: dict) -> None:
    data = _starter()
    data["memeye"]["per_cell"] = 0
    data["memeye"]["targets"] = {k: 0 for k in (targets or {"X1_Y1": 1})}
    theme = _write(tmp_path, data)
    field, msg = _one_error(theme)
    assert field in ("memeye.targets", "memeye.per_cell") and "asks for no questions" in msg, (field, msg)
    out = tmp_path / "out"
    b = CliRunner().invoke(app, ["build", str(theme), "--outputs", str(out), "--orchestrator", "local"])
    assert b.exit_code == 2 and "asks for no questions" in b.output, b.output
    assert not (out / "releases").exists()


def test_the_starter_declares_its_drawables_and_builds_without_a_scene_pack(tmp_path: Path) -> None:
    data = _starter()
    theme = parse_theme(data, tmp_path / "theme.yaml")
    assert theme.memeye is not None and theme.memeye.scene_packs == []
    assert all(
        any(getattr(sc.draws, p) for p in type(sc.draws).model_fields) for sc in theme.memeye.scenarios
    )
    assert theme_warnings(check_theme(_write(tmp_path, data))) == []  # every planned cell supported
    from mnemoforge.pipeline import build

    release = build(tmp_path / "theme.yaml", outputs=tmp_path / "out", workers=1).release_dir
    qs = read_jsonl(release / "data/memeye/questions.jsonl")
    assert len(qs) >= 20, len(qs)
    cells = json.loads((release / "dataset_statistics.json").read_text())["memeye"]["cells_covered"]
    assert cells >= 11
    assert declared_share(theme, qs) >= 0.9, [q["question"] for q in qs]
    own = declared_names(theme)  # the starter's own words that the pack happens to hold too
    phrases = {p for p in pack_phrases() if not any(p in n for n in own)}
    leaked = {
        p for t in release_texts(release) for p in phrases if re.search(rf"\b{re.escape(p)}\b", t.lower())
    }
    assert not leaked, leaked
