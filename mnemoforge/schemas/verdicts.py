"""Gate verdicts: every candidate gets one per gate, kept or rejected, with a reason."""

from __future__ import annotations

from pydantic import Field

from mnemoforge.schemas.world import Record


class Verdict(Record):
    item: str
    gate: str
    gate_version: str
    keep: bool
    reason: str
    scores: dict[str, float] = Field(default_factory=dict)
