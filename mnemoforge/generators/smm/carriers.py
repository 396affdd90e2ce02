"""Which source can carry which fact: its topic (``SourceSpec.carries``) and the media the source's
kind has for that kind of fact (a membership is said in a chat, a profile field goes on a card, a
date may be a calendar screenshot...). ``topic_problems`` is what ``theme check`` reports."""

from __future__ import annotations

import re

from mnemoforge.generators.smm.world import CODE
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.smm import CONVERSATIONAL, SmmSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Fact, World

PIXEL_CHOICE = 0.35


def pixel_choices(seed: int, person: str, key: str) -> bool:
    """Whether a person's choices for a key are all shown in images (chat screenshots): a
    preference item reads all of them, so its choices share one channel."""
    return derive_rng(seed, "smm", "choice_medium", person, key).random() < PIXEL_CHOICE


def fact_topics(s: SmmSpec, world: World) -> dict[str, str]:
    """fact id -> its topic (``SourceSpec.carries``): profile, preference, membership, record, or the
    attribute's own (declared, else by its type)."""
    people = {p.id for p in world.people}
    kind_of = {e.id: e.kind for e in world.entities}
    attrs = {(k.kind, a.key): a.topic_of() for k in s.entity_kinds for a in k.attributes}
    out = {}
    for f in world.facts:
        if f.kind == "chose":
            out[f.id] = "preference"
        elif f.kind == "member":
            out[f.id] = "membership"
        elif f.object == CODE:
            out[f.id] = "record"
        elif f.kind == "attribute" and f.subject in people:
            out[f.id] = "profile"
        elif f.kind == "attribute":
            out[f.id] = attrs.get((kind_of.get(f.subject, ""), f.object), "detail")
    return out


def compatible(
    s: SmmSpec, f: Fact, people: set[str], seed: int, topic: str | None = None
) -> dict[str, list[str]]:
    """source id -> media that can carry fact ``f`` there (only sources whose purpose, their
    ``carries``, takes the fact's ``topic``)."""
    out: dict[str, list[str]] = {}
    profile = f.kind == "attribute" and f.subject in people
    for src in s.sources:
        if topic is not None and src.carries and topic not in src.carries:
            continue
        k = src.kind
        if k == "profile_cards":
            media = ["profile_card"] if profile else []
        elif profile:
            media = (
                []
                if any(x.kind == "profile_cards" for x in s.sources) or k not in CONVERSATIONAL
                else ["text"]
            )
        elif f.kind == "chose" and pixel_choices(seed, f.subject, f.object):
            media = ["chat_screenshot"] if k in (*CONVERSATIONAL, "screenshots") else []
        elif f.kind == "chose" or f.kind == "member" or f.object == CODE:
            # pointers and bridges are said in chats (as in the seed's "the city is in the
            # attached table"); the values they point to may be drawn
            media = ["text"] if k in CONVERSATIONAL else []
        elif k in CONVERSATIONAL:
            media = ["text", "table", "document"] if f.kind == "attribute" else ["text"]
        elif k == "spreadsheet":
            media = ["table"]
        elif k == "documents":
            media = ["document"]
        elif k == "email":
            media = ["email"]  # a message in an inbox: sender, subject, date and body
        elif k == "images":
            media = ["photo"]  # a phone photo of a whiteboard or a sticky note
        elif k == "screenshots":
            is_date = f.kind == "attribute" and bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", f.value or ""))
            media = ["calendar"] if is_date else ["chat_screenshot"]
        else:
            media = []
        if media:
            out[src.id] = media
    return out


def topic_problems(theme: Theme) -> list[str]:
    """A topic in use that no source can show: none carries it (``carries``), or none that does
    has a medium for that kind of fact (a membership is said in a chat, a profile field goes on a
    card...). Each names the topic and where its facts come from."""
    s = theme.smm
    assert s is not None
    person = theme.cast[0].id
    samples = {  # one fact of each kind, as the World states it
        "membership": Fact(id="f_member_x", kind="member", subject=person, object="x"),
        "record": Fact(id="f_code_x", kind="attribute", subject="x", object=CODE, value="X-1"),
        "preference": Fact(id="f_chose_x_0", kind="chose", subject=person, object="x", value="x"),
        "profile": Fact(id="f_profile_x", kind="attribute", subject=person, object="x", value="x"),
    }
    people = {p.id for p in theme.cast}
    out = []
    for topic, where in sorted(s.topics().items()):
        f = samples.get(topic, Fact(id="f_attr_x_x_0", kind="attribute", subject="x", object="x", value="x"))
        media = [
            m
            for seed in (0, 1, 2, 3)  # a choice is drawn in a screenshot or said, by seed
            for m in compatible(s, f, people, seed, topic).values()
        ]
        if not media:
            out.append(
                f"smm.sources: no source can show {topic!r} facts ({where}): the sources that carry it "
                "have no medium for them; add the topic to the `carries` of a chat or a fitting source"
            )
    return out
