"""Local scaffolds and the merged stream: each evidence unit arrives inside a short thread.

In a chat a unit is a lead-in, the carrier (a message stating the fact, or an attachment with a
reference such as "Table 3", "Doc. 2", "Fig. 5") and a reply or a clarify/answer pair; in an
artifact source (sheet, documents, screenshots, directory) it is an edit note followed by the
item. Facts reach the agent in their real channel: a message's text (``text``) or an image's
pixels (``pixel``, never repeated in the carrier's text). ``assemble`` merges every source in
time order into one stream whose index is each observation's ``order``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from mnemoforge.generators.smm.conversation import ASSISTANT, Turn
from mnemoforge.generators.smm.injection import Unit, answer_words
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.smm import SourceSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Fact, World

REF = {
    "table": "Table",
    "document": "Doc.",
    "chat_screenshot": "Fig.",
    "calendar": "Fig.",
    "profile_card": "Card",
}
LEAD_IN = {
    "table": [
        "Sharing the table from the planning doc.",
        "Pasting the tracker tab here.",
        "Here's the sheet view.",
    ],
    "document": ["Here's the memo from ops.", "Attaching the official notice.", "The write-up is attached."],
    "chat_screenshot": ["Screenshot from the other thread.", "Look what came in on my phone."],
    "calendar": ["Screenshot of the shared calendar.", "This is what the calendar shows."],
    "profile_card": ["Directory card."],
}
TEXT_LEAD = ["Quick one about {entity}.", "Update on {entity}:", "Before I forget, {entity}.", "Re {entity}:"]
REPLY = [
    "Noted, thanks.",
    "Got it.",
    "Thanks for flagging.",
    "Perfect, thanks!",
    "OK, adding it to my notes.",
]
CLARIFY = [("Is that final?", "Yes, that's confirmed."), ("Is that the latest version?", "Yes, the latest.")]
NOTE = {
    "spreadsheet": "{who} added a tab to the sheet.",
    "documents": "{who} uploaded a new document.",
    "screenshots": "{who} dropped a screenshot in the folder.",
    "profile_cards": "The directory was refreshed.",
}
INITIAL = [
    "The {label} for {name} is {value}.",
    "Confirmed: {name} {label} is {value}.",
    "FYI the {label} of {name} is {value}.",
]
UPDATE = [
    "Change of plan: the {label} of {name} is now {value}.",
    "Heads-up, the {label} for {name} changed, it's now {value}.",
    "Correction on {name}: the {label} is now {value}.",
]


@dataclass
class Draft:
    """An observation before the merge gives it an id and an order."""

    source: str
    at: dt.datetime
    kind: str
    content: str
    people: list[str] = field(default_factory=list)
    expresses: list[Expression] = field(default_factory=list)
    attachment: dict[str, Any] | None = None
    caption: str = ""
    block: str | None = None
    seq: int = 0


@dataclass
class Lookup:
    theme: Theme
    world: World
    sources: dict[str, SourceSpec]
    labels: dict[tuple[str, str], str]
    nouns: dict[str, str]

    @classmethod
    def of(cls, theme: Theme, world: World) -> Lookup:
        s = theme.smm
        assert s is not None
        labels = {(k.kind, a.key): a.label for k in s.entity_kinds for a in k.attributes}
        labels |= {("person", f.key): f.label for f in s.profile}
        return cls(
            theme, world, {x.id: x for x in s.sources}, labels, {k.kind: k.noun for k in s.entity_kinds}
        )

    def name(self, x: str) -> str:
        for p in self.world.people:
            if p.id == x:
                return p.name
        for e in self.world.entities:
            if e.id == x:
                return e.name
        return x

    def label(self, f: Fact) -> str:
        kind = (
            "person" if f.subject in {p.id for p in self.world.people} else self.world.entity(f.subject).kind
        )
        return self.labels[(kind, f.object)]


def fact_sentence(lk: Lookup, f: Fact, sender: str, rng: Any) -> str:
    """A message stating the fact (first person when the sender is the subject)."""
    if f.kind == "member":
        ent = lk.world.entity(f.object)
        noun = lk.nouns[ent.kind]
        one = next(k for k in lk.theme.smm.entity_kinds if k.kind == ent.kind).membership == "one"  # type: ignore[union-attr]
        verb = f"on the {ent.name} {noun}" if one else f"attending the {ent.name}"
        return f"I'm {verb}." if sender == f.subject else f"{lk.name(f.subject)} is {verb}."
    if f.kind == "chose":
        spec = next(p for p in lk.theme.smm.preferences if p.key == f.object)  # type: ignore[union-attr]
        i = int(f.id.rsplit("_", 1)[1])  # the n-th choice: scattered choices use different wordings
        pool = spec.phrases if sender == f.subject else spec.reports
        offset = derive_rng(lk.world.seed, "smm", "wording", f.subject, f.object).randrange(len(pool))
        line = pool[(i + offset) % len(pool)]
        line = line.format(value=f.value, name=lk.name(f.subject))
        return line[0].upper() + line[1:]
    forms = UPDATE if f.id.endswith("_1") else INITIAL
    return rng.choice(forms).format(label=lk.label(f), name=lk.name(f.subject), value=lk.name(f.value or ""))


def attachment(lk: Lookup, u: Unit, facts: list[Fact], ref: str, rng: Any) -> tuple[dict[str, Any], str]:
    """The render spec of a unit's image and its dense caption (which may carry the values)."""
    f = facts[0]
    src = lk.sources[u.source]
    if u.medium == "profile_card":
        p = lk.world.person(f.subject)
        fields = {"Role": p.role} | {lk.label(x): x.value or "" for x in facts}
        cap = f"{ref}: profile card of {p.name} ({p.role}); " + "; ".join(
            f"{k}: {v}" for k, v in fields.items()
        )
        return {
            "kind": "profile_card",
            "person": p.id,
            "name": p.name,
            "subtitle": p.role,
            "fields": fields,
        }, cap
    if f.kind == "member":
        ent = lk.world.entity(f.object)
        what, value, label = lk.name(f.subject), ent.name, lk.nouns[ent.kind]
        head = "Person"
    elif f.kind == "chose":
        what, value, label, head = lk.name(f.subject), f.value or "", f.object, "Person"
    else:
        ent = lk.world.entity(f.subject)
        what, value, label = ent.name, lk.name(f.value or ""), lk.label(f)
        head = lk.nouns[ent.kind].capitalize()
    status = "updated" if f.id.endswith("_1") else "confirmed"
    cap = f"{ref}: {what} - {label}: {value}"
    if u.medium == "table":
        spec = {
            "kind": "table",
            "title": f"{src.title} - {ref}",
            "columns": [head, label.capitalize(), "Status"],
            "rows": [[what, value, status]],
        }
    elif u.medium == "document":
        spec = {
            "kind": "document",
            "title": f"{what}: {label}",
            "blocks": [
                f"# {what}",
                f"{label.capitalize()}: {value}",
                "This notice is the reference for planning.",
            ],
            "footer": f"{ref} - {src.title}",
        }
    elif u.medium == "calendar":
        day = dt.date.fromisoformat(value)
        spec = {
            "kind": "calendar",
            "owner": "Team calendar",
            "week_start": (day - dt.timedelta(days=day.weekday())).isoformat(),
            "entries": [{"date": value, "start": "All", "end": "day", "title": what}],
        }
        cap = f"{ref}: calendar screenshot, {what} on {value}"
    elif f.kind == "chose":  # a screenshot of the person's own message
        text = fact_sentence(lk, f, f.subject, rng)
        spec = {
            "kind": "chat_screenshot",
            "title": what,
            "messages": [
                {"sender": what, "text": text, "time": "12:10", "outgoing": False},
                {
                    "sender": "Me",
                    "text": rng.choice(["Noted!", "Ha, of course.", "OK!"]),
                    "time": "12:11",
                    "outgoing": True,
                },
            ],
        }
        cap = f"{ref}: chat screenshot, {what} writes: {text}"
    else:
        sender = rng.choice([p.name for p in lk.world.people])
        text = fact_sentence(lk, f, "", rng)
        spec = {
            "kind": "chat_screenshot",
            "title": f"{what} thread",
            "messages": [
                {
                    "sender": sender,
                    "text": rng.choice(TEXT_LEAD).format(entity=what),
                    "time": "10:02",
                    "outgoing": False,
                },
                {"sender": "Me", "text": text, "time": "10:04", "outgoing": True},
            ],
        }
        cap = f"{ref}: chat screenshot: {text}"
    return spec, cap


