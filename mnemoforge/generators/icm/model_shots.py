"""``text.plan_shots`` for icm: a text model proposes each clip's shot list, validated into Shot records.

The procedural album planner (``generators/icm/album.py``) still plans every clip, its lines
included. The model is shown, ``text.plan_shots_batch`` clips per call
(``assets/prompts/plan_shots.txt``), each clip's event (participants, objects brought, the place)
and its lines with their estimated seconds, and proposes the shots: framing, who is visible,
props, camera move, duration and which lines fall in which shot. Each clip's proposal is checked
by ``generators/icm/shot_proposals.validate_proposal`` (only participants, declared props,
allowed durations, every line placed once and fitting its shot, every fact the procedural plan
makes observable still observable). The problems of the clips that fail go back to the model in
the same conversation (``plan_shots_fix.txt``), at most ``text.plan_shots_attempts`` calls in all
per batch; a clip still failing then, or whose call failed, keeps its procedural shots and its
reject is counted by reason. Batches run concurrently, up to the backend's ``max_concurrency``.

Every call's request, raw reply and per-clip verdicts go to ``episodes/shot_plan_lineage.jsonl``
(shipped in the release as ``data/icm/shot_plan.jsonl``), the counts to
``episodes/shot_plan_summary.json`` (and the release's ``dataset_statistics.json``). Calls go
through the text backend, so the call ledger records them and the model-output cache answers a
rebuild of the same run.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from pathlib import Path
from typing import Any

from mnemoforge.backends.text.protocol import ChatMessage, ChatRequest, TextBackend, user
from mnemoforge.family import ShotAsks
from mnemoforge.generators.icm import shot_proposals as sp
from mnemoforge.generators.icm.album import CAMERAS, SPEECH_DURATIONS, TAIL_S
from mnemoforge.generators.icm.render_timing import LINE_GAP_S, LINE_START_S
from mnemoforge.hashing import canonical_json
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.validators.answerers.panel import map_ordered
from mnemoforge.validators.prompts import Prompt, load_prompt

log = logging.getLogger("mnemoforge.plan")
FIX_PROMPT = "plan_shots_fix"
_FENCE = re.compile(r"```(?:json)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def lineage_path(run_root: Path) -> Path:
    return run_root / "episodes" / "shot_plan_lineage.jsonl"


def summary_path(run_root: Path) -> Path:
    return run_root / "episodes" / "shot_plan_summary.json"


def clip_text(world: World, brief: sp.ClipBrief) -> str:
    """One clip as the prompt lists it."""
    ev = brief.event
    place = world.place(ev.place)
    sign = "its sign is readable in a wide shot" if place.sign else "no sign"
    who = ", ".join(f"{p} ({world.person(p).name})" for p in ev.participants)
    owner = {o.id: o.owner for o in world.objects}
    brought = ", ".join(f"{o} (brought by {ev.brought_by(o, owner[o])})" for o in ev.objects) or "none"
    head = [
        f"- clip {brief.clip.id}: {ev.verb} at {place.name} ({sign}), {ev.start:%Y-%m-%d %H:%M}",
        f"  participants: {who}",
        f"  objects brought: {brought}",
        f"  shots: {brief.min_shots} to {brief.max_shots}",
        "  lines:" if brief.lines else "  lines: none",
    ]
    first = sp.place_line(brief)
    for k, ln in enumerate(brief.lines):
        mark = " [shot 0]" if f"l{k}" == first else ""
        head.append(f"  - l{k}{mark} {ln.speaker}, {sp.line_seconds(world, ln):.1f} s: {json.dumps(ln.text)}")
    return "\n".join(head)


def parse_plans(text: str) -> tuple[dict[str, Any], str | None]:
    """``{clip id: shots}`` from a reply (a fenced or bare JSON object or list), or why not."""
    m = _FENCE.search(text)
    body = (m.group(1) if m else text).strip()
    data: Any = None
    try:
        data = json.loads(body)
    except ValueError:
        start = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
        end = max(body.rfind("}"), body.rfind("]"))
        try:
            data = json.loads(body[start : end + 1]) if 0 <= start < end else None
        except ValueError:
            data = None
    if data is None:
        return {}, "unparsable reply: not JSON"
    if isinstance(data, dict):
        data = data.get("clips", [data] if "clip" in data else None)
    if not isinstance(data, list):
        return {}, 'unparsable reply: expected {"clips": [...]}'
    plans = {}
    for item in data:
        if isinstance(item, dict) and isinstance(item.get("clip"), str):
            plans[item["clip"]] = item.get("shots")
    return plans, None


def _ask(theme: Theme, world: World, prompt: Prompt, batch: list[sp.ClipBrief]) -> str:
    longest = max(theme.album.shot_durations)
    extra = [x for x in SPEECH_DURATIONS if x > longest]
    durations = ", ".join(str(x) for x in sorted(set(theme.album.shot_durations)))
    if extra:
        durations += f" (or {', '.join(map(str, extra))} for a shot whose speech no shorter one holds)"
    return prompt.render(
        title=theme.title,
        description=theme.description,
        framings=", ".join(sp.FRAMINGS),
        cameras=", ".join(CAMERAS),
        establishing_cameras=", ".join(sp.ESTABLISHING_CAMERAS),
        durations=durations,
        max_close=str(sp.MAX_CLOSE_PEOPLE),
        lead_in=f"{LINE_START_S:g}",
        gap=f"{LINE_GAP_S:g}",
        tail=f"{TAIL_S:g}",
        clips="\n".join(clip_text(world, b) for b in batch),
    )


def plan_batch(
    theme: Theme,
    world: World,
    batch: list[sp.ClipBrief],
    backend: TextBackend,
    prompts: tuple[Prompt, Prompt],
    seed: int,
) -> tuple[dict[str, Clip], dict[str, Any]]:
    """The accepted clips of one batch and its lineage record (every call, every verdict)."""
    prompt, fix = prompts
    briefs = {b.clip.id: b for b in batch}
    messages: list[ChatMessage] = [user(_ask(theme, world, prompt, batch))]
    pending = list(briefs)
    accepted: dict[str, Clip] = {}
    last: dict[str, list[str]] = {}
    calls: list[dict[str, Any]] = []
    for attempt in range(theme.text.plan_shots_attempts):
        per_clip = 60 * max(b.max_shots for b in batch) + 40
        req = ChatRequest(tuple(messages), max_tokens=per_clip * len(pending) + 200, seed=seed)
        res = backend.chat(req)
        call: dict[str, Any] = {"attempt": attempt, "clips": list(pending), "request": messages[-1].text(),
                                "ok": res.ok, "reply": res.text if res.ok else None, "error": res.error,
                                "proposed": 0, "verdicts": {}}  # fmt: skip
        calls.append(call)  # a repair's request is the fix message: earlier calls hold the conversation
        if not res.ok:  # the backend already retried; a failed call is not sent back to the model
            for cid in pending:
                last[cid] = [f"model call failed: {res.error}"]
                call["verdicts"][cid] = last[cid]
            break
        plans, err = parse_plans(res.text)
        for cid in pending:
            if err:
                problems = [err]
            elif cid not in plans:
                problems = [f"missing: no shot list for clip {cid}"]
            else:
                call["proposed"] += 1
                clip, problems = sp.validate_proposal(theme, world, briefs[cid], plans[cid])
                if clip is not None:
                    accepted[cid] = clip
            last[cid] = problems
            call["verdicts"][cid] = problems or "accepted"
        pending = [cid for cid in pending if cid not in accepted]
        if not pending:
            break
        errors = "\n".join(f"- clip {cid}: {p}" for cid in pending for p in last[cid])
        messages += [ChatMessage("assistant", res.text), user(fix.render(errors=errors))]
    record = {
        "clips": list(briefs),
        "backend": backend.id,
        "prompt": prompt.name,
        "prompt_sha256": prompt.sha256,
        "fix_prompt_sha256": fix.sha256,
        "calls": calls,
        "accepted": [c for c in briefs if c in accepted],
        "repaired": [c for c in briefs if c in accepted and calls[0]["verdicts"].get(c) != "accepted"],
        "procedural": [{"clip": c, "reason": last[c][0]} for c in briefs if c not in accepted],
    }
    return accepted, record


def _workers(backend: TextBackend) -> int:
    """Concurrent batches: the backend's own cap on concurrent requests (1 for offline backends)."""
    retrier = getattr(backend, "retrier", None)
    return max(1, int(getattr(retrier, "max_concurrency", 1)))


