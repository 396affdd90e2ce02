"""Freezing runs into versioned releases, and loading releases with `datasets` offline."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from mnemoforge import yaml_io
from mnemoforge.cli import app
from mnemoforge.store.catalog import Catalog

from .conftest import linked_copy


@pytest.fixture(scope="module")
def built(tiny_build, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The session's small build, on a linked copy: these tests freeze new versions into it."""
    _, outputs, res = tiny_build
    copy = linked_copy(outputs, tmp_path_factory.mktemp("rel") / "outputs")
    moved = SimpleNamespace(
        run_dir=copy / res.run_dir.relative_to(outputs),
        release_dir=copy / res.release_dir.relative_to(outputs),
    )
    return moved, copy


def test_freeze_a_run_as_a_new_version(built) -> None:
    res, outputs = built
    r = CliRunner().invoke(
        app, ["freeze", str(res.run_dir), "--version", "1.0.0", "--notes", "First public cut."]
    )
    assert r.exit_code == 0, r.output
    rel = Path(r.output.strip().splitlines()[-1])
    assert rel == outputs / "releases" / "tiny" / "1.0.0"
    log = (rel / "CHANGELOG.md").read_text()
    assert "## 1.0.0" in log and "First public cut." in log and "seed 1" in log
    assert CliRunner().invoke(app, ["verify", str(rel)]).exit_code == 0
    # same content again: a no-op; different notes under the same version: refused
    again = CliRunner().invoke(
        app, ["freeze", str(res.run_dir), "--version", "1.0.0", "--notes", "First public cut."]
    )
    assert again.exit_code == 0
    clash = CliRunner().invoke(app, ["freeze", str(res.run_dir), "--version", "1.0.0", "--notes", "Other."])
    assert clash.exit_code == 2 and "already exists" in clash.output
    assert "First public cut." in (rel / "CHANGELOG.md").read_text()  # untouched
    with Catalog(outputs / "catalog.duckdb") as cat:
        versions = sorted(v for (v,) in cat.query("SELECT version FROM releases"))
    assert versions == ["0.1.0", "1.0.0"]


def test_freeze_refuses_bad_input(built, tmp_path: Path) -> None:
    res, _ = built
    bad = CliRunner().invoke(app, ["freeze", str(res.run_dir), "--version", "v1"])
    assert bad.exit_code == 2 and "1.2.3" in bad.output
    (tmp_path / "x").mkdir()
    nor = CliRunner().invoke(app, ["freeze", str(tmp_path / "x"), "--version", "1.0.0"])
    assert nor.exit_code == 2 and "not a run folder" in nor.output


def test_every_config_loads_with_datasets_offline(
    built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    datasets = pytest.importorskip("datasets", reason="needs the hub extra: pip install 'mnemoforge[hub]'")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    res, _ = built
    card = (res.release_dir / "README.md").read_text()
    meta = yaml_io.safe_load(card.split("---")[1])
    configs = {c["config_name"] for c in meta["configs"]}
    tables = ("questions", "clips", "observations", "captions", "shots", "speech")
    assert configs == {f"icm_{n}" for n in tables} | {f"agent_icm_{n}" for n in tables}
    stats = json.loads((res.release_dir / "dataset_statistics.json").read_text())
    for cfg in sorted(configs):
        ds = datasets.load_dataset(str(res.release_dir), cfg, split="test", cache_dir=str(tmp_path / "cache"))
        assert len(ds) > 0, cfg
    qs = datasets.load_dataset(
        str(res.release_dir), "icm_questions", split="test", cache_dir=str(tmp_path / "c")
    )
    assert len(qs) == stats["questions"]["kept"]
    shots = datasets.load_dataset(
        str(res.release_dir), "icm_shots", split="test", cache_dir=str(tmp_path / "c")
    )
    assert isinstance(shots.features["image"], datasets.Image)
    img = shots[0]["image"]
    assert img.size == (320, 180)
    assert len(shots) == stats["clips"]["shots"]
    speech = datasets.load_dataset(
        str(res.release_dir), "icm_speech", split="test", cache_dir=str(tmp_path / "c")
    )
    assert all((res.release_dir / p).is_file() for p in speech["audio_path"])
    agent_shots = datasets.load_dataset(
        str(res.release_dir), "agent_icm_shots", split="test", cache_dir=str(tmp_path / "c")
    )
    assert isinstance(agent_shots.features["image"], datasets.Image) and "place" not in agent_shots.features
