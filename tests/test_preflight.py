"""``mnemoforge build --preflight``: counts from the plan, costs from the price table, nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge import yaml_io
from mnemoforge.cli import app
from mnemoforge.production.preflight import preflight
from tests.conftest import small_theme_data

BACKEND = {
    "provider": "openai",
    "model": "gpt-4o-mini",
    "base_url": "http://127.0.0.1:9/v1",
    "api_key_env": None,
}


def _theme(tmp_path: Path, **text: object) -> Path:
    data = small_theme_data()
    data["text"] = {"backend": BACKEND, "paraphrase_questions": True, **text}
    data["gates"] = {
        "answerers": {"symbolic": {}, "lexical": {}, "judge": {"kind": "chat", **BACKEND}},
        "panels": {"oracle": ["symbolic"], "text_only_clue": ["lexical", "judge"]},
    }
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_preflight_counts_the_plan_and_prices_the_model_calls(tmp_path: Path) -> None:
    from mnemoforge.generators.icm import album
    from mnemoforge.generators.icm.world import plan_world
    from mnemoforge.theme_io import load_theme

    path = _theme(tmp_path, plan=True, plan_batch=2, plan_shots=True, plan_shots_batch=2)
    pf = preflight(path)
    theme = load_theme(path)
    world = plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, _ = album.plan_album(theme, world)
    shots = [s for c in clips for s in c.shots]
    rows = {(r.stage, r.operation): r for r in pf.rows}
    assert rows[("render", "image")].images == len(shots) + len(theme.cast)
    assert rows[("render", "video")].video_seconds == sum(s.duration_s for s in shots)
    assert rows[("render", "speech")].calls == sum(len(s.dialogue) for s in shots)
    assert rows[("render", "speech")].speech_seconds > 0 and rows[("render", "image")].cost == 0
    from mnemoforge.production.preflight import candidates

    n = candidates(theme)
    assert n >= theme.questions.total
    para, judge, plan = rows[("questions", "chat")], rows[("gates", "chat")], rows[("plan", "chat")]
    assert para.calls == judge.calls == n and para.model == judge.model == "gpt-4o-mini"
    assert plan.calls == -(-len(world.events) // 2)
    shots_plan = rows[("episodes", "chat")]  # text.plan_shots: one call per 2 story clips, prompts as sent
    assert shots_plan.calls == -(-(len(clips) - 1) // 2) and shots_plan.tokens_in > 0
    assert shots_plan.tokens_out == 40 * sum(len(c.shots) for c in clips[1:])
    # gpt-4o-mini* in assets/prices.yaml: 0.15 / 0.60 per million tokens
    assert para.cost == pytest.approx(para.tokens_in * 0.15e-6 + para.tokens_out * 0.60e-6, abs=1e-6)
    assert pf.totals()["cost"] == pytest.approx(sum(r.cost for r in pf.rows))


def test_preflight_cli_writes_nothing_and_takes_a_prices_file(tmp_path: Path) -> None:
    path = _theme(tmp_path)
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  gpt-4o-mini*: {per_call: 1.0}\n")  # merged into the shipped entry
    before = sorted(p.name for p in tmp_path.iterdir())
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        r = CliRunner().invoke(app, ["build", str(path), "--preflight", "--json"])
        r2 = CliRunner().invoke(app, ["build", str(path), "--preflight", "--json", "--prices", str(prices)])
        table = CliRunner().invoke(app, ["build", str(path), "--preflight"])
    finally:
        os.chdir(cwd)
    assert r.exit_code == 0 and r2.exit_code == 0 and table.exit_code == 0, r.output + table.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no outputs/, no run folder, no release
    cheap, dear = json.loads(r.stdout), json.loads(r2.stdout)
    calls = sum(row["calls"] for row in dear["rows"] if row["model"] == "gpt-4o-mini")
    assert dear["totals"]["cost"] == pytest.approx(cheap["totals"]["cost"] + calls * 1.0)
    assert "estimated total" in table.output and "questions" in table.output


def test_preflight_names_a_bad_price_table(tmp_path: Path) -> None:
    path = _theme(tmp_path)
    bad = tmp_path / "bad.yaml"
    bad.write_text("models:\n  gpt-4o-mini: {per_token: 1}\n")
    r = CliRunner().invoke(app, ["build", str(path), "--preflight", "--prices", str(bad)])
    assert r.exit_code == 2 and "bad.yaml.models.gpt-4o-mini.per_token: unknown price field" in r.output
    assert "Traceback" not in r.output


def test_theme_prices_reach_the_estimate_the_run_folder_and_the_check(tmp_path: Path) -> None:
    from mnemoforge.pipeline import BuildContext, prepare
    from mnemoforge.store import ledger
    from mnemoforge.theme_checks import check_theme
    from mnemoforge.theme_io import ThemeError

    (tmp_path / "mine.yaml").write_text("models:\n  gpt-4o-mini*: {per_call: 0.5}\n")
    path = _theme(tmp_path)
    data = yaml_io.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({**data, "prices": "mine.yaml"}, sort_keys=False))
    pf = preflight(path)
    model_calls = sum(r.calls for r in pf.rows if r.model == "gpt-4o-mini")
    assert pf.totals()["cost"] >= 0.5 * model_calls
    ctx = BuildContext(path, tmp_path / "out", 1)
    run = prepare(ctx)
    assert json.loads((run.root / "prices.json").read_text()) == {
        "models": {"gpt-4o-mini*": {"per_call": 0.5}}
    }
    with ledger.current_run(run.root):
        ledger.record_call("plan", "openai", "gpt-4o-mini", "chat", latency_s=0.1, status="ok")
    assert ledger.read_ledger(run.root)[0]["cost"] == 0.5
    path.write_text(
        yaml.safe_dump({**data, "prices": {"models": {"m": {"per_image": "free"}}}}, sort_keys=False)
    )
    with pytest.raises(ThemeError, match=r"prices: prices.models.m.per_image: expected a number >= 0"):
        check_theme(path)


def _run_counts(run_dir: Path) -> tuple[int, int]:
    media = [json.loads(x) for x in (run_dir / "media/index.jsonl").read_text().splitlines()]
    candidates = len((run_dir / "questions/candidates.jsonl").read_text().splitlines())
    return sum(m["path"].endswith(".png") for m in media), candidates


@pytest.mark.parametrize("family", ["smm", "memeye"])
def test_preflight_matches_what_smm_and_memeye_builds_made(
    family: str, request: pytest.FixtureRequest
) -> None:
    """The estimate of the shipped smm and memeye themes against their builds (session fixtures;
    one family per test, so each runs with its own build, tests/conftest.py)."""
    from mnemoforge.theme_io import THEMES_DIR

    if family == "smm":
        name, run_dir = "office_launch", request.getfixturevalue("smm_release").run_dir
    else:
        memeye_release: Path = request.getfixturevalue("memeye_release")
        memeye_run = Path(json.loads((memeye_release / "config.resolved.json").read_text())["run_id"])
        name, run_dir = "visual_diary", memeye_release.parents[2] / "runs" / memeye_run
    pf = preflight(THEMES_DIR / f"{name}.yaml")
    images, n = _run_counts(run_dir)
    assert pf.plan["images"] == images, name
    # smm plans its candidates exactly; memeye over-generates each cell and may fall short
    assert pf.plan["candidates"] == n if name == "office_launch" else pf.plan["candidates"] >= n, name


def test_cost_drivers_stand_beside_icm_bench_and_the_length_knobs_are_exact(tmp_path: Path) -> None:
    """Each cost driver beside ICM-Bench's figure scaled to the theme's clips; the hint's minutes for
    ``album.shot_length: shortest`` are what planning with it gives; ``talk_density`` 1 and
    ``shot_length: any`` are the album as before (same draws)."""
    from mnemoforge.generators.icm.fit_length import measure
    from mnemoforge.theme_io import load_theme

    data = small_theme_data(clips=24)
    path = tmp_path / "long.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    pf = preflight(path)
    d = {x.name: x for x in pf.drivers}
    assert list(d) == ["clips", "video minutes", "shots", "images", "speech seconds"]
    assert d["clips"].reference == 839 and d["video minutes"].reference == pytest.approx(
        141.0 * 24 / 839, abs=0.05
    )
    assert d["video minutes"].ratio == pytest.approx(
        d["video minutes"].planned / d["video minutes"].reference, rel=0.01
    )  # planned minutes are shown to a tenth
    assert d["shots"].reference == round(2.8 * 24) and d["speech seconds"].reference is None
    assert d["images"].planned == d["shots"].planned + len(data["cast"])
    theme = load_theme(path)
    as_is = measure(theme, theme.seed)
    assert as_is.minutes == pytest.approx(d["video minutes"].planned, abs=0.05)
    same = measure(
        theme.model_copy(update={"album": theme.album.model_copy(update={"talk_density": 1.0})}), theme.seed
    )
    assert (same.minutes, same.shots, same.lines) == (as_is.minutes, as_is.shots, as_is.lines)
    shortest = measure(
        theme.model_copy(update={"album": theme.album.model_copy(update={"shot_length": "shortest"})}),
        theme.seed,
    )
    assert (
        shortest.shots == as_is.shots and shortest.lines == as_is.lines and shortest.minutes <= as_is.minutes
    )
    hint = next((h for h in pf.hints if "album.shot_length: shortest" in h), None)
    if hint is not None:  # the album runs long: the hint's figure is the planned one
        assert f"plans {shortest.minutes:.1f} min" in hint
    quieter = measure(
        theme.model_copy(update={"album": theme.album.model_copy(update={"talk_density": 0.3})}), theme.seed
    )
    assert quieter.lines < as_is.lines and quieter.minutes < as_is.minutes


def test_fit_length_tries_the_knobs_in_order_and_bisects_talk_density() -> None:
    from mnemoforge.generators.icm.fit_length import Try, fit_length
    from mnemoforge.schemas.theme import Theme
    from mnemoforge.theme_starter import starter_theme

    theme = Theme.model_validate(yaml_io.safe_load(starter_theme("tiny")))
    theme = theme.model_copy(update={"album": theme.album.model_copy(update={"shots_per_clip": (1, 3)})})

    def plan(t: Theme, seed: int) -> Try:  # minutes fall with each knob; density 0.4 or less reaches 100
        minutes = (
            300.0 - (40 if t.album.shot_length == "shortest" else 0) - 20 * (t.album.shots_per_clip[1] == 2)
        )
        minutes *= 0.5 + t.album.talk_density / 2 if t.album.talk_density > 0.4 else 0.4
        return Try({}, minutes, 10, 10)

    fit = fit_length(theme, 1, ref_minutes=100.0, plan=plan)
    knobs = [t.knobs for t in fit.tries]
    assert knobs[0] == {"shot_length": "shortest"} and knobs[1] == {
        "shot_length": "shortest",
        "shots_per_clip": [1, 2],
    }
    assert fit.found is not None and fit.found.minutes <= 105 and fit.found.knobs["talk_density"] <= 0.4
    assert len(fit.tries) == 2 + 5  # two knobs, then five bisection steps
