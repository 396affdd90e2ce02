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
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mnemoforge.dates import weekday_name
from mnemoforge.english import fill
from mnemoforge.english.variety import Variety
from mnemoforge.generators.coherence_text import LineFilter
from mnemoforge.generators.declared import world_calendar
from mnemoforge.generators.smm.filler import SmmBanks, banks
from mnemoforge.generators.smm.world import WORK_END, WORK_START, days
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.smm import CONVERSATIONAL, SourceSpec
from mnemoforge.schemas.theme import Theme

log = logging.getLogger(__name__)

ASSISTANT = "Assistant"
DRY_SESSIONS = 40
"""Sessions in a row with no line left under the repeat cap after which a source's background
talk stops short of its budget (one shortfall warning line says so)."""

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
FILLER_KINDS = ("spreadsheet", "documents", "screenshots", "images", "email")


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
    template: str,
    rng: random.Random,
    src: SourceSpec,
    entities: list[str],
    role: str,
    at: dt.datetime,
    default_topic: str = "",
) -> str:
    topic = rng.choice(src.topics or [src.purpose or default_topic or src.title])
    slots = {"topic": topic, "entity": rng.choice(entities) if entities else topic, "role": f"the {role}",
             "weekday": weekday_name(at)}  # fmt: skip
    return fill(template, slots)  # agreement: "Crampon sets need a second review"


def _ok(lines_ok: LineFilter | None, who: str) -> Callable[[str], bool] | None:
    """The coherence rules of a line said by cast member ``who`` (rejections counted)."""
    return None if lines_ok is None else (lambda text: lines_ok.ok(who, text))


def _line(
    variety: Variety,
    speaker: str,
    pool: Sequence[str],
    fill_one: Callable[[str], str],
    rng: random.Random,
    ok: Callable[[str], bool] | None = None,
) -> str | None:
    """A wording from ``pool`` that keeps the coherence rules (``ok``: a broken one is counted and
    another taken) and whose line (speaker included) is still under the release's cap; None when
    no wording is left (the line is left out of this background talk)."""
    order = list(pool)
    rng.shuffle(order)
    for template in order:
        text = fill_one(template)
        if ok is not None and not ok(text):
            continue
        if variety.fits(f"{speaker}: {text}"):
            variety.count(f"{speaker}: {text}")
            return text
    return None


def _session(
    theme: Theme,
    src: SourceSpec,
    rng: random.Random,
    at: dt.datetime,
    entities: list[str],
    bk: SmmBanks,
    variety: Variety,
    lines_ok: LineFilter | None = None,
) -> list[Turn]:
    names = {p.id: p.name for p in theme.cast}
    roles = {p.id: p.role for p in theme.cast}
    lines: list[tuple[str, str | None]] = []
    if src.kind == "assistant_chat":
        owner = src.members[0]
        for _ in range(rng.randint(1, 2)):

            def ask(t: str) -> str:
                return _fill(t, rng, src, entities, roles[owner], at, bk.default_topic)

            lines.append(
                (names[owner], _line(variety, names[owner], bk.user_asks, ask, rng, _ok(lines_ok, owner)))
            )
            lines.append((ASSISTANT, _line(variety, ASSISTANT, bk.assistant_replies, str, rng)))
    else:
        people = list(src.members)
        a = rng.choice(people)
        b = rng.choice([p for p in people if p != a])
        acts = [rng.choice([bk.opens, bk.small_talk]), bk.raise_topic]
        acts += rng.sample(
            [
                [bk.clarify_questions, bk.clarify_answers],
                [bk.disagree, bk.elaborate, bk.agree],
                [bk.switch],
                [bk.small_talk],
                [FOLLOW_UP, FOLLOW_UP_CHECK, FOLLOW_UP_ANSWER],
            ],
            2,
        )
        flat = [acts[0], acts[1], *[x for group in acts[2:] for x in group], bk.closes]
        last = ""
        for i, pool in enumerate(flat):
            who = a if i % 2 == 0 else b
            if len(people) > 2 and rng.random() < 0.3:
                who = rng.choice([p for p in people if p != last])
            last = who

            def said(t: str, who: str = who) -> str:
                return _fill(t, rng, src, entities, roles[who], at, bk.default_topic)

            lines.append((names[who], _line(variety, names[who], pool, said, rng, _ok(lines_ok, who))))
    out, t = [], at
    for speaker, text in lines:
        if text is None:  # every wording of this line was said often enough in the release
            continue
        out.append(Turn(src.id, t, speaker, text))
        t += dt.timedelta(minutes=rng.randint(1, 6))
    return out


def filler_titles(bk: SmmBanks, src: SourceSpec) -> tuple[str, ...]:
    """Titles of the filler items of an artifact source (a screenshot: the filler chat's title)."""
    if src.kind == "screenshots":
        return ("Screenshot",)
    return bk.filler_titles.get(src.kind) or (src.title,)


def background(theme: Theme, seed: int, lines_ok: LineFilter | None = None) -> list[Turn]:
    """Background rounds of every source over the timeline (seeded; no facts expressed); with
    ``lines_ok``, a line breaking a coherence rule (its speaker named in it...) is worded anew or
    left out, and counted."""
    assert theme.smm is not None
    s = theme.smm
    entities = [e.name for e in s.entities]
    bk = banks(theme)
    total = s.rounds_per_day * days(theme)
    weight = sum(src.activity for src in s.sources)
    out: list[Turn] = []
    variety = Variety(theme.album.max_line_repeats)  # no background line more often than this
    cal = world_calendar(theme)
    if not any(cal.is_working_day(theme.start + dt.timedelta(days=d)) for d in range(days(theme))):
        return out  # no working day in the span: nobody posts
    for src in s.sources:
        rng = derive_rng(seed, "smm", "background", src.id)
        budget = int(total * src.activity / weight)
        n = dry = 0
        while n < budget and dry < DRY_SESSIONS:
            day = theme.start + dt.timedelta(days=rng.randrange(days(theme)))
            if not cal.is_working_day(day):  # the theme's calendar: no weekend, no holiday
                continue
            minute = rng.randint(WORK_START, WORK_END - 45)
            at = dt.datetime.combine(day, dt.time(minute // 60, minute % 60))
            if src.kind in CONVERSATIONAL:
                turns = _session(theme, src, rng, at, entities, bk, variety, lines_ok)
            elif src.kind in FILLER_KINDS:
                title = rng.choice(filler_titles(bk, src))
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
            dry = 0 if turns else dry + 1
        if dry >= DRY_SESSIONS:
            log.warning(
                "shortfall: smm background talk of source %s: %d of %d lines (every wording of its "
                "line banks is used album.max_line_repeats times; add wordings or raise the cap)",
                src.id, n, budget,
            )  # fmt: skip
    return sorted(out, key=lambda t: (t.at, t.source))
