"""Run every gate over a run's candidates with verdict caching, and write verdicts and funnel.

A verdict is cached on (gate and version, one digest of the item's content and its evidence, the
panel members' identities and configs including their prompt hashes, and for family-level gates the
whole candidate set), so re-running after a prompt change recomputes only the verdicts that used it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from mnemoforge import progress
from mnemoforge.hashing import canonical_json, content_hash, sha256_bytes
from mnemoforge.schemas.build_settings import BUILTIN_ANSWERERS
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import GateSpec
from mnemoforge.schemas.verdicts import CallFailure, Verdict
from mnemoforge.store import atomic
from mnemoforge.validators.answerers import embed_cache
from mnemoforge.validators.answerers.panel import PANEL_WORKERS, Panel, collect_failures, map_ordered
from mnemoforge.validators.answerers.protocol import Answer, Answerer
from mnemoforge.validators.answerers.registry import make_answerer
from mnemoforge.validators.gates import EXACT_GATES, Gate, GateContext, Prepares, UniqueQuestion
from mnemoforge.validators.item_gates import ITEM_GATES
from mnemoforge.validators.panel_gates import PANEL_GATES, AnswerBalance, CategoryQuota

FAMILY_LEVEL = {"unique_question", "answer_balance", "category_quota"}
REVIEW_GATE = "human_review"  # validators/human_review.py: its rejections keep their quota slots


def gate_list(family_gates: list[Gate]) -> list[Gate]:
    """Gate order: shared exact gates, the family's own gates, uniqueness, the cast-prior and
    fair-distractor gates, panel gates, balance and quotas."""
    return [
        *EXACT_GATES,
        *family_gates,
        UniqueQuestion(),
        *ITEM_GATES,
        *PANEL_GATES,
        AnswerBalance(),
        CategoryQuota(),
    ]


def gates_for(family: str) -> list[Gate]:
    """Every gate a family's candidates pass through, in order."""
    from mnemoforge.generators.families import get_family

    return gate_list(get_family(family).gates())


def gate_names(family: str | None = None) -> list[str]:
    """Gate names of one family, or of every family when ``family`` is None."""
    from mnemoforge.generators.families import family_names

    names: list[str] = []
    for fam in [family] if family else family_names():
        try:
            names += [g.name for g in gates_for(fam) if g.name not in names]
        except ModuleNotFoundError:  # a family package not installed in this checkout
            continue
    return names


def build_answerers(spec: GateSpec) -> dict[str, Answerer]:
    out: dict[str, Answerer] = {}
    prompts_dir = Path(spec.prompts_dir) if spec.prompts_dir else None
    for name, config in spec.resolved_answerers().items():
        cfg = dict(config)
        kind = cfg.pop("kind", name)
        if kind == "chat":
            from mnemoforge.validators.chat_answerer import make_chat_answerer

            out[name] = make_chat_answerer(prompts_dir, **cfg)
        else:
            out[name] = make_answerer(kind, **cfg)
    return out


def cache_identity(answerer: Answerer, config: dict, mcq: bool) -> str:
    """The answerer, its config, and the prompt it uses for this kind of item (MCQ or open)."""
    per_kind = getattr(answerer, "cache_id_for", None)
    return content_hash(per_kind(mcq) if per_kind else answerer.id, config)


@dataclass
class GateRun:
    verdicts: list[Verdict]
    gates: list[Gate] = field(default_factory=list)
    computed: dict[str, int] = field(default_factory=dict)
    cached: dict[str, int] = field(default_factory=dict)
    undecided: dict[str, int] = field(default_factory=dict)
    cpu_s: dict[str, float] = field(default_factory=dict)
    """CPU seconds of this process per gate (``time.process_time``: every thread, keys and cache
    reads included)."""


def _check(gate: Gate, q: Question, gctx: GateContext) -> Verdict:
    """One gate verdict; undecided (never cached) if any model call of its panels failed."""
    with collect_failures() as failed:
        v = gate.check(q, gctx)
    return undecided_if_failed(v, failed)


def undecided_if_failed(v: Verdict, failed: list[Answer]) -> Verdict:
    """``v`` unchanged when every call got an answer; else an undecided verdict naming each
    failed answerer, the kind of failure, its attempts and how many of its calls failed."""
    if not failed:
        return v
    by: dict[str, list[Answer]] = {}
    for a in failed:
        by.setdefault(a.answerer_id, []).append(a)
    failures = [
        CallFailure(
            answerer=aid,
            kind=ans[-1].call_failure or "unknown",
            attempts=ans[-1].attempts,
            calls=len(ans),
            error=(ans[-1].error or "")[:300],
        )
        for aid, ans in sorted(by.items())
    ]
    what = ", ".join(f"{f.answerer} ({f.kind}, {f.attempts} attempts)" for f in failures)
    return v.model_copy(
        update={"keep": False, "reason": f"undecided: model calls failed: {what}", "failures": failures}
    )


