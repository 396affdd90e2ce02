"""A fourth family as an installed package (``tests/plugin_family/``): registered through the
``mnemoforge.families`` entry-point group only, it builds, freezes, verifies, evaluates with the
offline baseline and with its own registered method, exports in its own registered peer format,
and has a report page, with no line of it in mnemoforge (issue 32)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mnemoforge import registry

PLUGIN = Path(__file__).parent / "plugin_family"
pytestmark = pytest.mark.integration  # pip and CLI subprocesses (about a minute on 2 cores)


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The plugin installed (offline, no dependencies) into a folder of its own, on PYTHONPATH."""
    target = tmp_path_factory.mktemp("site")
    work = tmp_path_factory.mktemp("src") / "plugin"  # build from a copy: no build/ in the checkout
    subprocess.run(["cp", "-r", str(PLUGIN), str(work)], check=True)
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-build-isolation"]
    r = subprocess.run([*pip, "--target", str(target), str(work)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(target), os.environ.get("PYTHONPATH")]))
    )


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    r = subprocess.run(
        [sys.executable, "-m", "mnemoforge.cli", *args], capture_output=True, text=True, env=env, timeout=600
    )
    assert r.returncode == 0, (args, r.stdout[-2000:], r.stderr[-3000:])
    return r


def test_the_plugin_is_registered_only_where_it_is_installed(plugin_env: dict[str, str]) -> None:
    assert "diary" not in registry.names(registry.FAMILIES_GROUP)  # not in this test process
    code = "from mnemoforge import registry; print(registry.targets(registry.FAMILIES_GROUP)['diary'])"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=plugin_env)
    assert r.stdout.strip() == "mnemoforge_diary.family:FAMILY", r.stderr
    src = Path(registry.__file__).parent
    assert not [p for p in src.rglob("*.py") if "mnemoforge_diary" in p.read_text()]  # nothing names it


def test_a_fourth_family_builds_verifies_evaluates_exports_and_reports(
    plugin_env: dict[str, str], tmp_path: Path, prefect_api: str
) -> None:
    out = tmp_path / "outputs"
    _cli(plugin_env, "theme", "check", str(PLUGIN / "theme.yaml"))
    flow_env = {**plugin_env, "PREFECT_API_URL": prefect_api}  # the session's server (tests/conftest.py)
    built = _cli(flow_env, "build", str(PLUGIN / "theme.yaml"), "--outputs", str(out), "--quiet")
    release = Path(built.stdout.strip().splitlines()[-1])
    manifest = json.loads((release / "MANIFEST.json").read_text())
    assert manifest["family"] == "diary" and manifest["counts"]["days"] == 14
    days = [json.loads(line) for line in (release / "data/diary/days.jsonl").read_text().splitlines()]
    assert len(days) == 14  # the family's own release table
    questions = (release / "data/diary/questions.jsonl").read_text().splitlines()
    assert questions and all(json.loads(q)["category"] == "where_was" for q in questions)
    funnel = json.loads((release / "gates/funnel.json").read_text())
    assert any(s["gate"] == "diary_one_entry" for s in funnel["stages"])  # the family's own gate ran

    assert "OK" in _cli(plugin_env, "verify", str(release)).stdout

    ev = tmp_path / "eval"
    _cli(
        plugin_env,
        "evaluate",
        str(release),
        "--method",
        "oracle_evidence",
        "--model",
        "symbolic",
        "--out",
        str(ev),
    )
    summary = json.loads((ev / "results.json").read_text())["summary"]
    assert summary["answered"] == len(questions) and summary["failed"] == 0 and summary["score"] == 1.0
    week = tmp_path / "week"  # the package's own evaluation method (mnemoforge.methods group)
    _cli(
        plugin_env,
        "evaluate",
        str(release),
        "--method",
        "diary_last_week",
        "--model",
        "symbolic",
        "--out",
        str(week),
    )
    result = json.loads((week / "results.json").read_text())
    assert result["method"] == "diary_last_week" and result["summary"]["failed"] == 0
    assert {it["context"]["observations"] for it in result["items"]} == {7}  # the last week's entries

    exported = tmp_path / "export"  # the family's own peer format, registered by the same package
    _cli(plugin_env, "export", str(release), "--format", "diary-csv", "--out", str(exported))
    rows = (exported / "diary_qa.csv").read_text().splitlines()
    assert rows[0] == "key,question,answer,day,evidence" and len(rows) == len(questions) + 1
    marker = json.loads((exported / "mnemoforge_export.json").read_text())
    assert marker["complete"] and {it["id"] for it in marker["items"]} == {
        json.loads(q)["id"] for q in questions
    }
    cmd = [sys.executable, "-m", "mnemoforge.cli", "export", str(release), "--format", "locomo", "--out"]
    refused = subprocess.run([*cmd, str(tmp_path / "x")], capture_output=True, text=True, env=plugin_env)
    assert refused.returncode != 0 and "--format diary-csv" in refused.stdout + refused.stderr

    page = tmp_path / "report"
    _cli(plugin_env, "report", str(release), "--out", str(page))
    html = (page / "index.html").read_text()
    assert "family diary" in html and "episodes" in html

    local = ["--orchestrator", "local", "--quiet"]  # the plain executor: the same stage loop, same bytes
    again = _cli(plugin_env, "build", str(PLUGIN / "theme.yaml"), "--outputs", str(tmp_path / "o2"), *local)
    other = Path(again.stdout.strip().splitlines()[-1])
    assert (other / "MANIFEST.json").read_bytes() == (release / "MANIFEST.json").read_bytes()


def _refused(env: dict[str, str], *args: str) -> str:
    r = subprocess.run(
        [sys.executable, "-m", "mnemoforge.cli", *args], capture_output=True, text=True, env=env, timeout=600
    )
    assert r.returncode != 0, (args, r.stdout[-2000:])
    return r.stdout + r.stderr


def test_a_fourth_family_is_priced_and_refuses_what_it_would_drop(
    plugin_env: dict[str, str], tmp_path: Path
) -> None:
    """The shared preflight prices it from the contract's defaults; a theme setting it does not read
    (``theme_options`` is empty) and ``--workers`` (``uses_workers = False``) are errors naming them."""
    import yaml

    pf = json.loads(_cli(plugin_env, "build", str(PLUGIN / "theme.yaml"), "--preflight", "--json").stdout)
    assert pf["family"] == "diary" and pf["plan"]["candidates"] == 14, pf["plan"]
    data = yaml.safe_load((PLUGIN / "theme.yaml").read_text())
    theme = tmp_path / "openai.yaml"
    theme.write_text(yaml.safe_dump({**data, "render": {"image": "openai"}}, sort_keys=False))
    said = _refused(plugin_env, "theme", "check", str(theme))
    assert "render.image" in said and "family diary does not use this setting" in said
    out = tmp_path / "out"
    said = _refused(plugin_env, "build", str(PLUGIN / "theme.yaml"), "--outputs", str(out), "--workers", "2")
    assert "--workers" in said and not out.exists()  # refused before any work started
