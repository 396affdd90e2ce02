"""The documentation site builds strictly, and its generated pages follow the code."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from mnemoforge.schema_docs import walk
from mnemoforge.schemas.theme import Theme

ROOT = Path(__file__).resolve().parents[1]


def _hook():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "hooks" / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_theme_reference_lists_every_field_of_every_model() -> None:
    page = _hook().theme_reference()
    docs = walk(Theme)
    assert docs[0].model is Theme and len(docs) > 10
    for doc in docs:
        assert f"## {doc.model.__name__}" in page
        for field in doc.fields:
            assert f"| `{field.name}` |" in page, (doc.model.__name__, field.name)
    # limits come from the schema's own constraints
    assert "| `clips` | integer | `24` | ≥ 2, ≤ 5000 |" in page


def test_cli_reference_lists_every_command_and_no_machine_path() -> None:
    page = _hook().cli_reference()
    for command in ("build", "freeze", "gate", "verify", "push", "export", "evaluate", "theme check", "theme new"):
        assert f"## `mnemoforge {command}`" in page
    assert "`--seed`" in page and "`--outputs`" in page
    assert str(ROOT) not in page and "/home/" not in page


@pytest.mark.skipif(importlib.util.find_spec("material") is None, reason="extra `docs` (mkdocs-material) not installed")
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "theme" / "index.html").is_file()
    assert (tmp_path / "site" / "performance" / "index.html").is_file()
