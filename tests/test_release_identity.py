"""Releases load as themselves and do not depend on the installed extras.

* Two releases of one name and version (folders both called ``0.1.0``) load side by side in one
  Hugging Face cache, each giving its own rows, and ``load_dataset(folder)`` needs no config name.
* A build without MiniLM (``MNEMOFORGE_WITHOUT_MINILM=1``: what the base install builds) says so in
  one line, in its run id and code version, and freezes ``0.1.0+no-minilm``; building again with
  MiniLM (the extra added) into the same outputs folder freezes the standard ``0.1.0`` beside it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
import yaml

from mnemoforge.exporters.tables import read_jsonl

from .conftest import ROOT, small_theme_data


def _load(release: Path, cache: Path, config: str | None = None) -> list[dict]:
    code = (
        "import json, sys, datasets\n"
        "args = [sys.argv[1]] + ([sys.argv[2]] if len(sys.argv) > 2 else [])\n"
        "ds = datasets.load_dataset(*args, split='test')\n"
        "print(json.dumps(ds.to_dict()['id']))\n"
    )
    env = {**os.environ, "HF_DATASETS_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    args = [sys.executable, "-c", code, str(release)] + ([config] if config else [])
    r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.integration
@pytest.mark.skipif(find_spec("datasets") is None, reason="needs the hub extra (datasets)")
def test_two_releases_of_one_name_and_version_load_apart_in_one_cache(  # type: ignore[no-untyped-def]
    tiny_build, tiny4_build, tmp_path: Path
) -> None:
    a, b = tiny_build[2].release_dir, tiny4_build[2].release_dir
    assert a.name == b.name == "0.1.0" and a != b
    ids = {r: [q["id"] for q in read_jsonl(r / "data/icm/questions.jsonl")] for r in (a, b)}
    assert ids[a] != ids[b]
    cache = tmp_path / "hf-cache"
    assert _load(a, cache, "icm_questions") == ids[a]
    assert _load(b, cache, "icm_questions") == ids[b], "the second release gave the first one's rows"
    assert _load(b, cache) == ids[b], "the default config is the family's questions"


def _build(theme: Path, outputs: Path, *, without_minilm: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MNEMOFORGE_WITHOUT_MINILM"}
    if without_minilm:
        env["MNEMOFORGE_WITHOUT_MINILM"] = "1"
    cmd = [sys.executable, "-m", "mnemoforge.cli", "build", str(theme), "--outputs", str(outputs)]
    cmd += ["--orchestrator", "local", "--workers", "1", "--quiet"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=900, check=False)


@pytest.mark.integration
def test_a_build_without_minilm_says_so_and_never_collides_with_the_standard_one(tmp_path: Path) -> None:
    theme = tmp_path / "tiny.yaml"
    theme.write_text(yaml.safe_dump(small_theme_data(clips=4), sort_keys=False))
    out = tmp_path / "outputs"
    base = _build(theme, out, without_minilm=True)
    assert base.returncode == 0, base.stderr[-3000:]
    warned = [ln for ln in base.stderr.splitlines() if "no-minilm" in ln]
    assert len(warned) == 1 and "not the 0.1.0 a full install builds" in warned[0], base.stderr[-2000:]
    rel_base = Path(base.stdout.strip().splitlines()[-1])
    assert rel_base.name == "0.1.0+no-minilm"
    m = json.loads((rel_base / "MANIFEST.json").read_text())
    assert m["code_version"].endswith("+no-minilm") and m["version"] == "0.1.0+no-minilm"
    full = _build(theme, out, without_minilm=False)  # the extra added: no "already exists", no traceback
    assert full.returncode == 0, full.stderr[-3000:]
    assert "Traceback" not in full.stderr and "already exists" not in full.stderr
    rel_full = Path(full.stdout.strip().splitlines()[-1])
    assert rel_full.name == "0.1.0" and rel_full.parent == rel_base.parent
    assert json.loads((rel_full / "MANIFEST.json").read_text())["run_id"] != m["run_id"]
    from mnemoforge.validators.release_check import verify_release

    assert verify_release(rel_base) == [] and verify_release(rel_full) == []
