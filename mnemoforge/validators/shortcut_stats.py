"""The shortcut panel's figures for a release: each option-only solver, and a text-only retrieval
solver (BM25 over all text the agent could read before the cutoff, on the items that claim visual
evidence: there text is the shortcut, elsewhere it is the memory), forced to choose on every kept
MCQ item. ``dataset_statistics.json`` → ``shortcut_panel`` reports their accuracy beside chance; a
release is shortcut-resistant when each stays within chance + 5 points. ``shortcut_panel.solvers``
holds the full panel of ``validators/shortcut_panel.py`` (``docs/item-validity.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.validators import text_retrieval
from mnemoforge.validators.answerers import embed_cache
from mnemoforge.validators.answerers.option_solvers import (
    SOLVERS,
    Similarity,
    forced_accuracy,
    lexical_similarity,
    minilm_similarity,
)
from mnemoforge.validators.answerers.textnorm import tokens

MARGIN = 0.05
"""The bound the tests hold each solver to: chance + 5 percentage points."""


def retrieval_scores(q: Question, history: Sequence[tuple[int, list[str]]]) -> list[float]:
    """BM25 text retrieval (``validators/text_retrieval.bm25_scores``)."""
    return text_retrieval.bm25_scores(q, history)


def text_history(observations: Sequence[Observation]) -> list[tuple[int, list[str]]]:
    """(order, tokens) of every observation with text, in stream order."""
    return [(o, tokens(t)) for o, t in text_retrieval.passages(observations)]


def claims_visual(q: Question, evidence: Sequence[Observation]) -> bool:
    """Some fact the item reads reaches its evidence only through pixels or the scene."""
    read, channels = set(q.facts_read), {}
    for o in evidence:
        for e in o.expresses:
            if e.fact in read:
                channels.setdefault(e.fact, set()).add(e.channel.value)
    return any(ch <= {"scene", "pixel"} for ch in channels.values())


@embed_cache.one_blas_thread()
def shortcut_figures(
    kept: Sequence[Question],
    observations: Sequence[Observation],
    sim: Similarity = lexical_similarity,
    minilm: bool = True,
    world: World | None = None,
    captions: Sequence[dict] = (),
) -> dict:
    """Forced-choice accuracy of every solver over the kept MCQ items (a k-way tie counts 1/k); the
    MiniLM solvers (``centroid_minilm``, ``text_retrieval_minilm``) where the ``ml`` extra is installed.
    With the ``world``, ``solvers`` adds the full panel (``validators/shortcut_panel``: value priors,
    numeric, cast and sentence-retrieval solvers, agent-row layout rules), each over the items it
    applies to, with its n and chance."""
    mcq = [q for q in kept if q.options]
    n_opts = sorted({len(q.options or []) for q in mcq})
    chance = round(sum(1 / len(q.options or [1]) for q in mcq) / len(mcq), 4) if mcq else 0.25
    acc: dict[str, float] = {}
    for name, solver in SOLVERS.items():
        total = sum(forced_accuracy(solver(q.question, q.options or [], sim), 0) for q in mcq)
        acc[name] = round(total / len(mcq), 4) if mcq else 0.0
    history = text_retrieval.TextHistory(observations)  # indexed once for every item
    by_id = {o.id: o for o in observations}
    visual = [q for q in mcq if claims_visual(q, [by_id[e] for e in q.evidence if e in by_id])]
    total = sum(forced_accuracy(history.bm25_scores(q), 0) for q in visual)
    acc["text_retrieval_bm25"] = round(total / len(visual), 4) if visual else 0.0
    if minilm and embed_cache.available():  # the MiniLM solvers of the default panel
        total = sum(forced_accuracy(SOLVERS["centroid"](q.question, q.options or [], minilm_similarity), 0)
                    for q in mcq)  # fmt: skip
        acc["centroid_minilm"] = round(total / len(mcq), 4) if mcq else 0.0
        total = sum(forced_accuracy(history.minilm_scores(q), 0) for q in visual)
        acc["text_retrieval_minilm"] = round(total / len(visual), 4) if visual else 0.0
    panel = {}
    if world is not None:
        from mnemoforge.validators import shortcut_panel

        inp = shortcut_panel.from_run(world, list(kept), list(observations), list(captions))
        panel = {"solvers": shortcut_panel.panel(inp, minilm=minilm)}
    return panel | {
        "items": len(mcq),
        "visual_items": len(visual),
        "options": n_opts,
        "chance": chance,
        "bound": round(chance + MARGIN, 4),
        "accuracy": acc,
        "within_bound": sorted(k for k, v in acc.items() if v <= chance + MARGIN),
        "above_bound": sorted(k for k, v in acc.items() if v > chance + MARGIN),
    }
