"""Opt-in model-written dialogue (``album.dialogue_model``): each planned line is reworded by a
text backend and kept only if it still carries the facts it must (every name, place, object and
fact value the line states), names no one new, and still fits its shot; otherwise the planned
line stays. The raw model input and output of every call go to ``episodes/dialogue_model.jsonl``
(shipped in the release as ``data/icm/dialogue_model.jsonl``)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from mnemoforge.backends.text.protocol import ChatRequest, TextBackend, user
from mnemoforge.generators.icm.album import speech_need
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.validators.prompts import Prompt


def must_keep(world: World, text: str, facts: list[str]) -> list[str]:
    """The strings a rewording of ``text`` must still contain: the names, places and objects it
    mentions and the values of the facts it states."""
    names = [p.name for p in world.people] + [p.name for p in world.places] + [o.name for o in world.objects]
    keep = [n for n in names if _has(text, n)]
    by_id = {f.id: f for f in world.facts if f.id in set(facts)}
    for fid in facts:
        f = by_id.get(fid)
        if f is None:
            continue
        if f.kind == "chose" and f.value:
            keep.append(str(f.value))
        elif f.kind == "habit":
            keep.append(str(f.object))
        elif f.kind == "relation" and f.value:
            keep.append(str(f.value))
        elif f.kind in ("promised", "planned"):  # the activity it is about (objects, places: above)
            activity = f.value if f.kind == "promised" else f.object
            keep += [e.noun for e in world.events if e.activity == activity][:1]
    return sorted({k for k in keep if _has(text, k)}, key=keep.index)


def _has(text: str, s: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(s.lower())}(?!\w)", text.lower()) is not None


def check_line(world: World, original: str, new: str, keep: list[str]) -> str:
    """Empty when ``new`` keeps every required string and names no one new; else why not."""
    if not new or "\n" in new or len(new) > 2 * len(original) + 40:
        return "not a single short line"
    lost = [k for k in keep if not _has(new, k)]
    if lost:
        return f"dropped {lost}"
    people = [p.name for p in world.people]
    added = [n for n in people if _has(new, n) and not _has(original, n)]
    if added:
        return f"names someone new: {added}"
    return ""


def reword_album(
    theme: Theme, world: World, clips: list[Clip], backend: TextBackend, prompt: Prompt
) -> tuple[list[Clip], list[dict[str, Any]]]:
    """The clips with validated model wordings, and one lineage record per line."""
    acts = {a.id: a for a in theme.activities}
    events = {e.id: e for e in world.events}
    used: Counter[str] = Counter(ln.text for c in clips for s in c.shots for ln in s.dialogue)
    records: list[dict[str, Any]] = []
    out = []
    for clip in clips:
        if clip.calibration or clip.event is None:
            out.append(clip)
            continue
        ev = events[clip.event]
        shots = []
        for shot in clip.shots:
            lines = list(shot.dialogue)
            for j, ln in enumerate(lines):
                keep = must_keep(world, ln.text, ln.facts)
                ask = prompt.render(activity=acts[ev.activity].noun, place=world.place(ev.place).name,
                                    speaker=world.person(ln.speaker).name, line=ln.text,
                                    keep=", ".join(keep) or "(nothing in particular)")  # fmt: skip
                result = backend.chat(ChatRequest(messages=(user(ask),), max_tokens=80))
                first = (
                    result.text.strip().splitlines()[0].strip().strip('"')
                    if result.ok and result.text.strip()
                    else ""
                )
                reason = (
                    (result.error or "model call failed")
                    if not result.ok
                    else check_line(world, ln.text, first, keep)
                )
                if not reason:
                    trial = [(x.speaker, first if k == j else x.text, [], []) for k, x in enumerate(lines)]
                    if speech_need(world, trial) > shot.duration_s:
                        reason = "too long to fit its shot"
                    elif used[first] >= theme.album.max_line_repeats:
                        reason = "repeats a line too often"
                if not reason:
                    used[ln.text] -= 1
                    used[first] += 1
                    lines[j] = ln.model_copy(update={"text": first})
                records.append({
                    "line": ln.id, "backend": backend.id,
                    "prompt": prompt.name, "prompt_sha256": prompt.sha256,
                    "input": ask, "output": result.text if result.ok else str(result.raw),
                    "planned": ln.text, "keep": keep, "kept": not reason,
                    "reason": reason or "keeps every required word, names no one new, fits its shot",
                })  # fmt: skip
            shots.append(shot.model_copy(update={"dialogue": lines}))
        out.append(clip.model_copy(update={"shots": shots}))
    return out, records
