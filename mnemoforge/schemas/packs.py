"""Content packs: the domain text banks a family draws its background and filler from.

A pack is ``assets/packs/<name>.yaml`` (or a path next to the theme); a theme names it with
``smm.pack`` / ``memeye.pack``. Every bank is optional: a bank the pack leaves empty (or a theme
that names no pack) is composed from the theme alone (its cast, places, objects, sources and
entity kinds, see ``generators/smm/filler.py`` and ``generators/memeye/chat.py``), so no domain
word lives in Python.

Placeholders: ``{topic}`` (a topic of the source), ``{entity}`` (an entity name), ``{role}``
(the speaker's role with an article), ``{weekday}`` (the session's weekday), ``{s}`` (a memeye
scene name). ``load_pack`` raises ``PackError`` naming the file and field.
"""

from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mnemoforge import registry, yaml_io

PACKS = Path(__file__).resolve().parent.parent.parent / "assets" / "packs"
PLACEHOLDERS = {"topic", "entity", "role", "weekday", "s"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}


class SmmPack(_Strict):
    """Banks of the source-distributed family (all optional)."""

    opens: list[str] = Field(default_factory=list, description="session openers ({weekday})")
    small_talk: list[str] = Field(default_factory=list, description="off-topic lines of a chat")
    raise_topic: list[str] = Field(default_factory=list, description="a speaker raises {topic} ({role})")
    clarify_questions: list[str] = Field(default_factory=list, description="a speaker asks to clarify")
    clarify_answers: list[str] = Field(
        default_factory=list, description="the answer to a clarifying question"
    )
    disagree: list[str] = Field(default_factory=list, description="a speaker disagrees")
    elaborate: list[str] = Field(default_factory=list, description="a speaker adds detail")
    agree: list[str] = Field(default_factory=list, description="a speaker agrees")
    switch: list[str] = Field(default_factory=list, description="topic switches ({entity})")
    closes: list[str] = Field(default_factory=list, description="session closers")
    user_asks: list[str] = Field(default_factory=list, description="assistant chat: the user asks ({topic})")
    assistant_replies: list[str] = Field(default_factory=list, description="assistant chat: the reply")
    default_topic: str = Field(default="", description="topic of a source that declares none")
    filler_titles: dict[str, list[str]] = Field(
        default_factory=dict, description="source kind (spreadsheet, documents, images) -> filler titles"
    )
    filler_rows: dict[str, list[list[str]]] = Field(
        default_factory=dict, description="spreadsheet filler title -> [item, status] rows"
    )
    filler_docs: dict[str, list[str]] = Field(
        default_factory=dict, description="document filler title -> blocks ('# heading', '- bullet', text)"
    )
    photo_titles: list[str] = Field(default_factory=list, description="what a phone photo shows (a board)")
    photo_notes: list[list[str]] = Field(default_factory=list, description="lines written on a filler photo")
    chat_title: str = Field(default="", description="title of a filler chat screenshot")
    chat_lines: list[str] = Field(default_factory=list, description="first message of a filler screenshot")
    chat_replies: list[str] = Field(default_factory=list, description="replies in a filler screenshot")
    lead_ins: dict[str, list[str]] = Field(
        default_factory=dict,
        description="attachment medium (table, document, photo, calendar, chat_screenshot) -> lines "
        "posting it (evidence and filler alike)",
    )
    rumours: list[str] = Field(
        default_factory=list, description="hearsay wordings with {label}, {name} and {value}"
    )
    document_footer: str = Field(default="", description="closing line of an official document")
    calendar_owner: str = Field(default="", description="title of a calendar screenshot")

    @model_validator(mode="after")
    def _placeholders(self) -> SmmPack:
        for name in ("rumours",):
            for i, t in enumerate(getattr(self, name)):
                if not {"label", "name", "value"} <= _fields(t):
                    raise ValueError(f"{name}.{i}: needs {{label}}, {{name}} and {{value}}")
        for name, value in self:
            texts = value if isinstance(value, list) else []
            for i, t in enumerate(texts):
                if isinstance(t, str) and name != "rumours" and _fields(t) - PLACEHOLDERS:
                    raise ValueError(
                        f"{name}.{i}: unknown placeholder {sorted(_fields(t) - PLACEHOLDERS)}; "
                        f"known: {sorted(PLACEHOLDERS)}"
                    )
        return self


