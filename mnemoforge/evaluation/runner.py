"""Run one method with one model over a release: prompts, concurrent calls, cache, scores, files.

Calls (``evaluation/calls.py``) go through a bounded thread pool (``workers``, capped by the
model's own limit); results are placed by item and rotation index, so the output is the same
whatever order calls finish in.
A call is cached in ``OUT/calls.jsonl`` under (item, rotation, method, model, prompt hash,
decoding); a rerun reuses every finished call and sends only the missing ones.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from mnemoforge.evaluation import scoring
from mnemoforge.evaluation.calls import Call, CallCache, call_record, request_hash, run_calls
from mnemoforge.evaluation.context import ContextSize
from mnemoforge.evaluation.judge import Judge, calibrate
from mnemoforge.evaluation.keys import (
    EvaluationError,
    ItemKey,
    gold_evidence,
    load_keys,
    load_world,
    release_family,
)
from mnemoforge.evaluation.methods import Built, MethodConfig, MethodInput, get_method, resolve_method
from mnemoforge.evaluation.models import EvalModel, EvalRequest, load_model
from mnemoforge.evaluation.views import agent_view, concentrated_view
from mnemoforge.exporters.views import AgentItem
from mnemoforge.hashing import canonical_json, content_hash
from mnemoforge.store import atomic
from mnemoforge.validators.answerers.protocol import LETTERS
from mnemoforge.validators.prompts import load_prompt

Progress = Callable[[str], None]
FALLBACK = {"full_context_text": "retrieval", "full_context_multimodal": "retrieval_multimodal"}
"""Full-context methods and what an item whose history overflows a model of known context uses."""
TRUNCATING = {*FALLBACK, "caption_memory", "asr_only"}
"""Methods that put the whole history in the prompt (cut to the budget: ``keep_latest``)."""


def _options(choices: list[str]) -> str:
    return "\n".join(f"{LETTERS[k]}. {c}" for k, c in enumerate(choices))


def build_requests(
    item: AgentItem, key: ItemKey, built: Built, tools: str, images: bool
) -> list[EvalRequest]:
    system = load_prompt("eval_system").template.strip()
    memory = "\n".join(built.lines) or "(nothing)"
    imgs = tuple(built.images) if images else ()
    obs = tuple(built.observation_ids)
    if item.choices:
        tmpl = load_prompt("eval_mcq")
        return [
            EvalRequest(
                item.id,
                system,
                tmpl.render(memory=memory, question=item.question, options=_options(ch)),
                imgs,
                obs,
                r,
                tuple(ch),
            )
            for r, ch in enumerate(item.choices)
        ]
    if key.kind == "call":
        text = load_prompt("eval_call").render(memory=memory, question=item.question, tools=tools)
    else:
        text = load_prompt("eval_open").render(memory=memory, question=item.question)
    return [EvalRequest(item.id, system, text, imgs, obs)]


def _tools_text(release: Path, family: str) -> str:
    path = release / "data" / family / "tools.json"
    return path.read_text(encoding="utf-8").strip() if path.is_file() else "[]"


def score_item(item: AgentItem, key: ItemKey, calls: list[Call], world: Any) -> dict[str, Any]:
    """One result row. An item any of whose calls failed (after the retries) is ``failed``: it
    keeps the raw records and errors but no score, so it never counts as a wrong answer."""
    row: dict[str, Any] = {"id": item.id, "kind": key.kind, "group": key.group(), "cutoff": item.cutoff}
    failed = [c for c in calls if c.reply is None or not c.reply.ok]
    if failed:
        row["failed"] = True
        row["errors"] = sorted({str(c.reply.error if c.reply else "not sent") for c in failed})
        row["calls"] = [call_record(c) for c in calls if c.reply is not None]
        row["score"] = None
        return row
    if key.kind == "mcq":
        golds = key.gold_letters()
        rots = []
        for c, gold in zip(calls, golds, strict=True):
            rec = call_record(c, gold)
            rec["parsed"] = (
                scoring.parse_mcq(c.reply.text, list(c.request.choices or ())) if c.reply.ok else None
            )
            rec["correct"] = rec["parsed"] == gold
            rots.append(rec)
        row["rotations"] = rots
        row["all_correct"] = all(r["correct"] for r in rots)
        row["score"] = sum(r["correct"] for r in rots) / len(rots)
        return row
    c = calls[0]
    rec = call_record(c)
    row.update({k: rec[k] for k in ("prompt_hash", "raw", "ok", "error", "tokens", "latency_s", "cached")})
    if key.kind == "call":
        score, pred = (
            scoring.call_score(c.reply.text, key.structured_answer, world) if c.reply.ok else (0.0, None)
        )
        row.update(parsed=pred, score=score)
    else:
        row["parsed"] = scoring.open_answer(c.reply.text) if c.reply.ok else None
        row["em"] = scoring.em_score(c.reply.text, key.answer, key.aliases) if c.reply.ok else 0.0
        row["score"] = row["em"]
    return row


def ledger(model: EvalModel, calls: list[Call], prices: dict[str, Any] | None = None) -> dict[str, Any]:
    """Calls, tokens (from the API's usage) and cost from the price table (``None`` when unpriced)."""
    sent = [c for c in calls if not c.cached and c.reply is not None]
    tok: dict[str, int] = {}
    for c in calls:
        for k, v in (c.reply.usage if c.reply else {}).items():
            tok[k] = tok.get(k, 0) + int(v)
    price = dict(prices or {}) or dict(model.prices or {})
    cost = None
    if price:
        cost = round(
            tok.get("prompt_tokens", 0) / 1e6 * float(price.get("prompt_per_1m", 0))
            + tok.get("completion_tokens", 0) / 1e6 * float(price.get("completion_per_1m", 0)),
            6,
        )
    return {
        "model": model.id,
        "calls": len(calls),
        "sent": len(sent),
        "cached": len(calls) - len(sent),
        "failed": sum(1 for c in calls if c.reply is not None and not c.reply.ok),
        "tokens": tok,
        "cost": cost,
        "currency": price.get("currency") if price else None,
        "latency_s_sum": round(sum(c.reply.latency_s for c in sent if c.reply), 3),
    }


def evaluate(
    release: Path,
    method: str,
    model: str | EvalModel,
    out: Path,
    *,
    limit: int | None = None,
    workers: int = 4,
    judge: str | EvalModel | None = None,
    config: MethodConfig | None = None,
    prices: dict[str, Any] | None = None,
    progress: Progress | None = None,
    warn: Progress | None = None,
    variant: str | None = None,
) -> dict[str, Any]:
    """Evaluate ``method`` × ``model`` on ``release``; writes ``OUT/results.json`` and ``OUT/summary.md``.
    ``variant``: over that length variant's history (docs/variants.md; the release's own: None).

    A full-context method checks each item's history against the model's context
    (:func:`model_context`): where it does not fit a model of known size, the item is built by
    retrieval instead (``context.switched_to``); where the size is unknown, the latest lines that
    fit the assumed budget are kept. Either way ``warn`` gets one line, and ``results.json`` the
    record (``context``)."""
    from mnemoforge.evaluation.tables import summary_markdown

    release, out = Path(release), Path(out)
    release_family(release)  # one clear error for a folder that is not a release
    base, conc = resolve_method(method)
    if conc and variant is not None:
        raise EvaluationError("a concentrated method has no length variants (give one or the other)")
    view = concentrated_view(release) if conc else agent_view(release, variant)
    keys = load_keys(release, conc)
    m = (
        load_model(model, release, workers=workers, concentrated=conc, variant=variant)
        if isinstance(model, str | Path)
        else model
    )
    cfg = config or MethodConfig()
    size = model_context(m) if base in TRUNCATING else None
    limit_chars = size.chars if size else m.max_context_chars
    budget = min(cfg.max_context_chars or limit_chars, limit_chars)
    cfg = replace(cfg, max_context_chars=budget, max_images=m.max_images, frames_dir=out / "frames")
    inp = MethodInput(view, cfg, gold_evidence(release, conc) if base == "oracle_evidence" else None)
    items = view.items[:limit] if limit else list(view.items)
    tools = _tools_text(release, view.family)
    world = load_world(release) if any(keys[i.id].kind == "call" for i in items) else None
    fn = get_method(base)
    calls_by_item: list[list[Call]] = []
    contexts: list[dict] = []
    images_ok: bool | None = None  # asked of the model once, and only if a prompt carries images
    over: list[str] = []
    if view.haystacks is not None:
        inp.caption_of()  # computed once, shared by every item's view
    for item in items:
        one = inp if view.haystacks is None else replace(inp, view=view.for_item(item.id))
        built = fn(one, item)
        if view.haystacks is not None:
            built.note.setdefault("haystack", len(one.view.history(item.cutoff)))
        if built.note.get("dropped"):
            over.append(item.id)
            if size is not None and size.known and base in FALLBACK and cfg.on_overflow == "retrieval":
                history = built.note.get("total")
                built = get_method(FALLBACK[base])(one, item)
                built.note.update(switched_to=FALLBACK[base], history_lines=history)
        if built.images and images_ok is None:
            images_ok = accepts_images(m, progress)
        reqs = build_requests(item, keys[item.id], built, tools, bool(images_ok))
        decoding = canonical_json(m.decoding)
        calls_by_item.append(
            [
                Call(
                    item,
                    r.rotation,
                    r,
                    content_hash(item.id, r.rotation, method, m.id, request_hash(r), decoding),
                )
                for r in reqs
            ]
        )
        contexts.append(
            {"observations": len(built.observation_ids), "images": len(reqs[0].images), **built.note}
        )
    cache = CallCache(out / "calls.jsonl")
    flat = [c for cs in calls_by_item for c in cs]
    if progress:
        progress(f"{method} × {m.name}: {len(items)} items, {len(flat)} calls")
    run_calls(m, flat, cache, workers, progress)
    rows = []
    for item, cs, ctx in zip(items, calls_by_item, contexts, strict=True):
        row = score_item(item, keys[item.id], cs, world)
        row.update(method=method, model=m.name, context=ctx)
        rows.append(row)
    j = Judge(load_model(judge, release, workers=workers) if isinstance(judge, str | Path) else judge)
    qtext = {i.id: i.question for i in items}
    judged = [row for row in rows if row["kind"] == "open" and row.get("parsed")]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        verdicts = list(pool.map(lambda r: j.score(keys[r["id"]], qtext[r["id"]], r["parsed"]), judged))
    for row, v in zip(judged, verdicts, strict=True):
        row["judge"] = {"score": v.score, "ok": v.ok, "raw": v.raw, "prompt": v.prompt, **j.record()}
    calib = calibrate(j, [keys[i.id] for i in items], qtext, workers)
    prompts = {
        n: {"version": p.version, "sha256": p.sha256}
        for n in ("eval_system", "eval_mcq", "eval_open", "eval_call")
        for p in [load_prompt(n)]
    }
    result = {
        "release": str(release),
        "family": view.family,
        "method": method,
        **({"variant": variant} if variant is not None else {}),
        "base_method": base,
        "concentrated": conc,
        "model": {"id": m.id, "name": m.name, "decoding": m.decoding, "images": images_ok},
        "judge": j.record(),
        "config": cfg.record(),
        "context": context_record(base, size, budget, over, cfg.on_overflow, len(items)),
        "prompts": prompts,
        "summary": scoring.aggregate(rows),
        "tables": tables_for(view.family, rows),
        "calibration": {k: v for k, v in calib.items() if k != "rows"},
        "ledger": ledger(m, flat, prices),
        "items": rows,
    }
    line = overflow_line(method, m.name, result["context"])
    if line and warn:
        warn(line)
    atomic.write_json(out / "results.json", result)
    atomic.write_jsonl(out / "calibration.jsonl", calib["rows"])
    atomic.write_text(out / "summary.md", summary_markdown([result]))
    return result


def model_context(model: EvalModel) -> ContextSize:
    """The model's context (``context_size()`` when it has one: declared, probed or unknown)."""
    known = getattr(model, "context_size", None)
    if callable(known):
        return known()
    return ContextSize(model.max_context_chars, None, "declared max_context_chars")


def context_record(
    base: str, size: ContextSize | None, budget: int, over: list[str], policy: str, n_items: int
) -> dict[str, Any]:
    """What ``results.json`` records of the context: the model's size, the budget, the items whose
    history did not fit and what was done with them."""
    if size is None:
        return {"budget_chars": budget, "applies": False}
    switched = size.known and base in FALLBACK and policy == "retrieval"
    return {
        **size.record(),
        "budget_chars": budget,
        "applies": True,
        "items": n_items,
        "overflow": {
            "items": len(over),
            "ids": over,
            "action": f"switched to {FALLBACK[base]}" if switched else "kept the latest lines (keep_latest)",
        },
    }


def overflow_line(method: str, model: str, ctx: dict[str, Any]) -> str | None:
    """One warning line when some item's history did not fit the model's context (None otherwise)."""
    over = (ctx.get("overflow") or {}).get("items", 0)
    if not over:
        return None
    if ctx["source"] == "unknown":
        size = f"context size unknown (declare context_tokens in its spec), assumed {ctx['chars']} characters"
    elif ctx["tokens"]:
        size = f"context {ctx['tokens']} tokens ({ctx['source']}) = {ctx['chars']} characters of history"
    else:
        size = f"context {ctx['chars']} characters ({ctx['source']})"
    return (
        f"{method} × {model}: the history of {over} of {ctx['items']} items does not fit the model's "
        f"{size}; {ctx['overflow']['action']} for those items"
    )


def accepts_images(model: EvalModel, progress: Progress | None = None) -> bool:
    """Whether prompts may carry images: the model's declared capability, or its probe's answer
    (``ChatModel.supports_images``); a model that cannot see is never sent one."""
    probe = getattr(model, "supports_images", None)
    ok = bool(probe()) if callable(probe) else bool(model.vision)
    note = getattr(model, "vision_note", None)
    if note and progress:
        progress(note)
    return ok


def failure_summary(results: list[dict]) -> str | None:
    """One line naming the failed items of these results (None when every call was answered)."""
    bad = [r for r in results if r["summary"].get("failed")]
    if not bad:
        return None
    several = len({r.get("family") for r in results}) > 1  # a multi-family release: name the part
    parts = [f"{r['method']} × {r['model']['name']}" + (f" ({r['family']})" if several else "")
             + f": {r['summary']['failed']} of {r['summary']['items']}" for r in bad]  # fmt: skip
    return "model calls failed after their retries (" + "; ".join(parts) + " items failed, not scored)"


def tables_for(family: str, rows: list[dict]) -> dict[str, Any]:
    from mnemoforge.evaluation.cross_keys import eval_family

    try:
        keys = eval_family(family).eval_keys
    except KeyError:  # a family no installed package registers
        keys = ()
    return {k: scoring.by_group(rows, k) for k in keys}
