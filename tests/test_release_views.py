"""The two views of a release (agent input vs evaluator keys) and the release's own validator,
on builds of the shipped smm and memeye themes and a small icm album."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mnemoforge import yaml_io
from mnemoforge.exporters import release_validator
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.exporters.views import AGENT_FORBIDDEN, KEY_FIELDS, forbidden_fields, load_agent_view
from mnemoforge.validators.release_check import verify_release


@pytest.fixture(scope="module")
def icm_release(tiny_build) -> Path:  # type: ignore[no-untyped-def]
    return tiny_build[2].release_dir  # smm, memeye and icm: built once per session (tests/conftest.py)


@pytest.fixture(params=["icm", "smm", "memeye"])
def release(request: pytest.FixtureRequest) -> Path:
    if request.param == "smm":
        return request.getfixturevalue("smm_release").root
    return request.getfixturevalue(f"{request.param}_release")


def _card_configs(root: Path) -> dict[str, str]:
    meta = yaml_io.safe_load((root / "README.md").read_text().split("---")[1])
    return {c["config_name"]: c["data_files"][0]["path"] for c in meta["configs"]}


def test_agent_tables_hold_no_key_field(release: Path) -> None:
    import pyarrow.parquet as pq

    fam = json.loads((release / "MANIFEST.json").read_text())["family"]
    agent = release / "agent" / fam
    tables = sorted(agent.rglob("*.parquet"))
    assert {"questions.parquet", "observations.parquet"} <= {p.name for p in tables}
    for path in tables:
        assert not set(pq.read_schema(path).names) & AGENT_FORBIDDEN, path
        jsonl = path.with_suffix(".jsonl")
        if jsonl.exists():
            assert all(not forbidden_fields(r) for r in read_jsonl(jsonl)), jsonl
    # the keys the audit found are really gone: observations' people/expresses, memeye clue links,
    # icm shots' place, smm evidence markers
    obs = read_jsonl(agent / "observations.jsonl")
    assert obs and not {"people", "expresses", "evidence_eligible"} & set().union(*obs)
    data_obs = read_jsonl(release / f"data/{fam}/observations.jsonl")
    assert any(o["expresses"] for o in data_obs)  # the evaluator side keeps them
    if fam == "memeye":
        assert "clue_for" in read_jsonl(release / "data/memeye/rounds.jsonl")[0]
        assert "clue_for" not in read_jsonl(agent / "rounds.jsonl")[0]
    if fam == "icm":
        assert "place" in pq.read_schema(release / "data/icm/shots.parquet").names
        assert "image" in pq.read_schema(agent / "shots.parquet").names
    # the agent view's items are the kept questions, with choices per rotation and no answer
    view = load_agent_view(release)
    keys = read_jsonl(release / f"data/{fam}/questions.jsonl")
    assert [i.id for i in view.items] == [q["id"] for q in keys]
    for item, q in zip(view.items, keys, strict=True):
        if q["options"]:
            assert item.choices == [[q["options"][i] for i in rot] for rot in q["rotations"]]
        else:
            assert item.choices is None


def test_card_names_which_configs_are_agent_input(release: Path) -> None:
    configs = _card_configs(release)
    card = (release / "README.md").read_text()
    agent = [n for n in configs if n.startswith("agent_")]
    assert len(agent) >= 3 and all(configs[n].startswith("agent/") for n in agent)
    assert all(not configs[n].startswith("agent/") for n in configs if n not in agent)
    assert "## Two views: agent input and evaluator keys" in card
    assert "python scripts/validate_release.py" in card


def test_validator_passes_on_a_fresh_release(release: Path) -> None:
    r = subprocess.run(
        [sys.executable, str(release / "scripts/validate_release.py")], capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stdout.strip() == "OK", r.stdout + r.stderr
    assert verify_release(release) == []


def test_validator_imports_no_mnemoforge() -> None:
    src = Path(release_validator.__file__).read_text()
    assert "mnemoforge." not in "".join(
        line for line in src.splitlines() if line.startswith(("import", "from"))
    )
    assert release_validator.FORBIDDEN == AGENT_FORBIDDEN and KEY_FIELDS <= release_validator.FORBIDDEN


def _rechecksum(root: Path, rel: str) -> None:
    """Re-sign one edited file in MANIFEST.json and checksums/sha256.txt (a careful tamperer)."""
    data = (root / rel).read_bytes()
    man = json.loads((root / "MANIFEST.json").read_text())
    man["files"][rel] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    sums = "".join(
        f"{e['sha256']}  {r}\n" for r, e in sorted(man["files"].items()) if r != "checksums/sha256.txt"
    )
    (root / "checksums/sha256.txt").write_text(sums)
    s = (root / "checksums/sha256.txt").read_bytes()
    man["files"]["checksums/sha256.txt"] = {"sha256": hashlib.sha256(s).hexdigest(), "bytes": len(s)}
    (root / "MANIFEST.json").write_text(json.dumps(man, indent=2))


def _run(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(root / "scripts/validate_release.py"), str(root)], capture_output=True, text=True
    )


def test_validator_names_the_tampered_file(memeye_release: Path, tmp_path: Path) -> None:
    root = tmp_path / "rel"
    shutil.copytree(memeye_release, root)
    q = root / "data/memeye/questions.jsonl"
    rows = read_jsonl(q)
    rows[0]["cutoff"] = -1  # before its evidence
    q.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = _run(root)
    assert r.returncode == 1 and "data/memeye/questions.jsonl: checksum mismatch" in r.stdout

    _rechecksum(root, "data/memeye/questions.jsonl")  # re-signed: now the content checks see it
    r = _run(root)
    assert (
        r.returncode == 1 and "data/memeye/questions.jsonl:" in r.stdout and "after the cutoff -1" in r.stdout
    )


def test_a_key_in_an_agent_table_fails_validator_and_verify(memeye_release: Path, tmp_path: Path) -> None:
    root = tmp_path / "rel"
    shutil.copytree(memeye_release, root)
    rel = "agent/memeye/rounds.jsonl"
    rows = read_jsonl(root / rel)
    rows[0]["clue_for"] = ["memeye_X1_Y1_x"]
    (root / rel).write_text("".join(json.dumps(r) + "\n" for r in rows))
    _rechecksum(root, rel)
    r = _run(root)
    assert r.returncode == 1 and f"{rel}: evaluator key field(s) ['clue_for']" in r.stdout
    assert any(p.startswith(f"{rel}: evaluator key field(s)") for p in verify_release(root))
