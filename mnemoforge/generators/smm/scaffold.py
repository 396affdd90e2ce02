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

from mnemoforge.english import fill, indefinite, tidy, verb_base
from mnemoforge.generators.smm.carriers import fact_topics
from mnemoforge.generators.smm.conversation import ASSISTANT, Turn
from mnemoforge.generators.smm.filler import SmmBanks, banks
from mnemoforge.generators.smm.injection import Unit, answer_words
from mnemoforge.generators.smm.mail import email_parties
from mnemoforge.generators.smm.phrases import (  # noqa: F401  (re-exported for callers)
    CLARIFY,
    CODE_LINES,
    FILLER_MEDIUM,
    INITIAL,
    LEAD_IN,
    NOTE,
    REF,
    REPLY,
    TEXT_LEAD,
    UPDATE,
)
from mnemoforge.generators.smm.world import CODE
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.smm import EntityKindSpec, SourceSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Fact, World


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
    filler: bool = False


@dataclass
class Lookup:
    theme: Theme
    world: World
    sources: dict[str, SourceSpec]
    labels: dict[tuple[str, str], str]
    nouns: dict[str, str]
    codes: dict[str, str] = field(default_factory=dict)
    bk: SmmBanks | None = None
    topics: dict[str, str] = field(default_factory=dict)  # fact id -> topic (carriers.fact_topics)

    @property
    def banks(self) -> SmmBanks:
        if self.bk is None:
            self.bk = banks(self.theme)
        return self.bk

    @classmethod
    def of(cls, theme: Theme, world: World) -> Lookup:
        s = theme.smm
        assert s is not None
        labels = {(k.kind, a.key): a.label for k in s.entity_kinds for a in k.attributes}
        labels |= {("person", f.key): f.label for f in s.profile}
        codes = {f.subject: f.value or "" for f in world.facts if f.object == CODE}
        nouns = {k.kind: k.noun for k in s.entity_kinds}
        return cls(
            theme, world, {x.id: x for x in s.sources}, labels, nouns, codes, topics=fact_topics(s, world)
        )

    def name(self, x: str) -> str:
        for p in self.world.people:
            if p.id == x:
                return p.name
        for e in self.world.entities:
            if e.id == x:
                return e.name
        return x

    def refer(self, x: str) -> str:
        """How evidence names a subject: an entity by its record code, a person by name."""
        return self.codes.get(x) or self.name(x)

    def label(self, f: Fact) -> str:
        if f.object == CODE:
            return "record"
        kind = (
            "person" if f.subject in {p.id for p in self.world.people} else self.world.entity(f.subject).kind
        )
        return self.labels[(kind, f.object)]


def fact_sentence(lk: Lookup, f: Fact, sender: str, rng: Any) -> str:
    """A message stating the fact (first person when the sender is the subject), worded through
    the English layer."""
    if f.kind == "member":
        ent = lk.world.entity(f.object)
        spec = next(k for k in lk.theme.smm.entity_kinds if k.kind == ent.kind)  # type: ignore[union-attr]
        return member_sentence(lk.name(f.subject), spec, ent.name, first_person=sender == f.subject)
    if f.kind == "chose":
        spec = next(p for p in lk.theme.smm.preferences if p.key == f.object)  # type: ignore[union-attr]
        i = int(f.id.rsplit("_", 1)[1])  # the n-th choice: scattered choices use different wordings
        pool = spec.phrases if sender == f.subject else spec.reports
        offset = derive_rng(lk.world.seed, "smm", "wording", f.subject, f.object).randrange(len(pool))
        line = pool[(i + offset) % len(pool)]
        return fill(line, {"value": f.value, "name": lk.name(f.subject)})  # "an iced cocoa"
    if f.object == CODE:
        return fill(rng.choice(CODE_LINES), {"name": lk.name(f.subject), "code": f.value})
    forms = UPDATE if f.id.endswith("_1") else lk.banks.rumours if f.id.endswith("_r") else INITIAL
    slots = {"label": lk.label(f), "name": lk.refer(f.subject), "value": lk.name(f.value or "")}
    return fill(rng.choice(forms), slots)


