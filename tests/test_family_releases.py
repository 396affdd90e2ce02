"""Releases of every family: each card config loads offline with `datasets`, and the card's gate
table is the funnel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mnemoforge import yaml_io
from mnemoforge.generators.families import get_family

THEMES = {"smm": "office_launch.yaml", "memeye": "visual_diary.yaml"}


@pytest.fixture(scope="module", params=sorted(THEMES))
def release(request: pytest.FixtureRequest) -> Path:
    """The shipped theme's release, built once per session in-process (tests/conftest.py)."""
    if request.param == "smm":
        root = request.getfixturevalue("smm_release").root
    else:
        root = request.getfixturevalue("memeye_release")
    assert root.parent.name == Path(THEMES[request.param]).stem
    return root


# the smm case builds the small smm test theme (tests/themes/ferry_crew.yaml, 3 CPU-s in-process)
# rather than office_launch (17 CPU-s): the flow's stage loop is the same; memeye's shipped theme
# is small already. Both join the session's build of their theme (its xdist group).
FLOW_BUILDS = [
    pytest.param("ferry_release", marks=pytest.mark.xdist_group("ferry"), id="smm"),
    pytest.param("memeye_build", marks=pytest.mark.xdist_group("memeye"), id="memeye"),
]


@pytest.mark.integration  # a CLI subprocess running the Prefect flow
@pytest.mark.parametrize("build", FLOW_BUILDS)
def test_the_prefect_flow_builds_the_same_release(
    build: str, tmp_path: Path, request: pytest.FixtureRequest, prefect_api: str
) -> None:
    """Whatever the executor: the Prefect flow with two workers gives a byte-identical manifest
    (``--workers`` only for a family that renders in processes: elsewhere it is an error). The
    build connects to the session's Prefect server (``prefect_api``) instead of starting its own."""
    release = request.getfixturevalue(build).release_dir
    theme = release / "theme.yaml"
    cmd = [sys.executable, "-m", "mnemoforge.cli", "build", str(theme), "--outputs", str(tmp_path)]
    fam = json.loads((release / "MANIFEST.json").read_text())["family"]
    assert fam == request.node.callspec.id
    workers = ["--workers", "2"] if get_family(fam).uses_workers else []
    r = subprocess.run(
        [*cmd, "--orchestrator", "prefect", *workers],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    flow_release = Path(r.stdout.strip().splitlines()[-1])
    assert (flow_release / "MANIFEST.json").read_bytes() == (release / "MANIFEST.json").read_bytes()


def test_every_config_of_the_card_loads_offline(
    release: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    datasets = pytest.importorskip("datasets", reason="needs the hub extra: pip install 'mnemoforge[hub]'")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    meta = yaml_io.safe_load((release / "README.md").read_text().split("---")[1])
    manifest = json.loads((release / "MANIFEST.json").read_text())
    fam = manifest["family"]
    configs = {c["config_name"]: c["data_files"][0]["path"] for c in meta["configs"]}
    assert {f"{fam}_questions", f"{fam}_observations", f"{fam}_captions"} <= set(configs)
    assert len(configs) > 3  # the family's own tables too
    for name, path in sorted(configs.items()):
        assert path in manifest["files"], f"{name}: {path} is not in the release"
        ds = datasets.load_dataset(str(release), name, split="test", cache_dir=str(tmp_path / "c"))
        assert len(ds) > 0, name
    stats = json.loads((release / "dataset_statistics.json").read_text())
    qs = datasets.load_dataset(str(release), f"{fam}_questions", split="test", cache_dir=str(tmp_path / "c"))
    assert len(qs) == stats["questions"]["kept"] == manifest["counts"]["questions"]


def test_card_gate_table_is_the_funnel(release: Path) -> None:
    card = (release / "README.md").read_text()
    funnel = json.loads((release / "gates" / "funnel.json").read_text())
    for st in funnel["stages"]:
        row = next(line for line in card.splitlines() if line.startswith(f"| `{st['gate']}` |"))
        assert row.endswith(f"| {st['rejected']} | {st['kept']} |"), row
    assert "option_prior" in card  # the offline MCQ shortcut check is on the option-only panel
