from __future__ import annotations

import random

import pytest

from mnemoforge.generators.icm.album_check import AlbumError, album_problems, validate_album
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.hashing import canonical_json
from mnemoforge.schemas.observations import Channel
from mnemoforge.schemas.theme import GateSpec
from mnemoforge.theme_io import DEFAULT_THEME, load_theme
from mnemoforge.validators.gate_runner import gates_for, run_all_gates
from mnemoforge.validators.gates import (
    CategoryRules,
    CutoffValid,
    EvidenceResolves,
    GateContext,
    SymbolicRederive,
    UniqueQuestion,
    funnel,
    kept_ids,
)
from mnemoforge.validators.solver import solve

THEME = load_theme(DEFAULT_THEME)


@pytest.fixture(scope="module")
def built(icm_plans):  # type: ignore[no-untyped-def]
    p = icm_plans.plan()  # the default theme, seed 7
    qs = icm_plans.questions(screen=False)  # every program
    return p.world, list(p.clips), list(p.observations), qs


def test_world_is_deterministic_and_ignores_global_random_state() -> None:
    random.seed(1)
    a = canonical_json(plan_world(THEME, 7, 20))
    random.seed(999)
    b = canonical_json(plan_world(THEME, 7, 20))
    assert a == b
    assert canonical_json(plan_world(THEME, 8, 20)) != a


def test_timeline_respects_the_theme(built) -> None:
    world, *_ = built
    assert world.seed == 7
    starts = [e.start for e in world.events]
    assert starts == sorted(starts)
    assert all(THEME.start <= s.date() < THEME.end for s in starts)
    acts = {a.id: a for a in THEME.activities}
    for e in world.events:
        assert acts[e.activity].min_people <= len(e.participants) <= acts[e.activity].max_people
        assert e.place in acts[e.activity].places
        owners = {o.id: o.owner for o in world.objects}
        assert all(owners[o] in e.participants for o in e.objects)


def test_calibration_clip_shows_everyone_saying_their_name(built) -> None:
    world, clips, obs, _ = built
    cal = clips[0]
    assert cal.calibration and cal.index == 0
    assert [s.visible for s in cal.shots] == [[p.id] for p in world.people]
    for s, p in zip(cal.shots, world.people, strict=True):
        assert p.name in s.dialogue[0].text
    assert not any(o.evidence_eligible for o in obs if o.episode == cal.id)


def test_observations_record_facts_and_channels(built) -> None:
    world, clips, obs, _ = built
    facts = {f.id for f in world.facts}
    for o in obs:
        assert {e.fact for e in o.expresses} <= facts
    # a readable place sign is a pixel-level cue; a spoken name is speech
    channels = {e.channel for o in obs for e in o.expresses}
    assert {Channel.pixel, Channel.scene, Channel.speech} <= channels


def test_answers_are_computed_and_rederive_from_evidence(built) -> None:
    world, clips, obs, qs = built
    by_id = {o.id: o for o in obs}
    assert len({q.id for q in qs}) == len(qs)
    for q in qs:
        ev = [by_id[e] for e in q.evidence]
        assert solve(q, world, ev) == q.answer
        assert all(o.evidence_eligible for o in ev)  # the calibration clip is never evidence
        assert q.lineage.seed == 7
        assert q.target_people and set(q.target_people) <= {p.id for p in world.people}
        assert q.evidence_clips and set(q.evidence_shots) <= set(q.evidence)
        if q.category == "profile_inference":
            assert q.cutoff is None and len(q.evidence_clips) >= 2
        else:
            assert max(o.order for o in ev) < q.cutoff <= len(clips) - 1 or q.cutoff == len(clips) - 1
        if q.category == "cross_episode_retrieval":
            assert len(q.evidence_clips) >= 2


