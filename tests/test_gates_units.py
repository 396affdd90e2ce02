"""The exact gates and the funnel on hand-built worlds: each verdict's keep flag and reason.

Every context here is written by hand (a few facts, a few observations, one question), so a
changed comparison, threshold or message in ``validators/gates.py`` fails a test.
"""

from __future__ import annotations

import datetime as dt

import pytest

from mnemoforge.schemas.observations import Expression, Observation
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.schemas.verdicts import CallFailure, Verdict
from mnemoforge.schemas.world import Event, Fact, Place, World
from mnemoforge.validators.gates import (
    EXACT_GATES,
    CategoryRules,
    CutoffValid,
    EvidenceResolves,
    GateContext,
    SymbolicRederive,
    UniqueQuestion,
    funnel,
    kept_ids,
)
from tests.oracle_facts import person

T0 = dt.datetime(2025, 5, 3, 10)


def world() -> World:
    """Ana and Bo went to the pier together in May (event e1)."""
    facts = [
        Fact(id="e1_act", kind="activity", subject="e1", object="lunch", event="e1", at=T0),
        Fact(id="e1_at", kind="at_place", subject="e1", object="pier", event="e1", at=T0),
        Fact(id="e1_ana", kind="attended", subject="ana", object="e1", event="e1", at=T0),
        Fact(id="e1_bo", kind="attended", subject="bo", object="e1", event="e1", at=T0),
    ]
    ev = Event(
        id="e1", index=1, start=T0, activity="lunch", verb="had lunch", noun="lunch", place="pier",
        participants=["ana", "bo"], weather="sunny", occasion="weekend",
    )  # fmt: skip
    return World(
        theme="t", seed=1, start=dt.date(2025, 1, 1), end=dt.date(2025, 12, 31), protagonist="ana",
        people=[person("ana", "Ana"), person("bo", "Bo")], relations=[],
        places=[Place(id="pier", name="the pier", kind="outdoor", indoor=False)],
        objects=[], events=[ev], facts=facts,
    )  # fmt: skip


def obs(oid: str, order: int, facts: list[str], episode: str = "c1", eligible: bool = True) -> Observation:
    return Observation(
        id=oid,
        source="album",
        episode=episode,
        kind="shot",
        timestamp=T0,
        order=order,
        expresses=[Expression(fact=f, channel="pixel") for f in facts],
        evidence_eligible=eligible,
    )


OBS = {
    "o_cal": obs("o_cal", 0, [], episode="c0", eligible=False),
    "o_shot": obs("o_shot", 1, ["e1_act", "e1_ana", "e1_bo"]),
    "o_sign": obs("o_sign", 1, ["e1_at"]),
    "o_later": obs("o_later", 4, ["e1_at"], episode="c4"),
}


def question(qid: str = "q1", *, evidence=("o_shot", "o_sign"), cutoff=3, answer="the pier", text=None,
             category="identity_recall") -> Question:  # fmt: skip
    args = {"person": "ana", "other": "bo", "activity": "lunch", "month": "2025-05"}
    return Question(
        id=qid,
        family="icm",
        category=category,
        question=text or f"Where did Ana and Bo have lunch in May 2025? ({qid})",
        answer=answer,
        target_people=["ana", "bo"],
        evidence=list(evidence),
        facts_read=["e1_act", "e1_at", "e1_ana", "e1_bo"],
        cutoff=cutoff,
        program=Program(fn="meeting_place", args=args),
        lineage=Lineage(template="t", seed=1, program_hash="p", world_hash="w", answer_hash="a"),
    )


def ctx(*qs: Question) -> GateContext:
    return GateContext(world=world(), observations=dict(OBS), questions=list(qs))


def test_evidence_resolves_names_each_failure() -> None:
    g = EvidenceResolves()
    v = g.check(question(), ctx())
    assert (v.keep, v.reason, v.scores) == (True, "2 evidence ids resolve", {"n_evidence": 2.0})
    v = g.check(question(evidence=()), ctx())
    assert (v.keep, v.reason) == (False, "no evidence")
    v = g.check(question(evidence=("o_shot", "nope")), ctx())
    assert (v.keep, v.reason) == (False, "unknown evidence ids: ['nope']")
    v = g.check(question(evidence=("o_shot", "o_cal")), ctx())
    assert (v.keep, v.reason) == (False, "evidence not eligible (calibration): ['o_cal']")


