"""The episodes stage of the smm family: plan questions, route evidence, merge all sources.

``build_stream`` returns the observations (one per round, ``order`` = the global round index),
the attachments to render, the evidence blocks (unit + scaffold, used by the concentrated twin),
the dense captions of every image, the source table, and the raw model I/O of any turn rewrites.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from mnemoforge.english.variety import Variety
from mnemoforge.generators.coherence_text import LineFilter
from mnemoforge.generators.smm.conversation import background
from mnemoforge.generators.smm.injection import Unit, conflict_pairs, route
from mnemoforge.generators.smm.paraphrase import paraphrase_turns
from mnemoforge.generators.smm.questions import plan_questions
from mnemoforge.generators.smm.scaffold import (
    Draft,
    Lookup,
    background_drafts,
    merge,
    observations,
    references,
    unit_block,
)
from mnemoforge.generators.smm.world import conflict_gap
from mnemoforge.generators.smm.world import spec as world_spec
from mnemoforge.schemas.calendar import WorldCalendar
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World

MAX_SHIFTS = 60


class StreamError(RuntimeError):
    """The planned stream breaks a constraint (e.g. an update cannot be placed late enough)."""


@dataclass
class Stream:
    observations: list[Observation]
    attachments: list[dict[str, Any]]
    blocks: list[dict[str, Any]]
    captions: list[dict[str, Any]]
    sources: list[dict[str, Any]]
    turns: list[dict[str, Any]]
    lines: dict[str, Any] = field(default_factory=dict)
    """Background lines left out as incoherent, by rule (the funnel's ``lines``)."""
    unrouted: dict[str, Any] = field(default_factory=dict)
    """Planned items dropped because a fact they read has no source to show it, by reason (the
    funnel's ``unrouted``), and the facts (fact id -> why)."""


def _next_workday(t: dt.datetime, cal: WorldCalendar) -> dt.datetime:
    t += dt.timedelta(days=1)
    for _ in range(366):  # the theme's calendar: no weekend day, no holiday
        if cal.is_working_day(t.date()):
            break
        t += dt.timedelta(days=1)
    return t


def _assemble(lk: Lookup, units: list[Unit], bg: list[Draft]) -> tuple[list[Draft], dict[str, list[Draft]]]:
    for i, d in enumerate(bg):
        d.seq = i
    fillers = [d for d in bg if d.filler]
    refs = references(units, fillers)
    for d in fillers:
        ref = refs[f"filler:{d.seq}"]
        d.content = f"[{ref}] {lk.sources[d.source].title}"
        d.caption = f"{ref}: {d.attachment['title'] if d.attachment else ''}"
    blocks = {u.id: unit_block(lk, u, refs) for u in sorted(units, key=lambda u: (u.at, u.id))}
    drafts = bg + [d for u in sorted(blocks) for d in blocks[u]]
    for i, d in enumerate(drafts):
        d.seq = i
    return merge(drafts), blocks


def _vary(theme: Theme, merged: list[Draft]) -> None:
    """No line of talk written more than ``album.max_line_repeats`` times: in stream order, a line at
    the cap takes one of its listed variants (``english.variety``), evidence and scaffold alike,
    so no wording marks evidence. A message carrying a fact or an attachment is never changed."""
    variety = Variety(theme.album.max_line_repeats)
    for d in merged:
        if d.expresses or d.attachment or d.kind not in ("message", "note"):
            continue
        prefix, sep, body = d.content.partition(": ") if d.kind == "message" else ("", "", d.content)
        if not sep:
            prefix, body = "", d.content
        new = variety.recast(body, prefix + sep)
        if new is not None:
            d.content = new


def build_stream(theme: Theme, world: World) -> Stream:
    """Route the planned questions' evidence into the sources and merge them into one stream."""
    cands = plan_questions(theme, world)
    routed = route(theme, world, cands)
    unrouted = {f: u.unrouted for u in routed if u.unrouted for f in u.facts}  # shown nowhere: why
    units = [u for u in routed if not u.unrouted]
    unit_of = {f: u for u in units for f in u.facts}
    spans = [len({unit_of[f].source for f in c.read if f in unit_of}) for c in cands]
    target = world_spec(theme).target_sources_per_question
    if spans and sum(spans) / len(spans) < target:
        raise StreamError(
            f"smm.target_sources_per_question: the routed plan reaches {sum(spans) / len(spans):.2f} "
            f"sources per question, below {target}; declare more sources or lower the target"
        )
    lk = Lookup.of(theme, world)
    lines_ok = LineFilter(world)
    bg = background_drafts(lk, background(theme, world.seed, lines_ok))
    gap = conflict_gap(world)
    end = dt.datetime.combine(theme.end, dt.time(23, 59))
    for _ in range(MAX_SHIFTS):
        merged, blocks = _assemble(lk, units, bg)
        pos = {id(d): i for i, d in enumerate(merged)}
        carrier = {x.fact: pos[id(d)] for d in merged if d.block for x in d.expresses}
        late = [
            unit_of[upd]
            for stale, upd in conflict_pairs(world)
            if stale in carrier and upd in carrier and carrier[upd] - carrier[stale] < gap
        ]
        if not late:
            break
        for u in late:
            u.at = _next_workday(u.at, world.calendar)
            if u.at > end:
                raise StreamError(f"{u.id}: cannot place the update {gap} rounds after its stale value")
    else:
        raise StreamError(f"conflict gaps still below {gap} rounds after {MAX_SHIFTS} shifts")
    _vary(theme, merged)
    turns: list[dict[str, Any]] = []
    if world_spec(theme).paraphrase_turns:
        from mnemoforge.backends.text.registry import make_text_backend

        assert theme.text.backend is not None
        turns = paraphrase_turns(lk, merged, make_text_backend(theme.text.backend))
    obs = observations(merged)
    by_draft = {id(d): o for d, o in zip(merged, obs, strict=True)}
    attachments, captions = [], []
    for d, o in zip(merged, obs, strict=True):
        if d.attachment:
            attachments.append(
                {"observation": o.id, "path": o.media[0], "source": o.source, "spec": d.attachment}
            )
            captions.append({"observation": o.id, "source": o.source, "kind": o.kind, "caption": d.caption})
    block_rows = [
        {
            "block": uid,
            "source": by_draft[id(ds[0])].source,
            "observations": [by_draft[id(d)].id for d in ds],
            "facts": sorted(next(u for u in units if u.id == uid).facts),
            "medium": next(u for u in units if u.id == uid).medium,
        }
        for uid, ds in sorted(blocks.items())
    ]
    assert theme.smm is not None
    rounds: dict[str, int] = {}
    for o in obs:
        rounds[o.source] = rounds.get(o.source, 0) + 1
    sources = [
        {
            "id": s.id,
            "kind": s.kind,
            "title": s.title,
            "purpose": s.purpose,
            "members": list(s.members),
            "authority": s.authority,
            "rounds": rounds.get(s.id, 0),
            "evidence_units": sum(b["source"] == s.id for b in block_rows),
        }
        for s in theme.smm.sources
    ]
    reasons: dict[str, int] = {}
    for c in cands:
        why = sorted({unrouted[f] for f in c.read if f in unrouted})
        if why:
            code = why[0].split(":")[0] if ":" in why[0] else "unrouted"
            reasons[code] = reasons.get(code, 0) + 1
    dropped = {"items": sum(reasons.values()), "reasons": dict(sorted(reasons.items())), "facts": unrouted}
    return Stream(obs, attachments, block_rows, captions, sources, turns, lines_ok.summary(), dropped)
