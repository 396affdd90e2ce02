"""Item validity rules beyond the option sets: multi-hop items a wrong hop does not answer (smm),
referring expressions that fit one person as drawn (icm), and no text line that names an object
item's answer beside its subject (icm)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.generators.questions.programs import FactView, Lexicon
from mnemoforge.generators.referring import describe, parse, referents, rendered_cues
from mnemoforge.generators.smm import questions as smm_questions
from mnemoforge.generators.smm.hops import MULTI_HOP, wrong_hop
from mnemoforge.generators.smm.world import plan_world as plan_smm_world
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import THEMES_DIR, load_theme
from mnemoforge.validators.answerers.panel import Panel
from mnemoforge.validators.answerers.symbolic import SymbolicAnswerer
from mnemoforge.validators.gates import GateContext
from mnemoforge.validators.panel_gates import TextOnlyClue, claims_visual
from mnemoforge.validators.text_retrieval import colocation, passages

TESTS = Path(__file__).resolve().parent
ICM_THEMES = [THEMES_DIR / "life_album.yaml", THEMES_DIR / "backstage_sao_paulo.yaml"]
SMM_THEMES = [THEMES_DIR / "office_launch.yaml", TESTS / "themes/ferry_crew.yaml"]


# --- smm: a wrong hop does not reach the answer ---------------------------------------------


@pytest.mark.parametrize("path", SMM_THEMES, ids=lambda p: p.stem)
def test_multi_hop_answers_are_not_reached_by_a_wrong_hop(path: Path) -> None:
    theme = load_theme(path)
    world = plan_smm_world(theme, theme.seed)
    pool = [c for c in smm_questions.plan_pool(theme, world) if c.template.program in MULTI_HOP]
    assert len(pool) >= theme.smm.tasks.counts()["multi_hop"]  # the World still supports the task
    for c in pool:
        kind = c.args["kind"]
        own = next(
            f.object for f in world.facts if f.kind == "member" and f.subject == c.args["person"]
            and f.value == kind
        )  # fmt: skip
        if c.template.program == "member_attribute":  # every other entity of the kind: another value
            others = {
                f.subject: f.value for f in world.facts
                if f.kind == "attribute" and f.object == c.args["key"] and f.subject != own
                and world.entity(f.subject).kind == kind
            }  # fmt: skip
            names = {p.id: p.name for p in world.people}
            assert c.answer not in {names.get(v, v) for v in others.values()}, (c.args, c.answer)
        else:  # a profile field: nobody but the lead has the answer (never the most common value)
            holders = [
                f.subject for f in world.facts
                if f.kind == "attribute" and f.object == c.args["key"] and f.value == c.answer
            ]  # fmt: skip
            assert len(holders) == 1, (c.args, c.answer, holders)


def test_wrong_hop_refuses_a_shared_value() -> None:
    theme = load_theme(SMM_THEMES[0])
    world = plan_smm_world(theme, theme.seed)
    c = next(c for c in smm_questions.plan_pool(theme, world) if c.template.program == "member_attribute")
    own = next(f.object for f in world.facts if f.kind == "member" and f.subject == c.args["person"]
               and f.value == c.args["kind"])  # fmt: skip
    mine = next(f for f in world.facts if f.subject == own and f.object == c.args["key"])
    other = next(
        f for f in world.facts if f.kind == "attribute" and f.object == c.args["key"] and f.subject != own
        and world.entity(f.subject).kind == c.args["kind"]
    )  # fmt: skip
    facts = [f.model_copy(update={"value": mine.value}) if f.id == other.id else f for f in world.facts]
    shared = world.model_copy(update={"facts": facts})
    view = FactView(shared.facts, Lexicon(shared))
    why = wrong_hop(shared, view, c.template.program, c.args, c.answer)
    assert other.subject in why
    assert not wrong_hop(world, FactView(world.facts, Lexicon(world)), c.template.program, c.args, c.answer)


def test_release_multi_hop_answers_are_unique(smm_release) -> None:  # type: ignore[no-untyped-def]
    mh = [q for q in smm_release.qs if q.labels.get("task") == "multi_hop"]
    assert mh
    for q in mh:
        assert not wrong_hop(
            smm_release.world, FactView(smm_release.world.facts, Lexicon(smm_release.world)),
            q.program.fn, q.program.args, q.answer,
        ), q.id  # fmt: skip


# --- icm: referring expressions and object lines ---------------------------------------------


@pytest.fixture(scope="module", params=ICM_THEMES, ids=lambda p: p.stem)
def icm(request: pytest.FixtureRequest, icm_plans):  # type: ignore[no-untyped-def]
    p = icm_plans.plan(request.param.name)
    # every form, those the cast-prior screen passes over too (object items: the text is what is checked)
    return p.theme, p.world, list(p.observations), icm_plans.questions(request.param.name, screen=False)


def _used_references(world: World, questions: list) -> list[tuple[str, str, object]]:
    """(person, expression, question) for every drawn-cue description found in a question."""
    out = []
    for q in questions:
        for p in world.people:
            d = describe(world, p.id)
            if d and d in q.question:
                out.append((p.id, d, q))
    return out


def test_referring_expressions_fit_one_person_as_drawn(icm) -> None:  # type: ignore[no-untyped-def]
    _, world, _, qs = icm
    for p in world.people:
        d = describe(world, p.id)
        assert d is not None and referents(world, parse(d)) == [p.id], (p.id, d)
        assert parse(d) <= rendered_cues(p)
    used = _used_references(world, qs)
    assert used  # some items name people by description
    for pid, d, q in used:
        assert pid in q.target_people, (q.id, d)
    # the theme's own wording is not what items use where it fits several people as drawn
    for p in world.people:
        if len(referents(world, parse(p.description()))) > 1:
            assert not any(p.description() in q.question for q in qs), p.description()


def test_headwear_hides_short_hair() -> None:
    theme = load_theme(ICM_THEMES[0])
    world = plan_world(theme, theme.seed, theme.album.clips - 1)
    hatted = next(p for p in world.people if "hat" in p.appearance.accessories)
    assert ("hair", hatted.appearance.hair_style) not in rendered_cues(hatted)
    assert "hair" not in (describe(world, hatted.id) or "")


def test_object_lines_do_not_name_the_answer_beside_the_subject(icm) -> None:  # type: ignore[no-untyped-def]
    _, world, obs, qs = icm
    ps = passages(obs)
    objects = [q for q in qs if q.program.fn in ("object_brought", "who_brought") and q.options]
    assert objects
    assert [colocation(q, world, ps) for q in objects] == [""] * len(objects)
    # a line that pairs them makes the item answerable from text alone: text_only_clue rejects it
    q = next(q for q in objects if q.program.fn == "object_brought")
    panel = Panel([SymbolicAnswerer()], rule="any")
    ctx = GateContext(world, {o.id: o for o in obs}, qs, panels={"text_only_clue": panel})
    subject = world.person(q.program.args["person"]).name
    early = min(o.order for o in obs if o.content)
    line = next(o for o in obs if o.content and o.order == early)
    ctx.observations[line.id] = line.model_copy(
        update={"content": f"Did you bring the {q.answer}, {subject}?"}
    )
    assert colocation(q, world, passages(list(ctx.observations.values())))
    assert claims_visual(q, [ctx.observations[e] for e in q.evidence])
    v = TextOnlyClue().check(q, ctx)
    assert not v.keep and ("named beside" in v.reason or "text retrieval" in v.reason), v.reason


def test_default_release_references_fit_one_person(default_release: Path) -> None:
    world = World.model_validate_json((default_release / "data/world.json").read_text())
    kept = read_jsonl(default_release / "data/icm/questions.jsonl")
    candidates = []
    runs = sorted((default_release.parents[2] / "runs").glob("*/questions/candidates.jsonl"))
    if runs:
        candidates = [json.loads(x) for x in runs[-1].read_text().splitlines()]
    from mnemoforge.schemas.questions import Question

    qs = [Question.model_validate(r) for r in [*kept, *candidates]]
    used = _used_references(world, qs)
    assert used  # candidates name people by drawn cues
    for pid, d, q in used:
        assert referents(world, parse(d)) == [pid] and pid in q.target_people, (q.id, d)
