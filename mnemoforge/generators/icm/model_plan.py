"""``text.plan`` for icm: a text model proposes the album's event outlines, validated into World records.

The procedural planner (``generators/icm/event_plan.py``) still lays out the timeline: as many dated
slots as the album has story clips, each with a procedural event. The model is shown the cast,
places, objects and activities (with their rules) and asked, ``text.plan_batch`` slots per call
(``assets/prompts/plan_events.txt``), for one outline per slot: activity, place, participants,
objects brought, date (within three days of the slot) and hour. Each outline is validated:

- only the fields above (anything else could not become a fact the question programs read);
- known ids; the place one of the activity's; objects owned by a participant;
- the activity's rules as the coherence check states them (``world_rules.world_problems``:
  who may come, people counts, hours, days, monthly caps across the whole timeline).

An accepted outline becomes an ``Event``; its facts (activity, place, attendance, objects brought,
choices) are derived exactly as for procedural events, so every one is expressible by the
question programs. A rejected outline (or a failed call) leaves the slot's procedural event in
place; rejects are counted by reason. Every call's prompt, raw reply and verdicts are kept in
``world/plan_lineage.jsonl`` and the counts in ``world/plan_summary.json`` of the run folder.
Replies are cached by the call ledger, so a rebuild of the same run plans the same World.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections import Counter
from pathlib import Path
from typing import Any

from mnemoforge.backends.text.protocol import ChatRequest, TextBackend, user
from mnemoforge.generators.calendar import weather_pool
from mnemoforge.generators.coherence import check_world
from mnemoforge.generators.icm import world as world_mod
from mnemoforge.generators.icm.world_rules import eligible, world_problems
from mnemoforge.hashing import canonical_json
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Event, World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.validators.prompts import Prompt

log = logging.getLogger("mnemoforge.plan")
FIELDS = {"slot", "date", "hour", "minute", "activity", "place", "participants", "objects"}
WINDOW_DAYS = 3
_FENCE = re.compile(r"```(?:json)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def lineage_path(run: RunLayout) -> Path:
    return run.root / "world" / "plan_lineage.jsonl"


def summary_path(run: RunLayout) -> Path:
    return run.root / "world" / "plan_summary.json"


def _context(theme: Theme, protagonist: str) -> dict[str, str]:
    cast = "\n".join(f"- {p.id}: {p.name}, {p.role}" for p in theme.cast)
    places = "\n".join(f"- {p.id}: {p.name}, {p.kind}" for p in theme.places)
    objects = "\n".join(f"- {o.id}: {o.name}, owned by {o.owner or 'nobody'}" for o in theme.objects)
    acts = []
    for a in theme.activities:
        rules = [f"{a.min_people}-{a.max_people} people"]
        rules.append(f"may include: {', '.join(sorted({protagonist, *eligible(theme, a, protagonist)}))}")
        if a.who.protagonist != "optional":
            rules.append(f"the protagonist is {a.who.protagonist}")
        if a.days:
            rules.append(f"days: {', '.join(a.days)}")
        if a.hours:
            rules.append(f"hours {a.hours[0]}-{a.hours[1]}")
        if a.max_per_month is not None:
            rules.append(f"at most {a.max_per_month} a month")
        acts.append(f"- {a.id}: {a.verb}; places: {', '.join(a.places)}; " + "; ".join(rules))
    return {
        "title": theme.title,
        "description": theme.description,
        "protagonist": f"{protagonist} ({theme.person(protagonist).name})",
        "cast": cast,
        "places": places,
        "objects": objects or "(none)",
        "activities": "\n".join(acts),
    }


def _window(theme: Theme, day: dt.date) -> tuple[dt.date, dt.date]:
    last = theme.end - dt.timedelta(days=1)
    lo = max(theme.start, day - dt.timedelta(days=WINDOW_DAYS))
    return lo, min(last, day + dt.timedelta(days=WINDOW_DAYS))


def parse_outlines(text: str) -> tuple[list[Any], str | None]:
    """The JSON list inside a reply (fenced or bare), or the reason it is not one."""
    m = _FENCE.search(text)
    body = (m.group(1) if m else text).strip()
    try:
        data = json.loads(body)
    except ValueError:
        start, end = body.find("["), body.rfind("]")
        try:
            data = json.loads(body[start : end + 1]) if 0 <= start < end else None
        except ValueError:
            data = None
        if data is None:
            return [], "unparsable reply: not a JSON list"
    if isinstance(data, dict) and isinstance(data.get("events"), list):
        data = data["events"]
    if not isinstance(data, list):
        return [], f"unparsable reply: JSON {type(data).__name__}, expected a list"
    return data, None


def validate_outline(
    theme: Theme, base: World, slot: Event, item: Any, seed: int
) -> tuple[Event | None, str]:
    """An outline as an ``Event`` in ``slot``'s place, or ``(None, reason)``."""
    if not isinstance(item, dict):
        return None, f"not an object: {type(item).__name__}"
    extra = sorted(set(item) - FIELDS)
    if extra:
        return None, f"unknown field: {extra[0]}"
    acts = {a.id: a for a in theme.activities}
    act = acts.get(str(item.get("activity")))
    if act is None:
        return None, f"unknown activity: {item.get('activity')!r}"
    place = item.get("place")
    if place not in act.places:
        return None, f"place not allowed: {place!r} is not among {act.id}'s places"
    who = item.get("participants")
    cast = {p.id for p in theme.cast}
    if not isinstance(who, list) or not who or not all(isinstance(p, str) for p in who):
        return None, "participants: expected a list of person ids"
    if len(set(who)) != len(who) or set(who) - cast:
        return None, f"participants: unknown or repeated ids {sorted(set(who) - cast) or who}"
    brought = item.get("objects") or []
    owners = {o.id: o.owner for o in theme.objects}
    if not isinstance(brought, list) or any(owners.get(o, "-") not in who for o in brought):
        return None, "objects: only objects a participant owns may be brought"
    lo, hi = _window(theme, slot.start.date())
    try:
        day = dt.date.fromisoformat(str(item.get("date")))
        hour, minute = int(item.get("hour")), int(item.get("minute", slot.start.minute))
        start = dt.datetime.combine(day, dt.time(hour, minute))
    except (TypeError, ValueError):
        return None, "date: expected YYYY-MM-DD and an hour 0-23"
    if not lo <= day <= hi:
        return None, f"date outside the slot's window: {day} not in {lo}..{hi}"
    cal = base.calendar
    weather = slot.weather
    if weather not in weather_pool(cal, day):  # another season: a word of the day's own
        weather = derive_rng(seed, "plan-weather", slot.id).choice(weather_pool(cal, day))
    order = {p.id: j for j, p in enumerate(theme.cast)}
    ev = Event(
        id=slot.id,
        index=slot.index,
        start=start,
        end=start + dt.timedelta(minutes=world_mod.EVENT_MINUTES),
        activity=act.id,
        verb=act.verb,
        noun=act.noun,
        place=place,
        participants=sorted(who, key=order.__getitem__),
        objects=sorted(brought),
        weather=weather,
        occasion=world_mod.occasion_of(cal, day),
    )
    rules = world_problems(theme, base.model_copy(update={"events": [ev]}))
    if rules:
        return None, "activity rules: " + rules[0].split(": ", 1)[-1]
    return ev, ""


