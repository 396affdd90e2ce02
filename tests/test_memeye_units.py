"""The visual-centric family's parts without a build: theme section, programs, gates, renderer."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mnemoforge.backends.image import visual_gists, visual_props
from mnemoforge.generators.memeye import questions as q_mod
from mnemoforge.generators.memeye.sessions import check_text_clean, plan_sessions
from mnemoforge.generators.memeye.vocab import VOCAB
from mnemoforge.generators.memeye.world import plan_world
from mnemoforge.generators.questions.programs import FactView, Lexicon, Unanswerable, run_program
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import ThemeError, load_theme, parse_theme
from mnemoforge.validators.gates import GateContext
from mnemoforge.validators.memeye_gates import PixelOnly, TaxonomyAudit

ROOT = Path(__file__).resolve().parent.parent
THEME = ROOT / "assets/themes/visual_diary.yaml"


@pytest.fixture(scope="module")
def planned() -> tuple[World, list[Observation], list[Question]]:
    theme = load_theme(THEME)
    world = plan_world(theme, theme.seed)
    obs = plan_sessions(theme, world)
    assert theme.memeye is not None
    return world, obs, q_mod.generate(world, obs, theme.memeye.cell_targets())


def _theme_data() -> dict:
    return yaml.safe_load(THEME.read_text())


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d["memeye"]["scenarios"][1].update(sessions=2), "memeye.scenarios.1.sessions"),
        (lambda d: d["memeye"]["scenarios"][2].update(kind="aquarium"), "memeye.scenarios.2.kind"),
        (lambda d: d["memeye"]["targets"].update(X5_Y1=3), "memeye.targets.X5_Y1"),
        (lambda d: d["memeye"]["scenarios"][0].update(place="moon"), "memeye.scenarios.0.place"),
        (lambda d: d["memeye"].update(user="nobody"), "memeye.user"),
    ],
)
def test_malformed_memeye_section_names_the_field(edit, field: str) -> None:  # type: ignore[no-untyped-def]
    data = _theme_data()
    edit(data)
    with pytest.raises(ThemeError) as err:
        parse_theme(data, THEME)
    assert len(err.value.problems) == 1, err.value.problems
    assert err.value.problems[0][0] == field, err.value.problems


def test_memeye_section_required_and_exclusive() -> None:
    data = _theme_data()
    del data["memeye"]
    with pytest.raises(ThemeError, match="memeye"):
        parse_theme(data, THEME)


def test_vocabulary_is_drawable() -> None:
    for kind, v in VOCAB.items():
        assert set(v.gists) == set(visual_gists.GISTS[kind])
        assert set(v.items) <= set(visual_props.ITEMS)


def test_scene_names_may_not_leak_values(planned: tuple[World, list[Observation], list[Question]]) -> None:
    world = planned[0]
    colour = next(f.value for f in world.facts if f.object == "colour" and f.value)
    with pytest.raises(ValueError, match="visual value words"):
        check_text_clean(world, {"memeye.scenarios.0.scenes": f"the {colour} studio"})


def test_programs_need_the_update_for_y3(planned: tuple[World, list[Observation], list[Question]]) -> None:
    world, _, qs = planned
    q = next(q for q in qs if q.labels["y"] == "Y3")
    states = [f for f in world.facts if f.id in q.facts_read]
    latest = max(states, key=lambda f: f.at)  # type: ignore[arg-type, return-value]
    lex = Lexicon(world)
    assert run_program(q.program.fn, FactView(states, lex), q.program.args) == latest.value == q.answer
    with pytest.raises(Unanswerable):  # the latest picture alone does not show the change
        run_program(q.program.fn, FactView([latest], lex), q.program.args)


def test_candidates_planned_for_every_cell(planned: tuple[World, list[Observation], list[Question]]) -> None:
    _, _, qs = planned
    cells = {q.category for q in qs}
    assert len(cells) == 12
    for q in qs:
        assert q.labels["x"] + "_" + q.labels["y"] == q.category
        assert q.cutoff is None and q.target_people == ["mia"]


def _ctx(world: World, obs: list[Observation]) -> GateContext:
    return GateContext(world, {o.id: o for o in obs})


def test_taxonomy_audit_catches_wrong_labels(
    planned: tuple[World, list[Observation], list[Question]],
) -> None:
    world, obs, qs = planned
    ctx = _ctx(world, obs)
    audit = TaxonomyAudit()
    assert all(audit.check(q, ctx).keep for q in qs)
    y1 = next(q for q in qs if q.labels["y"] == "Y1" and q.labels["x"] == "X4")
    wrong_x = y1.model_copy(update={"labels": {**y1.labels, "x": "X2"}})
    assert "highest granularity" in audit.check(wrong_x, ctx).reason
    y2 = next(q for q in qs if q.labels["y"] == "Y2")
    as_y1 = y2.model_copy(update={"labels": {**y2.labels, "y": "Y1"}})
    assert not audit.check(as_y1, ctx).keep
    y3 = next(q for q in qs if q.labels["y"] == "Y3")
    stale = next(f.value for f in world.facts if f.id in y3.facts_read and f.value != y3.answer)
    assert "latest" in audit.check(y3.model_copy(update={"answer": stale}), ctx).reason
    reversed_ev = y3.model_copy(update={"evidence": y3.evidence[1:]})
    assert not audit.check(reversed_ev, ctx).keep


def test_pixel_only_catches_a_value_in_the_text(
    planned: tuple[World, list[Observation], list[Question]],
) -> None:
    world, obs, qs = planned
    gate = PixelOnly()
    q = next(q for q in qs if q.labels["x"] == "X4" and q.labels["y"] == "Y1")
    assert gate.check(q, _ctx(world, obs)).keep
    leaked = [
        o.model_copy(update={"content": o.content + f" By the way, it is {q.answer}."})
        if o.id in q.evidence
        else o
        for o in obs
    ]
    v = gate.check(q, _ctx(world, leaked))
    assert not v.keep and "text leak" in v.reason
