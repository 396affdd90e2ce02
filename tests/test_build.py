"""End-to-end builds of a small theme: layout, release, verify, determinism, resume, catalog."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge.backends.video import probe
from mnemoforge.cli import app
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.pipeline import build
from mnemoforge.store.catalog import Catalog
from mnemoforge.validators.gate_runner import gates_for

from .conftest import linked_copy, small_theme_data

CACHED_STAGES = ("plan", "episodes", "render", "questions", "gates")

RUN_LAYOUT = [
    "run.json",
    "theme.yaml",
    "stages/plan.json",
    "stages/episodes.json",
    "stages/render.json",
    "stages/questions.json",
    "stages/gates.json",
    "world/world.json",
    "episodes/clips.jsonl",
    "episodes/observations.jsonl",
    "episodes/captions.jsonl",
    "media/index.jsonl",
    "media/voice_check.json",
    "questions/candidates.jsonl",
    "gates/verdicts.jsonl",
    "gates/funnel.json",
]
RELEASE_LAYOUT = [
    "MANIFEST.json",
    "README.md",
    "checksums/sha256.txt",
    "theme.yaml",
    "config.resolved.json",
    "dataset_statistics.json",
    "data/world.json",
    "data/icm/questions.jsonl",
    "data/icm/questions.parquet",
    "data/icm/clips.jsonl",
    "data/icm/clips.parquet",
    "data/icm/observations.jsonl",
    "data/icm/captions.jsonl",
    "data/icm/captions.parquet",
    "gates/verdicts.jsonl",
    "gates/funnel.json",
    "gates/rejected.jsonl",
    "schemas/question.schema.json",
    "schemas/theme.schema.json",
    "schemas/release_manifest.schema.json",
    "media/index.jsonl",
]


@pytest.fixture(scope="module")
def first_build(tiny_build):  # type: ignore[no-untyped-def]
    return tiny_build  # (theme, outputs, result), built once per session (tests/conftest.py)


def test_run_folder_and_release_layout(first_build) -> None:
    _, outputs, res = first_build
    for rel in RUN_LAYOUT:
        assert (res.run_dir / rel).is_file(), rel
    assert res.run_dir.parent == outputs / "runs"
    assert res.release_dir == outputs / "releases" / "tiny" / "0.1.0"
    for rel in RELEASE_LAYOUT:
        assert (res.release_dir / rel).is_file(), rel
    assert (outputs / "catalog.duckdb").is_file()
    manifest = json.loads((res.release_dir / "MANIFEST.json").read_text())
    files = {p.relative_to(res.release_dir).as_posix() for p in res.release_dir.rglob("*") if p.is_file()}
    assert set(manifest["files"]) == files - {"MANIFEST.json"}
    assert manifest["seed"] == 1 and manifest["counts"]["clips"] == 6


def test_release_media_is_real(first_build) -> None:
    _, _, res = first_build
    clips = read_jsonl(res.release_dir / "data/icm/clips.jsonl")
    assert clips[0]["calibration"] is True
    for c in clips:
        info = probe(res.release_dir / c["video"])
        planned = sum(s["duration_s"] for s in c["shots"])
        assert info.has_video and info.has_audio
        assert abs(info.duration_s - planned) <= 0.15, (c["id"], info.duration_s, planned)
        labelled = res.release_dir / f"data/icm/annotations/transcripts/{c['id']}.labelled.json"
        t = json.loads(labelled.read_text())
        assert len(t["lines"]) == sum(len(s["dialogue"]) for s in c["shots"])
    anchors = list((res.release_dir / "media/anchors").glob("*.png"))
    assert len(anchors) == 3
    stats = json.loads((res.release_dir / "dataset_statistics.json").read_text())
    assert stats["voice_distinguishability"]["accuracy"] >= 0.9


def test_verify_ok_then_names_the_altered_file(first_build, tmp_path: Path) -> None:
    import shutil

    _, _, res = first_build
    r = CliRunner().invoke(app, ["verify", str(res.release_dir)])
    assert r.exit_code == 0 and "OK" in r.output
    copy = tmp_path / "rel"
    shutil.copytree(res.release_dir, copy)
    target = copy / "data/icm/questions.jsonl"
    target.write_text(target.read_text().replace('"answer":"', '"answer":"X', 1))
    r = CliRunner().invoke(app, ["verify", str(copy)])
    assert r.exit_code == 1
    assert "data/icm/questions.jsonl: checksum mismatch" in r.output


def test_verify_rederives_answers_even_with_consistent_checksums(first_build, tmp_path: Path) -> None:
    """A tampered answer with recomputed checksums is still caught by re-deriving it."""
    import shutil

    from mnemoforge.validators.release_check import verify_release

    _, _, res = first_build
    copy = tmp_path / "rel"
    shutil.copytree(res.release_dir, copy)
    target = copy / "data/icm/questions.jsonl"
    target.write_text(target.read_text().replace('"answer":"', '"answer":"X', 1))
    from mnemoforge.hashing import sha256_file

    manifest = json.loads((copy / "MANIFEST.json").read_text())
    sums = copy / "checksums/sha256.txt"
    old = manifest["files"]["data/icm/questions.jsonl"]["sha256"]
    sums.write_text(sums.read_text().replace(old, sha256_file(target)))
    for rel in ("data/icm/questions.jsonl", "checksums/sha256.txt"):
        manifest["files"][rel] = {"sha256": sha256_file(copy / rel), "bytes": (copy / rel).stat().st_size}
    (copy / "MANIFEST.json").write_text(json.dumps(manifest))
    problems = verify_release(copy)
    assert any(p.startswith("data/icm/questions.jsonl: icm_") and "symbolic_rederive" in p for p in problems)
    # and the card's Parquet config no longer agrees with the JSONL it was written from
    assert any(p.startswith("data/icm/questions.parquet: row ") for p in problems), problems
    assert not any("checksum" in p for p in problems)


def test_same_seed_same_manifest_and_resume_reuses_work(first_build, tmp_path: Path) -> None:
    theme, outputs, res = first_build
    copy = linked_copy(outputs, tmp_path / "outputs")  # the session's build stays untouched
    again = build(theme, outputs=copy, workers=1)
    assert res.ran == dict.fromkeys(CACHED_STAGES, True)  # the first build ran every stage
    assert again.ran == dict.fromkeys(CACHED_STAGES, False)  # the second recomputed nothing
    assert again.release_dir == copy / res.release_dir.relative_to(outputs)
    manifest = (res.release_dir / "MANIFEST.json").read_bytes()
    assert (again.release_dir / "MANIFEST.json").read_bytes() == manifest


def test_same_seed_elsewhere_is_byte_identical_and_other_seed_differs(first_build, tmp_path: Path) -> None:
    theme, _, res = first_build
    other = build(theme, outputs=tmp_path / "o", workers=1)
    assert (other.release_dir / "MANIFEST.json").read_bytes() == (
        res.release_dir / "MANIFEST.json"
    ).read_bytes()
    s2 = build(theme, seed=2, outputs=tmp_path / "o", workers=1)
    assert s2.release_dir.parent.name == "tiny-s2"
    w1 = json.loads((res.release_dir / "data/world.json").read_text())
    w2 = json.loads((s2.release_dir / "data/world.json").read_text())
    assert w1["seed"] == 1 and w2["seed"] == 2 and w1["events"] != w2["events"]


def test_malformed_theme_writes_nothing(tmp_path: Path) -> None:
    data = small_theme_data()
    data["relations"][0]["b"] = "ghost"
    theme = tmp_path / "bad.yaml"
    theme.write_text(yaml.safe_dump(data))
    r = CliRunner().invoke(
        app, ["build", str(theme), "--outputs", str(tmp_path / "out"), "--orchestrator", "local"]
    )
    assert r.exit_code == 2 and "relations.0.b" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "out").exists()


def test_catalog_queries(first_build) -> None:
    _, outputs, res = first_build
    with Catalog(outputs / "catalog.duckdb") as cat:
        run_id = res.run_dir.name
        counts = cat.counts(run_id)
        n_q = len(read_jsonl(res.run_dir / "questions/candidates.jsonl"))
        assert (
            counts["questions"] == n_q
            and counts["verdicts"] == n_q * len(gates_for("icm"))
            and counts["runs"] == 1
        )
        rows = dict(cat.query("SELECT category, count(*) FROM questions WHERE kept GROUP BY category"))
        kept = read_jsonl(res.release_dir / "data/icm/questions.jsonl")
        assert rows == {c: sum(q["category"] == c for q in kept) for c in {q["category"] for q in kept}}
        assert sum(rows.values()) == len(kept) > 0
        per_clip = cat.query("SELECT clip_id, count(DISTINCT question_id) FROM evidence GROUP BY clip_id")
        assert per_clip and all(c.startswith("c0") and c != "c0000" for c, _ in per_clip)


def _build_cmd(theme: Path, outputs: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mnemoforge.cli",
        "build",
        str(theme),
        "--outputs",
        str(outputs),
        "--orchestrator",
        "local",
        "--workers",
        "1",
    ]


@pytest.mark.integration  # two CLI subprocesses per case (about 12 s each on 2 cores)
@pytest.mark.parametrize("crash_at", ["render:clip:3", "after:questions"])
def test_killed_build_resumes_to_the_same_release(first_build, tmp_path: Path, crash_at: str) -> None:
    theme, outputs, res = first_build
    out = tmp_path / "o"
    env = {**os.environ, "MNEMOFORGE_CRASH_AT": crash_at}
    killed = subprocess.run(_build_cmd(theme, out), env=env, capture_output=True, text=True)
    assert killed.returncode == 137, killed.stderr
    assert not (out / "releases" / "tiny" / "0.1.0").exists()
    run_dir = out / "runs" / res.run_dir.name
    done_before = {p.name for p in (run_dir / "stages").glob("*.json")}
    if crash_at.startswith("render"):
        assert done_before == {"plan.json", "episodes.json"}
        assert len(list((run_dir / "media/clips").glob("*.mp4"))) == 3  # finished clips survive
    env.pop("MNEMOFORGE_CRASH_AT")
    ok = subprocess.run(_build_cmd(theme, out), env=env, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    release = Path(ok.stdout.strip().splitlines()[-1])
    assert (release / "MANIFEST.json").read_bytes() == (res.release_dir / "MANIFEST.json").read_bytes()
    assert not list(out.rglob(".tmp-*"))
    with Catalog(out / "catalog.duckdb") as cat:
        n = cat.query("SELECT count(*), count(DISTINCT question_id) FROM questions")[0]
        assert n[0] == n[1]
