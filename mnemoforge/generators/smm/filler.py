"""The text banks of the smm background talk and filler items: from the theme's content pack,
else composed from the theme itself (cast, places, objects, relations, sources, entity kinds).

The composed banks are domain-free grammar around the theme's own nouns, so a theme nobody has
seen still reads as itself: a spreadsheet filler lists the theme's entities, a photo shows a
board at one of its places, small talk mentions its places and objects. A bank the pack leaves
empty falls back to the composed one, bank by bank.
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemoforge.generators.names import addressed, form
from mnemoforge.schemas.packs import SmmPack, load_pack
from mnemoforge.schemas.theme import Theme

MEDIA = ("table", "document", "photo", "calendar", "chat_screenshot")


@dataclass(frozen=True)
class SmmBanks:
    opens: tuple[str, ...]
    small_talk: tuple[str, ...]
    raise_topic: tuple[str, ...]
    clarify_questions: tuple[str, ...]
    clarify_answers: tuple[str, ...]
    disagree: tuple[str, ...]
    elaborate: tuple[str, ...]
    agree: tuple[str, ...]
    switch: tuple[str, ...]
    closes: tuple[str, ...]
    user_asks: tuple[str, ...]
    assistant_replies: tuple[str, ...]
    default_topic: str
    filler_titles: dict[str, tuple[str, ...]]
    filler_rows: dict[str, tuple[tuple[str, str], ...]]
    filler_docs: dict[str, tuple[str, ...]]
    photo_titles: tuple[str, ...]
    photo_notes: tuple[tuple[str, ...], ...]
    chat_title: str
    chat_lines: tuple[str, ...]
    chat_replies: tuple[str, ...]
    lead_ins: dict[str, tuple[str, ...]]
    rumours: tuple[str, ...]
    document_footer: str
    calendar_owner: str


def _esc(s: str) -> str:
    """A theme string used inside a template (braces are literal)."""
    return s.replace("{", "{{").replace("}", "}}")


def theme_talk(theme: Theme) -> tuple[str, ...]:
    """Small talk about the theme's own places, objects and relations (used with or without a pack)."""
    out = [f"Anyone at {_esc(p.name)} today?" for p in theme.places]
    out += [f"Has anyone seen the {_esc(o.name)}?" for o in theme.objects]
    # r.a is addressed by the group, r.b is named as r.a knows them (never a bare title)
    for r in theme.relations:
        a = _esc(form(theme.person(r.a), "colleague", among=theme.cast))
        out.append(f"{a}, say hello to {_esc(addressed(theme, r.a, r.b))} for us.")
    return tuple(out)


