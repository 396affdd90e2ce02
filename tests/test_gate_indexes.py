"""The indexes and memos the gates build once per run give exactly what the per-item path gives:
prefix BM25 and the indexed text history, the World's fact index behind the symbolic solver, the
shared score of masks with the same fact set, the family-level balance and quota figures; and the
verdict cache key still changes when an item's evidence changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemoforge.generators.questions.programs import FactView, Lexicon, Unanswerable, run_program
from mnemoforge.schemas.theme import GateSpec
from mnemoforge.theme_io import DEFAULT_THEME, load_theme
from mnemoforge.validators import text_retrieval as tr
from mnemoforge.validators.answerers import embed_cache
from mnemoforge.validators.answerers.lexical import BM25, PrefixBM25
from mnemoforge.validators.answerers.panel import Panel
from mnemoforge.validators.answerers.protocol import Context
from mnemoforge.validators.answerers.symbolic import SymbolicAnswerer
from mnemoforge.validators.answerers.textnorm import tokens
from mnemoforge.validators.balance_gates import AnswerBalance, CategoryQuota
from mnemoforge.validators.gate_runner import run_all_gates
from mnemoforge.validators.gates import CategoryRules, GateContext
from mnemoforge.validators.panel_gates import ModalityNecessity
from mnemoforge.validators.perceivable import Perceivable
from mnemoforge.validators.solver import fact_index, solve

THEME = load_theme(DEFAULT_THEME)
DOCS = [
    "ada brought the green kettle to the picnic",
    "the picnic at the lake with ada and bo",
    "bo cycles to work every morning",
    "",
    "ada and bo cooked dinner; the kettle whistled",
    "a long walk by the lake, then tea from the kettle",
    "bo said the lake was cold",
]


@pytest.fixture(scope="module")
def album(icm_plans):  # type: ignore[no-untyped-def]
    p = icm_plans.plan()  # the default theme, seed 7
    return p.world, list(p.observations), icm_plans.questions()


def test_prefix_bm25_equals_bm25_over_every_prefix() -> None:
    docs = [tokens(d) for d in DOCS]
    index = PrefixBM25(docs)
    queries = [tokens("who brought the kettle to the lake?"), tokens("bo"), tokens("nothing matches"), []]
    for m in range(1, len(docs) + 1):
        ref = BM25(docs[:m])
        for q in queries:
            assert index.rank(q, m, 3) == ref.rank(q)[:3]
            for i in range(m):
                assert index.score(q, i, m) == ref.score(q, i)  # the same floats, not just close


def test_text_history_scores_equal_the_per_item_functions(album) -> None:
    world, obs, qs = album
    history = tr.TextHistory(obs)
    toks = history.token_history()
    assert toks == [(o, tokens(t)) for o, t in tr.passages(obs)]
    mcq = [q for q in qs if q.options]
    assert mcq
    for q in mcq:
        assert history.bm25_scores(q) == tr.bm25_scores(q, toks)
        assert history.texts_before(q) == [t.lower() for t in tr.before_cutoff(q, history.passages)]
        assert tr.written_in(q, history.texts_before(q)) == tr.written_before(q, history.passages)
        assert tr.colocation(q, world, history.passages, history.lower) == tr.colocation(
            q, world, history.passages
        )


@pytest.mark.slow
@pytest.mark.skipif(not embed_cache.available(), reason="needs the ml extra (MiniLM)")
def test_text_history_minilm_equals_the_per_item_function(album) -> None:
    _, obs, qs = album
    history = tr.TextHistory(obs)
    for q in [q for q in qs if q.options][:40]:
        assert history.minilm_scores(q) == tr.minilm_scores(q, history.passages)


def _solve_scanning(q, world, evidence) -> str:
    """The solver as it was: every World fact scanned for the visible ids."""
    visible: set[str] = set()
    for o in evidence:
        if q.cutoff is None or o.order <= q.cutoff:
            visible |= o.fact_ids()
    view = FactView((f for f in world.facts if f.id in visible), Lexicon(world))
    return run_program(q.program.fn, view, q.program.args)


def _outcome(fn, *args) -> str:
    try:
        return fn(*args)
    except Unanswerable as e:
        return f"unanswerable: {e}"


def test_fact_index_solves_as_a_full_scan(album) -> None:
    world, obs, qs = album
    by_id = {o.id: o for o in obs}
    for q in qs[:60]:
        ev = [by_id[e] for e in q.evidence if e in by_id]
        for part in [ev, *([x for x in ev if x is not o] for o in ev[:4])]:
            assert _outcome(solve, q, world, part) == _outcome(_solve_scanning, q, world, part)
    # another World (or the same one with other facts) is indexed again, never read stale
    fewer = world.model_copy(update={"facts": world.facts[: len(world.facts) // 2]})
    assert fact_index(fewer).n == len(fewer.facts) and fact_index(world).n == len(world.facts)
    q = next(q for q in qs if q.category == "profile_inference")
    ev = [by_id[e] for e in q.evidence if e in by_id]
    assert _outcome(solve, q, fewer, ev) == _outcome(_solve_scanning, q, fewer, ev)


def _facts(ctx, q) -> set[str]:
    ids = set(ctx.ids)
    return {e.fact for o in ctx.observations if o.id in ids and (q.cutoff is None or o.order <= q.cutoff)
            for e in o.expresses}  # fmt: skip


class _Unkeyed(SymbolicAnswerer):
    """The symbolic answerer without mask keys: every masked context is asked again."""

    mask_keys = None  # type: ignore[assignment]


def test_masks_sharing_a_fact_set_share_a_score(album) -> None:
    world, obs, qs = album
    ctx = Context.from_observations(obs[:6], world=world, question=qs[0])
    ids = [o.id for o in obs[:6]] + ["not-in-context"]
    keys = SymbolicAnswerer().mask_keys(ctx, ids)
    assert keys[-1] == frozenset()  # masking what is not there removes nothing
    for i, key in zip(ids, keys, strict=True):  # the key is what the mask removes from the context's facts
        full, rest = _facts(ctx, qs[0]), _facts(ctx.without(i), qs[0])
        assert key == full - rest
    observations = {o.id: o for o in obs}
    keyed = GateContext(world, observations, qs, panels={"modality_necessity": Panel([SymbolicAnswerer()])})
    unkeyed = GateContext(world, observations, qs, panels={"modality_necessity": Panel([_Unkeyed()])})
    gate = ModalityNecessity()
    picked = [q for q in qs if q.category == "profile_inference"][:8] + [q for q in qs if q.cutoff][:8]
    for q in picked:
        assert gate.check(q, keyed) == gate.check(q, unkeyed)


def test_family_figures_computed_once_give_the_per_item_verdicts(album) -> None:
    world, obs, qs = album
    observations = {o.id: o for o in obs}
    survivors = {q.id for q in qs[::3]} | {q.id for q in qs[1::3]}
    quotas = {c: max(1, n // 2) for c, n in THEME.questions.counts().items()}
    for gate in (AnswerBalance(), CategoryQuota()):
        memo_ctx = GateContext(world, observations, qs, survivors=survivors, quotas=quotas, keep_split=True)
        got = [gate.check(q, memo_ctx) for q in qs]
        # a fresh context per item is the per-item computation
        want = [
            gate.check(q, GateContext(world, observations, qs, survivors=set(survivors), quotas=quotas,
                                      keep_split=True))
            for q in qs
        ]  # fmt: skip
        assert got == want
        assert any(not v.keep for v in got) or gate.name == "answer_balance"
        # a new survivor set is not read from the memo of the old one
        fewer = set(sorted(survivors)[: len(survivors) // 2])
        memo_ctx.survivors = fewer
        fresh = GateContext(world, observations, qs, survivors=set(fewer), quotas=quotas, keep_split=True)
        assert [gate.check(q, memo_ctx) for q in qs] == [gate.check(q, fresh) for q in qs]


def test_the_cache_key_changes_when_the_evidence_changes(album, tmp_path) -> None:
    world, obs, qs = album
    items = qs[:12]
    spec = GateSpec(panels={})
    family = [CategoryRules(), Perceivable()]

    def run(observations):
        ctx = GateContext(world, {o.id: o for o in observations})
        return run_all_gates(items, ctx, spec, cache_dir=tmp_path, family_gates=family)

    first = run(obs)
    assert all(n == len(items) for n in first.computed.values())
    assert set(first.cpu_s) == set(first.computed) and all(s >= 0 for s in first.cpu_s.values())
    again = run(obs)
    assert all(n == 0 for n in again.computed.values()) and again.verdicts == first.verdicts
    changed = items[0].evidence[0]
    touched = sum(changed in q.evidence for q in items)
    edited = [
        o.model_copy(update={"content": o.content + " (edited)"}) if o.id == changed else o for o in obs
    ]
    third = run(edited)
    assert all(n == touched for n in third.computed.values()), third.computed


def test_gates_give_the_same_verdicts_with_their_per_run_caches_cold_warm_and_off(album, monkeypatch) -> None:
    """On a seeded album's candidates, the exact and symbolic panel gates give one set of verdicts
    whether the solver's World index (facts, lexicon) and the contexts' image paths are cold,
    warm, or rebuilt for every call (the uncached path)."""
    from mnemoforge.validators import solver
    from mnemoforge.validators.answerers import protocol

    world, obs, qs = album
    items = [q for q in qs if q.category == "profile_inference"][:10] + [q for q in qs if q.cutoff][:20]
    spec = GateSpec(panels={"oracle": ["symbolic"], "modality_necessity": ["symbolic"]})
    family = [CategoryRules(), Perceivable()]

    def verdicts():
        ctx = GateContext(world, {o.id: o for o in obs}, media_root=Path("/run"))
        return [
            v.model_dump(mode="json") for v in run_all_gates(items, ctx, spec, family_gates=family).verdicts
        ]

    fact_index(world.model_copy())  # drops `world`'s index: the first run starts cold
    protocol.image_paths.cache_clear()
    cold = verdicts()
    assert protocol.image_paths.cache_info().hits > 0  # an item's evidence is read by several gates
    assert verdicts() == cold  # warm
    monkeypatch.setattr(solver, "fact_index", solver.FactIndex)  # a new index for every solve
    monkeypatch.setattr(protocol, "image_paths", protocol.image_paths.__wrapped__)
    assert verdicts() == cold
    spare = {v["scores"]["spare"] for v in cold if v["gate"] == "modality_necessity"}
    assert len(spare) > 1, spare  # masks that do and do not leave the answer derivable


def test_solver_keeps_each_observation_objects_facts_apart(album) -> None:
    """The solver's per-observation fact positions belong to the observation object: a copy
    with the same id and fewer expressions (a restricted observation, as the caption gate makes)
    is read as what it expresses, and every answer equals one from a view built fact by fact."""
    world, obs, qs = album
    by_id = {o.id: o for o in obs}
    idx = fact_index(world)
    checked = 0
    for q in [q for q in qs if q.evidence][:60]:
        ev = [by_id[e] for e in q.evidence if e in by_id]
        facts = {e.fact for o in ev if q.cutoff is None or o.order <= q.cutoff for e in o.expresses}
        plain = FactView([f for f in world.facts if f.id in facts], idx.lexicon)  # fact by fact
        try:
            want = run_program(q.program.fn, plain, q.program.args)
        except Unanswerable:
            want = None
        try:
            got = solve(q, world, ev)
        except Unanswerable:
            got = None
        assert got == want == q.answer, q.id
        emptied = [o.model_copy(update={"expresses": []}) for o in ev]  # same ids, no facts
        with pytest.raises(Unanswerable):
            solve(q, world, emptied)
        assert solve(q, world, ev) == q.answer  # the originals are still read as before
        checked += 1
    assert checked >= 30


def test_masked_views_and_event_indexes_equal_fresh_ones(album) -> None:
    """A masked context's view derived from its parent's (``FactIndex.masked_view``) holds the
    facts a fresh gathering gives, kinds and facts in the same order, and the icm event index
    derived from the parent's equals one built on that view; the solver answers alike."""
    from mnemoforge.generators.icm import programs as icm_programs

    world, obs, qs = album
    by_id = {o.id: o for o in obs}
    idx = fact_index(world)
    items = [q for q in qs if q.category == "profile_inference"][:12] + [q for q in qs if q.cutoff][:24]
    masks = dropped = reordered = 0
    for q in items:
        ev_full = [by_id[e] for e in q.evidence if e in by_id]
        full = Context.from_observations(ev_full, world=world, question=q)
        for e in [*q.evidence, "not-in-context"]:
            masked = full.without(e)
            ev = list(masked.observations)
            fresh = FactView.grouped(idx.visible(ev, q.cutoff), idx.lexicon)
            got = idx.masked_view(list(full.observations), ev, q.cutoff)
            assert got is not None and got.base is not None
            assert list(got.by_kind) == list(fresh.by_kind)  # kinds in the same order
            assert got.by_kind == fresh.by_kind  # each kind's facts in World order
            assert icm_programs.index(got) == icm_programs._built(fresh)
            assert _outcome(solve, q, world, ev, list(full.observations)) == _outcome(solve, q, world, ev)
            masks += 1
            dropped += bool(got.dropped)
            reordered += list(got.by_kind) != list(got.base.by_kind)
    assert masks > 100 and dropped > 50 and reordered, (masks, dropped, reordered)
    # evidence that is not drawn from the parent's observations, in their order, is gathered afresh
    assert idx.masked_view(list(obs[:3]), list(obs[3:5]), None) is None
    assert idx.masked_view(list(obs[:3]), [obs[2], obs[0]], None) is None


