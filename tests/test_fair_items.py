"""Uniqueness and fair distractors (issue 31): near-duplicate items (normalised text and answer, or
nested time windows with the same answer) are caught; no distractor is ruled out by a pronoun,
the asker, number or a cloze article; no cast prior (own object, activity place, habit, relation,
role) picks an answer; and the generators draw options that pass these checks."""

from __future__ import annotations

import pytest

from mnemoforge.generators.questions import cast_prior
from mnemoforge.generators.questions.distractor_grammar import ruled_out
from mnemoforge.generators.questions.fairness import fair_set, near_duplicates
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.validators.gates import GateContext, UniqueQuestion
from mnemoforge.validators.item_gates import CastPrior, FairDistractors


def _q(qid: str, text: str, answer: str, fn: str = "count_events", **args: object) -> Question:
    return Question(
        id=qid, family="icm", category="c", question=text, answer=answer, options=[answer, "x", "y", "z"],
        target_people=[], evidence=["o"], facts_read=[], cutoff=None, program=Program(fn=fn, args=args),
        lineage=Lineage(template="t", seed=1, program_hash="h", world_hash="w", answer_hash="a"),
    )  # fmt: skip


@pytest.fixture(scope="module")
def album(icm_plans):  # type: ignore[no-untyped-def]
    return icm_plans.plan("life_album.yaml").world, icm_plans.questions("life_album.yaml")


def test_nested_windows_with_the_same_answer_are_near_duplicates() -> None:
    base = {"person": "p", "activity": "a"}
    wide = _q(
        "q1", "How many times between May and October?", "2", **base, from_month="2025-05", to_month="2025-10"
    )
    narrow = _q("q2", "How many times in July?", "2", **base, from_month="2025-07", to_month="2025-07")
    other = _q(
        "q3", "How many times in July?", "3", **base, person2="x", from_month="2025-07", to_month="2025-07"
    )
    apart = _q("q4", "How many times in November?", "2", **base, from_month="2025-11", to_month="2025-11")
    day = _q("q5", "How many times on 3 July?", "2", **base, day="2025-07-03")
    got = near_duplicates([wide, narrow, other, apart, day])
    assert set(got) == {"q2", "q5"} and "q1" in got["q2"]
    same_text = _q("q6", "how many times, BETWEEN May and October ", "2", **base, place="x")
    assert "same normalised text" in near_duplicates([wide, same_text])["q6"]
    ctx = GateContext(world=None, observations={}, questions=[wide, narrow, apart])  # type: ignore[arg-type]
    assert not UniqueQuestion().check(narrow, ctx).keep and UniqueQuestion().check(apart, ctx).keep


def test_a_pronoun_the_asker_and_a_cloze_article_rule_distractors_out(album) -> None:  # type: ignore[no-untyped-def]
    world, _ = album
    women = sorted(p.name for p in world.people if p.gender == "female")
    men = sorted(p.name for p in world.people if p.gender == "male")
    q = "Who promised on Monday to bring her sketchbook to the next dinner?"
    out = ruled_out(q, women[0], [women[0], women[1], men[0], men[1]], world)
    assert set(out) == {men[0], men[1]} and "pronoun 'her'" in out[men[0]]
    # "she" refers to a woman the question names: every option stays possible
    named = f"Who joined {women[2]} when she went shopping?"
    assert ruled_out(named, women[0], [women[0], women[1], men[0], men[1]], world) == {}
    me = world.person(world.protagonist).name
    assert me in ruled_out("Who did I meet at the market?", women[0], [women[0], me, women[1], men[1]], world)
    assert set(
        ruled_out("For the picnic she brought a", "pear", ["pear", "apple", "plum", "egg"], world)
    ) == {
        "apple",
        "egg",
    }
    assert "'is' does not agree" in ruled_out(
        "What is the thing she brought?", "kettle", ["kettle", "spoons", "mug", "plates"], world
    ).get("spoons", "")


def test_cast_priors_read_the_cast_declarations(album) -> None:  # type: ignore[no-untyped-def]
    world, _ = album
    owner = next(p for p in world.people if p.signature_object)
    own = world.object(owner.signature_object).name  # type: ignore[arg-type]
    others = [o.name for o in world.objects if o.name != own][:3]
    q = f"What did {owner.name} bring along when they met in June?"
    assert cast_prior.tells(q, [own, *others], world)["own_object"] == [0]
    assert not fair_set(q, [own, *others], world)
    rel = world.relations[0]
    a, b = world.person(rel.a), world.person(rel.b)
    words = [rel.a_calls_b or rel.kind, "neighbour", "cousin", "colleague"]
    assert cast_prior.tells(f"Who is {b.name} to {a.name}?", words, world)["relation"] == [0]
    # "who apart from A joined B": the relatives of every person the question names count, so a
    # person related to both is the guess, whichever name comes first
    both = {x for (x, y) in cast_prior.cast_of(world).relation_words if y == a.id} & {
        x for (x, y) in cast_prior.cast_of(world).relation_words if y == b.id
    }
    assert both  # the life album: the protagonist's sister is the spouse's sister-in-law
    c = world.person(sorted(both)[0])
    rest = [p.name for p in world.people if p.id not in (a.id, b.id, c.id)][:3]
    asked = (f"Who apart from {a.name} joined {b.name}?", f"Who joined {b.name}, apart from {a.name}?")
    for text in asked:
        assert cast_prior.tells(text, [c.name, *rest], world)["relation"] == [0], text


def test_gates_reject_and_generated_items_pass(album) -> None:  # type: ignore[no-untyped-def]
    world, qs = album
    owner = next(p for p in world.people if p.signature_object)
    own = world.object(owner.signature_object).name  # type: ignore[arg-type]
    men = [p.name for p in world.people if p.gender == "male"]
    women = [p.name for p in world.people if p.gender == "female"]
    told = _q("t1", f"What did {owner.name} bring along in June?", own, fn="object_brought")
    told = told.model_copy(update={"options": [own, *[o.name for o in world.objects if o.name != own][:3]]})
    unfair = _q("t2", "Who forgot her umbrella on Monday?", women[0], fn="who_brought")
    unfair = unfair.model_copy(update={"options": [women[0], women[1], men[0], men[1]]})
    ctx = GateContext(world=world, observations={}, questions=[told, unfair])
    assert not CastPrior().check(told, ctx).keep and "own_object" in CastPrior().check(told, ctx).reason
    assert not FairDistractors().check(unfair, ctx).keep
    mcq = [q for q in qs if q.options]
    assert len(mcq) >= 40
    assert all(fair_set(q.question, q.options or [], world) for q in mcq)  # drawn to pass both gates
    assert near_duplicates(qs) == {}
