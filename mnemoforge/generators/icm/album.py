"""Plan the identity-centric album: a calibration clip, then one clip of shots per event.

Each shot and each spoken line becomes an Observation recording which facts it expresses
and in which channel, so evidence and modality checks are exact.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from mnemoforge.dates import weekday_name
from mnemoforge.english.words import with_article
from mnemoforge.generators.coherence_text import LineFilter
from mnemoforge.generators.icm.dialogue import Dialogue, line_seconds
from mnemoforge.generators.icm.render_timing import LINE_GAP_S, LINE_START_S
from mnemoforge.generators.icm.shot_record import ShotChoice, shot_record
from mnemoforge.generators.icm.world import season_of
from mnemoforge.generators.names import addressed, form, says_name
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.episodes import Clip, DialogueLine, Shot
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.theme import ActivitySpec, Theme
from mnemoforge.schemas.world import Event, World

ALBUM_SOURCE = "album"
CAMERAS = ["static", "pan_left", "pan_right", "zoom_in", "zoom_out"]
HABIT_MENTION_RATE = 0.45
RELATION_MENTION_RATE = 0.5
MENTION_FIRST = 2  # a habit or relation is always mentioned the first this many times it can be
TAIL_S = 0.3  # silence kept after the last line of a shot
SPEECH_DURATIONS = (4, 6, 8)  # a shot whose speech no theme duration holds lengthens to one of these


def plan_album(
    theme: Theme, world: World, lines_ok: LineFilter | None = None
) -> tuple[list[Clip], list[Observation]]:
    clips = [_calibration_clip(world)]
    # one per album: it counts every line text
    talk = Dialogue(theme, lines_ok or LineFilter(world), lambda sp, text: _fits(world, sp, text))
    clips += [_event_clip(theme, world, ev, i + 1, talk) for i, ev in enumerate(world.events)]
    obs: list[Observation] = []
    for clip in clips:
        obs += observations_for_clip(world, clip)
    return clips, obs


def _calibration_clip(world: World) -> Clip:
    start = dt.datetime.combine(world.start, dt.time(9, 0))
    shots = []
    t = start
    for i, p in enumerate(world.people):
        line = DialogueLine(id=f"c0000_s{i:02d}_l0", speaker=p.id, text=calibration_text(world, p.id),
                            names_said=[p.id])  # fmt: skip
        duration = 6 if speech_need(world, [(p.id, line.text, [], [])]) <= 6 else 8
        shots.append(
            Shot(
                id=f"c0000_s{i:02d}",
                clip_id="c0000",
                index=i,
                start=t,
                duration_s=duration,
                place=world.places[0].id,
                time_of_day="morning",
                day_of_week=weekday_name(start),
                season=season_of(world.calendar, start.date()),
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
        t += dt.timedelta(seconds=duration)
    return Clip(
        id="c0000",
        index=0,
        event=None,
        start=start,
        day_of_week=weekday_name(start),
        season=season_of(world.calendar, start.date()),
        occasion="calibration",
        calibration=True,
        shots=shots,
    )


def calibration_text(world: World, pid: str) -> str:
    """A person's calibration line: their full name and role, or only the name where the whole
    line would not fit the longest shot (``theme check`` refuses a name too long even alone)."""
    p = world.person(pid)
    text = f"Hi, I'm {p.name}. I'm {with_article(p.role)}, nice to meet you."
    return text if _fits(world, pid, text) else f"Hi, I'm {p.name}."


Line = tuple[str, str, list[str], list[str]]  # speaker, text, names said, facts


@dataclass
class _ShotDraft:
    visible: list[str]
    composition: str
    camera: str
    lines: list[Line] = field(default_factory=list)


def cue_lines(world: World, ev: Event, act: ActivitySpec, talk: Dialogue, rng: random.Random) -> list[Line]:
    """Lines that must be spoken in this clip: the place's name where no sign shows it, choices
    made, habits and relations mentioned.

    Each states facts in the speech channel, so profile questions can accumulate them across clips.
    """
    lines: list[Line] = []
    place = world.place(ev.place)
    if place.sign is None:  # establish the place by name: nothing else in the media says which it is
        speaker = rng.choice(ev.participants)
        others = [q for q in ev.participants if q != speaker]
        # the place's name is said beside nobody's: a line naming a person at a place tells a text
        # search who goes where (a bank with only {other} wordings still names one, as a last resort)
        got = talk.pick(act, "place", {"place": place.name}, rng, required=True, speaker=speaker)
        addressee = rng.choice(others) if others else None
        slots = {"place": place.name} | ({"other": addressed(world, speaker, addressee)} if addressee else {})
        got = got or talk.pick(act, "place", slots, rng, required=True, speaker=speaker)
        if got:
            tpl, text = got
            names = [addressee] if addressee and "{other}" in tpl and "other" in slots else []
            lines.append((speaker, text, names, [f"f_{ev.id}_place"]))
    for f in world.facts:
        if f.kind == "chose" and f.event == ev.id:
            others = [q for q in ev.participants if q != f.subject]
            other = rng.choice(others) if others else None
            slots = {"value": str(f.value)} | ({"other": addressed(world, f.subject, other)} if other else {})
            got = talk.pick(act, "choice", slots, rng, key=f.object, required=True, speaker=f.subject)
            if got:
                names = [other] if other and "{other}" in got[0] else []
                lines.append((f.subject, got[1], names, [f.id]))
    lines += _statements(world, ev, act, talk, rng)
    for pid in ev.participants:
        person = world.person(pid)
        others = [q for q in ev.participants if q != pid]
        rate = HABIT_MENTION_RATE * talk.density  # the draw is made only where a habit can be said
        if person.habits and others and _mention(talk, f"f_habit_{pid}", rng.random() < rate):
            i = rng.randrange(len(person.habits))
            speaker = rng.choice(others)
            slots = {"name": addressed(world, speaker, pid), "habit": person.habits[i]}
            got = talk.pick(act, "habit", slots, rng, speaker=speaker)
            if got:
                talk.mentioned[f"f_habit_{pid}"] += 1
                lines.append((speaker, got[1], [pid], [f"f_habit_{pid}_{i}"]))
    for r in world.relations:
        if r.a in ev.participants and r.b in ev.participants and r.a_calls_b:
            fid = f"f_rel_{r.a}_{r.b}"
            if _mention(talk, fid, rng.random() < RELATION_MENTION_RATE * talk.density):
                others = [q for q in ev.participants if q not in (r.a, r.b)]
                other = rng.choice(others) if others else None
                # an introduction names the person in full (given and family name)
                slots = {"name": form(world.person(r.b), "plain"), "relation": r.a_calls_b}
                slots |= {"other": addressed(world, r.a, other)} if other else {}
                got = talk.pick(act, "relation", slots, rng, speaker=r.a)
                if got:
                    talk.mentioned[fid] += 1
                    names = [r.b] + ([other] if other and "{other}" in got[0] else [])
                    lines.append((r.a, got[1], names, [fid]))
    return lines + _animal_lines(world, ev, act, talk, rng)


def _animal_lines(
    world: World, ev: Event, act: ActivitySpec, talk: Dialogue, rng: random.Random
) -> list[Line]:
    """A cast animal at the event is named by one of its companions (in a shot of the speaker, so
    with the animal in frame): the name heard is what binds the drawn animal to its name. Named the
    first times it comes, afterwards at the habit rate; an animal never speaks."""
    out: list[Line] = []
    for e in world.entities:
        companions = [p for p in e.attrs.get("companions", "").split(",") if p in ev.participants]
        if e.kind != "animal" or not companions:
            continue
        fid = f"f_name_{e.id}"
        if not _mention(talk, fid, rng.random() < HABIT_MENTION_RATE * talk.density):
            continue
        speaker = rng.choice(companions)
        got = talk.pick(act, "animal", {"animal": e.name}, rng, speaker=speaker)
        if got:
            talk.mentioned[fid] += 1
            out.append((speaker, got[1], [], [fid]))  # the name heard; the shot shows it came
    return out


def _statements(world: World, ev: Event, act: ActivitySpec, talk: Dialogue, rng: random.Random) -> list[Line]:
    """Promises and plans made at this event, each said by the person who makes it, naming no one
    else (an addressee is most often among those who come along next time: see ``SLOTS``)."""
    nouns = {e.activity: e.noun for e in world.events}
    out: list[Line] = []
    for f in world.facts:
        if f.event != ev.id or f.kind not in ("promised", "planned"):
            continue
        if f.kind == "promised":
            slots = {"object": world.object(f.object).name, "noun": nouns[str(f.value)]}
            got = talk.pick(act, "promise", slots, rng, required=True, speaker=f.subject)
        else:
            slots = {"noun": nouns[f.object], "place": world.place(str(f.value)).name}
            got = talk.pick(act, "plan", slots, rng, required=True, speaker=f.subject)
        if got:
            out.append((f.subject, got[1], [], [f.id]))
    return out


def _mention(talk: Dialogue, key: str, drawn: bool) -> bool:
    """Habits and relations are mentioned the first times people meet (so a profile can form
    across clips), afterwards at their rate."""
    return drawn or talk.mentioned[key] < MENTION_FIRST


def speech_need(world: World, lines: list[Line]) -> float:
    """Seconds a shot needs for ``lines`` (estimated speech, the renderer's lead-in and gaps)."""
    est = sum(line_seconds(world, sp, text) for sp, text, *_ in lines)
    return LINE_START_S + est + LINE_GAP_S * max(0, len(lines) - 1) + TAIL_S


def _fits(world: World, speaker: str, text: str) -> bool:
    """Whether a line said by ``speaker`` fits the longest shot a line may lengthen to (alone)."""
    return speech_need(world, [(speaker, text, [], [])]) <= max(SPEECH_DURATIONS)


def _small_talk(
    world: World, ev: Event, act: ActivitySpec, talk: Dialogue, speaker: str, rng: random.Random
) -> Line | None:
    others = [p for p in ev.participants if p != speaker]
    other = rng.choice(others) if others else None
    # no {place}: small talk never names the place (a place is named only by its sign or its own
    # establishing line, so the transcripts do not tell where people go)
    slots = {"name": world.person(speaker).name, "noun": act.noun}
    if other:
        slots["other"] = addressed(world, speaker, other)
    # an object is named only beside someone who did not bring it: a line pairing a person's name
    # with what they brought would answer the object items from text alone
    brought = [o for o in ev.objects if ev.brought_by(o, world.object(o).owner) not in (other, None)]
    if brought:
        slots["object"] = world.object(brought[0]).name
    got = talk.pick(act, "small_talk", slots, rng, speaker=speaker, self_intro=True)
    if got is None:
        return None
    return (speaker, got[1], [other] if other and "{other}" in got[0] else [], [])


def _drafts(theme: Theme, world: World, ev: Event, talk: Dialogue, rng: random.Random) -> list[_ShotDraft]:
    lo, hi = theme.album.shots_per_clip
    act = next(a for a in theme.activities if a.id == ev.activity)
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
                line = _small_talk(world, ev, act, talk, d.visible[j % len(d.visible)], rng)
                if line:
                    d.lines.append(line)
        keep_move = derive_rng(world.seed, "camera", ev.id, s).random() < theme.album.camera_moves
        if not keep_move:  # a private draw: the album's other draws stay as they were
            d.camera = "static"
        drafts.append(d)
    # required lines go to a shot where the speaker is visible, replacing small talk if needed;
    # the place's name goes to the establishing shot, so the place is known from the start
    for line in cue_lines(world, ev, act, talk, rng):
        order = drafts[:1] if line[3][0].endswith("_place") else drafts[1:] + drafts[:1]
        spot = next((d for d in order if line[0] in d.visible and len(d.lines) < 2), None)
        if spot is None:
            spot = next(
                (d for d in order if line[0] in d.visible and any(not facts for *_, facts in d.lines)),
                None,
            )
            if spot is not None:
                spot.lines.remove(next(x for x in spot.lines if not x[3]))
        if spot is None:
            spot = _ShotDraft([line[0]], "medium", "static")
            drafts.append(spot)
        spot.lines.append(line)
    return _fit_speech(theme, world, drafts)


def _fit_speech(theme: Theme, world: World, drafts: list[_ShotDraft]) -> list[_ShotDraft]:
    """Move lines a shot cannot hold (at the theme's longest duration) to a new shot of their speaker;
    a single line longer than that lengthens its shot instead (see ``_event_clip``)."""
    longest = max(theme.album.shot_durations)
    out: list[_ShotDraft] = []
    for d in drafts:
        out.append(d)
        while len(d.lines) > 1 and speech_need(world, d.lines) > longest:
            moved = d.lines.pop()
            follow = _ShotDraft([moved[0]], "medium", "static", [moved])
            out.append(follow)
    return out


def _duration_choice(theme: Theme, fitting: list[int], longer: int, rng: random.Random) -> Callable[[], int]:
    """How a shot's duration is drawn: one of the theme's durations that hold its speech (the
    shortest of them with ``album.shot_length: shortest``: the draw is made all the same, so the
    album's other draws stay as they were), else the standard length that does."""

    def draw() -> int:
        got = rng.choice(fitting)
        return min(fitting) if theme.album.shot_length == "shortest" else got

    return draw if fitting else (lambda: longer)


def _event_clip(theme: Theme, world: World, ev: Event, index: int, talk: Dialogue) -> Clip:
    rng = derive_rng(world.seed, "clip", ev.id)
    cid = f"c{index:04d}"
    outfits = {p: rng.choice(world.person(p).appearance.outfits()).id for p in ev.participants}
    owner = {o.id: o.owner for o in world.objects}
    shots: list[Shot] = []
    t = ev.start
    for s, d in enumerate(_drafts(theme, world, ev, talk, rng)):
        sid = f"{cid}_s{s:02d}"
        props = [o for o in ev.objects if ev.brought_by(o, owner[o]) in d.visible]
        # a line binds a face to a name only where it says the name (not "Dad", "Yu", "Dr. Okafor")
        dialogue = [
            DialogueLine(id=f"{sid}_l{j}", speaker=sp, text=text, facts=facts,
                         names_said=[q for q in names if says_name(world.person(q), text)])  # fmt: skip
            for j, (sp, text, names, facts) in enumerate(d.lines)
        ]
        # speech must fit in the shot (estimated per voice; the renderer never cuts a line)
        need = speech_need(world, d.lines) if d.lines else 0.0
        fitting = [x for x in theme.album.shot_durations if x >= need]
        # no theme duration holds the speech: the shot lengthens to the shortest standard one that does
        longer = [x for x in SPEECH_DURATIONS if x >= need] or [max(SPEECH_DURATIONS)]
        choose = _duration_choice(theme, fitting, longer[0], rng)
        choice = ShotChoice(cid, s, t, d.visible, props, d.composition, d.camera, dialogue)
        shot = shot_record(world, ev, choice, outfits, rng, duration=choose)
        shots.append(shot)
        t += dt.timedelta(seconds=shot.duration_s)
    return Clip(
        id=cid,
        index=index,
        event=ev.id,
        start=ev.start,
        day_of_week=weekday_name(ev.start),
        season=season_of(world.calendar, ev.start.date()),
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
            pixel |= "_shows_" in f  # a declared part's value: written, counted or pinned
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
