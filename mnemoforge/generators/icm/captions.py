"""Caption-memory side outputs: one chronological JSON record per album clip.

These are what ICM's direct caption-memory baselines build from a video (caption, visual
details, speakerless speech, audio events, people, objects, places, time, event), derived
exactly from the shot plans instead of a captioning model.

The captioner sees faces and hears words but not identities, so people are *described*
(hair, accessories, outfit), never named; a name appears only inside ``speech`` when it is
spoken in the clip. The calibration clip (index 0) is the exception: each person says
their name there, so its ``people`` bind each description to the name that person says.
Everything here is a pure function of (world, clip): no randomness.
"""

from __future__ import annotations

from mnemoforge.backends.image.colors import hair_colour_name
from mnemoforge.english.words import with_article
from mnemoforge.schemas.episodes import Clip, Shot
from mnemoforge.schemas.world import Person, World

CAPTION_KEYS = (
    "clip",
    "caption",
    "visual_details",
    "speech",
    "audio_events",
    "people",
    "objects",
    "places",
    "time",
    "event",
)
NUMBERS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight"]
CAMERA_WORDS = {
    "static": "static camera",
    "pan_left": "camera pans left",
    "pan_right": "camera pans right",
    "zoom_in": "camera zooms in",
    "zoom_out": "camera zooms out",
}
COMPOSITION_WORDS = {"wide": "wide shot", "medium": "medium shot", "close": "close-up"}
FACIAL_HAIR_WORDS = {"beard": "a beard", "moustache": "a moustache", "stubble": "stubble"}
PATTERN_WORDS = {"stripes": "striped", "dots": "dotted", "check": "checked"}


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _count(n: int, noun: str) -> str:
    word = NUMBERS[n] if n < len(NUMBERS) else str(n)
    return f"{word} {noun}" if n == 1 else f"{word} {noun}s" if noun != "person" else f"{word} people"


def person_description(person: Person, outfit_id: str | None) -> str:
    """A name-free description of a person as seen: hair, facial hair, accessories, outfit."""
    a = person.appearance
    text = person.description()  # "the long-haired woman wearing earrings"
    more = [acc if acc.endswith("s") else with_article(acc) for acc in a.accessories[1:]]
    if more:
        text += " and " + _join(more)
    extras: list[str] = []
    if a.hair_style != "bald":
        extras.append(f"{hair_colour_name(a.hair_color)} hair")
    if a.facial_hair in FACIAL_HAIR_WORDS:
        extras.append(FACIAL_HAIR_WORDS[a.facial_hair])
    if extras:
        text += ", with " + _join(extras)
    if outfit_id is not None:
        text += f", in {with_article(a.outfit(outfit_id).label)}"
    return text


def _visible_people(clip: Clip) -> list[str]:
    """Person ids visible anywhere in the clip, in order of first appearance."""
    seen: list[str] = []
    for shot in clip.shots:
        seen += [p for p in shot.visible if p not in seen]
    return seen


def _outfits(clip: Clip) -> dict[str, str]:
    """Person id -> the outfit first seen on them in the clip."""
    out: dict[str, str] = {}
    for shot in clip.shots:
        for p in shot.visible:
            if p in shot.outfits:
                out.setdefault(p, shot.outfits[p])
    return out


def _ambient(world: World, shot: Shot, calibration: bool) -> list[str]:
    if calibration:
        return []
    return ["outdoor ambience" if not world.place(shot.place).indoor else "room tone"]


def _audio_events(world: World, clip: Clip) -> list[str]:
    events: list[str] = []
    for shot in clip.shots:
        found = _ambient(world, shot, clip.calibration)
        if shot.audio_strategy == "ambient_sfx":
            found += list(shot.audio_cues)
        elif shot.audio_strategy == "soft_single_line":
            found.append("one person speaking softly")
        elif shot.audio_strategy == "soft_dialogue":
            found.append("soft conversation")
        found += [c for c in shot.audio_cues if shot.audio_strategy != "ambient_sfx"]
        events += [e for e in found if e not in events]
    return events


