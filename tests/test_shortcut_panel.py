"""The full shortcut panel (issue 31): each solver on crafted items, and on built releases, where
the cast solvers are at chance by the ``cast_prior`` gate, the agent rows' layout rules at chance
by construction, and no solver significantly above chance."""

from __future__ import annotations

import json
from pathlib import Path

from mnemoforge.exporters.release_validator import _binomial_tail
from mnemoforge.generators.questions import ordered
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.validators.sentence_retrieval import SentenceIndex
from mnemoforge.validators.shortcut_panel import _value_prior, forced, slot_scores


def _q(i: int, answer: str, options: list[str], fn: str = "f", category: str = "c") -> Question:
    return Question(
        id=f"q{i:03d}", family="x", category=category, question=f"Q{i}?", answer=answer, options=options,
        target_people=[], evidence=["o"], facts_read=[], cutoff=None, program=Program(fn=fn),
        lineage=Lineage(template="t", seed=1, program_hash="h", world_hash="w", answer_hash="a"),
    )  # fmt: skip


def test_value_prior_is_leave_one_out() -> None:
    items = [_q(i, "2", ["2", "3", "4", "5"]) for i in range(3)] + [_q(9, "3", ["3", "2", "4", "5"])]
    prior = _value_prior(items, lambda q: q.program.fn)
    assert forced(prior["q000"]) == 1.0  # "2" keyed by the two others
    assert forced(prior["q009"]) == 0.0  # the others key "2", not its own "3"


def test_numeric_rules_and_ranks() -> None:
    opts = ["3", "4", "5", "6"]
    assert ordered.rank(opts, 2) == 2 and ordered.rank(["2026-01-03", "2026-01-01"], 0) == 1
    assert forced(ordered.largest(opts), 3) == 1.0 and forced(ordered.smallest(opts), 0) == 1.0
    assert forced(ordered.closest_to_mean(opts), 1) == 0.5  # the middle two tie
    assert ordered.values(["a", "1"]) is None and ordered.value("09:30") == 570.0


def test_slot_majority_finds_the_common_core() -> None:
    sets = ["Ana and Bo", "Ana and Cy", "Di and Bo", "Ana and Bo and Cy"]
    assert slot_scores(sets) is None  # not one shape
    assert forced(slot_scores(["Ana; Bo", "Ana; Cy", "Di; Bo", "Ed; Fa"]) or []) == 1.0


def test_sentence_retrieval_reads_captions_without_timestamps() -> None:
    idx = SentenceIndex([(0, "Table 4: TRI-36 - travel date: 2026-10-26."), (1, "Lunch was good.")])
    scores = idx.scores("Which travel date goes with TRI-36?", ["2026-10-26", "2026-10-28", "2026-11-02"])
    assert forced(scores) == 1.0
    assert idx.scores("Which travel date goes with TRI-36?", ["2026-10-26"], cutoff=-1) == [0.0]


def test_release_panel_has_no_significant_shortcut(family_release: Path) -> None:
    release = family_release
    stats = json.loads((release / "dataset_statistics.json").read_text())
    solvers = stats["shortcut_panel"]["solvers"]
    assert {"agent_rows", "value_prior_program", "text_sentences", "longest"} <= set(solvers)
    for name, s in solvers.items():
        if name.startswith("cast_"):  # rejected by the cast_prior gate wherever one would beat chance
            assert s["accuracy"] <= s["chance"] + 1e-9, (name, s)
        elif name == "agent_rows":  # first letters spread evenly: at most one item over a quarter
            assert s["accuracy"] <= s["chance"] + 1 / s["n"] + 1e-9, s
        elif name != "text_sentences_x1_scene":  # MemEye's scene captions may name the gist
            hits = round(s["accuracy"] * s["n"])
            assert _binomial_tail(hits, s["n"], s["chance"]) > 1e-3, (release.name, name, s)
