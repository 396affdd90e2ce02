"""The source-concentrated control twin of a release (SMMBench's concentrated condition).

Same questions, same observations (ids, contents, timestamps, order, so the same total context
length), but every observation sits in one hub source (the chat whose own rows hold evidence at
the density closest to the whole stream's): the evidence of every kept question is in one place,
and so is everything else. Only ``source``
and ``episode`` change. Comparing a system on the two releases measures the distributed-vs-
concentrated drop.

Why everything moves, not only the evidence blocks: both views are agent input, and the rows whose
source differs between them would otherwise be the evidence (moving only the evidence blocks and
swapping hub talk out for them changed 510 of 1,242 rows of the shipped theme, 87 % of its evidence
among them, evidence three times as dense there as in the release). With every row in the hub, the
rows that change are all those not already there: evidence is no denser among them than anywhere
else (``tests/test_agent_view_diffs.py``).
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
    """Evidence blocks of the kept questions that were outside the hub."""
    swapped_blocks: int
    """Always 0: no block swaps places with hub talk (every row moves into the hub)."""


def pick_hub(observations: list[Observation], conversational: set[str], evidence: set[str]) -> str:
    """The conversational source whose own rows hold the kept evidence at the density closest to
    the whole stream's (the rows already in the hub are the rows that do not change: they must not
    be poorer, or richer, in evidence than the rest); ties: more rows, then the smallest id."""
    rows: dict[str, int] = {}
    hits: dict[str, int] = {}
    for o in observations:
        if o.source in conversational:
            rows[o.source] = rows.get(o.source, 0) + 1
            hits[o.source] = hits.get(o.source, 0) + (o.id in evidence)
    base = sum(o.id in evidence for o in observations) / max(1, len(observations))
    return min(rows, key=lambda s: (round(abs(hits[s] / rows[s] - base), 9), -rows[s], s))


def concentrate(
    observations: list[Observation],
    blocks: list[dict[str, Any]],
    kept: list[Question],
    conversational: set[str],
) -> Twin:
    """Every observation into the hub source (see the module docstring)."""
    evidence = {e for q in kept for e in q.evidence}
    hub = pick_hub(observations, conversational, evidence)
    moved = sum(1 for b in blocks if b["source"] != hub and evidence & set(b["observations"]))
    twin_obs = [
        o if o.source == hub else o.model_copy(update={"source": hub, "episode": hub}) for o in observations
    ]
    twin_qs = [q.model_copy(update={"evidence_sources": [hub]}) for q in kept]
    return Twin(hub, twin_obs, twin_qs, moved, 0)
