"""The chat lines of memeye sessions: from the theme's content pack, else composed from the
theme's own words (its scenario titles, places, cast, relations and objects).

A composed line names things of the theme and never a visual value (``check_text_clean`` and
``check_theme`` enforce it), so the picture stays the only carrier of what it shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemoforge.generators.memeye.visual_words import visual_word_problems
from mnemoforge.generators.memeye.vocab import vocab_for
from mnemoforge.generators.names import addressed
from mnemoforge.schemas.packs import MemEyePack, load_pack
from mnemoforge.schemas.theme import Theme

Pair = tuple[str, str]


@dataclass(frozen=True)
class ChatBanks:
    share: dict[str, tuple[str, ...]]  # scenario id -> lines sharing a picture of {s}
    chat: dict[str, tuple[Pair, ...]]  # scenario id -> image-free rounds
    image_replies: tuple[str, ...]


def _esc(s: str) -> str:
    return s.replace("{", "{{").replace("}", "}}")


def _composed_chat(theme: Theme, title: str, place: str | None) -> tuple[Pair, ...]:
    """Image-free rounds about a scenario, built from the theme's own nouns."""
    t = _esc(title.lower())
    out: list[Pair] = [
        (f"Keeping notes on {t} again this week.", "Good, pictures over time make changes easy to follow."),
        ("Do you remember when I began taking pictures of {s}?", "Yes, early in the log."),
    ]
    places = {p.id: p for p in theme.places}
    if place and place in places:
        out.append((f"Back at {_esc(places[place].name)} today.", "Hope it went well."))
    user = theme.memeye.user if theme.memeye else None
    user = user or theme.protagonist or theme.cast[0].id
    for r in theme.relations:
        if r.a == user and r.a_calls_b:
            out.append((f"My {_esc(r.a_calls_b)} asked about {{s}}.", "Nice that they follow along."))
    for p in theme.cast:
        if p.id != user:
            name = _esc(addressed(theme, user, p.id))
            out.append((f"{name} came by {{s}} earlier.", "Good to have company."))
    for o in theme.objects:  # only what is the user's own (or nobody's): the theme gives the rest away
        if o.owner in (None, user):
            out.append((f"I keep the {_esc(o.name)} close by these days.", "Handy to have it around."))
    return tuple(out)


def chat_banks(theme: Theme) -> ChatBanks:
    """Per scenario: the pack's lines for its kind when the pack has them, else composed ones."""
    spec = theme.memeye
    assert spec is not None
    pack = (load_pack(spec.pack).memeye if spec.pack else None) or MemEyePack()
    share: dict[str, tuple[str, ...]] = {}
    chat: dict[str, tuple[Pair, ...]] = {}
    for sc in spec.scenarios:
        v = vocab_for(sc, spec.pack, None, spec.scene_packs)
        kp = pack.kinds.get(sc.kind)
        t = _esc(sc.title.lower())
        composed = (
            "Here is {s} today.",
            f"A new look at {{s}} for my {t} notes.",
            "This is how {s} looks now.",
        )
        share[sc.id] = (
            tuple(kp.share)
            if kp and kp.share
            else tuple(x for x in composed if not visual_word_problems(v, x, "", spec.visual_words))
            or composed[:1]
        )
        if kp and kp.chat:
            chat[sc.id] = tuple(kp.chat)
        else:  # composed lines naming a drawable value of the kind are left out
            chat[sc.id] = tuple(
                (a, b)
                for a, b in _composed_chat(theme, sc.title, sc.place)
                if not visual_word_problems(v, f"{a} {b}", "", spec.visual_words)
            )
    replies = tuple(pack.image_replies) or (
        "Kept {s} in the log.",
        "Logged: {s}, as of today.",
        "Added {s} to the log.",
        "Saved this look at {s}.",
        "Noted {s} for today.",
    )
    return ChatBanks(share, chat, replies)
