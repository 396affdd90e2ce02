"""Item validity: distractor rules, the option-only shortcut solvers, answer balance over kept
items, and the shortcut panel's figures in the shipped releases' statistics."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.icm.profile_options import CHANGES
from mnemoforge.generators.icm.questions import RULE_CAP, OptionRuleShare, over_keyed
from mnemoforge.generators.option_balance import (
    balanced_distractors,
    pick_balanced,
    stratified_targets,
    tells,
)
from mnemoforge.generators.questions.options import also_true_relation, gender_agrees, implied
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.questions import Question
from mnemoforge.theme_io import load_theme
from mnemoforge.validators.answerers import embed_cache
from mnemoforge.validators.answerers.option_solvers import (
    SOLVERS,
    OptionSolverAnswerer,
    decisive,
    forced_accuracy,
    lexical_similarity,
    option_tell,
)
from mnemoforge.validators.answerers.protocol import Context
from mnemoforge.validators.answerers.textnorm import answer_parts
from mnemoforge.validators.panel_gates import balanced_ids

THEMES = {"icm": "life_album.yaml", "backstage": "backstage_sao_paulo.yaml"}


@pytest.fixture(scope="module", params=sorted(THEMES))
def icm_items(request: pytest.FixtureRequest, icm_plans):  # type: ignore[no-untyped-def]
    """Every icm candidate of a shipped theme, with its World (no rendering needed)."""
    theme_file = THEMES[request.param]
    return icm_plans.plan(theme_file).world, icm_plans.questions(theme_file)


def test_relation_ontology() -> None:
    assert (
        "friend" in implied("best friend") and "spouse" in implied("wife") and "colleague" in implied("boss")
    )
    assert also_true_relation("best friend", "friend") and also_true_relation("friend", "best friend")
    assert not also_true_relation("best friend", "neighbour")
    assert not gender_agrees("brother", "female") and gender_agrees("cousin", "female")


def test_distractors_follow_the_rules(icm_items) -> None:  # type: ignore[no-untyped-def]
    world, qs = icm_items
    mcq = [q for q in qs if q.options]
    assert len(mcq) >= 0.8 * len(qs)
    names = {p.name for p in world.people}
    screened = told = 0
    for q in mcq:
        opts, d = q.options or [], (q.options or [])[1:]
        assert len(set(opts)) == 4 and q.answer == opts[0], q.id
        fn, args = q.program.fn, q.program.args
        subject = world.person(args["person"]).name if "person" in args else None
        if fn == "who_brought":  # the other faces present at the event are offered first
            present = {
                world.person(f[len("f_name_") :]).name for f in q.facts_read if f.startswith("f_name_")
            }
            assert set(d) & (present - {q.answer}) or present == {q.answer}, q.id
        if fn == "shared_activity":
            assert set(d) <= {e.noun for e in world.events}, q.id
        if fn == "choice_change":  # other changes over the same key's values
            assert all(x.startswith("from ") and " to " in x for x in d), q.id
        if fn in ("event_companions", "promise_companions", "plan_companions"):  # name sets, no subject
            size = len(answer_parts(q.answer))
            assert all(len(answer_parts(x)) == size and subject not in answer_parts(x) for x in d), q.id
            assert all(answer_parts(x) != answer_parts(q.answer) for x in d)
        if fn in ("frequent_companion", "who_brought"):
            targets = {world.person(t).name for t in q.target_people} - {q.answer}
            assert all(x in names and x != subject and x not in targets for x in d), q.id
        if fn == "relation_to":
            other = world.person(args["other"])
            assert all(gender_agrees(x, other.gender) for x in d), (q.id, d)
            assert not any(also_true_relation(q.answer, x) for x in d), (q.id, d)
        if fn == "habit_of":
            assert not set(d) & set(world.person(args["person"]).habits)
        if fn in CHANGES:  # a cycle A→B, B→C, C→D, D→A: each value once first and once second
            pairs = [x.removeprefix("from ").split(" to ") for x in opts]
            assert sorted(a for a, _ in pairs) == sorted(b for _, b in pairs), (q.id, opts)
            assert len({a for a, _ in pairs}) == 4 and all(a != b for a, b in pairs), (q.id, opts)
        if fn == "usual_place":  # places only, the activity's other places among them
            assert set(d) <= {p.name for p in world.places}, q.id
            rivals = {world.place(e.place).name for e in world.events if e.activity == args["activity"]}
            assert rivals - {q.answer} <= set(d) or len(rivals - {q.answer}) > 2, (q.id, d)
        if q.category == "profile_inference" and fn not in ("count_events", "usual_choice"):
            screened += 1
            told += option_tell(q.question, opts)
        if fn in ("count_events", "count_together", "count_brought"):
            vals = sorted(int(x) for x in opts)  # tight around the answer, never below 0
            assert len(set(vals)) == 4 and vals[0] >= 0 and vals[-1] - vals[0] <= 6
    # profile option sets are screened: an option-only rule reads the answer off at most a few
    assert told <= max(1, 0.05 * screened), (told, screened)


def test_option_tell_reads_a_decisively_short_or_overlapping_answer() -> None:
    assert option_tell(
        "What did Ana do most often?", ["hike", "family dinner", "project meeting", "market trip"]
    )
    assert option_tell("Who most often joined Li Hua?", ["Li Guo", "Chen Yu", "Wang Lei", "Zhao Min"])
    assert not option_tell("Who most often joined Li Hua?", ["Li Guo", "Li Ming", "Wang Lei", "Zhao Min"])


def test_answer_rank_by_length_and_centrality_is_spread() -> None:
    """Over many draws from one pool, the answer is longest / most central about a quarter of the time."""
    pool = ["tea tin", "blue thermos", "sketchbook", "silver laptop", "film camera", "ward badge", "red kite"]
    hits = Counter()
    n = 400
    for i in range(n):
        rng = derive_rng(1, "balance", i)
        answer = pool[i % len(pool)]
        opts = [answer, *(balanced_distractors(answer, pool, 3, rng) or [])]
        for name in ("longest", "centroid", "edit_centroid"):
            hits[name] += forced_accuracy(SOLVERS[name]("What?", opts, lexical_similarity), 0)
    assert all(0.1 <= hits[k] / n <= 0.3 for k in hits), hits


def test_stratified_targets_put_the_answer_at_every_rank_evenly() -> None:
    """Targets spread over items: any block of four items takes each rank once, and the sets
    drawn to them put the answer first by each rule about a quarter of the time."""
    ids = [f"q{i:03d}" for i in range(200)]
    targets = stratified_targets(ids, 5)
    for b in range(0, 200, 4):
        block = sorted(ids)[b : b + 4]
        assert sorted(targets[q][0] for q in block) == [0, 1, 2, 3]
        assert sorted(targets[q][1] for q in block) == [0, 1, 2, 3]
    pool = ["Aurora Room", "Birch Room", "Cedar Room", "Delta Lab", "Echo Hall", "Fern Room", "Glass Hall"]
    got = Counter()
    for i, q in enumerate(ids):
        rng = derive_rng(5, q)
        answer = pool[i % len(pool)]
        rest = [p for p in pool if p != answer]
        sets = [rng.sample(rest, 3) for _ in range(24)]
        opts = [answer, *(pick_balanced(answer, sets, rng, targets[q]) or [])]
        for k, v in tells(opts).items():
            got[k] += v
    assert all(0.15 <= v / len(ids) <= 0.32 for v in got.values()), got


def test_option_solvers_pick_their_tell_and_abstain_without_one() -> None:
    sim = lexical_similarity
    assert forced_accuracy(SOLVERS["longest"]("Q?", ["a much longer option", "b", "c", "d"], sim)) == 1.0
    assert forced_accuracy(SOLVERS["shortest"]("Q?", ["x", "bbbb", "cccc", "dddd"], sim)) == 1.0
    overlap = SOLVERS["question_overlap"](
        "Who joined Ana at the market?", ["the market", "a park", "a cafe", "home"], sim
    )
    assert forced_accuracy(overlap) == 1.0
    near = ["Ana, Bo and Cy", "Ana, Bo and Dee", "Ana, Cy and Dee", "Eve"]
    assert forced_accuracy(SOLVERS["odd_one_out"]("Q?", near, sim), 3) == 1.0
    assert forced_accuracy(SOLVERS["most_specific_number"]("Q?", ["12.75", "10", "20", "15"], sim)) == 1.0
    assert forced_accuracy([1.0, 1.0, 0.0, 0.0]) == 0.5  # a tie counts 1/k
    assert decisive([3.0, 3.0, 1.0, 0.0], 0.5) is None and decisive([9.0, 1.0, 0.5, 0.0], 0.5) == 0
    a = OptionSolverAnswerer("longest")
    opts = ["b", "a much longer option", "c", "d"]
    assert a.answer("Q?", opts, Context()).text == "a much longer option"
    assert not a.answer("Q?", ["aa", "bb", "cc", "dd"], Context()).ok  # no tell: abstains


def _q(i: int, answer: str) -> Question:
    return Question.model_validate(
        {
            "id": f"icm_x_{i:02d}",
            "family": "icm",
            "category": "c",
            "question": f"q{i}?",
            "answer": answer,
            "target_people": [],
            "evidence": [],
            "facts_read": [],
            "cutoff": None,
            "program": {"fn": "f", "args": {}},
            "lineage": {"template": "t", "seed": 1, "program_hash": "", "world_hash": "", "answer_hash": ""},
        }
    )


def test_balance_holds_over_what_remains() -> None:
    items = [_q(i, "2") for i in range(4)] + [_q(10 + i, "abc"[i]) for i in range(3)]  # "2" is 4 of 7
    kept = balanced_ids(items, 0.5)
    shares = Counter(x.answer for x in items if x.id in kept)
    assert max(shares.values()) <= max(1, math.floor(0.5 * len(kept)))
    assert len(kept) == 6  # one surplus "2" dropped, not more


def test_planning_caps_answers_over_the_planned_set_not_item_by_item() -> None:
    """Five names keyed once each: a sixth item repeats one (2 of 6 > 30 %), so a screen run item
    by item stalls at five; over the planned set, a program of 14 with 4 per name is balanced
    (cap floor(0.30 * 14) = 4), and only the surplus of an over-keyed name is dropped, latest first."""
    opts = ["a", "b", "c", "d"]

    def mcq(i: int, answer: str) -> Question:
        return _q(i, answer).model_copy(update={"options": [answer, *[o for o in opts if o != answer][:3]]})

    names = ["Ana", "Bo", "Cy", "Dee", "Eve"]
    balanced = [mcq(i, names[i % 4]) for i in range(14)][:12] + [mcq(20, "Eve"), mcq(21, "Eve")]
    assert over_keyed(balanced) == set()  # 3 + 3 + 3 + 3 + 2 of 14, cap 4
    heavy = [mcq(i, "Ana") for i in range(6)] + [mcq(10 + i, n) for i, n in enumerate(names[1:])]
    dropped = over_keyed(heavy)  # Ana 6 of 10 (cap 3): the latest Ana items go until the cap holds
    assert dropped and all(i.startswith("icm_x_0") for i in dropped)
    left = [q for q in heavy if q.id not in dropped]
    assert Counter(q.answer for q in left)["Ana"] <= max(1, math.floor(0.30 * len(left) + 1e-9))
    assert sorted(dropped)[-1] == "icm_x_05" and "icm_x_00" not in dropped


def test_planning_passes_over_sets_whose_length_gives_the_answer_away() -> None:
    shares = OptionRuleShare()
    short = ["Dana", "Cyrus", "Eliza", "Priya"]  # the answer (first) is the shortest
    fair = ["Dana", "Bo", "Cyrus", "Ulf"]  # no lexical rule above chance on it
    for _ in range(12):
        shares.add(fair)
    took = 0
    for _ in range(10):
        if not shares.tips(short):
            shares.add(short)
            took += 1
    # at most 27 % of the planned items (and one item of slack) are answered by "shortest"
    assert took == 5 and shares.hits["shortest"] <= RULE_CAP * shares.n + 1
    assert not shares.tips(fair)
    shares.add(short, -1)  # an item dropped again gives its share back
    assert shares.n == 16 and shares.hits["shortest"] == 4


# --- the shipped releases ----------------------------------------------------------------


def _check_release(root: Path, bound_pp: float = 0.05, min_items: int = 20) -> dict:
    stats = json.loads((root / "dataset_statistics.json").read_text())
    sp = stats["shortcut_panel"]
    minilm = {"centroid_minilm", "text_retrieval_minilm"} if embed_cache.available() else set()
    assert sp["items"] > min_items and set(sp["accuracy"]) == {*SOLVERS, "text_retrieval_bm25", *minilm}
    for name, acc in sp["accuracy"].items():
        assert acc <= sp["chance"] + bound_pp + 1e-9, (root.name, name, acc, sp)
    fam = json.loads((root / "MANIFEST.json").read_text())["family"]
    theme = load_theme(root / "theme.yaml")
    kept = read_jsonl(root / f"data/{fam}/questions.jsonl")
    for cat in {q["category"] for q in kept}:
        answers = Counter(q["answer"] for q in kept if q["category"] == cat)
        n = sum(answers.values())
        assert max(answers.values()) <= max(1, math.floor(theme.gates.max_answer_share * n)), (cat, answers)
    return sp


def test_smm_release_shortcut_figures_and_balance(smm_release) -> None:  # type: ignore[no-untyped-def]
    _check_release(smm_release.root)


def test_memeye_release_shortcut_figures_and_balance(memeye_release: Path) -> None:
    _check_release(memeye_release)


def test_default_release_shortcut_figures_and_balance(default_release: Path) -> None:
    # on the session's full-size build (conftest marks every test on `default_release` integration)
    _check_release(default_release)


def test_grouped_diversity_order_equals_the_plain_greedy_scan() -> None:
    """The grouped scan in ``diverse_order`` picks exactly what scanning every item would."""
    import random

    from mnemoforge.generators.questions import diversity as dv
    from mnemoforge.rng import derive_seed

    def plain(items, feats, key, seed, *salt):  # the reference: every item scored each pick
        rank = {key(x): derive_seed(seed, "diversity", *salt, key(x)) for x in items}
        left = sorted(items, key=lambda x: rank[key(x)])
        got: dict[str, dict[str, int]] = {f: {} for f in dv.FEATURES}
        vals = {key(x): [dv._values(feats(x).get(n)) for n in dv.FEATURES] for x in left}
        while left:

            def cost(x):
                seen = (
                    max((got[n].get(v, 0) for v in vs), default=0)
                    for n, vs in zip(dv.FEATURES, vals[key(x)], strict=True)
                )
                return (*seen, rank[key(x)])

            x = left.pop(min(range(len(left)), key=lambda i: cost(left[i])))
            for n, vs in zip(dv.FEATURES, vals[key(x)], strict=True):
                for v in vs:
                    got[n][v] = got[n].get(v, 0) + 1
            yield x

    rng = random.Random(7)
    for trial in range(20):
        items = [
            dv.features(
                f"p{rng.randrange(4)}",
                f"t{rng.randrange(3)}",
                str(rng.randrange(5)),
                {"person": f"x{rng.randrange(4)}", "month": f"m{rng.randrange(3)}"},
                options=[str(v) for v in rng.sample(range(9), 4)] if rng.random() < 0.5 else None,
            )
            | {"id": f"q{i}"}
            for i in range(rng.randrange(1, 60))
        ]
        got = [x["id"] for x in dv.diverse_order(items, lambda x: x, lambda x: x["id"], trial, "t")]
        want = [x["id"] for x in plain(items, lambda x: x, lambda x: x["id"], trial, "t")]
        assert got == want