def model_shots(
    theme: Theme,
    world: World,
    clips: list[Clip],
    backend: TextBackend,
    prompts: tuple[Prompt, Prompt],
    seed: int,
) -> tuple[list[Clip], list[dict[str, Any]], dict[str, Any]]:
    """The album with model-planned shots where accepted, one lineage record per batch, the summary."""
    briefs = [sp.brief_for(theme, world, c) for c in clips if not c.calibration and c.event is not None]
    size = theme.text.plan_shots_batch
    batches = [briefs[i : i + size] for i in range(0, len(briefs), size)]
    results = map_ordered(
        lambda b: plan_batch(theme, world, b, backend, prompts, seed), batches, _workers(backend)
    )
    chosen: dict[str, Clip] = {}
    lineage = []
    for i, (accepted, record) in enumerate(results):
        chosen |= accepted
        lineage.append({"batch": i, **record})
    rejected: Counter[str] = Counter()
    fell_back: Counter[str] = Counter()
    for rec in lineage:
        for call in rec["calls"]:
            for v in call["verdicts"].values():
                if v != "accepted":
                    rejected[sp.reason_kind(v[0])] += 1
        for p in rec["procedural"]:
            fell_back[sp.reason_kind(p["reason"])] += 1
    summary = {
        "clips": len(briefs),
        "batches": len(batches),
        "calls": sum(len(r["calls"]) for r in lineage),
        "proposed": sum(c["proposed"] for r in lineage for c in r["calls"]),  # shot lists received
        "accepted": len(chosen),
        "repaired": sum(len(r["repaired"]) for r in lineage),
        "fell_back": len(briefs) - len(chosen),
        "fell_back_by_reason": dict(sorted(fell_back.items())),
        "rejected": dict(sorted(rejected.items())),
    }
    return [chosen.get(c.id, c) for c in clips], lineage, summary


