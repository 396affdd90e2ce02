"""Answerable from what the agent perceives (icm): an item whose answer or whose reference to a
person rests on a fact carried only by captions, metadata columns or ``world.json`` is rejected.

- A place answer must be perceivable: the place shows a legible sign (a pixel-level fact), or its
  name is said or written in an observation the agent may read before the cutoff. Otherwise the
  name lives only in captions and the shots table ("the boathouse").
- A person named by relation ("Ode's mentor") needs an observation stating that relation
  among the item's evidence; otherwise the agent cannot resolve the reference.
"""

from __future__ import annotations

import re

from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.validators.gates import GateContext, verdict


def _said(name: str, text: str) -> bool:
    core = re.sub(r"^(the|a|an)\s+", "", name.strip(), flags=re.I)
    return bool(core) and re.search(rf"(?<!\w){re.escape(core.lower())}(?!\w)", text.lower()) is not None


class Perceivable:
    name, version = "perceivable", "1"

    """See the module docstring."""

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        world = ctx.world
        place = next((p for p in world.places if p.name == q.answer), None)
        if place is not None and not place.sign:
            heard = any(
                _said(place.name, o.content)
                for o in ctx.observations.values()
                if o.content and o.evidence_eligible and (q.cutoff is None or o.order <= q.cutoff)
            )
            if not heard:
                return verdict(
                    self,
                    q,
                    False,
                    f"unanswerable from what the agent perceives: the place name {place.name!r} has no sign "
                    "and is never said or written; only captions and metadata carry it",
                )
        facts_cited = {
            e.fact for oid in q.evidence if oid in ctx.observations for e in ctx.observations[oid].expresses
        }
        proto = world.person(world.protagonist)
        for r in world.relations:
            if r.a != world.protagonist or not r.a_calls_b:
                continue
            if f"{proto.name}'s {r.a_calls_b}" in q.question and f"f_rel_{r.a}_{r.b}" not in facts_cited:
                return verdict(
                    self,
                    q,
                    False,
                    f"names a person as {proto.name}'s {r.a_calls_b} but cites no observation stating it",
                )
        return verdict(self, q, True, "every fact it reads reaches the agent through media or speech")
