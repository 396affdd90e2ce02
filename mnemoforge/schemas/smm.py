"""Theme section of the source-distributed family (SMMBench): sources, authority, tools, tasks.

A theme with ``family: smm`` declares the **sources** the agent observes (group chats with
members, one-to-one DMs, a user–assistant chat, a profile-card directory, a spreadsheet, a
screenshots folder, documents, a photo album), each with its own purpose and an **authority** level; the
**entity kinds** of its world (projects, trips, meetings…) with their attributes and value pools;
**profile** fields and **preference** keys of the cast; the **tools** a function-calling item may
call; and how many candidates of each **task** to plan. ``check`` validates references against
the rest of the theme and raises ``ValueError('smm.<path>: …')`` naming the field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_serializer, model_validator

from mnemoforge.schemas.limits import (
    MAX_CAST,
    MAX_DAYS_GAP,
    MAX_ITEMS,
    MAX_LINES,
    MAX_NAME,
    MAX_QUESTIONS,
    MAX_ROUNDS_PER_DAY,
    MAX_SETTINGS,
    Line,
    Name,
)
from mnemoforge.schemas.smm_checks import check_local, check_section
from mnemoforge.schemas.smm_terms import CONVERSATIONAL, WEEKDAYS
from mnemoforge.schemas.smm_topics import BUILTIN_TOPICS, topics_in_use
from mnemoforge.schemas.strict import Strict

if TYPE_CHECKING:
    from mnemoforge.schemas.theme import Theme

__all__ = ["BUILTIN_TOPICS", "CONVERSATIONAL", "WEEKDAYS"]  # re-exported (smm_terms, smm_topics)

ID = r"^[a-z][a-z0-9_]*$"
SourceKind = Literal[
    "group_chat",
    "dm",
    "assistant_chat",
    "profile_cards",
    "spreadsheet",
    "screenshots",
    "documents",
    "images",
    "email",
]
ValueType = Literal["string", "date", "time", "integer", "person"]
ArgType = Literal["string", "integer", "number", "boolean", "date", "time", "array"]
TASKS = ("single_hop", "multi_hop", "conflict_resolution", "preference", "function_calling")


_Strict = Strict  # unknown keys, inf/NaN and unbounded text are errors (schemas/strict.py)


class SourceSpec(_Strict):
    """One source object: its own context boundary, purpose, members and authority."""

    id: str = Field(pattern=ID, max_length=MAX_NAME, description="source id")
    kind: SourceKind = Field(
        description="what the source is (images: phone photos; email: messages with sender, subject, date)"
    )
    title: str = Field(max_length=MAX_NAME, description="its name as the agent sees it, e.g. 'Launch crew'")
    purpose: str = Field(default="", description="what it is for; background talk follows it")
    carries: list[Name] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="topics of the facts it may carry (schedule, assignment, conditions, ...); empty: any",
    )
    members: list[Name] = Field(
        default_factory=list,
        max_length=MAX_CAST,
        description="person ids (chats; a dm has exactly 2; an email inbox: its owners, the recipients)",
    )
    authority: int = Field(default=1, ge=0, le=5, description="higher beats lower in a conflict")
    topics: list[Name] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="small-talk and work topics of the chat"
    )
    activity: float = Field(default=1.0, gt=0, le=10, description="relative amount of background talk")


class AttributeSpec(_Strict):
    """An attribute of an entity kind; ``values`` is the pool drawn from (dates come from the timeline)."""

    key: str = Field(pattern=ID, max_length=MAX_NAME, description="attribute key")
    label: str = Field(max_length=MAX_NAME, description="how questions name it, e.g. 'deadline'")
    type: ValueType = Field(default="string", description="value type (date: drawn inside the span)")
    values: list[Name] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="the pool values are drawn from (>= 4 for string, time, integer)",
    )
    mutable: bool = Field(default=False, description="may be updated later (conflict items)")
    roles: list[Name] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="type person: only cast members with one of these roles",
    )
    topic: str | None = Field(
        default=None,
        pattern=ID,
        description="what the fact is about, for routing (default by type: schedule, assignment, quantity, "
        "detail); only sources that carry it show it",
    )

    def topic_of(self) -> str:
        """The declared topic, else the type's (``BUILTIN_TOPICS``)."""
        default = {"date": "schedule", "time": "schedule", "person": "assignment", "integer": "quantity"}
        return self.topic or default.get(self.type, "detail")


