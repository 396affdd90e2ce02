"""Referring expressions that pick one person given what the media show.

A person is described only by cues the renderer draws (``backends/image/figure_head.py``): the
hair as it shows (a hat or cap hides short, buzzed, bald or bunned hair; long hair, a bob, a
ponytail and curls still show beneath it), the hair colour where hair shows, facial hair, and
the head accessories that are drawn (glasses, sunglasses, earrings, hat, cap, headband). Scarves
and necklaces are not drawn, outfits change between clips, and the figures show no gender, so
none of these tells people apart (the noun "man"/"woman" is kept for the wording, never relied
on). :func:`describe` gives the shortest expression whose cues fit exactly one person of the
World; :func:`parse` reads such an expression back and :func:`referents` lists who fits it.
"""

from __future__ import annotations

import re
from itertools import combinations

from mnemoforge.backends.image.colors import hair_colour_name
from mnemoforge.english.words import with_article
from mnemoforge.schemas.world import Person, World

DRAWN_ACCESSORIES = ("glasses", "sunglasses", "earrings", "hat", "cap", "headband")
HEADWEAR = ("hat", "cap")
SHOWS_UNDER_HEADWEAR = ("long", "bob", "ponytail", "curly")
FACIAL_HAIR = {"beard": "a beard", "moustache": "a moustache", "stubble": "stubble"}
HAIR_WORDS = {"long": ("long", "hair", False), "short": ("short", "hair", False),
              "curly": ("curly", "hair", False), "bob": ("", "bob", True), "ponytail": ("", "ponytail", True),
              "bun": ("", "bun", True), "buzz": ("", "buzz cut", True)}  # fmt: skip
"""style -> (adjective, noun, countable): 'long black hair', 'a black ponytail'."""
CUE_ORDER = ("hair", "accessory", "colour", "facial")
Cues = frozenset[tuple[str, str]]


def rendered_cues(p: Person) -> Cues:
    """The cues a viewer can read off the drawn figure of ``p`` (kind, value)."""
    a = p.appearance
    acc = [x for x in a.accessories if x in DRAWN_ACCESSORIES]
    covered = any(x in HEADWEAR for x in acc)
    cues: set[tuple[str, str]] = {("accessory", x) for x in acc}
    if a.hair_style == "bald":
        if not covered:
            cues.add(("hair", "bald"))
    elif not covered or a.hair_style in SHOWS_UNDER_HEADWEAR:
        cues.add(("hair", a.hair_style))
        cues.add(("colour", hair_colour_name(a.hair_color)))
    if a.facial_hair in FACIAL_HAIR:
        cues.add(("facial", a.facial_hair))
    return frozenset(cues)


def referents(world: World, cues: Cues) -> list[str]:
    """Ids of the people whose drawn figure shows every cue in ``cues``."""
    return [p.id for p in world.people if cues <= rendered_cues(p)]


def _noun(p: Person) -> str:
    return {"female": "woman", "male": "man"}.get(p.gender, "person")


def _hair(style: str, colour: str | None) -> str:
    adj, noun, countable = HAIR_WORDS[style]
    text = " ".join(w for w in (adj, colour or "", noun) if w)
    return with_article(text) if countable else text


def phrase(noun: str, cues: Cues) -> str:
    """The words for a cue set: 'the woman with long black hair wearing glasses'."""
    c = dict(cues)
    accs = sorted(v for k, v in cues if k == "accessory")
    hair, colour = c.get("hair"), c.get("colour")
    withs: list[str] = []
    if hair and hair != "bald":
        withs.append(_hair(hair, colour))
    elif colour:
        withs.append(f"{colour} hair")
    if "facial" in c:
        withs.append(FACIAL_HAIR[c["facial"]])
    text = ("the bald " if hair == "bald" else "the ") + noun
    text += " with " + " and ".join(withs) if withs else ""
    if accs:
        text += " wearing " + " and ".join(a if a.endswith("s") else with_article(a) for a in accs)
    return text


def describe(world: World, pid: str) -> str | None:
    """The shortest drawn-cue expression that fits ``pid`` alone (None when no cue set does)."""
    p = world.person(pid)
    mine = sorted(rendered_cues(p), key=lambda c: (CUE_ORDER.index(c[0]), c[1]))
    for size in range(1, min(3, len(mine)) + 1):
        for combo in combinations(mine, size):
            cues = frozenset(combo)
            if dict(combo).get("colour") and "hair" not in dict(combo) and ("hair", "bald") in mine:
                continue
            if referents(world, cues) == [pid]:
                return phrase(_noun(p), cues)
    return None


def parse(text: str) -> Cues:
    """The cues an expression made by :func:`phrase` states (its inverse)."""
    cues: set[tuple[str, str]] = set()
    if text.startswith("the bald "):
        cues.add(("hair", "bald"))
    m = re.search(r" with (.+?)(?: wearing |$)", text)
    for part in m.group(1).split(" and ") if m else []:
        fh = next((k for k, v in FACIAL_HAIR.items() if v == part), None)
        if fh:
            cues.add(("facial", fh))
            continue
        words = part.split()
        if words[0] in ("a", "an"):
            words = words[1:]
        for style, (adj, noun, _) in HAIR_WORDS.items():
            n = noun.split()
            if words[-len(n) :] == n and (not adj or words[0] == adj):
                cues.add(("hair", style))
                middle = words[(1 if adj else 0) : len(words) - len(n)]
                if middle:
                    cues.add(("colour", " ".join(middle)))
                break
        else:
            if words[-1:] == ["hair"]:
                cues.add(("colour", " ".join(words[:-1])))
    m = re.search(r" wearing (.+)$", text)
    for part in m.group(1).split(" and ") if m else []:
        cues.add(("accessory", part.split()[-1]))
    return frozenset(cues)
