"""Exact gates of the source-distributed family (run after the shared exact gates).

- ``source_span``: the evidence spans at least two sources.
- ``single_source``: no single source answers alone: the program, run on everything one source
  holds, is unanswerable or gives another answer, for every source; and so is its **relaxed**
  form (a conflict answered by the latest visible value without needing the stale one, a
  preference by a single choice or a plain majority of what the source shows).
- ``conflict_order``: for every stale/update pair the item reads, the update arrives at least
  ``conflict_gap`` rounds after the stale value, in a source at least as authoritative; a rumour
  the item reads arrives after the update, in a strictly less authoritative source (authority,
  then recency: the update stays the answer).
- ``tool_schema``: a function-calling item's ``structured_answer`` is its answer and validates
  against the declared tool schemas (names, required arguments, unknown arguments, types).
"""

from __future__ import annotations

import json

from mnemoforge.generators.questions.programs import Unanswerable
from mnemoforge.generators.smm.world import conflict_gap, source_authority
from mnemoforge.generators.tool_calls import tools_of, validate_calls
from mnemoforge.hashing import canonical_json
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.validators.gates import GateContext, verdict
from mnemoforge.validators.solver import solve_in


def _evidence(q: Question, ctx: GateContext) -> list[Observation]:
    return [ctx.observations[e] for e in q.evidence if e in ctx.observations]


class SourceSpan:
    name, version = "source_span", "1"
    MIN_SOURCES = 2

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        sources = sorted({o.source for o in _evidence(q, ctx)})
        if sorted(q.evidence_sources) != sources:
            return verdict(
                self, q, False, f"evidence_sources {q.evidence_sources} != {sources}", sources=len(sources)
            )
        if len(sources) < self.MIN_SOURCES:
            return verdict(
                self, q, False, f"evidence in {len(sources)} source(s): {sources}", sources=len(sources)
            )
        return verdict(self, q, True, f"evidence spans {len(sources)} sources", sources=len(sources))


class SingleSource:
    name, version = "single_source", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        by_source = ctx.by_source
        relaxed = q.model_copy(
            update={"program": q.program.model_copy(update={"args": {**q.program.args, "relaxed": True}})}
        )
        for src in sorted(by_source):
            for form, item in (("", q), ("relaxed ", relaxed)):
                try:
                    got = solve_in(item, ctx.source_view(src, q.cutoff))
                except Unanswerable:
                    continue
                except KeyError as e:
                    return verdict(self, q, False, f"program error: unknown {e}")
                if got == q.answer:
                    return verdict(
                        self,
                        q,
                        False,
                        f"{form}answerable from source {src!r} alone",
                        sources=len(by_source),
                    )
        return verdict(self, q, True, "no single source gives the answer", sources=float(len(by_source)))


class ConflictOrder:
    name, version = "conflict_order", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        read = set(q.facts_read)
        pairs = [
            (f, f[:-2] + "_1")
            for f in read
            if f.startswith("f_attr_") and f.endswith("_0") and f[:-2] + "_1" in read
        ]
        rumours = [(f[:-2] + "_1", f) for f in read if f.startswith("f_attr_") and f.endswith("_r")]
        if q.labels.get("task") == "conflict_resolution" and not pairs and not rumours:
            return verdict(self, q, False, "conflict item reads no stale/update or update/rumour pair")
        if not pairs and not rumours:
            return verdict(self, q, True, "no conflict read")
        gap, authority = conflict_gap(ctx.world), source_authority(ctx.world)
        where: dict[str, Observation] = {}
        for o in _evidence(q, ctx):
            for e in o.expresses:
                where.setdefault(e.fact, o)
        gaps = []
        for stale, upd in sorted(pairs):
            if stale not in where or upd not in where:
                return verdict(self, q, False, f"stale {stale} or update {upd} not in the evidence")
            a, b = where[stale], where[upd]
            gaps.append(b.order - a.order)
            if b.order - a.order < gap:
                return verdict(
                    self,
                    q,
                    False,
                    f"update {b.id} only {b.order - a.order} rounds after {a.id} (< {gap})",
                    gap=float(b.order - a.order),
                )
            if authority.get(b.source, 0) < authority.get(a.source, 0):
                return verdict(
                    self, q, False, f"update in {b.source!r} is less authoritative than {a.source!r}"
                )
        for upd, rumour in sorted(rumours):
            if upd not in where or rumour not in where:
                return verdict(self, q, False, f"update {upd} or rumour {rumour} not in the evidence")
            a, b = where[upd], where[rumour]
            if b.order <= a.order or authority.get(b.source, 0) >= authority.get(a.source, 0):
                return verdict(
                    self,
                    q,
                    False,
                    f"rumour {b.id} ({b.source}) must come after and below the update {a.id} ({a.source})",
                )
        return verdict(
            self,
            q,
            True,
            f"updates come {min(gaps, default=0)}+ rounds after stale values",
            gap=float(min(gaps, default=0)),
        )


class ToolSchema:
    name, version = "tool_schema", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        if q.labels.get("task") != "function_calling":
            if q.structured_answer is not None:
                return verdict(self, q, False, "structured answer on a non function-calling item")
            return verdict(self, q, True, "not a function-calling item")
        if q.structured_answer is None or q.options:
            return verdict(self, q, False, "function-calling items are open with a structured_answer")
        if canonical_json(q.structured_answer) != q.answer:
            return verdict(self, q, False, "answer text differs from the structured answer")
        problems = validate_calls(q.structured_answer, tools_of(ctx.world))
        if problems:
            return verdict(
                self, q, False, f"invalid calls: {'; '.join(problems)}", problems=float(len(problems))
            )
        steps = json.loads(q.answer)
        return verdict(
            self, q, True, f"{len(steps)} step(s) validate against the tool schemas", steps=float(len(steps))
        )


SMM_GATES = [SourceSpan(), SingleSource(), ConflictOrder(), ToolSchema()]