class EntityKindSpec(_Strict):
    kind: str = Field(pattern=ID, max_length=MAX_NAME, description="entity kind id, e.g. project")
    noun: str = Field(max_length=MAX_NAME, description="how questions call it: 'project', 'field survey'")
    membership: Literal["one", "many"] = Field(
        default="many", description="one: every person belongs to exactly one entity of this kind"
    )
    member_phrase: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_NAME,
        description="how a message says someone belongs to one, before 'the <name>': 'is on', "
        "'is attending', 'has signed out' (default: 'is on' with membership one, else 'is signed up for')",
    )
    members: tuple[int, int] = Field(default=(2, 4), description="[lo, hi] people per entity")
    attributes: list[AttributeSpec] = Field(
        min_length=1, max_length=MAX_SETTINGS, description="what its entities have"
    )

    def attribute(self, key: str) -> AttributeSpec:
        return next(a for a in self.attributes if a.key == key)

    def belongs(self) -> str:
        """How a member is said to belong, before the entity: ``member_phrase`` or its default."""
        return self.member_phrase or ("is on" if self.membership == "one" else "is signed up for")


class EntitySpec(_Strict):
    id: str = Field(pattern=ID, max_length=MAX_NAME, description="entity id")
    kind: str = Field(max_length=MAX_NAME, description="its entity kind")
    name: str = Field(
        max_length=MAX_NAME,
        description="its name; a weekday in it ('Thursday Paint Drop') sets its dates' weekday",
    )
    values: dict[Name, Name] = Field(
        default_factory=dict,
        max_length=MAX_SETTINGS,
        description="fixed attribute values (the first value of a mutable one): key -> value; a person "
        "attribute takes a cast id, a date an ISO date inside the theme's span",
    )


class ContactSpec(_Strict):
    """Someone outside the cast who writes to it (a supplier, an owner, an agency): an email
    sender about the topics they deal with. Contacts have no face and no voice."""

    id: str = Field(pattern=ID, max_length=MAX_NAME, description="contact id")
    name: str = Field(min_length=1, max_length=MAX_NAME, description="their name as an email shows it")
    role: str = Field(
        min_length=1, max_length=MAX_NAME, description="what they are to the cast: 'supplier', 'owner'"
    )
    topics: list[Name] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="topics they write about; empty: any"
    )


class ConflictRouteSpec(_Strict):
    """Where one conflict's values appear: the stale value, its update, and optionally a rumour."""

    entity: str = Field(description="entity id")
    key: str = Field(description="a mutable attribute of its kind")
    stale: str = Field(description="source id that carries the first (stale) value")
    update: str = Field(description="source id that carries the update (authority >= the stale one's)")
    rumour: str | None = Field(default=None, description="a lowest-authority chat that carries hearsay")


class ProfileFieldSpec(_Strict):
    """A field of everyone's profile card (office city, phone extension…)."""

    key: str = Field(pattern=ID, max_length=MAX_NAME, description="profile field key")
    label: str = Field(max_length=MAX_NAME, description="how the card and questions name it")
    values: list[Name] = Field(
        min_length=1, max_length=MAX_ITEMS, description="the pool values are drawn from"
    )