def _composed(theme: Theme) -> dict[str, object]:
    """Banks built only from the theme's own words (plus domain-free grammar)."""
    s = theme.smm
    assert s is not None
    places = [_esc(p.name) for p in theme.places]
    nouns = [_esc(k.noun) for k in s.entity_kinds]
    entities = list(s.entities)
    small = [*theme_talk(theme), *(f"Busy day for {n} work." for n in nouns)]
    titles: dict[str, list[str]] = {}
    rows: dict[str, list[tuple[str, str]]] = {}
    docs: dict[str, list[str]] = {}
    statuses = ("open", "in progress", "done", "to check")
    for src in s.sources:
        if src.kind == "spreadsheet":
            for k in s.entity_kinds:
                title = f"{src.title}: {k.noun} list"
                titles.setdefault("spreadsheet", []).append(title)
                names = [e.name for e in entities if e.kind == k.kind]
                rows[title] = [(n, statuses[i % len(statuses)]) for i, n in enumerate(names)]
        elif src.kind == "documents":
            for k in s.entity_kinds:
                title = f"{src.title}: {k.noun} overview"
                titles.setdefault("documents", []).append(title)
                names = [e.name for e in entities if e.kind == k.kind]
                docs[title] = [f"# {k.noun.capitalize()}s", *(f"- {n}" for n in names)]
                if src.purpose:
                    docs[title].append(src.purpose[:1].upper() + src.purpose[1:] + ".")
        elif src.kind == "email":
            for k in s.entity_kinds:
                title = f"{k.noun.capitalize()} update"
                titles.setdefault("email", []).append(title)
                names = [e.name for e in entities if e.kind == k.kind]
                docs[title] = [f"{k.noun.capitalize()}s this week:", *(f"- {n}" for n in names)]
        elif src.kind == "images":
            titles.setdefault("images", []).extend(f"{p.name} board" for p in theme.places)
    topics = [t for src in s.sources for t in src.topics]
    notes = [(p.name, *topics[2 * i : 2 * i + 2]) for i, p in enumerate(theme.places)]
    chats = [src for src in s.sources if src.kind in ("group_chat", "dm")]
    return {
        "opens": ("Hello everyone.", "Hi, {weekday} check-in here.", *(f"Hi from {p}." for p in places)),
        "small_talk": tuple(small) or ("Busy day today.",),
        "raise_topic": (
            "What is the latest on {topic}?",
            "Let's go over {topic}.",
            "As {role}, I have a question on {topic}.",
        ),
        "clarify_questions": ("Which one, {topic} or {entity}?", "Who is on that part?"),
        "clarify_answers": ("Start with {topic}; {entity} can wait.", "I'll take it for now."),
        "disagree": ("I see it differently.", "Not sure that works."),
        "elaborate": ("Let's note it before we start.", "We should agree on one owner."),
        "agree": ("OK.", "Sounds right.", "Agreed."),
        "switch": (
            "Other thing: how is {entity} going?",
            *(f"Other thing: who was at {p} last?" for p in places),
        ),
        "closes": ("Thanks.", "Bye for now.", "More later."),
        "user_asks": ("Draft a note on {topic}, please.", "Remind me about {topic} later."),
        "assistant_replies": (
            "Here is a draft.",
            "Reminder set.",
            "Done.",
            "Noted; it comes up again tomorrow.",
            "Here it is, cut down.",
            "Stored; I will look again later.",
            "Here is a draft with the open points at the end.",
            "OK, I've put it on your list.",
            "A first pass is below.",
            "A reminder is set for the morning.",
        ),
        "default_topic": (s.sources[0].purpose or s.sources[0].title),
        "filler_titles": titles,
        "filler_rows": rows,
        "filler_docs": docs,
        "photo_titles": tuple(f"{p.name} board" for p in theme.places),
        "photo_notes": tuple(notes),
        "chat_title": chats[0].title if chats else s.sources[0].title,
        "chat_lines": tuple(f"Any news on {t}?" for t in topics[:4]) or ("Any news?",),
        "chat_replies": ("Not yet.", "Later today.", "Yes, all set."),
        "lead_ins": {
            "table": ("Table attached.", "Here is the table."),
            "document": ("Document attached.", "Here is the document."),
            "photo": ("Photo attached.", "Took a photo of it."),
            "calendar": ("Calendar view attached.",),
            "chat_screenshot": ("Screenshot attached.",),
        },
        "rumours": (
            "Not confirmed: word is the {label} of {name} could be {value}.",
            "Unofficial: {name} {label} may be {value}.",
        ),
        "document_footer": "Reference copy.",
        "calendar_owner": "Calendar",
    }


def _tup(x: object) -> object:
    if isinstance(x, list):
        return tuple(_tup(v) for v in x)
    if isinstance(x, dict):
        return {k: _tup(v) for k, v in x.items()}
    return x


def banks(theme: Theme) -> SmmBanks:
    """The banks of a theme: each non-empty bank of its pack, else the composed one."""
    s = theme.smm
    assert s is not None
    pack = (load_pack(s.pack).smm if s.pack else None) or SmmPack()
    out = _composed(theme)
    for name in out:
        value = getattr(pack, name)
        if value:
            out[name] = _tup(value)
    if pack.small_talk:  # the theme's own places, objects and relations join the pack's talk
        out["small_talk"] = (*out["small_talk"], *theme_talk(theme))  # type: ignore[misc]
    lead = dict(out["lead_ins"])  # type: ignore[call-overload]
    composed_lead = _composed(theme)["lead_ins"]
    for m in MEDIA:
        lead.setdefault(m, composed_lead[m])  # type: ignore[index]
    out["lead_ins"] = lead
    return SmmBanks(**out)  # type: ignore[arg-type]