def _reason_kind(reason: str) -> str:
    return reason.split(":", 1)[0]


def model_plan(
    theme: Theme, seed: int, backend: TextBackend, prompt: Prompt
) -> tuple[World, list[dict[str, Any]], dict[str, Any]]:
    """The World with model-proposed events, one lineage record per call, and the summary."""
    base = world_mod.plan_world(theme, seed, theme.album.clips - 1)
    slots = list(base.events)
    ctx = _context(theme, base.protagonist)
    chosen: dict[str, Event] = {}
    lineage: list[dict[str, Any]] = []
    reasons: Counter[str] = Counter()
    batch = theme.text.plan_batch
    for b in range(0, len(slots), batch):
        group = slots[b : b + batch]
        listed = []
        for k, s in enumerate(group):
            lo, hi = _window(theme, s.start.date())
            season = world_mod.season_of(base.calendar, s.start.date())
            listed.append(f"- slot {k}: between {lo} and {hi}" + (f" ({season})" if season else ""))
        ask = prompt.render(**ctx, slots="\n".join(listed))
        req = ChatRequest((user(ask),), max_tokens=120 * len(group) + 200, seed=seed)
        res = backend.chat(req)
        record: dict[str, Any] = {"batch": b // batch, "slots": [s.id for s in group], "prompt": prompt.name,
                                  "prompt_sha256": prompt.sha256, "request": ask, "backend": backend.id,
                                  "ok": res.ok, "reply": res.text if res.ok else None, "error": res.error,
                                  "accepted": [], "rejected": []}  # fmt: skip
        items, err = parse_outlines(res.text) if res.ok else ([], f"model call failed: {res.error}")
        if err:
            reasons[_reason_kind(err)] += len(group)
            record["rejected"] = [{"slot": s.id, "reason": err} for s in group]
        seen: set[int] = set()
        for item in items:
            k = item.get("slot") if isinstance(item, dict) else None
            if not isinstance(k, int) or not 0 <= k < len(group) or k in seen:
                reasons["slot"] += 1
                record["rejected"].append(
                    {"slot": None, "reason": f"slot: not a free slot of this batch ({k!r})"}
                )
                continue
            seen.add(k)
            ev, why = validate_outline(theme, base, group[k], item, seed)
            if ev is None:
                reasons[_reason_kind(why)] += 1
                record["rejected"].append({"slot": group[k].id, "reason": why, "outline": item})
            else:
                chosen[group[k].id] = ev
                record["accepted"].append(group[k].id)
        missing = [s.id for k, s in enumerate(group) if k not in seen and not err]
        if missing:
            reasons["no outline"] += len(missing)
            record["rejected"] += [{"slot": sid, "reason": "no outline for this slot"} for sid in missing]
        lineage.append(record)
    world = _assemble(theme, seed, base, slots, chosen, reasons, lineage)
    proposed = sum(len(r["accepted"]) + len(r["rejected"]) for r in lineage)
    summary = {
        "slots": len(slots),
        "calls": len(lineage),
        "proposed": proposed,
        "accepted": sum(1 for e in chosen.values()),
        "procedural": len(slots) - len(chosen),
        "rejected": dict(sorted(reasons.items())),
    }
    return world, lineage, summary


