"""icm's ``check_theme``: what would make an album illegible or incoherent, found before building.

* cast cues that collide at wide-shot scale (a face there is ~30 px high at 640x360): glasses and
  sunglasses both read as a dark band over the eyes; two people in headwear of nearly the same
  colour look alike; each problem names the pair;
* a frame too small for the face-size rule in close and medium shots;
* activities whose who-rules admit fewer people than ``min_people``;
* sign-less rooms of one kind that would be drawn alike.
"""

from __future__ import annotations

from mnemoforge.backends.image.figure_head import HEADWEAR, headwear_color
from mnemoforge.backends.image.figures import FACE_H
from mnemoforge.backends.image.procedural import FRAMING
from mnemoforge.backends.image.scenery import room_layout
from mnemoforge.generators.icm.speech_fit import speech_fit_problems
from mnemoforge.generators.icm.world_rules import eligible
from mnemoforge.schemas.theme import Theme

EYEWEAR = ("glasses", "sunglasses")
HEADWEAR_MIN_DISTANCE = 80.0  # RGB distance under which two headwear colours read as the same


def _dist(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5


def _hex(c: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*c)


def cue_collisions(theme: Theme) -> list[str]:
    out = []
    cast = theme.cast
    for i, p in enumerate(cast):
        for j in range(i + 1, len(cast)):
            q = cast[j]
            pa, qa = set(p.appearance.accessories), set(q.appearance.accessories)
            pe, qe = pa & set(EYEWEAR), qa & set(EYEWEAR)
            if pe and qe and pe != qe:
                out.append(
                    f"cast.{j}.appearance.accessories: {q.id}'s {'/'.join(sorted(qe))} and {p.id}'s "
                    f"{'/'.join(sorted(pe))} (cast.{i}) look the same in wide shots (a dark band over "
                    "the eyes); give one of them other accessories"
                )
            for hp in sorted(pa & set(HEADWEAR)):
                for hq in sorted(qa & set(HEADWEAR)):
                    cp, cq = headwear_color(p.appearance, hp), headwear_color(q.appearance, hq)
                    if _dist(cp, cq) < HEADWEAR_MIN_DISTANCE:
                        out.append(
                            f"cast.{j}.appearance.headwear_color: {q.id}'s {hq} and {p.id}'s {hp} (cast.{i}) "
                            f"are nearly the same colour ({_hex(cq)} vs {_hex(cp)}); "
                            "set headwear_color on one of them"
                        )
    return out


def face_size_problems(theme: Theme) -> list[str]:
    """A two-person medium shot's face height at this resolution against ``album.min_face_px``."""
    al = theme.album
    _, unit_f, _ = FRAMING["medium"]
    u = min(unit_f * al.height, al.width * 0.8 / (2 * 2.6))  # 0.8: the window a camera move keeps
    face = int(u * min(FACE_H.values()))
    if face < al.min_face_px:
        return [
            f"album.height: faces in medium shots are about {face} px high at {al.width}x{al.height}, under "
            f"min_face_px {al.min_face_px} (use 640x360 or more, or lower min_face_px)"
        ]
    return []


def who_problems(theme: Theme) -> list[str]:
    out = []
    protagonist = theme.protagonist or theme.cast[0].id
    for i, a in enumerate(theme.activities):
        pool = len(eligible(theme, a, protagonist)) + (a.who.protagonist != "excluded")
        if pool < a.min_people:
            out.append(f"activities.{i}.who: admits {pool} people, fewer than min_people {a.min_people}")
    return out


def place_problems(theme: Theme) -> list[str]:
    """Sign-less indoor places of one kind drawn with the same room layout cannot be told apart."""
    out, seen = [], {}
    for i, p in enumerate(theme.places):
        if p.sign is None and p.indoor:
            key = (p.kind, room_layout(p.name))
            if key in seen:
                other = theme.places[seen[key]].id
                out.append(
                    f"places.{i}: {p.id} is drawn like {other} (places.{seen[key]}) and neither has a sign; "
                    "give one a sign or another name"
                )
            seen.setdefault(key, i)
    return out


def unspoken_small_talk(theme: Theme) -> list[str]:
    """Small-talk wordings with ``{place}``: the album never fills it (a line naming the place beside
    people tells a text search who goes where), so such a wording is never spoken."""
    banks = [("album.dialogue.small_talk", theme.album.dialogue.small_talk)]
    for i, act in enumerate(theme.activities):
        if isinstance(act.lines, list):
            banks.append((f"activities.{i}.lines", act.lines))
        else:
            banks.append((f"activities.{i}.lines.small_talk", act.lines.small_talk))
    return [
        f"{path}.{j}: small talk is never given {{place}}, so this line is never spoken; "
        "name a place with its sign or a `place` line"
        for path, talk in banks
        for j, text in enumerate(talk)
        if "{place}" in text
    ]


def icm_theme_warnings(theme: Theme) -> list[str]:
    """What ``theme check`` warns about but a build tolerates: cast cues that collide at the
    wide-shot scale (naming the pair), sign-less rooms that would be drawn alike, and small-talk
    wordings the album never speaks."""
    return cue_collisions(theme) + place_problems(theme) + unspoken_small_talk(theme)


def check_icm_theme(theme: Theme) -> list[str]:
    """Problems as ``"field.path: message"``; empty for a theme that renders legibly."""
    if not theme.activities:  # an album's events are its activities: nothing else to check
        return ["activities: at least one activity is required for family icm"]
    out = cue_collisions(theme) + face_size_problems(theme) + who_problems(theme) + place_problems(theme)
    out += unspoken_small_talk(theme) + speech_fit_problems(theme)
    if theme.album.dialogue_model and not theme.text.backend:
        out.append("album.dialogue_model: needs text.backend (the model that rewords the lines)")
    if sum(theme.questions.counts().values()) == 0:
        out.append("questions.total: the theme asks for no questions (a release needs at least one)")
    return out
