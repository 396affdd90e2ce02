"""More episodes of the same World for the longer length variants (issue 36): an album extension.

A 30-clip album cannot give every item a short history that is an eighth of its long one: an item
whose evidence spans 4 clips needs 32 readable clips for ``s`` (1/8) to hold it. The extension
plans more events of **the same World**: the same planner (``event_plan.plan_events``) over the
same span and calendar, the same people, places and objects, each event's facts drawn as the base
events' are (``world._choices``: a participant's choice follows their preference *on that day*,
after a routine change too; ``drawn_parts.part_facts``), never at a time a person or object of it is
at another event. Extension events make no promises or plans (``world.statements``); the album's
keep the events they announce (an extension event may come between: the items that read them are
re-derived like any other). Their clips are planned by the album's own code
(``album._event_clip``), numbered from ``offset`` (``c1000``, ...) so no base id moves, and each is
placed in the stream after the last base clip before it (its ``order``: an item asked after clip
``c`` reads the extension clips dated before clip ``c + 1``).

The base World, clips, observations and items are untouched: the extension is filler a variant
may draw, never evidence. ``variants.apply`` re-derives every item on its own history, extension
included, and drops (from all variants, with the reason) an item a longer history makes ambiguous
or answers otherwise: another event of the kind it counts, a later choice of a drink.
"""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import dataclass

from mnemoforge.generators.coherence_text import LineFilter
from mnemoforge.generators.icm import album
from mnemoforge.generators.icm.dialogue import Dialogue
from mnemoforge.generators.icm.drawn_parts import part_facts, part_timelines
from mnemoforge.generators.icm.event_plan import EVENT_MINUTES, plan_events
from mnemoforge.generators.icm.world import _choices, animal_facts, preference_changes, timelines
from mnemoforge.rng import derive_seed
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Event, Fact, World

OVERPLAN = 1.25  # events planned per extension event wanted (some clash with the base album's)


@dataclass
class Extension:
    """The World with the extension events, and the extension's clips and observations."""

    world: World
    clips: list[Clip]
    observations: list[Observation]


def _end(e: Event) -> dt.datetime:
    return e.end or e.start + dt.timedelta(minutes=EVENT_MINUTES)


def extension_events(theme: Theme, world: World, n: int) -> list[Event]:
    """``n`` (or fewer) more events of ``world``: planned by the album's planner from a seed of its
    own, over the same span and calendar; one that would put a person or object at two events at
    once (with a base event or an earlier extension event) is left out, and of those left ``n``
    evenly spread over the span are kept. Ids ``ev_x0000``, ..., in time order."""
    if n <= 0:
        return []
    seed = derive_seed(world.seed, "extension")
    planned = plan_events(theme, seed, max(n, round(n * OVERPLAN)), world.protagonist, world.calendar)
    busy: dict[str, list[tuple[dt.datetime, dt.datetime]]] = {}
    for e in world.events:
        for who in (*e.participants, *e.objects):
            busy.setdefault(who, []).append((e.start, _end(e)))
    kept: list[Event] = []
    for e in sorted(planned, key=lambda e: (e.start, e.index)):
        whose = (*e.participants, *e.objects)
        if any(s < _end(e) and e.start < t for w in whose for s, t in busy.get(w, [])):
            continue
        for w in whose:
            busy.setdefault(w, []).append((e.start, _end(e)))
        kept.append(e)
    if len(kept) > n:  # every part of the span keeps its share (not the first n in time)
        kept = [kept[i * len(kept) // n] for i in range(n)]
    return [e.model_copy(update={"id": f"ev_x{i:04d}", "index": i}) for i, e in enumerate(kept)]


def event_facts(theme: Theme, world: World, events: list[Event]) -> list[Fact]:
    """The facts of extension events, drawn as the base events' are (activity, place, who came,
    what they brought, the choices they made, a drawn part's value), without promises or plans."""
    owner = {o.id: o.owner for o in world.objects}
    changes = preference_changes(world.seed, world.people, theme.start, theme.end)
    out: list[Fact] = []
    for e in events:
        at = e.start
        out.append(Fact(id=f"f_{e.id}_activity", kind="activity", subject=e.id, object=e.activity,
                        value=e.noun, at=at))  # fmt: skip
        out.append(Fact(id=f"f_{e.id}_place", kind="at_place", subject=e.id, object=e.place, at=at))
        out += [
            Fact(id=f"f_{e.id}_att_{p}", kind="attended", subject=p, object=e.id, event=e.id, at=at)
            for p in e.participants
        ]
        out += [
            Fact(id=f"f_{e.id}_brought_{o}", kind="brought", subject=e.brought_by(o, owner[o]) or "",
                 object=o, event=e.id, at=at)
            for o in e.objects
        ]  # fmt: skip
        out += _choices(world.seed, world.people, e, changes, theme.album.talk_density)
    return out + animal_facts(theme, events) + part_facts(world.seed, world.objects, events)


def extended_world(theme: Theme, world: World, events: list[Event]) -> World:
    """``world`` with ``events`` added: their facts, and the timelines recomputed over every event
    (where each person and object is, who holds a lent object, drawn values); other timelines stay."""
    facts = [*world.facts, *event_facts(theme, world, events)]
    evs = sorted([*world.events, *events], key=lambda e: (e.start, e.id))
    fresh = timelines(theme, world.people, world.objects, evs, facts) + part_timelines(facts)
    redone = {(t.subject, t.attribute) for t in fresh}
    kept = [t for t in world.timelines if (t.subject, t.attribute) not in redone]
    return world.model_copy(update={"events": evs, "facts": facts, "timelines": kept + fresh})


def plan_extension(theme: Theme, world: World, base_clips: list[Clip], n: int) -> Extension:
    """``n`` more clips of ``world`` (fewer where the planner's slots clash with the album): the
    extended World, the extension's clips (ids from ``c1000`` up, each ``index`` the last base clip
    before it) and their observations (``order`` that index, so the stream stays in time order)."""
    events = extension_events(theme, world, n)
    big = extended_world(theme, world, events)
    last = max((c.index for c in base_clips), default=0)
    offset = 1000 * (last // 1000 + 1)
    talk = Dialogue(theme, LineFilter(big), lambda sp, text: album._fits(big, sp, text))
    starts = sorted((c.start, c.index) for c in base_clips)
    clips: list[Clip] = []
    obs: list[Observation] = []
    for i, ev in enumerate(events):
        clip = album._event_clip(theme, big, ev, offset + i, talk)
        at = bisect.bisect_right(starts, (ev.start, offset + i)) - 1
        anchor = starts[max(at, 0)][1]
        clips.append(clip.model_copy(update={"index": anchor}))
        obs += [o.model_copy(update={"order": anchor}) for o in album.observations_for_clip(big, clip)]
    return Extension(big, clips, obs)