def test_category_mix_follows_the_theme(built) -> None:
    *_, qs = built
    counts = {c: sum(q.category == c for q in qs) for c in THEME.questions.counts()}
    assert (
        counts
        == THEME.questions.counts()
        == {
            "identity_recall": 20,
            "cross_episode_retrieval": 25,
            "profile_inference": 15,
        }
    )
    # selection is stratified by template: each category takes as many of the question forms the
    # World supports as it has items (every form where it has more items than forms)
    from mnemoforge.generators.icm.questions import _candidates, _valid
    from mnemoforge.generators.questions.common import EvidenceIndex, solve_candidates

    world, _, obs, _ = built
    solvable = {
        c.template.id: c.template.category
        for c in solve_candidates(world, EvidenceIndex(obs), _candidates(world))
        if _valid(c)
    }
    planned = {q.lineage.template for q in qs}
    assert planned <= set(solvable) and len(solvable) >= 15
    for category, n in counts.items():
        forms = {t for t, c in solvable.items() if c == category}
        assert len(planned & forms) == min(n, len(forms)), category


def test_a_question_needs_face_voice_binding(built) -> None:
    world, clips, obs, qs = built
    by_id = {o.id: o for o in obs}
    q = next(q for q in qs if q.program.fn == "who_brought")
    ev = [by_id[e] for e in q.evidence]
    spoken = [o for o in ev if o.kind == "speech"]
    seen = [o for o in ev if o.kind == "shot"]
    holder = q.target_people[0]
    # the name is heard in one clip, and the face is seen with the object in a later clip
    assert spoken and seen and min(o.order for o in spoken) < min(o.order for o in seen)
    assert any(
        e.fact == f"f_name_{holder}" and e.channel.value == "speech" for o in spoken for e in o.expresses
    )
    assert world.person(holder).name not in " ".join(o.content for o in seen)  # the face clip names no one
    assert q.answer == world.person(holder).name
    # without the clip where the name is said, the answer cannot be derived
    import pytest as _pt

    from mnemoforge.generators.questions.programs import Unanswerable

    with _pt.raises(Unanswerable):
        solve(q, world, seen)


def test_profile_answers_accumulate_over_clips(built) -> None:
    world, _, obs, qs = built
    from collections import Counter

    for q in (q for q in qs if q.program.fn == "usual_choice"):
        a = q.program.args
        picks = [
            f
            for f in world.facts
            if f.kind == "chose" and f.subject == a["person"] and f.object == a["key"]
            and a.get("from_month", "") <= f.at.strftime("%Y-%m") <= a.get("to_month", "9999")
        ]  # fmt: skip
        assert len(picks) >= 2 and len(q.evidence_clips) >= 2
        (top, n), *rest = Counter(f.value for f in picks).most_common()
        assert q.answer == top and all(m < n for _, m in rest)  # the clear majority of the scattered picks
        assert set(q.facts_read) == {f.id for f in picks}


def test_shot_plans_are_valid_and_invalid_ones_are_named(built) -> None:
    world, clips, *_ = built
    validate_album(THEME, world, clips)
    assert all(
        len(s.visible) <= 6 and s.extras <= 4 and s.duration_s in (4, 6, 8) for c in clips for s in c.shots
    )
    shot = clips[3].shots[0]
    bad_shot = shot.model_copy(update={"place": "atlantis", "outfits": {shot.visible[0]: "tuxedo"}})
    bad = [*clips[:3], clips[3].model_copy(update={"shots": [bad_shot]}), *clips[4:]]
    problems = album_problems(THEME, world, bad)
    assert f"{shot.id}.place: unknown place 'atlantis'" in problems
    assert any(p.startswith(f"{shot.id}.outfits") for p in problems)
    with pytest.raises(AlbumError):
        validate_album(THEME, world, bad[:-1])


def test_companion_answer_matches_the_world(built) -> None:
    world, _, _, qs = built
    q = next(q for q in qs if q.program.fn == "event_companions" and "month" in q.program.args)
    a = q.program.args
    ev = [
        e
        for e in world.events
        if e.activity == a["activity"]
        and e.place == a["place"]
        and e.start.strftime("%Y-%m") == a["month"]
        and a["person"] in e.participants
    ]
    assert len(ev) == 1
    names = sorted(world.person(p).name for p in ev[0].participants if p != a["person"])
    assert all(n in q.answer for n in names)


