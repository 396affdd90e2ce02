"""Questions are programs executed on the World; answers are computed, not written."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from mnemoforge.schemas.world import Record


class Program(Record):
    """A registered function name plus JSON arguments (CLEVR-style)."""

    fn: str
    args: dict[str, Any] = Field(default_factory=dict)


class Lineage(Record):
    template: str
    seed: int
    program_hash: str
    world_hash: str
    answer_hash: str
    text_model: dict[str, Any] | None = Field(
        default=None, description="raw model I/O where a model rewrote the question (paraphrase)"
    )


class Question(Record):
    id: str
    family: str
    category: str
    question: str
    answer: str
    answer_aliases: list[str] = Field(default_factory=list)
    options: list[str] | None = None
    rotations: list[list[int]] | None = Field(default=None, description="option orders; index into options")
    target_people: list[str]
    evidence: list[str] = Field(description="observation ids")
    evidence_clips: list[str] = Field(default_factory=list)
    evidence_shots: list[str] = Field(default_factory=list)
    evidence_alternatives: list[str] = Field(
        default_factory=list,
        description="other observations expressing the same facts as the evidence (e.g. a later copy of "
        "the same picture); retrieval metrics may count them as clue hits",
    )
    evidence_sources: list[str] = Field(
        default_factory=list, description="sources (smm) or sessions (memeye) holding the evidence"
    )
    labels: dict[str, str] = Field(
        default_factory=dict, description="family taxonomy, e.g. {'x': 'X4', 'y': 'Y3'} or {'task': ...}"
    )
    structured_answer: list[dict[str, Any]] | None = Field(
        default=None, description="function calling: [{'step': 1, 'calls': [{'name', 'arguments'}]}]"
    )
    question_media: list[str] = Field(default_factory=list, description="images shown with the question")
    facts_read: list[str]
    cutoff: int | None = Field(description="latest accessible episode order; None = full timeline")
    program: Program
    lineage: Lineage