def member_sentence(person: str, kind: EntityKindSpec, entity: str, first_person: bool = False) -> str:
    """"Ana is on the Wharf Boarding." / "I'm signed up for the Thursday Paint Drop.": the kind's
    ``member_phrase`` (default: "is on" the entity and its noun where everyone is on one, else "is
    signed up for" it), never the noun twice ("the Wharf Boarding boarding")."""
    one, phrase = kind.membership == "one", kind.belongs()
    np = entity
    if one and not entity.lower().split()[-1:] == kind.noun.lower().split()[-1:]:
        np = f"{entity} {kind.noun}"
    if first_person:
        verb, _, rest = phrase.partition(" ")
        said = f"I'm {rest}" if verb == "is" else f"I {verb_base(phrase)}"
    else:
        said = f"{person} {phrase}"
    return tidy(f"{said} the {np}.")


def attachment(lk: Lookup, u: Unit, facts: list[Fact], ref: str, rng: Any) -> tuple[dict[str, Any], str]:
    """The render spec of a unit's image and its caption. A caption says what the image is and what
    it is about (kind, subject, field), never a value the image carries: an item that must read a
    table cell, a card field or a screenshot's text cannot be answered from the caption table."""
    f = facts[0]
    src = lk.sources[u.source]
    if u.medium == "profile_card":
        p = lk.world.person(f.subject)
        fields = {"Role": p.role} | {lk.label(x): x.value or "" for x in facts}
        cap = f"{ref}: profile card of {p.name}, with " + ", ".join(fields)
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
    elif f.object == CODE:
        ent = lk.world.entity(f.subject)
        what, value, label, head = ent.name, f.value or "", "record", lk.nouns[ent.kind].capitalize()
    else:
        ent = lk.world.entity(f.subject)
        what, value, label = lk.refer(ent.id), lk.name(f.value or ""), lk.label(f)
        head = "Record"
    status = rng.choice(["open", "confirmed", "current", "ok"])
    cap = f"{ref}: {what} - {label}"
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
                lk.banks.document_footer,
            ],
            "footer": f"{ref} - {src.title}",
        }
    elif u.medium == "email":
        sender, recipients = email_parties(lk, src, rng, lk.topics.get(f.id), u.forbidden)
        spec = {
            "kind": "email",
            "sender": sender,
            "to": ", ".join(recipients),
            "subject": f"{what}: {label}",
            "date": u.at.date().isoformat() if u.at else "",
            "body": [f"{label.capitalize()}: {value}"],
        }
        cap = f"{ref}: email from {sender}, subject {what}: {label}"
    elif u.medium == "photo":
        spec = {
            "kind": "photo",
            "title": rng.choice(lk.banks.photo_titles),
            "lines": [what, f"{label}: {value}"],
            "seed": rng.randrange(1 << 30),
        }
        cap = f"{ref}: photo of {indefinite(spec['title'])} about {what} - {label}"
    elif u.medium == "calendar":
        day = dt.date.fromisoformat(value)
        spec = {
            "kind": "calendar",
            "owner": lk.banks.calendar_owner,
            "week_start": (day - dt.timedelta(days=day.weekday())).isoformat(),
            "entries": [{"date": value, "start": "All", "end": "day", "title": what}],
        }
        cap = f"{ref}: calendar screenshot with an entry for {what}"
    elif f.kind == "chose":  # a screenshot of the person's own messages (a choice pair)
        texts = [fact_sentence(lk, x, x.subject, rng) for x in facts]
        messages = []
        for i, text in enumerate(texts):
            messages.append({"sender": what, "text": text, "time": f"12:{10 + 3 * i}", "outgoing": False})
            messages.append(
                {
                    "sender": "Me",
                    "text": rng.choice(["Noted!", "OK!", "Sure."]),
                    "time": f"12:{11 + 3 * i}",
                    "outgoing": True,
                }
            )
        spec = {"kind": "chat_screenshot", "title": what, "messages": messages}
        cap = f"{ref}: chat screenshot of messages from {what}"
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
        cap = f"{ref}: chat screenshot of a thread about {what}"
    return spec, cap


def references(units: list[Unit], fillers: list[Draft]) -> dict[str, str]:
    """Attachment references ("Table 3", "Doc. 4"), numbered 1, 2, 3… per source in time order,
    evidence, hard negatives and filler items alike. Keys: unit ids and ``filler:<seq>``."""
    items: dict[str, list[tuple[dt.datetime, str, str]]] = {}
    for u in units:
        if u.medium != "text":
            items.setdefault(u.source, []).append((u.at, u.id, u.medium))
    for d in fillers:
        items.setdefault(d.source, []).append((d.at, f"filler:{d.seq}", d.kind))
    out = {}
    for lst in items.values():
        for n, (_, key, medium) in enumerate(sorted(lst), start=1):
            out[key] = f"{REF[medium]} {n}"
    return out