class PreferenceSpec(_Strict):
    key: str = Field(pattern=ID, max_length=MAX_NAME, description="preference key")
    noun: str = Field(max_length=MAX_NAME, description="'seat', 'locker number'")
    values: list[Name] = Field(
        min_length=4, max_length=MAX_ITEMS, description="the choices (>= 4: the options)"
    )
    phrases: list[Line] = Field(
        min_length=1,
        max_length=MAX_LINES,
        default_factory=lambda: ["I'll go with {value} this time.", "{value} for me, please."],
        description="first-person lines with {value}; no habit markers ('again', 'as always'): a "
        "single line must not reveal the preference",
    )
    reports: list[Line] = Field(
        min_length=1,
        max_length=MAX_LINES,
        default_factory=lambda: ["{name} went for the {value}.", "{name} picked the {value}."],
        description="third-person lines with {name} and {value}",
    )

    @model_validator(mode="after")
    def _templates(self) -> PreferenceSpec:
        """Every line fills as the build fills it: slots {name} and {value}, forms of the English
        layer ({value:a}); a malformed line ('{' without '}') failed only in the build."""
        import string

        from mnemoforge.english.fill import FORMS

        for bank in ("phrases", "reports"):
            for i, line in enumerate(getattr(self, bank)):
                try:
                    parts = list(string.Formatter().parse(line))
                except ValueError as e:
                    raise ValueError(f"{bank}.{i}: {e} (a slot is written {{value}} or {{name}})") from None
                for _, slot, spec, _ in parts:
                    if slot is not None and (slot not in ("name", "value") or (spec or "") not in FORMS):
                        raise ValueError(
                            f"{bank}.{i}: unknown slot {{{slot}{':' + spec if spec else ''}}}; "
                            f"slots are {{name}} and {{value}}"
                        )
        return self


class ToolArgSpec(_Strict):
    name: str = Field(pattern=ID, max_length=MAX_NAME, description="argument name")
    type: ArgType = Field(description="argument type")
    required: bool = Field(default=True, description="false: optional, with a default")
    default: str | int | float | bool | None = Field(
        default=None, description="value of an optional argument left out"
    )
    description: str = Field(default="", description="shown in the tool schema")


class ToolSpec(_Strict):
    name: str = Field(pattern=ID, max_length=MAX_NAME, description="tool (function) name")
    description: str = Field(min_length=1, description="what the tool does, as its schema says")
    arguments: list[ToolArgSpec] = Field(min_length=1, max_length=MAX_SETTINGS, description="its arguments")
    reflexive: bool = Field(
        default=False, description="a call may name one person in two arguments (a note to oneself)"
    )

    @model_serializer(mode="wrap")
    def _drop_default(self, handler: Any) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if not self.reflexive:  # the schema an agent sees stays as it was
            out.pop("reflexive", None)
        return out


class BindingSpec(_Strict):
    """How a function-calling item fills a tool's arguments from the World.

    Each binding value names where the argument comes from: ``person`` (the person's name),
    ``profile.<key>``, ``preference.<key>`` (the person's observed preference: an optional argument
    is then filled, not left at its default), ``<kind>.<key>`` (the attribute of the person's entity
    of that kind, its current value), ``<kind>.name``, or ``<kind>.members`` (sorted member names).
    """

    tool: str = Field(max_length=MAX_NAME, description="tool name")
    subject: str = Field(max_length=MAX_NAME, description="entity kind the call is about")
    arguments: dict[Name, Name] = Field(
        max_length=MAX_SETTINGS,
        description="argument -> where its value comes from: person, profile.<key>, preference.<key>, "
        "<kind>.<key>, <kind>.name or <kind>.members",
    )


