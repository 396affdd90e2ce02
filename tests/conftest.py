"""Shared fixtures: a small theme that builds in seconds, and an isolated Prefect home."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from mnemoforge.theme_starter import starter_theme

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="session")
def _isolated_prefect(tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path_factory.mktemp("prefect-home")
    os.environ["PREFECT_HOME"] = str(home)
    os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] = "120"
    os.environ.pop("MNEMOFORGE_CRASH_AT", None)


def small_theme_data(**album: object) -> dict:
    data = yaml.safe_load(starter_theme("tiny"))
    # 320x180 keeps the suite fast; faces there are 36 px in medium shots, so the audit's floor is lowered
    data["album"].update({"clips": 6, "width": 320, "height": 180, "min_face_px": 32, **album})
    data["questions"]["total"] = 12
    return data


@pytest.fixture
def small_theme(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(small_theme_data(), sort_keys=False))
    return path


@pytest.fixture(scope="session")
def smm_release(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The shipped smm theme built once per test session (read by test_smm_family/_shortcuts)."""
    from mnemoforge.pipeline import build

    from .smm_release import THEME_PATH, Release

    res = build(THEME_PATH, outputs=tmp_path_factory.mktemp("smm"), workers=2)
    return Release(res.release_dir, res.run_dir)


TEST_THEMES = Path(__file__).resolve().parent / "themes"


@pytest.fixture(scope="session")
def ferry_release(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The disjoint smm test theme (tests/themes/ferry_crew.yaml, no pack) built once per session."""
    from mnemoforge.pipeline import build

    return build(TEST_THEMES / "ferry_crew.yaml", outputs=tmp_path_factory.mktemp("ferry"), workers=1)


@pytest.fixture(scope="session")
def bakery_release(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The disjoint memeye test theme (tests/themes/bakery_log.yaml, no pack) built once per session."""
    from mnemoforge.pipeline import build

    return build(TEST_THEMES / "bakery_log.yaml", outputs=tmp_path_factory.mktemp("bakery"), workers=1)


@pytest.fixture(scope="session")
def peer_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A five-clip album release of the starter theme, built once per session (peer-format tests)."""
    from mnemoforge.pipeline import build

    root = tmp_path_factory.mktemp("peer-build")
    data = yaml.safe_load(starter_theme("peer"))
    data["album"]["clips"] = 5
    theme = root / "peer.yaml"
    theme.write_text(yaml.safe_dump(data, sort_keys=False))
    return build(theme, outputs=root / "outputs", workers=2).release_dir


@pytest.fixture(scope="session")
def default_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default theme built once per session with the CLI, as a user runs it (the release folder)."""
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    out = tmp_path_factory.mktemp("default")
    r = CliRunner().invoke(app, ["build", "--outputs", str(out / "outputs"), "--orchestrator", "local"])
    assert r.exit_code == 0, r.output
    return Path(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def memeye_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped memeye theme built once per test session (release folder)."""
    from mnemoforge.pipeline import build

    theme = ROOT / "assets/themes/visual_diary.yaml"
    return build(theme, outputs=tmp_path_factory.mktemp("memeye-session"), workers=2).release_dir
