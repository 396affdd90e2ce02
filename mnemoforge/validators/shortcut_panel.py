"""The full shortcut panel over a frozen release: every memory-free solver forced to choose on the
kept multiple-choice items, with its accuracy and the number of items it applies to.

Solvers (chance is 1 / number of options; the goal is at most chance + 5 points per family):

- **option shape** (``option_solvers.SOLVERS``): longest, shortest, question overlap, lexical and
  edit-distance centroid, odd one out, most specific number; **option meaning** (MiniLM): the
  option closest to the question, the one closest to the other options;
- **option structure**: token-slot majority (multi-part options), near-variant centre;
- **numeric** (``generators/questions/ordered``): closest to the mean, median, largest, smallest;
- **value prior**: the option most often keyed among the *other* kept items of the same category,
  and of the same program (leave-one-out);
- **cast** (``generators/questions/cast_prior``): own object, activity place, habit, relation, role;
- **text**: the sentence-retrieval solver over every agent-visible sentence, captions included,
  without timestamps (``sentence_retrieval``), on all items and on those claiming visual evidence
  (for MemEye the finer cells, X2–X4, apart: X1 scene captions may name the scene's gist);
- **agent rows**: the best rule over the agent table's option lists (``release_validator``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mnemoforge.exporters import release_validator
from mnemoforge.exporters.views import load_agent_view
from mnemoforge.generators.questions import cast_prior
from mnemoforge.generators.questions import ordered as numeric
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.validators.answerers.option_prior import _slots, near_variant_centre
from mnemoforge.validators.answerers.option_solvers import SOLVERS, lexical_similarity
from mnemoforge.validators.panel_gates import claims_visual
from mnemoforge.validators.sentence_retrieval import SentenceIndex, agent_passages, stream_passages

Scores = list[float] | None


@dataclass
class PanelInput:
    """What the panel reads from one release."""

    family: str
    world: World
    questions: list[Question]
    observations: list[Observation]
    choices: dict[str, list[list[str]]]
    """Agent rows: item id -> its option lists (the agent table's ``choices``)."""
    passages: list[tuple[int, str]]
    """Every agent-visible text with the stream order it belongs to (captions included)."""


def _rows(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load(release: Path) -> PanelInput:
    """A frozen release's kept items, World, observations and agent-visible text."""
    view = load_agent_view(release)
    fam = view.family
    data = release / "data" / fam
    questions = [Question.model_validate(r) for r in _rows(data / "questions.jsonl")]
    obs = [Observation.model_validate(r) for r in _rows(data / "observations.jsonl")]
    world = World.model_validate_json((release / "data/world.json").read_text(encoding="utf-8"))
    rows = ((o["id"], o["episode"], o["order"], o.get("content") or "") for o in view.observations)
    passages = stream_passages(rows, view.captions)
    choices = {i.id: i.choices for i in view.items if i.choices}
    return PanelInput(fam, world, questions, obs, choices, passages)


def from_run(
    world: World, questions: list[Question], observations: list[Observation], captions: list[dict]
) -> PanelInput:
    """The panel's input from a run's contents before freeze (kept items, their rotations as the
    agent rows, observation text and the caption tables' text columns)."""
    choices = {
        q.id: [[q.options[i] for i in rot] for rot in q.rotations]
        for q in questions
        if q.options and q.rotations
    }
    fam = questions[0].family if questions else ""
    return PanelInput(fam, world, questions, observations, choices, agent_passages(observations, captions))


def forced(scores: Sequence[float], correct: int = 0) -> float:
    """1/k when the correct option is among the k best, else 0."""
    top = max(scores)
    winners = [i for i, s in enumerate(scores) if s == top]
    return 1.0 / len(winners) if correct in winners else 0.0


def slot_scores(options: Sequence[str]) -> Scores:
    """Token-slot majority: multi-part options of one shape, each scored by how many other options
    share its value in each slot (the answer is the common core of one-slot variants)."""
    parts = [_slots(o) for o in options]
    n = len(parts[0]) if parts else 0
    if n < 2 or any(len(p) != n for p in parts):
        return None
    counts = [Counter(p[i] for p in parts) for i in range(n)]
    return [float(sum(counts[i][p[i]] for i in range(n))) for p in parts]


def _value_prior(items: list[Question], key: Callable[[Question], str]) -> dict[str, Scores]:
    """Leave-one-out: each option scored by how often it is the answer of the other items sharing
    ``key`` (category or program)."""
    groups: dict[str, Counter[str]] = {}
    for q in items:
        groups.setdefault(key(q), Counter())[q.answer] += 1
    out: dict[str, Scores] = {}
    for q in items:
        c = groups[key(q)]
        out[q.id] = [float(c[o] - (o == q.answer)) for o in q.options or []]
    return out


class Tally:
    """Per solver: summed forced accuracy, chance and items."""

    def __init__(self) -> None:
        self.hits: dict[str, float] = {}
        self.chance: dict[str, float] = {}
        self.n: dict[str, int] = {}

    def add(self, solver: str, scores: Scores, k: int) -> None:
        if scores is None or not k:
            return
        self.hits[solver] = self.hits.get(solver, 0.0) + forced(scores)
        self.chance[solver] = self.chance.get(solver, 0.0) + 1.0 / k
        self.n[solver] = self.n.get(solver, 0) + 1

    def table(self) -> dict[str, dict]:
        return {
            s: {
                "accuracy": round(self.hits[s] / n, 4),
                "chance": round(self.chance[s] / n, 4),
                "n": n,
                "hits": round(self.hits[s], 3),
            }
            for s, n in sorted(self.n.items())
        }


def panel(inp: PanelInput, minilm: bool = True) -> dict[str, dict]:
    """Every solver's accuracy over the kept MCQ items of one release: ``{solver: {accuracy,
    chance, n, hits}}`` (``agent_rows`` also names its best rule)."""
    mcq = [q for q in inp.questions if q.options and len(q.options) > 1]
    t = Tally()
    by_cat = _value_prior(mcq, lambda q: q.category)
    by_prog = _value_prior(mcq, lambda q: q.program.fn)
    index = SentenceIndex(inp.passages)
    by_id = {o.id: o for o in inp.observations}
    sem = _minilm() if minilm else None
    for q in mcq:
        opts, k = list(q.options or []), len(q.options or [])
        for name, fn in SOLVERS.items():
            t.add(name, fn(q.question, opts, lexical_similarity), k)
        t.add("token_slot_majority", slot_scores(opts), k)
        pick = near_variant_centre(opts)
        t.add("near_variant_centre", None if pick is None else [float(i == pick) for i in range(k)], k)
        for name, fn in numeric.SOLVERS.items():
            t.add(f"numeric_{name}", fn(opts), k)
        t.add("value_prior_category", by_cat[q.id], k)
        t.add("value_prior_program", by_prog[q.id], k)
        cast = cast_prior.cast_of(inp.world)
        for name, fn in cast_prior.SOLVERS.items():
            t.add(f"cast_{name}", fn(q.question, opts, cast), k)
        text = index.scores(q.question, opts, q.cutoff)
        if q.labels.get("x") == "X1":  # scene-level cells: captions may name the gist, as MemEye does
            t.add("text_sentences_x1_scene", text, k)
        else:
            t.add("text_sentences", text, k)
            if claims_visual(q, [by_id[e] for e in q.evidence if e in by_id]):
                t.add("text_sentences_visual", text, k)
        if sem is not None:
            t.add("meaning_closest_to_question", sem(q.question, opts), k)
            t.add("meaning_closest_to_options", SOLVERS["centroid"](q.question, opts, _minilm_sim()), k)
    out = t.table()
    rows = [(inp.choices[q.id], q.answer) for q in mcq if q.id in inp.choices]
    rules = release_validator.key_recovery(rows)
    if rules:
        best = max(sorted(rules), key=lambda r: rules[r]["accuracy"])
        out["agent_rows"] = {**{k: rules[best][k] for k in ("accuracy", "chance", "n")}, "rule": best}
    return out


def _minilm() -> Callable[[str, Sequence[str]], list[float]] | None:
    """Cosine of each option to the question (MiniLM), or None without the ``ml`` extra."""
    from mnemoforge.validators.answerers import embed_cache

    if not embed_cache.available():
        return None

    def score(question: str, options: Sequence[str]) -> list[float]:
        vecs = embed_cache.embed([question, *options])
        return [round(float(x), 6) for x in embed_cache.cosine(vecs[:1], vecs[1:])[0]]

    return score


def _minilm_sim():  # type: ignore[no-untyped-def]
    from mnemoforge.validators.answerers.option_solvers import minilm_similarity

    return minilm_similarity