class VerdictCache:
    """One JSON file per gate mapping cache key -> verdict; rewritten atomically, pruned to this run."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def load(self, gate: str) -> dict[str, dict]:
        if self.folder is None or not (self.folder / f"{gate}.json").exists():
            return {}
        try:
            return json.loads((self.folder / f"{gate}.json").read_text())
        except ValueError:
            return {}

    def save(self, gate: str, entries: dict[str, dict]) -> None:
        if self.folder is not None:
            atomic.write_text(self.folder / f"{gate}.json", canonical_json(entries) + "\n")


def item_digests(questions: list[Question], observations: dict[str, Observation]) -> dict[str, str]:
    """One digest per item (its content and its evidence), shared by every gate's cache key:
    ``content_hash(item, [each evidence observation])``, with each observation's canonical JSON
    written once, not once per item that cites it (the same bytes: a list's canonical JSON is its
    members' joined by commas)."""
    written: dict[str, str] = {}

    def obs_json(e: str) -> str:
        got = written.get(e)
        if got is None:
            got = written[e] = canonical_json(observations[e].model_dump(mode="json"))
        return got

    return {
        q.id: sha256_bytes(
            (
                f"[{canonical_json(q.model_dump(mode='json'))},"
                f"[{','.join(obs_json(e) for e in q.evidence if e in observations)}]]"
            ).encode()
        )
        for q in questions
    }


@embed_cache.one_blas_thread()  # BLAS on one thread while the gates run (see there)
def run_all_gates(
    questions: list[Question],
    gctx: GateContext,
    spec: GateSpec,
    *,
    cache_dir: Path | None = None,
    only: set[str] | None = None,
    previous: list[Verdict] | None = None,
    family_gates: list[Gate] | None = None,
    workers: int | None = None,
) -> GateRun:
    """Every gate on every candidate (verdicts in gate order, then item order).

    ``family_gates`` defaults to the gates of the candidates' family. With ``only``, the other
    gates' verdicts are taken from ``previous`` instead of recomputed. A panel gate checks up to
    ``workers`` items at once (default: one at a time for a panel of built-in answerers, which
    compute in this process, else ``PANEL_WORKERS``); verdicts keep item order.
    """
    if family_gates is None:
        from mnemoforge.generators.families import get_family

        family_gates = get_family(questions[0].family).gates() if questions else []
    gates = gate_list(family_gates)
    answerers = build_answerers(spec)
    panels = {g: Panel([answerers[m] for m in ms], rule=spec.rule) for g, ms in spec.panels.items() if ms}
    configs = spec.resolved_answerers()
    panel_ids = {
        (g, mcq): [cache_identity(answerers[m], configs[m], mcq) for m in ms]
        for g, ms in spec.panels.items()
        for mcq in (True, False)
    }
    gctx.panels, gctx.questions, gctx.max_answer_share = panels, questions, spec.max_answer_share
    # a panel of built-in answerers computes in this process (no model calls to wait on): threads
    # over its items would only contend for the interpreter
    in_process = {
        g: all(configs.get(m, {}).get("kind", m) in BUILTIN_ANSWERERS for m in ms)
        for g, ms in spec.panels.items()
    }
    item_digest = item_digests(questions, gctx.observations)
    family_hash = content_hash([(q.id, q.question, q.answer, q.category) for q in questions])
    old = {(v.gate, v.item): v for v in previous or []}
    cache = VerdictCache(cache_dir)
    run = GateRun([], gates)
    tick = progress.counter("gates", len(gates) * len(questions))
    for gate in gates:
        t0 = time.process_time()
        if only is not None and gate.name not in only and all((gate.name, q.id) in old for q in questions):
            run.verdicts += [old[(gate.name, q.id)] for q in questions]
            tick.step(len(questions), gate.name)
            run.cpu_s[gate.name] = round(time.process_time() - t0, 3)
            continue
        if gate.name in ("answer_balance", "category_quota"):  # over what the earlier gates kept
            rejected = {v.item for v in run.verdicts if not v.keep}
            gctx.survivors = {q.id for q in questions} - rejected
            by_others = {v.item for v in run.verdicts if not v.keep and v.gate != REVIEW_GATE}
            gctx.review_excluded = rejected - by_others
            family_hash = content_hash(family_hash, sorted(gctx.survivors), gctx.quotas, gctx.keep_split)
            if gctx.review_excluded:  # a reviewed run's quotas keep their pre-review basis
                family_hash = content_hash(family_hash, sorted(gctx.review_excluded))
        stored, fresh = cache.load(gate.name), {}
        run.computed[gate.name] = run.cached[gate.name] = 0
        keys = [
            content_hash(
                gate.name,
                gate.version,
                item_digest[q.id],
                panel_ids.get((gate.name, bool(q.options))),
                spec.rule,
                family_hash if gate.name in FAMILY_LEVEL else None,
                spec.max_answer_share if gate.name == "answer_balance" else None,
            )
            for q in questions
        ]
        todo = [n for n, key in enumerate(keys) if key not in stored]
        pool = 1 if gate.name not in panels else workers or (1 if in_process[gate.name] else PANEL_WORKERS)
        if todo and isinstance(gate, Prepares):  # e.g. every text the gate embeds, in one batch
            gate.prepare([questions[n] for n in todo], gctx)
        checked = map_ordered(lambda n, g=gate: _check(g, questions[n], gctx), todo, pool)
        computed = dict(zip(todo, checked, strict=True))
        for n, key in enumerate(keys):
            if key in stored:
                v = Verdict.model_validate(stored[key])
                run.cached[gate.name] += 1
            else:
                v = computed[n]
                run.computed[gate.name] += 1
            if v.undecided:
                run.undecided[gate.name] = run.undecided.get(gate.name, 0) + 1
            else:  # only decided verdicts are cached: a failed call is asked again next run
                fresh[key] = v.model_dump(mode="json")
            run.verdicts.append(v)
            tick.step(1, gate.name)
        cache.save(gate.name, fresh)
        run.cpu_s[gate.name] = round(time.process_time() - t0, 3)
    return run
