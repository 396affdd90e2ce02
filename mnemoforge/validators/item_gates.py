"""Exact item gates between uniqueness and the panel gates: no cast prior answers the item, and no
distractor is ruled out by the question's grammar or by being its asker."""

from __future__ import annotations

from mnemoforge.generators.questions import cast_prior
from mnemoforge.generators.questions.distractor_grammar import ruled_out
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.validators.gates import GateContext, verdict


class CastPrior:
    """The cast's static declarations — who owns what, where an activity is held, habits, relation
    words, roles — must not pick the answer (``generators/questions/cast_prior``): an item they answer needs
    no memory of the asked time. Rejected when a solver's top options hold the answer and not every
    option (its forced-choice accuracy on the item beats chance)."""

    name, version = "cast_prior", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        if not q.options:
            return verdict(self, q, True, "not applicable (open-ended item)")
        tells = cast_prior.tells(q.question, q.options, ctx.world)
        hits = sorted(name for name, top in tells.items() if 0 in top)
        if hits:
            return verdict(
                self,
                q,
                False,
                f"cast prior: {', '.join(hits)} picks the answer from the cast's declarations alone",
                solvers=float(len(hits)),
            )
        return verdict(self, q, True, "no cast prior picks the answer", solvers=0.0)


class FairDistractors:
    """No distractor is ruled out by the question's grammar (a pronoun, number, a cloze article)
    or by naming the asker (``generators/questions/distractor_grammar``)."""

    name, version = "fair_distractors", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        if not q.options:
            return verdict(self, q, True, "not applicable (open-ended item)")
        out = ruled_out(q.question, q.answer, q.options, ctx.world)
        if out:
            why = "; ".join(out[d] for d in sorted(out))
            return verdict(self, q, False, f"unfair distractor: {why}", ruled_out=float(len(out)))
        return verdict(self, q, True, "every distractor fits the question", ruled_out=0.0)


ITEM_GATES = [CastPrior(), FairDistractors()]