def test_cutoff_valid_at_equal_before_and_none() -> None:
    g = CutoffValid()
    assert g.check(question(cutoff=1), ctx()).keep  # cutoff at the evidence's own episode
    v = g.check(question(cutoff=3), ctx())
    assert (v.keep, v.scores) == (True, {"gap": 2.0})
    v = g.check(question(evidence=("o_shot", "o_later"), cutoff=3), ctx())
    assert (v.keep, v.reason, v.scores) == (False, "cutoff 3 precedes evidence at 4", {"gap": -1.0})
    v = g.check(question(cutoff=None), ctx())
    assert (v.keep, v.scores) == (True, {"gap": -1.0})
    v = g.check(question(evidence=("nope",)), ctx())
    assert (v.keep, v.reason) == (False, "no resolvable evidence to place the cutoff after")


def test_symbolic_rederive_checks_the_answer_from_evidence_alone() -> None:
    g = SymbolicRederive()
    v = g.check(question(), ctx())
    assert (v.keep, v.reason, v.scores) == (True, "answer re-derived from evidence", {"match": 1.0})
    v = g.check(question(answer="the park"), ctx())
    assert not v.keep and v.reason == "evidence gives 'the pier', stored answer is 'the park'"
    v = g.check(question(evidence=("o_shot",)), ctx())  # the place is never shown
    assert not v.keep and v.reason.startswith("evidence does not determine the answer:")
    # evidence after the cutoff is not visible to the agent, so it cannot carry the answer
    v = g.check(question(evidence=("o_shot", "o_later"), cutoff=3), ctx())
    assert not v.keep and v.reason.startswith("evidence does not determine the answer:")


def test_unique_question_keeps_the_first_by_id_case_insensitively() -> None:
    a = question("q1", text="Where did they eat?")
    b = question("q2", text="WHERE did they eat?")
    c = ctx(a, b)
    g = UniqueQuestion()
    assert (g.check(a, c).keep, g.check(a, c).scores) == (True, {"duplicates": 2.0})
    v = g.check(b, c)
    assert (v.keep, v.reason) == (False, "duplicate question: same text as q1")


def test_category_rules_per_category() -> None:
    g = CategoryRules()
    assert g.check(question(), ctx()).reason == "1 evidence clips"
    v = g.check(question(category="cross_episode_retrieval"), ctx())
    assert (v.keep, v.reason) == (False, "too few evidence clips: 1 < 2")
    two_clips = ("o_shot", "o_later")
    assert g.check(question(evidence=two_clips, cutoff=5, category="cross_episode_retrieval"), ctx()).keep
    v = g.check(question(evidence=two_clips, cutoff=5, category="profile_inference"), ctx())
    assert (v.keep, v.reason) == (False, "wrong timeline: profile_inference needs no cutoff (full timeline)")
    assert g.check(question(evidence=two_clips, cutoff=None, category="profile_inference"), ctx()).keep
    v = g.check(question(cutoff=None), ctx())
    assert (v.keep, v.reason) == (False, "wrong timeline: identity_recall needs a cutoff")
    v = g.check(question(category="something_else"), ctx())
    assert (v.keep, v.reason) == (True, "no rules for category something_else")


def test_exact_gates_order() -> None:
    assert [g.name for g in EXACT_GATES] == [
        "evidence_resolves",
        "cutoff_valid",
        "symbolic_rederive",
        "coherence",
    ]


def _v(item: str, gate: str, keep: bool, reason: str = "ok") -> Verdict:
    return Verdict(item=item, gate=gate, gate_version="1", keep=keep, reason=reason)