def _reference(u: Unit, counters: dict[str, int]) -> str:
    """The next attachment number in the unit's source, skipping numbers that occur in an answer
    the unit supports (a "Table 10" beside a date "2026-11-10" would be a lexical shortcut)."""
    n = counters.get(u.source, 0) + 1
    while str(n) in u.numbers:
        n += 1
    counters[u.source] = n
    return f"{REF[u.medium]} {n}"


def unit_block(lk: Lookup, u: Unit, counters: dict[str, int]) -> list[Draft]:
    """The unit and its local scaffold, as drafts in the unit's source."""
    rng = derive_rng(lk.world.seed, "smm", "scaffold", u.id)
    src = lk.sources[u.source]
    facts = [lk.world.fact(x) for x in u.facts]
    f = facts[0]
    names = {p.id: p.name for p in lk.world.people}
    subject_name = lk.name(f.object if f.kind == "member" else f.subject)
    t = u.at
    out: list[Draft] = []

    def add(kind: str, speaker: str | None, text: str, **kw: Any) -> None:
        nonlocal t
        people = [speaker] if speaker and speaker in names else []
        prefix = f"{names.get(speaker, speaker)}: " if speaker else ""
        out.append(Draft(u.source, t, kind, prefix + text, people, block=u.id, **kw))
        t += dt.timedelta(minutes=rng.randint(1, 4))

    channel = Channel.text if u.medium == "text" else Channel.pixel
    expresses = [Expression(fact=x.id, channel=channel) for x in facts]
    if src.kind in ("group_chat", "dm", "assistant_chat"):
        # nobody whose name is (part of) an answer this unit supports posts it: a speaker label
        # would hand the answer to a text-only reader
        members = [m for m in src.members if not answer_words(names[m]) & u.forbidden]
        subj = f.subject if f.kind in ("member", "chose") else None
        if src.kind == "assistant_chat":
            poster = members[0] if members else ASSISTANT
            others = [ASSISTANT] if members else src.members
        else:
            members = members or list(src.members)
            poster = subj if subj in members and rng.random() < 0.8 else rng.choice(members)
            others = [m for m in src.members if m != poster] or list(src.members)
        other = rng.choice(others)
        if u.medium == "text":
            if src.kind == "assistant_chat":
                lead = "Note for later." if poster != ASSISTANT else "Anything new in my inbox?"
                add("message", src.members[0] if poster == ASSISTANT else poster, lead)
                if poster == ASSISTANT:
                    others = [src.members[0]]
            else:
                add("message", rng.choice(others), rng.choice(TEXT_LEAD).format(entity=subject_name))
            add("message", poster, fact_sentence(lk, f, poster, rng), expresses=expresses)
        else:
            ref = _reference(u, counters)
            spec, cap = attachment(lk, u, facts, ref, rng)
            add("message", poster, rng.choice(LEAD_IN[u.medium]))
            carrier = poster if not (answer_words(names.get(poster, "")) & u.forbidden) else None
            add(u.medium, carrier, f"[{ref}]", expresses=expresses, attachment=spec, caption=cap)
        if src.kind == "assistant_chat":
            if poster == ASSISTANT:
                add("message", src.members[0], "Thanks, good to know.")
            else:
                add("message", ASSISTANT, "Saved to your notes.")
        elif rng.random() < 0.35:
            q, a = rng.choice(CLARIFY)
            add("message", other, q)
            add("message", poster, a)
        else:
            add("message", other, rng.choice(REPLY))
    else:
        ref = _reference(u, counters)
        spec, cap = attachment(lk, u, facts, ref, rng)
        who = rng.choice(lk.world.people).name
        add("note", None, NOTE[src.kind].format(who=who))
        add(u.medium, None, f"[{ref}] {src.title}", expresses=expresses, attachment=spec, caption=cap)
    return out