def _visual_details(world: World, clip: Clip, outfits: dict[str, str]) -> list[str]:
    details: list[str] = []

    def add(item: str) -> None:
        if item not in details:
            details.append(item)

    for pid, oid in outfits.items():
        o = world.person(pid).appearance.outfit(oid)
        pattern = PATTERN_WORDS.get(o.pattern)
        add(f"outfit: {o.label}" + (f" ({pattern} {o.top_style})" if pattern else ""))
    for shot in clip.shots:
        for oid in shot.props:
            obj = world.object(oid)
            text = f"prop: {obj.name}" + (f' labelled "{obj.label}"' if obj.label else "")
            holder = shot.holders.get(oid)
            if holder in shot.visible and holder in outfits:
                label = world.person(holder).appearance.outfit(outfits[holder]).label
                text += f", held by the person in {with_article(label)}"
            add(text)
    for shot in clip.shots:
        sign = world.place(shot.place).sign
        if sign and shot.composition == "wide":
            add(f'sign reading "{sign}"')
    extras = max(s.extras for s in clip.shots)
    if extras:
        add(f"up to {_count(extras, 'bystander')} in the background")
    for i, shot in enumerate(clip.shots, 1):
        add(f"shot {i}: {COMPOSITION_WORDS[shot.composition]}, {CAMERA_WORDS[shot.camera]}")
    return details


def _caption(world: World, clip: Clip, people: list[str]) -> str:
    first = clip.shots[0]
    place = world.place(first.place)
    at = f"at {place.name}"
    if clip.calibration:
        return (
            f"{_count(len(people), 'person').capitalize()} appear one at a time in close-up {at} "
            f"in the {first.time_of_day}; each person faces the camera and introduces themself."
        )
    ev = world.event(clip.event) if clip.event else None
    when = "at night" if first.time_of_day == "night" else f"in the {first.time_of_day}"
    when += f" ({first.weather} weather)"
    extras = max(s.extras for s in clip.shots)
    crowd = f", with {_count(extras, 'bystander')} in the background" if extras else ""
    first_sentence = f"{_count(len(people), 'person').capitalize()} {at} {when}{crowd}."
    doing = f"They {ev.verb}" if ev else "They spent time together"
    n_lines = sum(len(s.dialogue) for s in clip.shots)
    if n_lines > 1:
        doing += " and talked with each other"
    elif n_lines == 1:
        doing += "; one of them spoke"
    return f"{first_sentence} {doing}."


def clip_caption(world: World, clip: Clip) -> dict:
    """The caption-memory record of one clip (keys in ``CAPTION_KEYS``)."""
    visible = _visible_people(clip)
    outfits = _outfits(clip)
    people = []
    for pid in visible:
        p = world.person(pid)
        desc = person_description(p, outfits.get(pid))
        if clip.calibration:
            pron = {"female": "herself", "male": "himself"}.get(p.gender, "themself")
            desc += f", who introduces {pron} as {p.name}"
        people.append(desc)
    objects: list[str] = []
    for shot in clip.shots:
        objects += [world.object(o).name for o in shot.props if world.object(o).name not in objects]
    places: list[str] = []
    for shot in clip.shots:
        if world.place(shot.place).name not in places:
            places.append(world.place(shot.place).name)
    ev = world.event(clip.event) if clip.event else None
    return {
        "clip": clip.id,
        "caption": _caption(world, clip, visible),
        "visual_details": _visual_details(world, clip, outfits),
        "speech": [line.text for shot in clip.shots for line in shot.dialogue],
        "audio_events": _audio_events(world, clip),
        "people": people,
        "objects": objects,
        "places": places,
        "time": {
            "date": clip.start.date().isoformat(),
            "day_of_week": clip.day_of_week,
            "time_of_day": clip.shots[0].time_of_day,
            "season": clip.season,
        },
        "event": ev.noun if ev else "introductions",
    }


def album_captions(world: World, clips: list[Clip]) -> list[dict]:
    """Caption records for an album, in clip (chronological) order."""
    return [clip_caption(world, c) for c in sorted(clips, key=lambda c: c.index)]
