"""Options a build cannot use are errors naming them, never silently dropped (issue 32), and the
plain executor and the Prefect flow share one stage loop (``pipeline.stage_loop``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge import yaml_io
from mnemoforge.cli import app
from mnemoforge.pipeline import STAGE_FUNCS, stage_loop
from mnemoforge.theme_checks import ThemeError, check_theme

THEMES = Path(__file__).parent / "themes"


def _memeye_theme(tmp_path: Path, **render: object) -> Path:
    data = yaml_io.safe_load((THEMES / "orchard_memeye.yaml").read_text())
    data.setdefault("render", {}).update(render)
    path = tmp_path / "memeye.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_a_render_backend_the_family_does_not_read_fails_theme_check(tmp_path: Path) -> None:
    with pytest.raises(ThemeError) as e:
        check_theme(_memeye_theme(tmp_path, image="openai"))
    assert "render.image" in str(e.value) and "does not use this setting" in str(e.value)
    r = CliRunner().invoke(app, ["theme", "check", str(_memeye_theme(tmp_path, image="openai"))])
    assert r.exit_code != 0 and "render.image" in r.output


def test_a_setting_written_at_its_default_is_no_error(tmp_path: Path) -> None:
    assert check_theme(_memeye_theme(tmp_path, image="procedural")).family == "memeye"


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--orchestrator", "local", "--dask-address", "tcp://127.0.0.1:8786"], "--dask-address"),
        (["--task-runner", "threads", "--dask-address", "tcp://127.0.0.1:8786"], "--task-runner dask"),
        (["--workers", "3"], "--workers"),
    ],
)
def test_an_option_the_build_would_drop_is_an_error(tmp_path: Path, extra: list[str], said: str) -> None:
    theme = _memeye_theme(tmp_path)  # memeye draws its pictures in this process: --workers is unused
    r = CliRunner().invoke(app, ["build", str(theme), "--outputs", str(tmp_path / "out"), *extra])
    assert r.exit_code != 0, r.output
    assert said in r.output
    assert not (tmp_path / "out").exists()  # refused before any work started


def test_the_stage_loop_runs_every_stage_in_order_through_the_runner() -> None:
    calls: list[str] = []
    states: list[tuple[str, str]] = []

    def runner(ctx: object, name: str) -> tuple[bool, str]:
        calls.append(name)
        return name != "plan", "Cached" if name == "plan" else "Completed"

    ran = stage_loop(object(), runner, lambda s, st: states.append((s, st)))  # type: ignore[arg-type]
    names = [n for n, _ in STAGE_FUNCS]
    assert calls == names and list(ran) == names and ran["plan"] is False
    assert states[:2] == [("plan", "start"), ("plan", "Cached")] and len(states) == 2 * len(names)