def test_gates_reject_crafted_bad_items_for_the_right_reason(built) -> None:
    world, _, obs, qs = built
    ctx = GateContext(world, {o.id: o for o in obs}, qs)
    good = qs[0]
    assert all(g.check(good, ctx).keep for g in (EvidenceResolves(), CutoffValid(), SymbolicRederive()))

    wrong = good.model_copy(update={"answer": "Nobody"})
    v = SymbolicRederive().check(wrong, ctx)
    assert not v.keep and "stored answer is 'Nobody'" in v.reason

    thin = good.model_copy(update={"evidence": good.evidence[:1] if len(good.evidence) > 1 else []})
    v = SymbolicRederive().check(thin, ctx)
    assert not v.keep and "does not determine" in v.reason

    ghost = good.model_copy(update={"evidence": [*good.evidence, "c9999_s00"]})
    v = EvidenceResolves().check(ghost, ctx)
    assert not v.keep and "c9999_s00" in v.reason

    cal = good.model_copy(update={"evidence": [*good.evidence, "c0000_s00"]})
    assert "calibration" in EvidenceResolves().check(cal, ctx).reason

    early = good.model_copy(update={"cutoff": 0})
    v = CutoffValid().check(early, ctx)
    assert not v.keep and "precedes evidence" in v.reason

    prof = next(q for q in qs if q.category == "profile_inference")
    assert CategoryRules().check(prof, ctx).keep
    one_clip = prof.model_copy(
        update={"evidence": [e for e in prof.evidence if e.startswith(prof.evidence_clips[0])]}
    )
    v = CategoryRules().check(one_clip, ctx)
    assert not v.keep and "too few evidence clips" in v.reason
    v = CategoryRules().check(prof.model_copy(update={"cutoff": 5}), ctx)
    assert not v.keep and "wrong timeline" in v.reason


def test_rejects_are_kept_and_counted_in_the_funnel(built) -> None:
    world, _, obs, qs = built
    bad = qs[0].model_copy(update={"id": "icm_recall_bad", "answer": "Nobody"})
    dup = qs[1].model_copy(update={"id": "zzz_dup"})
    items = [*qs, bad, dup]
    no_panels = GateSpec(panels={})  # the exact gates decide; panel gates say "not applicable"
    verdicts = run_all_gates(items, GateContext(world, {o.id: o for o in obs}), no_panels).verdicts
    assert len(verdicts) == len(items) * len(gates_for("icm"))  # every gate gives every item a verdict
    kept = kept_ids(verdicts)
    # shares over kept items, places only captions name, cast priors, unfair distractors and
    # near-duplicates reject some genuine items too (the fixture plans unscreened items)
    genuine = ("answer_balance", "perceivable", "cast_prior", "fair_distractors", "unique_question")
    ids = {q.id for q in qs}
    balanced = {v.item for v in verdicts if v.gate in genuine and not v.keep and v.item in ids}
    assert "icm_recall_bad" not in kept and "zzz_dup" not in kept and len(kept) == len(qs) - len(balanced)
    f = funnel(items, verdicts, gates_for("icm"))
    assert f["candidates"] == len(qs) + 2 and f["kept"] == len(qs) - len(balanced)
    stages = {s["gate"]: s for s in f["stages"]}
    assert stages["symbolic_rederive"]["rejected"] == 1
    assert stages["unique_question"]["reasons"]["duplicate question"] == 1  # (near-duplicates: unscreened)
    assert UniqueQuestion().check(dup, GateContext(world, {}, items)).reason.startswith("duplicate")


def test_mirrored_mcq_rotations_place_the_answer_once_at_each_letter(built, icm_plans) -> None:  # type: ignore[no-untyped-def]
    world, _, _, qs = built
    mcq = [q for q in qs if q.options]
    assert len(mcq) >= len(qs) * 0.9
    for q in mcq:
        assert len(q.options) == 4 and len(set(q.options)) == 4 and q.options[0] == q.answer
        positions = sorted(rot.index(0) for rot in q.rotations)
        assert positions == [0, 1, 2, 3]  # the correct option lands once on each of A-D
        assert all(sorted(rot) == [0, 1, 2, 3] for rot in q.rotations)
    profile = icm_plans.every("profile_inference")  # every Profile item: a usual-choice one among them
    choice = next(q for q in profile if q.options and q.program.fn == "usual_choice")
    minority = {
        f.value
        for f in world.facts
        if f.kind == "chose"
        and f.subject == choice.program.args["person"]
        and f.object == choice.program.args["key"]
    } - {choice.answer}
    if minority:  # the person's own stale choice is offered as a distractor
        assert minority & set(choice.options)
