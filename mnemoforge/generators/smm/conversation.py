"""Persona-driven background conversation: parallel channels talking over time, without facts.

A procedural dialogue grammar driven by the theme: each conversational source holds sessions on
working days; a session opens with a greeting or small talk, raises one of the source's topics,
and moves through natural acts (clarify, disagree, elaborate, switch topic, small talk) before
closing. Speakers are the source's members (an assistant answers in an assistant chat), and the
lines use each person's role. The grammar never sees the questions or the facts: it only knows
the cast, the source's purpose and topics, and the names of the theme's entities, and it never
states an attribute value, a membership or a choice (those arrive only through injection).
Artifact sources get filler items (checklists, memos, screenshots of small talk) the same way.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from mnemoforge.dates import weekday_name
from mnemoforge.generators.smm.world import WORK_END, WORK_START, days
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.smm import CONVERSATIONAL, SourceSpec
from mnemoforge.schemas.theme import Theme

ASSISTANT = "Assistant"

OPEN = [
    "Morning all!",
    "Hi, quick check-in.",
    "Hey, got a minute?",
    "Happy {weekday}, everyone.",
    "Back from lunch, catching up here.",
    "Coffee kicked in, let's go.",
]
SMALL_TALK = [
    "Did anyone watch the match last night?",
    "The office is freezing again today.",
    "Traffic was terrible this morning.",
    "I finally tried that new bakery downstairs.",
    "Is it just me or is the wifi slow?",
    "Long week, can't wait for the weekend.",
]
RAISE = [
    "Where are we on {topic}?",
    "Can we talk about {topic} for a sec?",
    "I had a thought about {topic}.",
    "Any news on {topic}?",
    "As {role}, I'm a bit worried about {topic}.",
]
CLARIFY_Q = [
    "Sorry, do you mean {topic} or {entity}?",
    "Can you clarify what you need from me?",
    "Is that for this week or next?",
    "Wait, who owns that part?",
]
CLARIFY_A = [
    "I meant {topic}, the other one can wait.",
    "Just a quick review, nothing big.",
    "Next week, no rush.",
    "Let's say me for now, I'll shout if I need help.",
]
DISAGREE = [
    "I'm not sure I agree, that feels rushed.",
    "Hmm, I'd push back on that a little.",
    "Not convinced, we tried that before.",
]
ELABORATE = [
    "What I mean is we should test it properly first.",
    "To be fair, last time the feedback came in late.",
    "My point is we need one owner, not three.",
    "The risk is small, but I'd rather write it down.",
]
AGREE = ["Fair enough.", "Makes sense to me.", "Agreed, let's do that.", "OK, I'm on board."]
SWITCH = [
    "Changing the subject: anyone free for lunch?",
    "Unrelated, but how is {entity} going overall?",
    "Also, did someone book the small room for Thursday?",
    "Side note: the printer on our floor is back.",
]
FOLLOW_UP = [  # the lead-ins and checks evidence scaffolds use, here around no fact at all
    "Quick one about {entity}. Can we sync tomorrow?",
    "Update on {entity}: nothing new yet.",
    "Before I forget, {entity} needs a second review.",
    "Re {entity}: still waiting on feedback.",
]
FOLLOW_UP_CHECK = ["Is that final?", "Is that the latest version?", "Got it.", "Thanks for flagging."]
FOLLOW_UP_ANSWER = [
    "Not yet, still being discussed.",
    "No, I'll share it once it's settled.",
    "Noted, thanks.",
]
CLOSE = ["Thanks all.", "Talk later!", "Cheers.", "OK, back to work.", "Let's pick this up tomorrow."]
USER_ASK = [
    "Can you draft a short note about {topic}?",
    "Summarise what I should focus on today.",
    "Remind me to follow up on {topic} tomorrow.",
    "Help me word a polite reminder about {topic}.",
]
ASSISTANT_REPLY = [
    "Sure. Here's a short draft you can adapt.",
    "Done. I'd start with the open items from yesterday.",
    "I'll remind you tomorrow morning.",
    "Here's a friendly version you could send.",
]
FILLER = {
    "spreadsheet": ["Launch checklist", "Open risks", "Weekly status"],
    "documents": ["Office notice", "Expense policy reminder", "Team offsite agenda", "Weekly update"],
    "screenshots": ["Screenshot"],
    "images": ["Whiteboard", "Sticky note", "Corridor board"],
}


@dataclass
class Turn:
    """One background round: who says what, when, in which source."""

    source: str
    at: dt.datetime
    speaker: str
    text: str
    kind: str = "message"
    filler: dict = field(default_factory=dict)


def _fill(
    template: str, rng: random.Random, src: SourceSpec, entities: list[str], role: str, at: dt.datetime
) -> str:
    topic = rng.choice(src.topics or [src.purpose or "the launch"])
    return template.format(
        topic=topic,
        entity=rng.choice(entities) if entities else topic,
        role=f"the {role}",
        weekday=weekday_name(at),
    )


def _session(
    theme: Theme, src: SourceSpec, rng: random.Random, at: dt.datetime, entities: list[str]
) -> list[Turn]:
    names = {p.id: p.name for p in theme.cast}
    roles = {p.id: p.role for p in theme.cast}
    if src.kind == "assistant_chat":
        owner = src.members[0]
        lines = []
        for _ in range(rng.randint(1, 2)):
            lines.append((names[owner], _fill(rng.choice(USER_ASK), rng, src, entities, roles[owner], at)))
            lines.append((ASSISTANT, rng.choice(ASSISTANT_REPLY)))
    else:
        people = list(src.members)
        a = rng.choice(people)
        b = rng.choice([p for p in people if p != a])
        acts = [rng.choice([OPEN, SMALL_TALK]), RAISE]
        acts += rng.sample(
            [
                [CLARIFY_Q, CLARIFY_A],
                [DISAGREE, ELABORATE, AGREE],
                [SWITCH],
                [SMALL_TALK],
                [FOLLOW_UP, FOLLOW_UP_CHECK, FOLLOW_UP_ANSWER],
            ],
            2,
        )
        flat = [acts[0], acts[1], *[x for group in acts[2:] for x in group], CLOSE]
        lines, last = [], ""
        for i, pool in enumerate(flat):
            who = a if i % 2 == 0 else b
            if len(people) > 2 and rng.random() < 0.3:
                who = rng.choice([p for p in people if p != last])
            last = who
            lines.append((names[who], _fill(rng.choice(pool), rng, src, entities, roles[who], at)))
    out, t = [], at
    for speaker, text in lines:
        out.append(Turn(src.id, t, speaker, text))
        t += dt.timedelta(minutes=rng.randint(1, 6))
    return out


def background(theme: Theme, seed: int) -> list[Turn]:
    """Background rounds of every source over the timeline (seeded; no facts expressed)."""
    assert theme.smm is not None
    s = theme.smm
    entities = [e.name for e in s.entities]
    total = s.rounds_per_day * days(theme)
    weight = sum(src.activity for src in s.sources)
    out: list[Turn] = []
    for src in s.sources:
        rng = derive_rng(seed, "smm", "background", src.id)
        budget = int(total * src.activity / weight)
        n = 0
        while n < budget:
            day = theme.start + dt.timedelta(days=rng.randrange(days(theme)))
            if day.weekday() >= 5:
                continue
            minute = rng.randint(WORK_START, WORK_END - 45)
            at = dt.datetime.combine(day, dt.time(minute // 60, minute % 60))
            if src.kind in CONVERSATIONAL:
                turns = _session(theme, src, rng, at, entities)
            elif src.kind in FILLER:
                title = rng.choice(FILLER[src.kind])
                turns = [
                    Turn(
                        src.id,
                        at,
                        "",
                        title,
                        kind="filler",
                        filler={"title": title, "seed": rng.randrange(1 << 30)},
                    )
                ]
            else:
                break  # profile cards have no filler
            out += turns
            n += len(turns)
    return sorted(out, key=lambda t: (t.at, t.source))