def load_prompts(theme: Theme) -> tuple[Prompt, Prompt]:
    folder = Path(theme.gates.prompts_dir) if theme.gates.prompts_dir else None
    return load_prompt(theme.text.plan_shots_prompt, folder), load_prompt(FIX_PROMPT, folder)


def plan_album_shots(
    theme: Theme, world: World, clips: list[Clip], run: RunLayout
) -> tuple[list[Clip], list[Path]]:
    """``text.plan_shots`` in the episodes stage: the clips, and the lineage and summary written."""
    from mnemoforge.backends.text.registry import make_text_backend

    if not theme.text.backend:
        raise ValueError("text.plan_shots: needs text.backend (the model that plans the shots)")
    backend = make_text_backend(theme.text.backend)
    out, lineage, summary = model_shots(theme, world, clips, backend, load_prompts(theme), world.seed)
    if summary["fell_back"]:
        log.warning(
            "text.plan_shots: %d of %d clips kept the procedural shots (%s)",
            summary["fell_back"],
            summary["clips"],
            ", ".join(f"{k} {n}" for k, n in summary["fell_back_by_reason"].items()),
        )
    return out, [
        atomic.write_text(lineage_path(run.root), "".join(canonical_json(r) + "\n" for r in lineage)),
        atomic.write_json(summary_path(run.root), summary),
    ]


def preflight_asks(theme: Theme, world: World, clips: list[Clip]) -> ShotAsks:
    """The first call of each batch exactly as ``plan_album_shots`` writes it, for ``build
    --preflight`` (repairs, if any, come on top)."""
    briefs = [sp.brief_for(theme, world, c) for c in clips if not c.calibration]
    size = theme.text.plan_shots_batch
    batches = [briefs[i : i + size] for i in range(0, len(briefs), size)]
    prompt = load_prompts(theme)[0]
    asks = [_ask(theme, world, prompt, b) for b in batches]
    return ShotAsks(asks, len(briefs), sum(len(b.clip.shots) for b in briefs))