def test_funnel_counts_each_reject_once_at_its_first_gate_with_reasons() -> None:
    qs = [question(f"q{i}") for i in range(4)]
    gates = [EvidenceResolves(), CutoffValid(), UniqueQuestion()]
    verdicts = [
        _v("q0", "evidence_resolves", True),
        _v("q1", "evidence_resolves", False, "unknown evidence ids: ['x']"),
        _v("q2", "evidence_resolves", True),
        _v("q3", "evidence_resolves", True),
        _v("q0", "cutoff_valid", True),
        _v("q1", "cutoff_valid", False, "cutoff 1 precedes evidence at 2"),  # already out
        _v("q2", "cutoff_valid", False, "cutoff 1 precedes evidence at 2"),
        _v("q3", "cutoff_valid", True),
        _v("q0", "unique_question", True),
        _v("q3", "unique_question", False, "duplicate question: same text as q0"),
    ]
    f = funnel(qs, verdicts, gates)
    assert f["candidates"] == 4 and f["kept"] == 1
    assert [(s["gate"], s["rejected"], s["kept"]) for s in f["stages"]] == [
        ("evidence_resolves", 1, 3),
        ("cutoff_valid", 1, 2),
        ("unique_question", 1, 1),
    ]
    assert f["stages"][0]["reasons"] == {"unknown evidence ids": 1}
    assert f["stages"][2]["reasons"] == {"duplicate question": 1}
    assert kept_ids(verdicts) == {"q0"}


@pytest.mark.parametrize("keep", [True, False])
def test_kept_ids_needs_every_verdict_to_keep(keep: bool) -> None:
    vs = [_v("q", "a", True), _v("q", "b", keep)]
    assert kept_ids(vs) == ({"q"} if keep else set())


def test_symbolic_rederive_names_an_unknown_program() -> None:
    q = question().model_copy(update={"program": Program(fn="no_such_program", args={})})
    v = SymbolicRederive().check(q, ctx())
    assert (v.keep, v.scores) == (False, {"match": 0.0})
    assert v.reason.startswith("program error: unknown \"unknown program 'no_such_program'; known: [")


def test_by_source_groups_observations_in_stream_order() -> None:
    chat = [
        obs("c_late", 2, []).model_copy(update={"source": "chat"}),
        obs("c_b", 1, []).model_copy(update={"source": "chat"}),
        obs("c_a", 1, []).model_copy(update={"source": "chat"}),  # same order as c_b: by id
    ]
    c = GateContext(world=world(), observations={o.id: o for o in [OBS["o_later"], *chat, OBS["o_shot"]]})
    assert {s: [o.id for o in os] for s, os in c.by_source.items()} == {
        "album": ["o_shot", "o_later"],
        "chat": ["c_a", "c_b", "c_late"],
    }


def test_funnel_counts_undecided_items_apart_and_only_live_reasons() -> None:
    qs = [question(f"q{i}") for i in range(4)]
    gates = [EvidenceResolves(), CategoryRules()]
    failed = CallFailure(answerer="panel-a", kind="timeout", attempts=3)
    verdicts = [
        _v("q0", "evidence_resolves", True),
        _v("q1", "evidence_resolves", True),
        _v("q2", "evidence_resolves", True),
        _v("q3", "evidence_resolves", False, "no evidence"),
        _v("q0", "category_rules", True),
        _v("q1", "category_rules", False, "panel could not answer: timeout").model_copy(
            update={"failures": [failed]}
        ),
        _v("q2", "category_rules", False, "too few evidence clips: 1 < 2"),
        _v("q3", "category_rules", False, "too few evidence clips: 1 < 2"),  # already out: not counted
    ]
    f = funnel(qs, verdicts, gates)
    assert f == {
        "candidates": 4,
        "kept": 1,
        "undecided": 1,
        "stages": [
            {
                "gate": "evidence_resolves",
                "version": "1",
                "rejected": 1,
                "kept": 3,
                "reasons": {"no evidence": 1},
            },
            {
                "gate": "category_rules",
                "version": "1",
                "rejected": 1,  # q2; q1 is undecided, neither kept nor rejected on the merits
                "kept": 1,
                "undecided": 1,
                "reasons": {"panel could not answer": 1, "too few evidence clips": 1},
            },
        ],
    }
    decided = [v for v in verdicts if not v.failures]
    assert "undecided" not in funnel(qs, decided, gates)
