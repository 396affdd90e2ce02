"""The source-concentrated control twin of a release (SMMBench's block-swap ablation).

Same questions, same observations (ids, contents, timestamps, order, so the same total context
length), but every evidence block of the kept questions (the unit with its local scaffold) is
moved into one hub source (a chat). A block from another chat swaps places with as many
background rounds of the hub, the nearest ones in time, so both chats keep their size and every
chat still holds only chat rounds; a block from an artifact source (sheet, documents, screenshots,
directory) moves without a swap, since hub talk would not fit there. Only ``source`` and
``episode`` change, so the content and total length are the same.
Comparing a system on the two releases measures the distributed-vs-concentrated drop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question


@dataclass
class Twin:
    hub: str
    observations: list[Observation]
    questions: list[Question]
    moved_blocks: int
    swapped_blocks: int


def pick_hub(observations: list[Observation], blocks: list[dict[str, Any]], conversational: set[str]) -> str:
    """The conversational source with the most background rounds (ties: smallest id)."""
    in_block = {o for b in blocks for o in b["observations"]}
    free: dict[str, int] = {}
    for o in observations:
        if o.source in conversational and o.id not in in_block:
            free[o.source] = free.get(o.source, 0) + 1
    return min(free, key=lambda s: (-free[s], s))


def concentrate(
    observations: list[Observation],
    blocks: list[dict[str, Any]],
    kept: list[Question],
    conversational: set[str],
) -> Twin:
    """Move every evidence block of ``kept`` into the hub source by block swap."""
    hub = pick_hub(observations, blocks, conversational)
    evidence = {e for q in kept for e in q.evidence}
    ev_blocks = [b for b in blocks if evidence & set(b["observations"])]
    in_block = {o for b in blocks for o in b["observations"]}
    by_id = {o.id: o for o in observations}
    hub_free = [o for o in observations if o.source == hub and o.id not in in_block]  # in stream order
    free = set(range(len(hub_free)))
    new_source: dict[str, str] = {}
    moved = swapped = 0
    for b in sorted(ev_blocks, key=lambda b: by_id[b["observations"][0]].order):
        if b["source"] == hub:
            continue
        moved += 1
        n, at = len(b["observations"]), by_id[b["observations"][0]].order
        for oid in b["observations"]:
            new_source[oid] = hub
        if b["source"] in conversational and len(free) >= n:  # swap with the n nearest hub rounds
            take = sorted(free, key=lambda i: (abs(hub_free[i].order - at), i))[:n]
            free -= set(take)
            for i in take:
                new_source[hub_free[i].id] = b["source"]
            swapped += 1
    twin_obs = [
        o.model_copy(update={"source": new_source[o.id], "episode": new_source[o.id]})
        if o.id in new_source
        else o
        for o in observations
    ]
    twin_qs = [q.model_copy(update={"evidence_sources": [hub]}) for q in kept]
    return Twin(hub, twin_obs, twin_qs, moved, swapped)
