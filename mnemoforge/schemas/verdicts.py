"""Gate verdicts: every candidate gets one per gate, kept or rejected, with a reason.

A verdict whose panel could not get an answer (a model call that failed after its retries, an
answerer that raised) is *undecided*: ``keep`` is false, ``failures`` says who failed, how and
after how many attempts, the funnel counts it apart from rejections, and it is never cached, so
the next ``mnemoforge gate`` run asks again for exactly those items.
"""

from __future__ import annotations

from pydantic import Field

from mnemoforge.schemas.world import Record


class CallFailure(Record):
    """One answerer's failed calls while a gate judged one item."""

    answerer: str
    kind: str = Field(description="http_<status>, timeout, transport, bad_reply or raised")
    attempts: int = Field(description="attempts of the last failed call (retries included)")
    calls: int = Field(default=1, description="failed calls of this answerer for this item")
    error: str = ""


class Verdict(Record):
    item: str
    gate: str
    gate_version: str
    keep: bool
    reason: str
    scores: dict[str, float] = Field(default_factory=dict)
    # absent from the JSON when empty, so decided verdicts serialize as before
    failures: list[CallFailure] = Field(default_factory=list, exclude_if=lambda v: not v)

    @property
    def undecided(self) -> bool:
        return bool(self.failures)
