"""Validate shot plans: referential integrity of people, places, objects and facts; durations; counts."""

from __future__ import annotations

from mnemoforge.schemas.episodes import Clip, Shot
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World


class AlbumError(ValueError):
    """Shot plans that break the album's rules; ``problems`` lists each one with its clip/shot id."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} shot-plan problem(s):\n" + "\n".join(f"  - {p}" for p in problems))


def _shot_problems(world: World, shot: Shot, durations: set[int], calibration: bool) -> list[str]:
    people = {p.id for p in world.people}
    places = {p.id for p in world.places}
    objects = {o.id for o in world.objects}
    facts = {f.id for f in world.facts}
    where = f"{shot.id}"
    out = []
    if shot.place not in places:
        out.append(f"{where}.place: unknown place {shot.place!r}")
    unknown = [p for p in shot.visible if p not in people]
    if unknown:
        out.append(f"{where}.visible: unknown people {unknown}")
    if len(set(shot.visible)) != len(shot.visible):
        out.append(f"{where}.visible: a person appears twice")
    if not set(shot.focus) <= set(shot.visible):
        out.append(f"{where}.focus: {shot.focus} not all visible")
    if set(shot.outfits) != set(shot.visible):
        out.append(f"{where}.outfits: must name exactly the visible people")
    for p, outfit in shot.outfits.items():
        if p in people and outfit not in {o.id for o in world.person(p).appearance.outfits()}:
            out.append(f"{where}.outfits.{p}: {outfit!r} is not in their wardrobe")
    for o in shot.props:
        if o not in objects:
            out.append(f"{where}.props: unknown object {o!r}")
    for o, holder in shot.holders.items():
        if holder not in shot.visible:
            out.append(f"{where}.holders.{o}: holder {holder!r} is not visible")
    for line in shot.dialogue:
        if line.speaker not in shot.visible:
            out.append(f"{line.id}.speaker: {line.speaker!r} is not visible in the shot")
        if not set(line.names_said) <= people or not set(line.facts) <= facts:
            out.append(f"{line.id}: unknown person or fact")
    missing = [f for f in shot.evidence_facts if f not in facts]
    if missing:
        out.append(f"{where}.evidence_facts: unknown facts {missing}")
    lengthened = bool(shot.dialogue) and shot.duration_s in (4, 6, 8) and shot.duration_s > max(durations)
    if not calibration and shot.duration_s not in durations and not lengthened:
        out.append(f"{where}.duration_s: {shot.duration_s} not in the theme's {sorted(durations)}")
    return out


def album_problems(theme: Theme, world: World, clips: list[Clip]) -> list[str]:
    out = []
    # one clip per planned event after the calibration clip; a slot the planner could not hold is
    # left out with a shortfall line of its own (``world.py``), so the album may be shorter
    if len(clips) != 1 + len(world.events) or len(clips) > theme.album.clips:
        out.append(
            f"album: {len(clips)} clips planned for {len(world.events)} events, "
            f"theme asks for {theme.album.clips}"
        )
    if not clips or not clips[0].calibration or any(c.calibration for c in clips[1:]):
        out.append("album: clip 0, and only clip 0, must be the calibration clip")
    if [c.index for c in clips] != list(range(len(clips))):
        out.append("album: clip indices must run 0, 1, 2, …")
    for prev, clip in zip(clips[1:], clips[2:], strict=False):
        if clip.start < prev.start:
            out.append(f"{clip.id}.start: before the previous clip {prev.id}")
    events = {e.id for e in world.events}
    durations = set(theme.album.shot_durations)
    for clip in clips:
        if clip.event is not None and clip.event not in events:
            out.append(f"{clip.id}.event: unknown event {clip.event!r}")
        if not clip.shots:
            out.append(f"{clip.id}.shots: a clip needs at least one shot")
        for a, b in zip(clip.shots, clip.shots[1:], strict=False):
            if b.start < a.start:
                out.append(f"{b.id}.start: before the previous shot")
        for shot in clip.shots:
            if shot.clip_id != clip.id:
                out.append(f"{shot.id}.clip_id: {shot.clip_id!r} but it is in {clip.id}")
            out += _shot_problems(world, shot, durations, clip.calibration)
    return out


def validate_album(theme: Theme, world: World, clips: list[Clip]) -> None:
    problems = album_problems(theme, world, clips)
    if problems:
        raise AlbumError(problems)
