"""Multi-hop items whose wrong hop does not reach the answer.

A two-hop item (person → their entity → an attribute; → the lead → a profile field) tests the
chain only when taking a wrong hop gives a wrong answer. :func:`wrong_hop` runs the item's last
hop from every wrong first hop (every other entity of the kind) and, for a profile field, from
every other person (a wrong second hop, or no hop at all: the asker's own field); an item that
one of them answers the same is refused. So a multi-hop answer is never a value its attribute
shares with another entity or person (three people sharing one extension, one date on two
projects), and never the most common value of its attribute.
"""

from __future__ import annotations

from typing import Any

from mnemoforge.generators.questions.programs import FactView, Unanswerable
from mnemoforge.generators.smm.programs import display, entity_of, single_value
from mnemoforge.schemas.world import World

MULTI_HOP = ("member_attribute", "member_lead_profile")


def _value(view: FactView, subject: str, key: str, coded: bool) -> str | None:
    try:
        return display(view, single_value(view.fork(), subject, key, coded=coded).value)
    except Unanswerable:
        return None


def wrong_hop(world: World, view: FactView, program: str, args: dict[str, Any], answer: str) -> str:
    """Why a wrong hop reaches ``answer`` (e.g. "project p2 gives the same answer"), or ''."""
    if program not in MULTI_HOP:
        return ""
    kind = args["kind"]
    try:
        own = entity_of(view.fork(), args["person"], kind)
    except Unanswerable:
        return ""
    others = sorted(
        {f.object for f in world.facts if f.kind == "member" and f.value == kind and f.object != own}
    )
    if program == "member_attribute":
        for ent in others:
            if _value(view, ent, args["key"], True) == answer:
                return f"the wrong first hop {ent} gives the same answer"
        return ""
    lead = _value(view, own, args["via"], True)
    lead_id = next((p.id for p in world.people if p.name == lead), lead)
    for p in world.people:
        if p.id != lead_id and _value(view, p.id, args["key"], False) == answer:
            return f"{p.id}'s {args['key']} is the same (a wrong hop reaches the answer)"
    return ""