def _assemble(
    theme: Theme,
    seed: int,
    base: World,
    slots: list[Event],
    chosen: dict[str, Event],
    reasons: Counter[str],
    lineage: list[dict[str, Any]],
) -> World:
    """Model events where accepted, procedural ones elsewhere; timeline-wide rules (monthly caps)
    drop model events until none is broken. Events are renumbered in time order, as the planner does."""
    while True:
        events = sorted((chosen.get(s.id, s) for s in slots), key=lambda e: (e.start, e.index))
        trial = base.model_copy(update={"events": events})
        broken = [p for p in world_problems(theme, trial) if not p.split(" ", 1)[0].startswith("ev_")]
        caps = {p.split(":", 1)[0] for p in broken}
        victims = [sid for sid, e in chosen.items() if e.activity in caps]
        if not victims:
            break
        sid = max(victims)  # the latest model event of a capped activity goes back to procedural
        del chosen[sid]
        reasons["activity rules"] += 1
        for rec in lineage:
            if sid in rec["accepted"]:
                rec["accepted"].remove(sid)
                rec["rejected"].append(
                    {"slot": sid, "reason": "activity rules: monthly cap across the timeline"}
                )
    renamed = [e.model_copy(update={"id": f"ev_{i:04d}", "index": i}) for i, e in enumerate(events)]
    return world_mod.finish_world(theme, seed, base.protagonist, renamed, base.calendar)


def plan_stage(theme: Theme, seed: int, run: RunLayout) -> list[Path]:
    """The ``plan`` stage with ``text.plan`` on: writes the World, the lineage and the summary."""
    from mnemoforge.backends.text.registry import make_text_backend
    from mnemoforge.validators.prompts import load_prompt

    assert theme.text.backend is not None
    folder = Path(theme.gates.prompts_dir) if theme.gates.prompts_dir else None
    backend = make_text_backend(theme.text.backend)
    world, lineage, summary = model_plan(theme, seed, backend, load_prompt(theme.text.plan_prompt, folder))
    check_world(world, theme)  # an incoherent world fails the build, naming the rule
    if summary["procedural"]:
        log.warning(
            "text.plan: %d of %d events kept the procedural outline (rejected: %s)",
            summary["procedural"],
            summary["slots"],
            ", ".join(f"{k} {n}" for k, n in summary["rejected"].items()) or "none",
        )
    return [
        atomic.write_json(run.world, world),
        atomic.write_text(lineage_path(run), "".join(canonical_json(r) + "\n" for r in lineage)),
        atomic.write_json(summary_path(run), summary),
    ]