class MemEyeWords(_Strict):
    """How questions and captions speak about one scene kind's pictures (the drawables are the
    library's, ``backends/image/visual_catalog.py``; without this block the wording is composed
    from their names). ``gist_form`` is a present-tense question with ``{s}`` (the scene name),
    ``{w}`` (the scene with its preposition) and ``{t}`` (a time phrase such as " now");
    ``caption_gist`` a caption phrase with ``{g}`` (the gist) or ``{a}`` (the gist with an article)."""

    image_kind: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="observation kind: room_photo")
    gist_form: str = Field(description="the X1 question: 'Which tool hangs on the pegboard {w}{t}?'")
    prep: str = Field(default="at", description="preposition before a scene name: in / at / on")
    instances: str = Field(description="the four look-alike instances: 'tins on the windowsill'")
    count_noun: str = Field(description="the countables, plural: 'pebbles lined up on the step'")
    colour_noun: str = Field(description="the colour object: 'the knitted cap'")
    label_noun: str = Field(description="the small text: 'the number on the parcel sticker'")
    caption_noun: str = Field(description="a dense caption's opening: 'A workshop snapshot'")
    caption_gist: str = Field(description="a dense caption's gist phrase: 'arranged as {g}'")
    caption_instances: str = Field(description="the instances as a caption says them: 'tins'")

    @model_validator(mode="after")
    def _forms(self) -> MemEyeWords:
        if _fields(self.gist_form) - {"s", "w", "t"} or "{t}" not in self.gist_form:
            raise ValueError("gist_form: placeholders are {s}, {w} and {t} (and {t} is required)")
        if not _fields(self.caption_gist) or _fields(self.caption_gist) - {"g", "a"}:
            raise ValueError("caption_gist: needs {g} (the gist) or {a} (with an article), nothing else")
        return self


class MemEyeKindPack(_Strict):
    """The chat around one scene kind (room, board, dashboard, street, shelf), and its wording."""

    share: list[str] = Field(default_factory=list, description="the user shares a picture of {s}")
    chat: list[tuple[str, str]] = Field(
        default_factory=list, description="image-free rounds: (user line, assistant reply), {s} allowed"
    )
    vocab: MemEyeWords | None = Field(default=None, description="question and caption wording of the kind")


class MemEyePack(_Strict):
    """Banks of the visual-centric family."""

    kinds: dict[Literal["room", "board", "dashboard", "street", "shelf"], MemEyeKindPack] = Field(
        default_factory=dict, description="scene kind -> its chat lines and wording"
    )
    image_replies: list[str] = Field(default_factory=list, description="assistant saves a picture of {s}")


class Pack(_Strict):
    """One content pack."""

    name: str = Field(
        pattern=r"^[a-z][a-z0-9_]*$", description="the pack's name: its file name without .yaml"
    )
    description: str = Field(default="", description="what the pack is for")
    smm: SmmPack | None = Field(default=None, description="banks of the smm family")
    memeye: MemEyePack | None = Field(default=None, description="banks of the memeye family")


class PackError(ValueError):
    """A pack that cannot be read: names the file and the field."""


def pack_path(name: str) -> Path:
    return PACKS / f"{name}.yaml"


def parse_pack(data: Any, path: Path) -> Pack:
    try:
        return Pack.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "(top level)"
        raise PackError(f"{path}: {where}: {err['msg']}") from None


@lru_cache(maxsize=32)
def load_pack(name: str) -> Pack:
    """The pack ``assets/packs/<name>.yaml`` (cached; ``PackError`` naming file and field)."""
    path = pack_path(name)
    if not path.is_file():
        known = sorted(p.stem for p in PACKS.glob("*.yaml"))
        raise PackError(f"{path}: no such content pack {name!r}; known packs: {known}")
    try:
        data = yaml_io.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise PackError(f"{path}: not valid YAML ({e})") from None
    pack = parse_pack(data, path)
    if pack.name != name:
        raise PackError(f"{path}: name: {pack.name!r} does not match the file name {name!r}")
    return pack


def pack_texts(pack: Pack) -> list[str]:
    """Every string of a pack, dictionary keys included (for leakage tests)."""
    out: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(k)
                walk(v)
        elif isinstance(x, list | tuple):
            for v in x:
                walk(v)

    for part in (pack.smm, pack.memeye):
        if part is not None:
            walk(part.model_dump())
    return out


def pack_titles(pack: Pack) -> list[str]:
    """The titles a pack gives filler items (what a leaked item would be called)."""
    s = pack.smm
    if s is None:
        return []
    titles = [t for ts in s.filler_titles.values() for t in ts]
    return sorted(
        {*titles, *s.filler_rows, *s.filler_docs, *s.photo_titles, *([s.chat_title] if s.chat_title else [])}
    )


def packs_hash(theme: Any) -> str:
    """Hash of the bytes of the content packs a theme names (part of the build cache keys)."""
    import hashlib

    h = hashlib.sha256()
    # a family's own theme section (at most one is set: the theme's family's) may name a pack
    for section in (getattr(theme, f, None) for f in registry.names(registry.FAMILIES_GROUP)):
        name = getattr(section, "pack", None) if section is not None else None
        if name:
            path = pack_path(name)
            h.update(name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b""))
    return h.hexdigest()
