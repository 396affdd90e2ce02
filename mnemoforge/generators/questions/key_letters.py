"""Where the answer stands in the first rotation, spread evenly over a release's kept items.

An item's rotations are the cyclic shifts of one seeded shuffle (``options.rotations``), so the
set of orders a model is asked under is fixed when the item is made; only which of them is listed
first is free. At freeze, over the kept multiple-choice items (in a seeded order), the first
rotation is chosen so that the answer's letter there runs A, B, C, D, A, … : every letter holds
the answer in the same number of items (±1), under every rotation, so no "always pick A of the
first list" rule beats chance on the agent table. Reordering the list changes no gate verdict
(the same orders are asked) and no evaluator key (the gold letter follows each rotation).
"""

from __future__ import annotations

from mnemoforge.rng import derive_rng
from mnemoforge.schemas.questions import Question


def _letter(q: Question, rotation: list[int]) -> int:
    return rotation.index(0)  # options[0] is the answer (schema contract)


def spread(questions: list[Question], seed: int) -> list[Question]:
    """``questions`` (same order) with each MCQ item's rotation list turned so the answer's letter
    in its first rotation is balanced over the items with that many options."""
    mcq = sorted((q for q in questions if q.options and q.rotations), key=lambda q: q.id)
    derive_rng(seed, "key_letters").shuffle(mcq)
    turned: dict[str, list[list[int]]] = {}
    seen: dict[int, int] = {}
    for q in mcq:
        rots = [list(r) for r in q.rotations or []]
        n = len(q.options or [])
        want = seen.get(n, 0) % n
        seen[n] = seen.get(n, 0) + 1
        at = [i for i, r in enumerate(rots) if _letter(q, r) == want]
        if at:
            turned[q.id] = rots[at[0] :] + rots[: at[0]]
    return [q.model_copy(update={"rotations": turned[q.id]}) if q.id in turned else q for q in questions]
