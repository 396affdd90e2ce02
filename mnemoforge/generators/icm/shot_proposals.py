"""A model's shot list for one event clip, validated into the ``Shot`` records the procedural planner makes.

``text.plan_shots`` (``generators/icm/model_shots.py``) shows the model each clip's event (participants,
the objects brought, the place) and the clip's planned lines, and asks for the shots: framing,
who is visible, props, camera move, duration and which lines are spoken in which shot. A proposal
is accepted only if:

- each shot has only the fields above; ``visible`` is a non-empty list of the event's
  participants, at most ``MAX_CLOSE_PEOPLE`` in a medium or close shot (as the procedural planner
  frames them); the camera is one of ``album.CAMERAS``;
- shot 0 is the establishing shot: wide, its camera static or a pan (a zoom would crop the place
  sign), and the line naming a sign-less place is spoken in it;
- props are objects brought to the event, each shown only where who brought it (its owner, or
  a participant carrying it for them) is visible;
- every planned line is placed exactly once, in a shot where its speaker is visible, and the
  shot's speech fits its duration (``album.speech_need``: the renderer never cuts a line);
  the duration is one the procedural planner could choose for that speech
  (``allowed_durations``);
- the clip still makes observable every fact, in the same channel, that the procedural plan of
  the clip makes observable (``required_facts``): each participant seen, each object brought
  shown, the place's sign in the establishing shot, every spoken fact.

Accepted shots are built field by field as ``album._event_clip`` builds them (outfits from the
procedural plan, evidence facts, audio strategy, extras), so the observations, captions, render
and render audit read them exactly as they read procedural shots.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from mnemoforge.generators.icm import dialogue
from mnemoforge.generators.icm.album import CAMERAS, SPEECH_DURATIONS, observations_for_clip, speech_need
from mnemoforge.generators.icm.shot_record import ShotChoice, shot_record
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.episodes import Clip, DialogueLine, Shot
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Event, World

FRAMINGS = ("wide", "medium", "close")
ESTABLISHING_CAMERAS = ("static", "pan_left", "pan_right")
SHOT_FIELDS = frozenset({"framing", "camera", "visible", "props", "duration", "lines"})
MAX_CLOSE_PEOPLE = 2


@dataclass(frozen=True)
class ClipBrief:
    """One event clip as the model is shown it, and what its proposal must keep."""

    clip: Clip  # the procedural plan (kept when no proposal passes)
    event: Event
    lines: tuple[DialogueLine, ...]  # in clip order; the model names them l0, l1, ...
    outfits: dict[str, str]
    required: frozenset[tuple[str, str]]  # (fact, channel) of the procedural shot observations
    min_shots: int
    max_shots: int


def required_facts(world: World, clip: Clip) -> frozenset[tuple[str, str]]:
    """Every (fact, channel) a clip's observations express: what the question programs can read."""
    obs = observations_for_clip(world, clip)
    return frozenset((e.fact, e.channel.value) for o in obs for e in o.expresses)


def brief_for(theme: Theme, world: World, clip: Clip) -> ClipBrief:
    assert clip.event is not None
    ev = next(e for e in world.events if e.id == clip.event)
    outfits: dict[str, str] = {}
    for s in clip.shots:
        outfits |= s.outfits
    lo, hi = theme.album.shots_per_clip
    return ClipBrief(
        clip=clip,
        event=ev,
        lines=tuple(ln for s in clip.shots for ln in s.dialogue),
        outfits=outfits,
        required=required_facts(world, clip),
        min_shots=lo,
        max_shots=max(hi, len(clip.shots)),
    )


def line_seconds(world: World, line: DialogueLine) -> float:
    return dialogue.line_seconds(world, line.speaker, line.text)


def allowed_durations(theme: Theme, need: float) -> list[int]:
    """Durations the procedural planner may give a shot whose speech needs ``need`` seconds: the
    theme's that hold it (only the shortest with ``album.shot_length: shortest``), else the shortest
    standard length that does (``album.SPEECH_DURATIONS``)."""
    fitting = sorted(x for x in theme.album.shot_durations if x >= need)
    if fitting:
        return fitting[:1] if theme.album.shot_length == "shortest" else fitting
    return [([x for x in SPEECH_DURATIONS if x >= need] or [max(SPEECH_DURATIONS)])[0]]


