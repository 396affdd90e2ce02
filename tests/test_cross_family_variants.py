"""Length variants of a ``families:`` theme (docs/cross-family.md): each family's release holds
oracle, s, m and l as its single-family build does; MANIFEST.json lists them with their family;
the cross items keep their full histories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemoforge.cli import app

THEME = Path(__file__).resolve().parent / "themes" / "glassworks_world.yaml"
NAMES = ("oracle", "s", "m", "l")


@pytest.fixture(scope="module")
def varied(world_release):  # type: ignore[no-untyped-def]
    """The session's glassworks_world build, frozen again with length variants into the same
    outputs (the runs are the same with or without variants: their stages come from the cache)."""
    from mnemoforge.multi_family import build_multi

    outputs = world_release.release_dir.parents[2]
    return build_multi(THEME, outputs=outputs, workers=1, variants=NAMES)


def test_each_family_holds_the_length_variants_and_the_manifest_lists_them(varied, world_release) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.validators.release_check import verify_release

    root = varied.release_dir
    assert root.parent.name == "glassworks_world-oracle-s-m-l"
    assert varied.ran == {f: dict.fromkeys(varied.ran[f], False) for f in varied.ran}  # all cached
    manifest = json.loads((root / "MANIFEST.json").read_text())
    listed = {(v["family"], v["name"]) for v in manifest["variants"]}
    assert listed == {(f, n) for f in ("icm", "smm", "memeye") for n in NAMES}
    for fam in ("icm", "smm", "memeye"):
        own = json.loads((root / f"families/{fam}/MANIFEST.json").read_text())
        assert [v["name"] for v in own["variants"]] == list(NAMES)
        mine = [v for v in manifest["variants"] if v["family"] == fam]
        assert mine == own["variants"]  # name, family, unit, size, config: as the family wrote them
        by = {v["name"]: v for v in own["variants"]}
        assert by["l"]["size"] >= by["m"]["size"] >= by["s"]["size"]
        for v in own["variants"]:
            assert v["questions"] + v["left_out"] == own["counts"]["questions"]
    # the family and cross items are those of the build without variants
    plain = world_release.release_dir
    assert (root / "data/cross/questions.jsonl").read_bytes() == (
        plain / "data/cross/questions.jsonl"
    ).read_bytes()
    assert "The `cross` items have none" in (root / "README.md").read_text()
    assert verify_release(root) == []


def test_evaluate_variants_of_a_multi_family_release(varied, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import re

    root = varied.release_dir  # this module's release: its results go beside it, where report looks
    args = ["evaluate", str(root), "--variants", "all", "--method", "oracle_evidence", "--model", "symbolic"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    out = root.parent / f"{root.name}-eval" / "oracle_evidence__symbolic"
    rows = json.loads((out / "variants.json").read_text())["rows"]
    assert [row["variant"] for row in rows] == list(NAMES)
    for row in rows:  # the exact solver over the gold evidence, in every variant that holds items
        scores = {k: v for k, v in row.items() if k != "variant" and v is not None}
        assert scores and set(scores.values()) == {1.0}
        assert row["cross"] == 1.0
    for fam in ("icm", "smm", "memeye"):
        assert (out / fam / "variants.md").is_file()
    r = CliRunner().invoke(app, ["report", str(root), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "rep/index.html").read_text()
    ev = page[page.index('<section id="evaluation">') :]
    assert "<th>method</th><th>variant</th><th>model</th>" in ev
    got = set(re.findall(r"<tr><td>oracle_evidence</td><td>(\w+)</td>", ev))
    assert got == {*NAMES, "full"}  # a row per variant (family parts), and the cross items' full run


def test_variants_of_a_families_theme_are_checked(tmp_path: Path) -> None:
    from mnemoforge.theme_checks import check_theme
    from mnemoforge.theme_io import ThemeError

    text = THEME.read_text()
    bad = tmp_path / "sized.yaml"
    bad.write_text(
        text.replace("families: [icm, smm, memeye]", "families: [icm, smm, memeye]\nvariants: {s: {size: 2}}")
    )
    with pytest.raises(
        ThemeError, match=r"variants\.s\.size: a theme with families: sizes its length variants by share"
    ):
        check_theme(bad)
    ok = tmp_path / "shared.yaml"
    ok.write_text(
        text.replace(
            "families: [icm, smm, memeye]", "families: [icm, smm, memeye]\nvariants: {s: {share: 0.25}}"
        )
    )
    assert check_theme(ok).variants["s"].share == 0.25
    r = CliRunner().invoke(
        app, ["build", str(THEME), "--outputs", str(tmp_path / "o"), "--variants", "oracle,transcript_only"]
    )
    assert r.exit_code != 0
    assert "'transcript_only' is a modality ablation of family icm" in r.output
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").rglob("MANIFEST.json"))
