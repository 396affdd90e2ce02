"""Plan the identity-centric album: a calibration clip, then one clip of shots per event.

Each shot and each spoken line becomes an Observation recording which facts it expresses
and in which channel, so evidence and modality checks are exact.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from mnemoforge.dates import weekday_name
from mnemoforge.generators.grammar import with_article
from mnemoforge.generators.world import season_of
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.episodes import Clip, DialogueLine, Shot
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Event, World

ALBUM_SOURCE = "album"
CAMERAS = ["static", "pan_left", "pan_right", "zoom_in", "zoom_out"]
CHOICE_LINE = "Let's get some {value}."
HABIT_LINE = "As always, {name} {habit}."
RELATION_LINE = "{name} is my {relation}, you know."
HABIT_MENTION_RATE = 0.3
RELATION_MENTION_RATE = 0.35
DEFAULT_LINES = [
    "{other}, this {noun} was a great idea.",
    "Did you bring the {object}, {other}?",
    "I love coming to {place}.",
    "{other}, come stand next to me for the photo.",
]


def time_of_day(t: dt.datetime) -> str:
    h = t.hour
    return "morning" if h < 12 else "afternoon" if h < 17 else "evening" if h < 20 else "night"


def plan_album(theme: Theme, world: World) -> tuple[list[Clip], list[Observation]]:
    clips = [_calibration_clip(world)]
    clips += [_event_clip(theme, world, ev, i + 1) for i, ev in enumerate(world.events)]
    obs: list[Observation] = []
    for clip in clips:
        obs += observations_for_clip(world, clip)
    return clips, obs


def _calibration_clip(world: World) -> Clip:
    start = dt.datetime.combine(world.start, dt.time(9, 0))
    shots = []
    for i, p in enumerate(world.people):
        line = DialogueLine(
            id=f"c0000_s{i:02d}_l0",
            speaker=p.id,
            text=f"Hi, I'm {p.name}. I'm {with_article(p.role)}, nice to meet you.",
            names_said=[p.id],
        )
        shots.append(
            Shot(
                id=f"c0000_s{i:02d}",
                clip_id="c0000",
                index=i,
                start=start + dt.timedelta(seconds=6 * i),
                duration_s=6,
                place=world.places[0].id,
                time_of_day="morning",
                day_of_week=weekday_name(start),
                season=season_of(start.date()),
                occasion="calibration",
                weather="clear",
                visible=[p.id],
                focus=[p.id],
                outfits={p.id: p.appearance.signature_outfit.id},
                composition="close",
                camera="static",
                blocking=f"{p.name} faces the camera and says their name",
                dialogue=[line],
                audio_strategy="soft_single_line",
                evidence_facts=[f"f_name_{p.id}"],
            )
        )
    return Clip(
        id="c0000",
        index=0,
        event=None,
        start=start,
        day_of_week=weekday_name(start),
        season=season_of(start.date()),
        occasion="calibration",
        calibration=True,
        shots=shots,
    )


@dataclass
class _ShotDraft:
    visible: list[str]
    composition: str
    camera: str
    lines: list[tuple[str, str, list[str], list[str]]] = field(
        default_factory=list
    )  # speaker, text, names, facts


def cue_lines(world: World, ev: Event, rng: random.Random) -> list[tuple[str, str, list[str], list[str]]]:
    """Lines that must be spoken in this clip: choices made, habits and relations mentioned.

    Each states facts in the speech channel, so profile questions can accumulate them across clips.
    """
    lines = []
    for f in world.facts:
        if f.kind == "chose" and f.event == ev.id:
            lines.append((f.subject, CHOICE_LINE.format(value=f.value), [], [f.id]))
    for pid in ev.participants:
        person = world.person(pid)
        others = [q for q in ev.participants if q != pid]
        if person.habits and others and rng.random() < HABIT_MENTION_RATE:
            i = rng.randrange(len(person.habits))
            speaker = rng.choice(others)
            text = HABIT_LINE.format(name=person.name, habit=person.habits[i])
            lines.append((speaker, text, [pid], [f"f_habit_{pid}_{i}"]))
    for r in world.relations:
        if r.a in ev.participants and r.b in ev.participants and r.a_calls_b:
            if rng.random() < RELATION_MENTION_RATE:
                text = RELATION_LINE.format(name=world.person(r.b).name, relation=r.a_calls_b)
                lines.append((r.a, text, [r.b], [f"f_rel_{r.a}_{r.b}"]))
    return lines


def _drafts(theme: Theme, world: World, ev: Event, rng: random.Random) -> list[_ShotDraft]:
    lo, hi = theme.album.shots_per_clip
    act = next(a for a in theme.activities if a.id == ev.activity)
    templates = act.lines or DEFAULT_LINES
    place = world.place(ev.place)
    drafts = []
    n_shots = rng.randint(lo, hi)
    for s in range(n_shots):
        if s == 0:  # establishing: everyone, wide, the place sign readable
            d = _ShotDraft(list(ev.participants), "wide", rng.choice(["static", "pan_left", "pan_right"]))
        else:
            k = rng.randint(1, min(2, len(ev.participants)))
            visible = sorted(rng.sample(ev.participants, k), key=ev.participants.index)
            d = _ShotDraft(visible, rng.choice(["medium", "close"]), rng.choice(CAMERAS))
        if s > 0 or n_shots == 1:
            for j in range(rng.randint(0, 2) if len(d.visible) > 1 else rng.randint(0, 1)):
                speaker = d.visible[j % len(d.visible)]
                others = [p for p in ev.participants if p != speaker]
                other = rng.choice(others) if others else speaker
                tpl = rng.choice(templates)
                obj = world.object(ev.objects[0]).name if ev.objects else "snacks"
                text = tpl.format(
                    other=world.person(other).name,
                    name=world.person(speaker).name,
                    place=place.name,
                    noun=act.noun,
                    object=obj,
                )
                d.lines.append((speaker, text, [other] if "{other}" in tpl else [], []))
        drafts.append(d)
    # required lines go to a shot where the speaker is visible, replacing small talk if needed
    for line in cue_lines(world, ev, rng):
        spot = next((d for d in drafts[1:] + drafts[:1] if line[0] in d.visible and len(d.lines) < 2), None)
        if spot is None:
            spot = next(
                (
                    d
                    for d in drafts[1:] + drafts[:1]
                    if line[0] in d.visible and any(not facts for *_, facts in d.lines)
                ),
                None,
            )
            if spot is not None:
                spot.lines.remove(next(x for x in spot.lines if not x[3]))
        if spot is None:
            spot = _ShotDraft([line[0]], "medium", "static")
            drafts.append(spot)
        spot.lines.append(line)
    return drafts


def _event_clip(theme: Theme, world: World, ev: Event, index: int) -> Clip:
    rng = derive_rng(world.seed, "clip", ev.id)
    cid = f"c{index:04d}"
    outfits = {p: rng.choice(world.person(p).appearance.outfits()).id for p in ev.participants}
    owner = {o.id: o.owner for o in world.objects}
    place = world.place(ev.place)
    shots: list[Shot] = []
    t = ev.start
    for s, d in enumerate(_drafts(theme, world, ev, rng)):
        sid = f"{cid}_s{s:02d}"
        props = [o for o in ev.objects if owner[o] in d.visible]
        dialogue = [
            DialogueLine(id=f"{sid}_l{j}", speaker=sp, text=text, names_said=names, facts=facts)
            for j, (sp, text, names, facts) in enumerate(d.lines)
        ]
        strategy = (
            "soft_dialogue"
            if len(dialogue) > 1
            else "soft_single_line"
            if dialogue
            else rng.choice(["ambient_only", "ambient_sfx"])
        )
        facts = [f"f_{ev.id}_att_{p}" for p in d.visible] + [f"f_{ev.id}_activity"]
        if s == 0:
            facts.append(f"f_{ev.id}_place")
        facts += [f"f_{ev.id}_brought_{o}" for o in props]
        # speech must fit in the shot: a line needs up to ~4 s
        fitting = [x for x in theme.album.shot_durations if x >= 4 * len(dialogue)]
        duration = rng.choice(fitting or [max(theme.album.shot_durations)])
        shots.append(
            Shot(
                id=sid,
                clip_id=cid,
                index=s,
                start=t,
                duration_s=duration,
                place=ev.place,
                time_of_day=time_of_day(t),
                day_of_week=weekday_name(t),
                season=season_of(t.date()),
                occasion=ev.occasion,
                weather=ev.weather,
                visible=d.visible,
                extras=rng.randint(0, 2) if place.kind in ("venue", "shop", "outdoor") else 0,
                focus=d.visible[:1] if d.composition != "wide" else [],
                outfits={p: outfits[p] for p in d.visible},
                props=props,
                holders={o: owner[o] for o in props if owner[o]},
                composition=d.composition,
                camera=d.camera,
                blocking=", ".join(world.person(p).name for p in d.visible) + " from left to right",
                dialogue=dialogue,
                audio_strategy=strategy,
                audio_cues=["footsteps"] if strategy == "ambient_sfx" else [],
                evidence_facts=facts,
            )
        )
        t += dt.timedelta(seconds=duration)
    return Clip(
        id=cid,
        index=index,
        event=ev.id,
        start=ev.start,
        day_of_week=weekday_name(ev.start),
        season=season_of(ev.start.date()),
        occasion=ev.occasion,
        shots=shots,
    )


def observations_for_clip(world: World, clip: Clip) -> list[Observation]:
    """One scene observation per shot and one speech observation per dialogue line."""
    out: list[Observation] = []
    media_clip = f"media/clips/{clip.id}.mp4"
    for shot in clip.shots:
        exprs = []
        for f in shot.evidence_facts:
            # small text in frame (the place sign, an object's label) is a pixel-level cue
            pixel = f.endswith("_place") and world.place(shot.place).sign is not None
            pixel |= "_brought_" in f and world.object(f.rsplit("_brought_", 1)[1]).label is not None
            exprs.append(Expression(fact=f, channel=Channel.pixel if pixel else Channel.scene))
        if clip.calibration:
            exprs = [Expression(fact=f, channel=Channel.scene) for f in shot.evidence_facts]
        out.append(
            Observation(
                id=shot.id,
                source=ALBUM_SOURCE,
                episode=clip.id,
                kind="shot",
                timestamp=shot.start,
                order=clip.index,
                content="",  # what is seen lives in the media; production notes would leak names
                people=list(shot.visible),
                expresses=exprs,
                media=[media_clip, f"media/shots/{shot.id}.png"],
                evidence_eligible=not clip.calibration,
            )
        )
        for line in shot.dialogue:
            out.append(
                Observation(
                    id=line.id,
                    source=ALBUM_SOURCE,
                    episode=clip.id,
                    kind="speech",
                    timestamp=shot.start,
                    order=clip.index,
                    content=line.text,  # the words heard; who spoke is ground truth in `people`
                    people=[line.speaker],
                    expresses=[
                        Expression(fact=f"f_name_{p}", channel=Channel.speech) for p in line.names_said
                    ]
                    + [Expression(fact=f, channel=Channel.speech) for f in line.facts],
                    media=[media_clip, f"media/speech/{line.id}.wav"],
                    evidence_eligible=not clip.calibration,
                )
            )
    return out
