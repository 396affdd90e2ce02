"""The stage cache: a stage re-runs exactly when its key or its recorded outputs change."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemoforge import pipeline
from mnemoforge.store import atomic, code_deps
from mnemoforge.store.layout import STAGES, RunLayout
from mnemoforge.store.stages import is_fresh, read_marker, run_stage
from mnemoforge.theme_io import DEFAULT_THEME  # noqa: E402

THEME = Path(__file__).resolve().parent.parent / "assets/themes/office_launch.yaml"


class Work:
    """A stage body that writes two files and counts its calls."""

    def __init__(self, run: RunLayout, text: str = "a") -> None:
        self.run, self.text, self.calls = run, text, 0

    def __call__(self) -> list[Path]:
        self.calls += 1
        return [
            atomic.write_text(self.run.root / "out/one.txt", self.text),
            atomic.write_text(self.run.root / "out/two.txt", self.text * 2),
        ]


@pytest.fixture
def run(tmp_path: Path) -> RunLayout:
    r = RunLayout(tmp_path / "run")
    r.root.mkdir()
    return r


def test_a_fresh_stage_is_skipped_and_its_marker_records_output_hashes(run: RunLayout) -> None:
    w = Work(run)
    marker, ran = run_stage(run, "plan", "k1", w)
    assert ran and w.calls == 1
    assert marker.key == "k1" and sorted(marker.outputs) == ["out/one.txt", "out/two.txt"]
    assert marker.outputs["out/one.txt"] == "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
    again, ran = run_stage(run, "plan", "k1", w)
    assert not ran and w.calls == 1 and again == marker


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda r: (r.root / "out/two.txt").unlink(), id="output-deleted"),
        pytest.param(lambda r: (r.root / "out/one.txt").write_text("tampered"), id="output-altered"),
        pytest.param(lambda r: r.marker("plan").write_text("{not json"), id="marker-corrupt"),
        pytest.param(lambda r: r.marker("plan").unlink(), id="marker-missing"),
    ],
)
def test_a_spoiled_stage_re_runs(run: RunLayout, spoil) -> None:
    w = Work(run)
    run_stage(run, "plan", "k1", w)
    spoil(run)
    assert not is_fresh(run, "plan", "k1")
    _, ran = run_stage(run, "plan", "k1", w)
    assert ran and w.calls == 2
    assert (run.root / "out/one.txt").read_text() == "a" and is_fresh(run, "plan", "k1")


def test_a_new_key_re_runs_and_replaces_the_marker(run: RunLayout) -> None:
    run_stage(run, "plan", "k1", Work(run))
    w2 = Work(run, "b")
    marker, ran = run_stage(run, "plan", "k2", w2)
    assert ran and read_marker(run, "plan") == marker and marker.key == "k2"
    assert not is_fresh(run, "plan", "k1")


def test_a_failing_stage_leaves_no_marker_and_earlier_outputs_intact(run: RunLayout) -> None:
    run_stage(run, "plan", "k1", Work(run))

    def boom() -> list[Path]:
        raise RuntimeError("stage failed")

    with pytest.raises(RuntimeError):
        run_stage(run, "episodes", "e1", boom)
    assert read_marker(run, "episodes") is None
    assert is_fresh(run, "plan", "k1") and (run.root / "out/one.txt").read_text() == "a"


def _keys(monkeypatch: pytest.MonkeyPatch, theme: Path = THEME, **patch) -> dict[str, str]:
    for name, value in patch.items():
        monkeypatch.setattr(pipeline, name, value)
    ctx = pipeline.BuildContext(theme_path=theme, outputs=Path("/nonexistent"), seed=7)
    return {s: ctx.key(s) for s in STAGES}


def test_stage_keys_change_from_the_bumped_stage_on(monkeypatch: pytest.MonkeyPatch) -> None:
    base = _keys(monkeypatch)
    cached = [s for s in STAGES if s in pipeline.STAGE_VERSIONS]
    assert len({base[s] for s in cached}) == len(cached)  # every cached stage has its own key
    bumped = dict(pipeline.STAGE_VERSIONS, render="999")
    after = _keys(monkeypatch, STAGE_VERSIONS=bumped)
    assert [s for s in STAGES if after[s] != base[s]] == ["render", "questions", "gates", "freeze"]


def test_stage_keys_change_with_the_code_version_and_the_source(monkeypatch: pytest.MonkeyPatch) -> None:
    base = _keys(monkeypatch)
    after = _keys(monkeypatch, code_version=lambda: "9.9.9")
    assert all(after[s] != base[s] for s in STAGES)
    monkeypatch.undo()
    real = pipeline.source_hash
    fam_mods = set(pipeline.BuildContext(THEME, Path("/x"), 7).family.stage_modules["questions"])

    def edited(*mods: object) -> str:  # as if a questions module of the family had been edited
        return real(*mods) + ("-edited" if fam_mods & set(mods) else "")

    after = _keys(monkeypatch, source_hash=edited)
    assert [s for s in STAGES if after[s] != base[s]] == [
        "episodes",
        "render",
        "questions",
        "gates",
        "freeze",
    ]
    monkeypatch.undo()

    def gates_edited(*mods: object) -> str:  # a shared gate module edited: only the gates re-run
        return real(*mods) + ("-edited" if pipeline.gates_mod in mods else "")

    after = _keys(monkeypatch, source_hash=gates_edited)
    assert [s for s in STAGES if after[s] != base[s]] == ["gates", "freeze"]


def test_stage_keys_depend_on_theme_bytes_and_seed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    base = _keys(monkeypatch)
    edited = tmp_path / "t.yaml"
    edited.write_bytes(THEME.read_bytes() + b"\n# a comment changes the bytes\n")
    ctx = pipeline.BuildContext(theme_path=edited, outputs=Path("/x"), seed=7)
    assert all(ctx.key(s) != base[s] for s in STAGES)
    other_seed = pipeline.BuildContext(theme_path=THEME, outputs=Path("/x"), seed=8)
    assert all(other_seed.key(s) != base[s] for s in STAGES)


def _edited_file(monkeypatch: pytest.MonkeyPatch, rel: str, theme: Path) -> list[str]:
    """The stages whose key changes when the source file ``rel`` (under mnemoforge/) is edited."""
    base = _keys(monkeypatch, theme)
    target = (code_deps.PACKAGE_ROOT / rel).resolve()
    real = pipeline.source_hash

    def edited(*mods: object) -> str:
        paths = {Path(m).resolve() for m in mods if isinstance(m, Path)}
        named = {Path(m.__file__).resolve() for m in mods if hasattr(m, "__file__")}
        return real(*mods) + ("-edited" if target in paths | named else "")

    after = _keys(monkeypatch, theme, source_hash=edited)
    monkeypatch.undo()
    return [s for s in STAGES if after[s] != base[s]]


@pytest.mark.parametrize(
    ("rel", "stages"),
    [
        # helpers no family lists by name, reached through the stage modules' imports
        ("backends/video/ffmpeg.py", ["render", "questions", "gates", "freeze"]),
        ("backends/image/procedural.py", ["episodes", "render", "questions", "gates", "freeze"]),  # captions
        ("generators/icm/render_voice.py", ["render", "questions", "gates", "freeze"]),
        ("generators/icm/forms.py", ["questions", "gates", "freeze"]),
        # a gate module stays out of the generation stages' keys
        ("validators/gates.py", ["gates", "freeze"]),
    ],
)
def test_editing_reached_code_reruns_its_stage(
    monkeypatch: pytest.MonkeyPatch, rel: str, stages: list[str]
) -> None:
    assert _edited_file(monkeypatch, rel, DEFAULT_THEME) == stages  # the icm default theme


def test_reachable_sources_follow_lazy_imports_and_stop_at_validators() -> None:
    from mnemoforge.generators.memeye import questions as memeye_questions
    from mnemoforge.generators.smm import world as smm_world

    root = code_deps.PACKAGE_ROOT
    reached = {p.relative_to(root).as_posix() for p in code_deps.reachable_sources(memeye_questions)}
    assert {"generators/memeye/option_screen.py", "generators/memeye/forms.py"} <= reached
    assert not any(r.startswith(("validators/", "exporters/")) for r in reached)
    plan = {p.relative_to(root).as_posix() for p in code_deps.reachable_sources(smm_world)}
    assert "generators/smm/world.py" not in plan  # the named module is hashed by name, not twice
    assert not any(r.startswith("backends/video/") for r in plan)


def test_reachable_sources_never_parse_in_two_threads_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """CPython 3.11.7's AST converter is not thread-safe (gh-106905: "AST constructor recursion
    depth mismatch"); a threaded executor asks for several stages' keys at once."""
    import ast
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from mnemoforge.generators.icm import render as icm_render
    from mnemoforge.generators.memeye import questions as memeye_questions
    from mnemoforge.generators.smm import world as smm_world

    real_parse = ast.parse
    inside, most = 0, 0
    guard = threading.Lock()

    def watched_parse(*args, **kwargs):
        nonlocal inside, most
        with guard:
            inside += 1
            most = max(most, inside)
        time.sleep(0.001)  # widen the window two unguarded threads would share
        try:
            return real_parse(*args, **kwargs)
        finally:
            with guard:
                inside -= 1

    monkeypatch.setattr(code_deps.ast, "parse", watched_parse)
    code_deps._imports.cache_clear()
    code_deps._closure.cache_clear()
    try:
        modules = [icm_render, memeye_questions, smm_world] * 2
        with ThreadPoolExecutor(6) as pool:
            results = list(pool.map(code_deps.reachable_sources, modules))
    finally:
        code_deps._imports.cache_clear()
        code_deps._closure.cache_clear()
    assert most == 1
    assert results[:3] == results[3:] and all(results)