def test_modality_necessity_gives_the_same_verdicts_with_masked_views_derived_or_gathered(
    album, monkeypatch
) -> None:
    """The theme's panels on every candidate of a seeded album: the verdicts with masked views
    derived from the parent context (the gates as they run) equal those with every masked view
    gathered afresh (the gates before the derivation)."""
    from mnemoforge.validators import solver

    world, obs, qs = album
    spec = THEME.gates
    family = [CategoryRules(), Perceivable()]

    def verdicts():
        ctx = GateContext(world, {o.id: o for o in obs}, media_root=Path("/run"))
        return [v.model_dump(mode="json") for v in run_all_gates(qs, ctx, spec, family_gates=family).verdicts]

    derived = verdicts()
    monkeypatch.setattr(solver.FactIndex, "masked_view", lambda self, base, evidence, cutoff: None)
    assert verdicts() == derived
    spare = [v["scores"]["spare"] for v in derived if v["gate"] == "modality_necessity"]
    assert len(spare) == len(qs) and len(set(spare)) > 1, set(spare)


def test_item_digests_equal_the_content_hash_of_item_and_evidence(album) -> None:
    """The gate runner writes each observation's JSON once for the items' digests: the same
    digests as ``content_hash(item, [evidence observations])``."""
    from mnemoforge.hashing import content_hash
    from mnemoforge.validators.gate_runner import item_digests

    _, obs, qs = album
    observations = {o.id: o for o in obs}
    items = [
        *qs[:40],
        qs[0].model_copy(update={"id": "cites-a-missing-unit", "evidence": [*qs[0].evidence, "missing"]}),
    ]
    items.append(qs[1].model_copy(update={"id": "no-evidence", "evidence": []}))
    got = item_digests(items, observations)
    for q in items:
        want = content_hash(
            q.model_dump(mode="json"),
            [observations[e].model_dump(mode="json") for e in q.evidence if e in observations],
        )
        assert got[q.id] == want, q.id
