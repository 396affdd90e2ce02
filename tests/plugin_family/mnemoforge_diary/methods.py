"""An evaluation method of the diary's own, registered in the ``mnemoforge.methods`` group:
the memory is the last week of entries before the item's cutoff (``--method diary_last_week``)."""

from __future__ import annotations

from mnemoforge.evaluation.methods import Built, MethodInput, text_of
from mnemoforge.exporters.views import AgentItem

WEEK = 7


def last_week(inp: MethodInput, item: AgentItem) -> Built:
    obs = inp.view.history(item.cutoff)[-WEEK:]
    return Built([text_of(o, inp) for o in obs], [], [o["id"] for o in obs], {"entries": len(obs)})