def background_drafts(lk: Lookup, turns: list[Turn]) -> list[Draft]:
    people = {p.name: p.id for p in lk.world.people}
    out = []
    for t in turns:
        if t.kind == "filler":
            src = lk.sources[t.source]
            spec = {"kind": "filler", "source_kind": src.kind, "title": t.text, "seed": t.filler["seed"]}
            out.append(
                Draft(
                    t.source,
                    t.at,
                    f"filler_{src.kind}",
                    f"[{t.text}] {src.title}",
                    attachment=spec,
                    caption=f"{t.text} ({src.title}), no project details",
                )
            )
        else:
            pid = people.get(t.speaker)
            out.append(Draft(t.source, t.at, "message", f"{t.speaker}: {t.text}", [pid] if pid else []))
    return out


def merge(drafts: list[Draft]) -> list[Draft]:
    """One stream in time order (ties: source, then position within the source)."""
    return sorted(drafts, key=lambda d: (d.at, d.source, d.seq))


def observations(drafts: list[Draft]) -> list[Observation]:
    return [
        Observation(
            id=f"obs_{i:05d}",
            source=d.source,
            episode=d.source,
            kind=d.kind,
            timestamp=d.at,
            order=i,
            content=d.content,
            people=d.people,
            expresses=d.expresses,
            media=[f"media/smm/obs_{i:05d}.png"] if d.attachment else [],
        )
        for i, d in enumerate(drafts)
    ]