def _line_key(k: int) -> str:
    return f"l{k}"


def place_line(brief: ClipBrief) -> str | None:
    """The line that names a sign-less place (it belongs in the establishing shot), if any."""
    pf = f"f_{brief.event.id}_place"
    return next((_line_key(k) for k, ln in enumerate(brief.lines) if pf in ln.facts), None)


def _shape_problems(brief: ClipBrief, shots: Any) -> list[str]:
    if not isinstance(shots, list) or not shots:
        return ["shots: expected a non-empty list of shots"]
    if not brief.min_shots <= len(shots) <= brief.max_shots:
        return [f"shots: {len(shots)} shots, the clip takes {brief.min_shots} to {brief.max_shots}"]
    out = []
    for i, s in enumerate(shots):
        if not isinstance(s, dict):
            out.append(f"shots: shot {i} is not an object")
        elif extra := sorted(set(s) - SHOT_FIELDS):
            out.append(f"unknown field: shot {i} has {extra[0]!r} (fields: {', '.join(sorted(SHOT_FIELDS))})")
    return out


def _shot_problems(theme: Theme, world: World, brief: ClipBrief, i: int, s: dict[str, Any]) -> list[str]:
    ev, out = brief.event, []
    framing, camera, visible = s.get("framing"), s.get("camera"), s.get("visible")
    if framing not in FRAMINGS:
        out.append(f"framing: shot {i} has {framing!r}, expected one of {', '.join(FRAMINGS)}")
    if camera not in CAMERAS:
        out.append(f"camera: shot {i} has {camera!r}, expected one of {', '.join(CAMERAS)}")
    if i == 0 and (framing != "wide" or camera not in ESTABLISHING_CAMERAS):
        out.append(
            f"establishing: shot 0 must be wide with camera {' or '.join(ESTABLISHING_CAMERAS)}, "
            f"got {framing} / {camera}"
        )
    if not isinstance(visible, list) or not visible or not all(isinstance(p, str) for p in visible):
        return [*out, f"visible: shot {i} needs a non-empty list of person ids"]
    if len(set(visible)) != len(visible) or set(visible) - set(ev.participants):
        bad = sorted(set(visible) - set(ev.participants)) or visible
        out.append(f"visible: shot {i} shows {bad}; only the participants {ev.participants}, once each")
    if framing in ("medium", "close") and len(visible) > MAX_CLOSE_PEOPLE:
        out.append(f"framing: shot {i} is {framing} with {len(visible)} people, at most {MAX_CLOSE_PEOPLE}")
    props = s.get("props", [])
    owner = {o.id: o.owner for o in world.objects}
    if not isinstance(props, list) or not all(isinstance(o, str) for o in props):
        out.append(f"props: shot {i} needs a list of object ids")
    else:
        for o in props:
            if o not in ev.objects:
                out.append(f"props: shot {i} shows {o!r}, not among the objects brought {ev.objects}")
            elif (by := ev.brought_by(o, owner[o])) not in visible:
                out.append(f"props: shot {i} shows {o} but {by}, who brought it, is not visible")
    dur = s.get("duration")
    if not isinstance(dur, int) or isinstance(dur, bool):
        out.append(f"duration: shot {i} needs a whole number of seconds")
    return out


def _line_problems(world: World, brief: ClipBrief, shots: list[dict[str, Any]]) -> list[str]:
    out, placed = [], {}
    keys = {_line_key(k): ln for k, ln in enumerate(brief.lines)}
    for i, s in enumerate(shots):
        lines = s.get("lines", [])
        if not isinstance(lines, list):
            out.append(f"lines: shot {i} needs a list of line ids")
            continue
        for key in lines:
            if not isinstance(key, str) or key not in keys:
                out.append(f"lines: shot {i} names {key!r}, not a line of this clip")
            elif key in placed:
                out.append(f"lines: {key} is placed twice (shots {placed[key]} and {i})")
            else:
                placed[key] = i
                visible = s.get("visible") if isinstance(s.get("visible"), list) else []
                if keys[key].speaker not in visible:
                    who = keys[key].speaker
                    out.append(f"lines: {key} is spoken by {who}, who is not visible in shot {i}")
    missing = [k for k in keys if k not in placed]
    if missing:
        out.append(f"lines: {', '.join(missing)} not placed; every line goes in exactly one shot")
    pl = place_line(brief)
    if pl is not None and placed.get(pl, 0) != 0:
        out.append(f"establishing: {pl} names the place and must be spoken in shot 0")
    return out