class TaskMix(_Strict):
    """Items planned per task; a World that supports fewer distinct items is planned short, with a
    warning."""

    single_hop: int = Field(default=16, ge=0, le=MAX_QUESTIONS, description="one attribute of a named entity")
    multi_hop: int = Field(
        default=16,
        ge=0,
        le=MAX_QUESTIONS,
        description="person -> their entity -> an attribute (or lead -> profile)",
    )
    conflict_resolution: int = Field(
        default=14, ge=0, le=MAX_QUESTIONS, description="the current value: authority, then recency"
    )
    preference: int = Field(default=10, ge=0, le=MAX_QUESTIONS, description="a person's most frequent choice")
    function_calling: int = Field(
        default=14, ge=0, le=MAX_QUESTIONS, description="a tool call filled from the World"
    )

    def counts(self) -> dict[str, int]:
        return {t: getattr(self, t) for t in TASKS}


class SmmSpec(_Strict):
    """The ``smm:`` section of a theme."""

    sources: list[SourceSpec] = Field(
        min_length=2,
        max_length=MAX_SETTINGS * 2,
        description="what the agent observes: chats, sheets, documents ...",
    )
    contacts: list[ContactSpec] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="people outside the cast who send emails (a supplier, an owner)",
    )
    entity_kinds: list[EntityKindSpec] = Field(
        min_length=1, max_length=MAX_SETTINGS, description="kinds of things in the world (projects, trips)"
    )
    entities: list[EntitySpec] = Field(
        min_length=1, max_length=MAX_ITEMS, description="the things themselves"
    )
    profile: list[ProfileFieldSpec] = Field(
        default_factory=list, max_length=MAX_SETTINGS, description="fields of everyone's profile card"
    )
    preferences: list[PreferenceSpec] = Field(
        default_factory=list, max_length=MAX_SETTINGS, description="what people choose, shown by choices"
    )
    tools: list[ToolSpec] = Field(
        default_factory=list, max_length=MAX_SETTINGS, description="tool schemas of function-calling items"
    )
    calls: list[BindingSpec] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="function-calling item forms"
    )
    conflicts: list[ConflictRouteSpec] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="per-conflict routing of stale, updated and rumoured values",
    )
    tasks: TaskMix = Field(default_factory=TaskMix, description="items planned per task")
    conflict_gap: int = Field(
        default=6, ge=1, le=MAX_DAYS_GAP, description="rounds between a stale fact and its update"
    )
    update_days: tuple[int, int] = Field(default=(5, 12), description="days between stale and update")
    negatives: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="share of the facts no item reads that the sources still state (hard negatives; "
        "a multi-family theme's cross items read facts no smm item asks about)",
    )
    preference_support: int = Field(
        default=3,
        ge=2,
        le=6,
        description="choices of the preferred value; as many contrary choices are shown, one beside each",
    )
    target_sources_per_question: float = Field(
        default=2.5,
        ge=1.0,
        le=MAX_SETTINGS * 2,
        description="least mean sources per question; the build fails below it",
    )
    rounds_per_day: float = Field(
        default=6.0,
        gt=0,
        le=MAX_ROUNDS_PER_DAY,
        description=f"background rounds per day, all sources (at most {MAX_ROUNDS_PER_DAY:g})",
    )
    paraphrase_turns: bool = Field(
        default=False, description="reword fact-stating turns with text.backend (validated, else kept)"
    )
    pack: str | None = Field(
        default=None,
        pattern=ID,
        description="content pack (assets/packs/<pack>.yaml) of background talk and filler; "
        "none: composed from the theme's own cast, places, objects, sources and entity kinds",
    )

    @model_validator(mode="after")
    def _local(self) -> SmmSpec:
        # paths are relative to the section (pydantic puts this error under ``smm``)
        check_local(self)
        return self

    def check(self, theme: Theme) -> None:
        """Raise ``ValueError('smm.<path>: …')`` for references the section alone cannot check."""
        check_section(self, theme)

    def topics(self) -> dict[str, str]:
        """topic -> where a fact of it comes from (a path in the theme), for every topic in use."""
        return topics_in_use(self)

    def route(self, entity: str, key: str) -> ConflictRouteSpec | None:
        return next((r for r in self.conflicts if r.entity == entity and r.key == key), None)
