"""One shot's record from what a planner chose: shared by the procedural album and model proposals."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass

from mnemoforge.dates import weekday_name
from mnemoforge.generators.icm.drawn_parts import shot_parts, shows_fact_id
from mnemoforge.generators.icm.place_look import shot_time_of_day
from mnemoforge.generators.icm.world import season_of
from mnemoforge.schemas.episodes import DialogueLine, Shot
from mnemoforge.schemas.world import Event, World

CROWD_KINDS = ("venue", "shop", "outdoor")  # place kinds whose shots have extras


@dataclass(frozen=True)
class ShotChoice:
    """What a planner (procedural or a model's proposal) chose for one shot."""

    clip_id: str
    index: int
    start: dt.datetime
    visible: list[str]
    props: list[str]
    composition: str
    camera: str
    dialogue: list[DialogueLine]


def shot_record(
    world: World,
    ev: Event,
    c: ShotChoice,
    outfits: dict[str, str],
    rng: random.Random,
    duration: Callable[[], int],
) -> Shot:
    """The Shot record of a planner's choice: its facts, audio strategy, holders and extras.

    ``duration`` is called after the audio strategy is drawn (the procedural planner draws both
    from one stream, in that order)."""
    place = world.place(ev.place)
    strategy = (
        "soft_dialogue"
        if len(c.dialogue) > 1
        else "soft_single_line"
        if c.dialogue
        else rng.choice(["ambient_only", "ambient_sfx"])
    )
    facts = [f"f_{ev.id}_att_{p}" for p in c.visible] + [f"f_{ev.id}_activity"]
    if c.index == 0 and place.sign is not None:  # a sign-less place is named in speech instead
        facts.append(f"f_{ev.id}_place")
    facts += [f"f_{ev.id}_brought_{o}" for o in c.props]
    animals = animals_beside(world, c.visible)
    facts += [f"f_{ev.id}_with_{a}" for a in animals]
    parts = shot_parts(world, ev.place, c.composition)  # declared objects standing there
    facts += [shows_fact_id(ev.id, o) for o in parts]
    seconds = duration()
    return Shot(
        id=f"{c.clip_id}_s{c.index:02d}",
        clip_id=c.clip_id,
        index=c.index,
        start=c.start,
        duration_s=seconds,
        place=ev.place,
        time_of_day=shot_time_of_day(world.calendar, c.start),
        day_of_week=weekday_name(c.start),
        season=season_of(world.calendar, c.start.date()),
        occasion=ev.occasion,
        weather=ev.weather,
        visible=c.visible,
        extras=rng.randint(0, 2) if place.kind in CROWD_KINDS else 0,
        focus=c.visible[:1] if c.composition != "wide" else [],
        outfits={p: outfits[p] for p in c.visible},
        props=c.props,
        holders={o: h for o in c.props if (h := world.value_at(o, "holder", c.start))},
        composition=c.composition,
        camera=c.camera,
        blocking=", ".join(world.person(p).name for p in c.visible) + " from left to right",
        dialogue=c.dialogue,
        audio_strategy=strategy,
        audio_cues=["footsteps"] if strategy == "ambient_sfx" else [],
        evidence_facts=facts,
        animals=animals,
        parts=parts,
    )


def animals_beside(world: World, visible: list[str]) -> list[str]:
    """The cast's animals whose companion is seen (they go where their people go)."""
    return [
        e.id
        for e in world.entities
        if e.kind == "animal" and set(e.attrs.get("companions", "").split(",")) & set(visible)
    ]