def unit_block(lk: Lookup, u: Unit, refs: dict[str, str]) -> list[Draft]:
    """The unit and its local scaffold, as drafts in the unit's source."""
    rng = derive_rng(lk.world.seed, "smm", "scaffold", u.id)
    src = lk.sources[u.source]
    facts = [lk.world.fact(x) for x in u.facts]
    f = facts[0]
    names = {p.id: p.name for p in lk.world.people}
    subject_name = lk.name(f.object) if f.kind == "member" else lk.refer(f.subject)
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
        # a fact about a person that is not said in the first person (a profile field) is posted by
        # someone else: nobody names themselves in their own line (coherence: self_relation)
        about = f.subject if f.subject in names and subj is None else None
        if src.kind == "assistant_chat":
            poster = members[0] if members and members[0] != about else ASSISTANT
            others = [ASSISTANT] if poster != ASSISTANT else src.members
        else:
            members = [m for m in members or list(src.members) if m != about] or members or list(src.members)
            poster = subj if subj in members and rng.random() < 0.8 else rng.choice(members)
            others = [m for m in src.members if m != poster] or list(src.members)
        other = rng.choice(others)
        if u.medium == "text":
            if src.kind == "assistant_chat":
                lead = "Note for later." if poster != ASSISTANT else "Anything new in my inbox?"
                add("message", src.members[0] if poster == ASSISTANT else poster, lead)
                if poster == ASSISTANT:
                    others = [src.members[0]]
            else:  # the lead-in names the subject: said by someone who is not that person
                leads = [m for m in others if names.get(m) != subject_name]
                if not leads and subj in members and poster != subj:  # a DM: the subject posts it
                    poster, leads = subj, [m for m in src.members if m != subj]
                    others = leads or others
                if leads:
                    add("message", rng.choice(leads), rng.choice(TEXT_LEAD).format(entity=subject_name))
            # one message (a choice pair: both choices, in random order, so neither can be dropped alone)
            lines = [fact_sentence(lk, x, poster, rng) for x in facts]
            rng.shuffle(lines)
            add("message", poster, " ".join(lines), expresses=expresses)
        else:
            ref = refs[u.id]
            spec, cap = attachment(lk, u, facts, ref, rng)
            add("message", poster, rng.choice(LEAD_IN.get(u.medium) or lk.banks.lead_ins[u.medium]))
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
        ref = refs[u.id]
        spec, cap = attachment(lk, u, facts, ref, rng)
        who = spec["sender"] if u.medium == "email" else rng.choice(lk.world.people).name
        add("note", None, NOTE[src.kind].format(who=who))
        add(u.medium, None, f"[{ref}] {src.title}", expresses=expresses, attachment=spec, caption=cap)
    return out


def background_drafts(lk: Lookup, turns: list[Turn]) -> list[Draft]:
    people = {p.name: p.id for p in lk.world.people}
    out = []
    for t in turns:
        if t.kind == "filler":  # the same note + numbered item as an evidence unit in that source
            src = lk.sources[t.source]
            medium = FILLER_MEDIUM[src.kind]
            spec = {
                "kind": "filler",
                "as": medium,
                "source_kind": src.kind,
                "title": t.text,
                "seed": t.filler["seed"],
            }
            rng = derive_rng(t.filler["seed"], "note")
            who = rng.choice(lk.world.people).name
            if src.kind == "email":  # from a contact (or a colleague) to the inbox's owners
                who, recipients = email_parties(lk, src, rng)
                spec |= {"to": ", ".join(recipients), "date": t.at.date().isoformat()}
            if src.kind in ("screenshots", "email"):
                spec["sender"] = who
            out.append(Draft(t.source, t.at, "note", NOTE[src.kind].format(who=who)))
            out.append(
                Draft(
                    t.source,
                    t.at + dt.timedelta(minutes=rng.randint(1, 4)),
                    medium,
                    "",  # "[Table N] <source title>", numbered with the evidence (stream._assemble)
                    attachment=spec,
                    caption=t.text,
                    filler=True,
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
