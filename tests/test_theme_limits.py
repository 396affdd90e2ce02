"""Theme input is bounded: the faults the third reliability round named end as one clear error,
quickly, with nothing written; paths stay inside the theme's folder; and a Hypothesis fuzz of the
theme finds no input that ``theme check`` lets through to a crash.

The full campaign (every mutation class over the three families, and builds of what theme check
accepts) is ``benchmarks/faults.py``; its classes live in ``benchmarks/theme_mutations.py``.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mnemoforge import yaml_io
from mnemoforge.cli import app
from mnemoforge.theme_io import ThemeError
from mnemoforge.theme_starter import starter_theme

from .conftest import small_theme_data

CHECK_DEADLINE_S = 10.0  # a hang guard; the goal (a second) is measured by benchmarks/faults.py


def _base(family: str) -> dict:
    if family == "icm":
        data = small_theme_data()
    else:
        data = yaml_io.safe_load(starter_theme("tiny", family))
    return yaml.safe_load(yaml.safe_dump(data, default_flow_style=False))  # dates as the loader reads them


def _set(data: dict, dotted: str, value: Any) -> dict:
    out = copy.deepcopy(data)
    node: Any = out
    keys = [int(k) if k.isdigit() else k for k in dotted.split(".")]
    for k in keys[:-1]:
        node = node[k] if isinstance(node, list) else node.setdefault(k, {})
    node[keys[-1]] = value
    return out


def _write(tmp_path: Path, data: Any, raw: str | None = None) -> Path:
    theme = tmp_path / "themes" / "bad.yaml"
    theme.parent.mkdir(parents=True, exist_ok=True)
    theme.write_text(raw if raw is not None else yaml.safe_dump(data, sort_keys=False, width=1 << 30))
    return theme


def _one_clean_line(theme: Path, tmp_path: Path, field: str, build: bool = False) -> None:
    cmds = [["theme", "check", str(theme)]]
    out = tmp_path / "outputs"
    if build:
        cmds.append(["build", str(theme), "--outputs", str(out), "--orchestrator", "local", "--workers", "1"])
    for args in cmds:
        t0 = time.perf_counter()
        r = CliRunner().invoke(app, args)
        took = time.perf_counter() - t0
        assert r.exit_code == 2, (args[0], r.exit_code, r.output, r.exception)
        assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
        assert "Traceback" not in r.output
        lines = [ln for ln in r.output.splitlines() if ln.strip()]
        assert len(lines) == 1, lines  # one problem, one line
        assert str(theme) in lines[0] and field in lines[0], (field, lines[0])
        assert len(lines[0]) < 600, "the message never echoes the huge value"
        assert took < CHECK_DEADLINE_S, (args[0], took)
    assert not (out / "runs").exists() and not (out / "releases").exists()


# (id, family, field named, mutation)
ROWS = [
    ("name_of_1_mb", "icm", "<file>", lambda d: _set(d, "cast.0.name", "A" + "n" * (1 << 20))),
    ("name_of_100_kb", "icm", "cast.0.name", lambda d: _set(d, "cast.0.name", "A" + "n" * 100_000)),
    ("name_of_81", "icm", "cast.0.name", lambda d: _set(d, "cast.0.name", "A" + "n" * 80)),
    ("aliases_100k", "icm", "<file>",
     lambda d: _set(d, "cast.0.aliases", [f"A{i}" for i in range(100_000)])),
    ("aliases_5000", "icm", "cast.0.aliases",
     lambda d: _set(d, "cast.0.aliases", [f"A{i}" for i in range(5000)])),
    ("aliases_9", "icm", "cast.0.aliases",
     lambda d: _set(d, "cast.0.aliases", [f"Al {i}" for i in range(9)])),
    ("rounds_per_day_1e9", "smm", "smm.rounds_per_day", lambda d: _set(d, "smm.rounds_per_day", 1e9)),
    ("rounds_over_the_span", "smm", "smm.rounds_per_day",
     lambda d: _set(_set(d, "smm.rounds_per_day", 40), "end", "2031-01-01")),
    ("prices_dev_zero", "icm", "prices", lambda d: _set(d, "prices", "/dev/zero")),
    ("prices_escape", "icm", "prices", lambda d: _set(d, "prices", "../../../etc/passwd")),
    ("prompts_dir_escape", "icm", "gates.prompts_dir", lambda d: _set(d, "gates.prompts_dir", "../../")),
    ("prompt_name_is_a_path", "icm", "text.prompt", lambda d: _set(d, "text", {"prompt": "../../x"})),
    ("reference_wav_dev_zero", "icm", "cast.0.voice.reference_wav",
     lambda d: _set(d, "cast.0.voice", {"engine": "coqui", "reference_wav": "/dev/zero"})),
    ("ten_thousand_years", "icm", "start",
     lambda d: _set(_set(d, "start", "0001-01-01"), "end", "9999-12-31")),
    ("eleven_years", "icm", "end", lambda d: _set(d, "end", "2036-09-01")),
    ("questions_1e9", "icm", "questions.total", lambda d: _set(d, "questions.total", 10**9)),
    ("icm_asks_nothing", "icm", "questions.total", lambda d: _set(d, "questions.total", 0)),
    ("smm_asks_nothing", "smm", "smm.tasks", lambda d: _set(d, "smm.tasks", {
        "single_hop": 0, "multi_hop": 0, "conflict_resolution": 0, "preference": 0, "function_calling": 0})),
    ("memeye_asks_nothing", "memeye", "memeye.per_cell",
     lambda d: _set(_set(d, "memeye.per_cell", 0), "memeye.targets", {})),
    ("shots_per_clip_1e9", "icm", "album.shots_per_clip",
     lambda d: _set(d, "album.shots_per_clip", [1, 10**9])),
    ("update_days_1e9", "smm", "smm.update_days", lambda d: _set(d, "smm.update_days", [1, 10**9])),
    ("unknown_family_named_as_family", "memeye", "family", lambda d: _set(d, "family", "")),
]  # fmt: skip


@pytest.mark.parametrize(("family", "field", "mutate"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_named_faults_are_one_quick_line(family: str, field: str, mutate: Any, tmp_path: Path) -> None:
    _one_clean_line(_write(tmp_path, mutate(_base(family))), tmp_path, field)


def test_a_hang_class_is_refused_by_build_too(tmp_path: Path) -> None:
    theme = _write(tmp_path, _set(_base("icm"), "prices", "/dev/zero"))
    _one_clean_line(theme, tmp_path, "prices", build=True)


def test_yaml_alias_bomb_and_huge_file_are_refused(tmp_path: Path) -> None:
    text = yaml.safe_dump(_base("icm"), sort_keys=False)
    bomb = (
        text
        + "bomb_0: &b0 [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(f"bomb_{i}: &b{i} [{', '.join([f'*b{i - 1}'] * 10)}]\n" for i in range(1, 9))
    )
    _one_clean_line(_write(tmp_path, None, bomb), tmp_path, "values")
    _one_clean_line(_write(tmp_path, None, text + "# " + "p" * (1 << 20) + "\n"), tmp_path, "<file>")


def test_a_fifo_named_as_prices_is_refused_without_blocking(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "themes" / "prices.yaml"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)  # opening it to read would block until a writer came
    _one_clean_line(_write(tmp_path, _set(_base("icm"), "prices", "prices.yaml")), tmp_path, "prices")


def test_relative_paths_start_at_the_theme_folder_and_may_be_allowed_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mnemoforge.theme_checks import check_theme

    prompts = tmp_path / "themes" / "prompts"
    prompts.mkdir(parents=True)
    theme = _write(tmp_path, _set(_base("icm"), "gates.prompts_dir", "prompts"))
    monkeypatch.chdir(tmp_path)  # not the theme's folder: the path is still found
    t = check_theme(theme)
    assert t.gates.prompts_dir == str(prompts)
    shared = tmp_path / "shared_prompts"
    shared.mkdir()
    theme = _write(tmp_path, _set(_base("icm"), "gates.prompts_dir", str(shared)))
    with pytest.raises(ThemeError, match="outside the theme's folder"):
        check_theme(theme)
    monkeypatch.setenv("MNEMOFORGE_ALLOWED_PATHS", str(shared))
    assert check_theme(theme).gates.prompts_dir == str(shared)


def test_limits_are_stated_in_the_schema() -> None:
    from mnemoforge.schemas import limits
    from mnemoforge.schemas.theme import Theme

    schema = Theme.model_json_schema()
    person = schema["$defs"]["PersonSpec"]["properties"]
    assert person["name"]["maxLength"] == limits.MAX_NAME
    assert person["aliases"]["maxItems"] == limits.MAX_ALIASES
    assert schema["properties"]["cast"]["maxItems"] == limits.MAX_CAST
    import ast

    body = ast.parse(Path(limits.__file__).read_text()).body
    for stmt, after in zip(body, body[1:], strict=False):  # every limit is followed by its reason
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id.startswith("MAX_") for t in stmt.targets
        ):
            assert isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant), ast.dump(stmt)


# --- Hypothesis: every generated theme fails `theme check` cleanly or passes it ---------------

_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.text(alphabet="ab_-./#0123456789", min_size=0, max_size=12),
    st.sampled_from(["", "../../", "/dev/zero", "#zzzzzz", "2025-02-30", "icm", "smm", "memeye", "x" * 5000]),
)
_value = st.recursive(
    _leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def _paths(node: Any, path: tuple = ()) -> list[tuple]:
    out = [path] if path else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:2]):
            out += _paths(v, (*path, i))
    return out


@st.composite
def mutated_themes(draw: st.DrawFn) -> dict:
    family = draw(st.sampled_from(["icm", "smm", "memeye"]))
    data = _base(family)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(data)
        path = draw(st.sampled_from(paths))
        node: Any = data
        for k in path[:-1]:
            node = node[k]
        if draw(st.booleans()) and isinstance(node, dict):
            node.pop(path[-1], None)  # a field left out
        else:
            node[path[-1]] = draw(_value)
    return data


def _check_is_clean(data: dict, folder: Path) -> Any:
    from mnemoforge.theme_checks import check_theme

    folder.mkdir(parents=True, exist_ok=True)
    theme = folder / "fuzz.yaml"
    theme.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    try:
        return check_theme(theme)
    except ThemeError as e:
        assert e.problems and all(f and m for f, m in e.problems), e
        assert str(theme) in str(e)
        return None


FUZZ = settings(
    deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@settings(FUZZ, max_examples=25)
@given(mutated_themes())
def test_fuzzed_themes_fail_theme_check_cleanly_or_pass(
    tmp_path_factory: pytest.TempPathFactory, data: dict
) -> None:
    _check_is_clean(data, tmp_path_factory.mktemp("fuzz"))


@pytest.mark.slow
@settings(FUZZ, max_examples=12)
@given(mutated_themes())
def test_fuzzed_themes_that_pass_theme_check_build(
    tmp_path_factory: pytest.TempPathFactory, data: dict
) -> None:
    from mnemoforge.pipeline import build

    folder = tmp_path_factory.mktemp("fuzz-build")
    if _check_is_clean(data, folder) is None:
        return
    res = build(folder / "fuzz.yaml", outputs=folder / "out", workers=1, checked=True)
    assert (res.release_dir / "MANIFEST.json").is_file()
