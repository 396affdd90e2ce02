"""The symbolic answerer: the question's program executed on the facts the context expresses."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from mnemoforge.generators.questions.programs import Unanswerable
from mnemoforge.schemas.observations import Observation
from mnemoforge.validators.answerers.judges import exact_match
from mnemoforge.validators.answerers.protocol import Answer, Context
from mnemoforge.validators.solver import solve


class SymbolicAnswerer:
    """Exact: runs ``context.question.program`` on the World restricted to the context's observations.

    Needs ``context.world`` and ``context.question`` (the structured record; the question text
    passed to ``answer`` may be a paraphrase). Only observations that are also context items
    count, so removing an item removes its facts. Unanswerable programs give ``ok=False``.
    """

    order_invariant = True  # picks an option by its text: asked once per option set (see panel)

    id = "symbolic"

    def __init__(self) -> None:
        self._parents: dict[int, tuple[Context, list[Observation]]] = {}

    def mask_keys(self, context: Context, ids: Sequence[str]) -> list[frozenset[str]]:
        """For each id, what its answer on ``context.without(id)`` depends on besides the question
        and the World: the facts that masking the id removes from those the context's observations
        (items only, up to the cutoff) express. Equal keys leave equal fact sets, so equal answers:
        a gate may reuse one mask's score for another. One pass over the context for all ids."""
        visible = set(context.ids)
        cut = context.question.cutoff if context.question is not None else None
        facts_of: dict[str, set[str]] = {}
        for o in context.observations:
            if o.id in visible and (cut is None or o.order <= cut):
                facts_of.setdefault(o.id, set()).update(e.fact for e in o.expresses)
        holders: Counter[str] = Counter(f for fs in facts_of.values() for f in fs)
        return [frozenset(f for f in facts_of.get(i, ()) if holders[f] == 1) for i in ids]

    def _shown(self, context: Context) -> list[Observation]:
        """The context's observations that are also its items (kept for the last contexts asked:
        every mask of one item's evidence is derived from the same parent)."""
        hit = self._parents.get(id(context))
        if hit is not None and hit[0] is context:
            return hit[1]
        shown = set(context.ids)
        got = [o for o in context.observations if o.id in shown]
        if len(self._parents) > 64:
            self._parents.clear()
        self._parents[id(context)] = (context, got)
        return got

    def answer(self, question: str, options: list[str] | None, context: Context) -> Answer:
        if context.world is None or context.question is None:
            return Answer.failed(self.id, "the symbolic answerer needs context.world and context.question")
        if context.ids == context.observation_ids:  # each observation is an item (as usual)
            evidence = list(context.observations)
        else:
            visible = set(context.ids)
            evidence = [o for o in context.observations if o.id in visible]
        within = None
        if (parent := context.parent) is not None:  # a masked context: derived from the parent's facts
            within = self._shown(parent)
        try:
            text = solve(context.question, context.world, evidence, within)
        except Unanswerable as e:
            return Answer.failed(self.id, f"unanswerable from this context: {e}")
        except (KeyError, AssertionError) as e:  # an unknown program or malformed arguments
            return Answer.failed(self.id, f"program failed: {type(e).__name__}: {e}")
        if not options:
            return Answer(text, None, text, True, None, self.id)
        matches = [k for k, opt in enumerate(options) if exact_match(text, opt)]
        if len(matches) != 1:
            return Answer.failed(self.id, f"computed answer {text!r} matches {len(matches)} options", text)
        return Answer.mcq(self.id, options, matches[0], text)