def _speech_problems(theme: Theme, world: World, brief: ClipBrief, shots: list[dict[str, Any]]) -> list[str]:
    out = []
    keys = {_line_key(k): ln for k, ln in enumerate(brief.lines)}
    for i, s in enumerate(shots):
        lines = [keys[k] for k in s.get("lines", []) if isinstance(k, str) and k in keys]
        need = speech_need(world, [(ln.speaker, ln.text, [], []) for ln in lines]) if lines else 0.0
        allowed = allowed_durations(theme, need)
        if s.get("duration") not in allowed:
            why = f"its speech needs {need:.1f} s" if lines else "no speech"
            out.append(f"duration: shot {i} is {s.get('duration')!r} s ({why}); allowed: {allowed}")
    return out


def _build(theme: Theme, world: World, brief: ClipBrief, shots: list[dict[str, Any]]) -> Clip:
    """The proposal as a Clip, each shot filled in as ``album._event_clip`` fills it."""
    ev, clip = brief.event, brief.clip
    rng = derive_rng(world.seed, "shot-plan", clip.id)
    keys = {_line_key(k): ln for k, ln in enumerate(brief.lines)}
    out: list[Shot] = []
    t = ev.start
    for s, p in enumerate(shots):
        sid = f"{clip.id}_s{s:02d}"
        visible = list(p["visible"])
        props = [o for o in ev.objects if o in p.get("props", [])]
        dialogue = [
            keys[k].model_copy(update={"id": f"{sid}_l{j}"}) for j, k in enumerate(p.get("lines", []))
        ]
        shot = shot_record(
            world,
            ev,
            ShotChoice(clip.id, s, t, visible, props, p["framing"], p["camera"], dialogue),
            brief.outfits,
            rng,
            duration=lambda p=p: p["duration"],
        )
        out.append(shot)
        t += dt.timedelta(seconds=p["duration"])
    return clip.model_copy(update={"shots": out})


def _lost(world: World, brief: ClipBrief, missing: set[tuple[str, str]]) -> list[str]:
    ev, out = brief.event, []
    for fact, channel in sorted(missing):
        if fact.startswith(f"f_{ev.id}_att_"):
            pid = fact.removeprefix(f"f_{ev.id}_att_")
            out.append(f"facts: {pid} ({world.person(pid).name}) attends and must be visible in some shot")
        elif "_brought_" in fact:
            oid = fact.rsplit("_brought_", 1)[1]
            out.append(f"facts: {oid} was brought and must be a prop in a shot showing who brought it")
        else:
            out.append(f"facts: {fact} ({channel}) is no longer observable")
    return out


def validate_proposal(
    theme: Theme, world: World, brief: ClipBrief, shots: Any
) -> tuple[Clip | None, list[str]]:
    """The proposal as the clip's ``Clip``, or ``(None, problems)`` (each ``"reason: detail"``)."""
    problems = _shape_problems(brief, shots)
    if problems:
        return None, problems
    for i, s in enumerate(shots):
        problems += _shot_problems(theme, world, brief, i, s)
    problems += _line_problems(world, brief, shots)
    if problems:
        return None, problems
    problems = _speech_problems(theme, world, brief, shots)
    if problems:
        return None, problems
    clip = _build(theme, world, brief, shots)
    missing = set(brief.required - required_facts(world, clip))
    if missing:
        return None, _lost(world, brief, missing)
    return clip, []


def reason_kind(problem: str) -> str:
    return problem.split(":", 1)[0]
