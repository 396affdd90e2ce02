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

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

from mnemoforge.schemas.smm_checks import check_routes, check_values
from mnemoforge.schemas.smm_terms import CONVERSATIONAL, WEEKDAYS
from mnemoforge.schemas.smm_topics import BUILTIN_TOPICS, check_topics, topics_in_use

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


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class SourceSpec(_Strict):
    """One source object: its own context boundary, purpose, members and authority."""

    id: str = Field(pattern=ID)
    kind: SourceKind
    title: str
    purpose: str = ""
    carries: list[str] = Field(
        default_factory=list,
        description="topics of the facts it may carry (schedule, assignment, conditions, ...); empty: any",
    )
    members: list[str] = Field(
        default_factory=list, description="person ids (chats; an email inbox: its owners, the recipients)"
    )
    authority: int = Field(default=1, ge=0, le=5, description="higher beats lower in a conflict")
    topics: list[str] = Field(default_factory=list, description="small-talk and work topics of the chat")
    activity: float = Field(default=1.0, gt=0, le=10, description="relative amount of background talk")


class AttributeSpec(_Strict):
    """An attribute of an entity kind; ``values`` is the pool drawn from (dates come from the timeline)."""

    key: str = Field(pattern=ID)
    label: str
    type: ValueType = "string"
    values: list[str] = Field(default_factory=list)
    mutable: bool = Field(default=False, description="may be updated later (conflict items)")
    roles: list[str] = Field(
        default_factory=list, description="type person: only cast members with one of these roles"
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
    kind: str = Field(pattern=ID)
    noun: str = Field(description="how questions call it: 'project', 'field survey'")
    membership: Literal["one", "many"] = Field(
        default="many", description="one: every person belongs to exactly one entity of this kind"
    )
    members: tuple[int, int] = (2, 4)
    attributes: list[AttributeSpec] = Field(min_length=1)

    def attribute(self, key: str) -> AttributeSpec:
        return next(a for a in self.attributes if a.key == key)


class EntitySpec(_Strict):
    id: str = Field(pattern=ID)
    kind: str
    name: str
    values: dict[str, str] = Field(
        default_factory=dict,
        description="fixed attribute values (the first value of a mutable one): key -> value; a person "
        "attribute takes a cast id, a date an ISO date inside the theme's span",
    )


class ContactSpec(_Strict):
    """Someone outside the cast who writes to it (a supplier, an owner, an agency): an email
    sender about the topics they deal with. Contacts have no face and no voice."""

    id: str = Field(pattern=ID)
    name: str = Field(min_length=1)
    role: str = Field(min_length=1, description="what they are to the cast: 'supplier', 'owner'")
    topics: list[str] = Field(default_factory=list, description="topics they write about; empty: any")


class ConflictRouteSpec(_Strict):
    """Where one conflict's values appear: the stale value, its update, and optionally a rumour."""

    entity: str
    key: str
    stale: str = Field(description="source id that carries the first (stale) value")
    update: str = Field(description="source id that carries the update")
    rumour: str | None = Field(default=None, description="a lowest-authority chat that carries hearsay")


class ProfileFieldSpec(_Strict):
    """A field of everyone's profile card (office city, phone extension…)."""

    key: str = Field(pattern=ID)
    label: str
    values: list[str] = Field(min_length=1)


class PreferenceSpec(_Strict):
    key: str = Field(pattern=ID)
    noun: str = Field(description="'seat', 'locker number'")
    values: list[str] = Field(min_length=4)
    phrases: list[str] = Field(
        default_factory=lambda: ["I'll go with {value} this time.", "{value} for me, please."],
        description="first-person lines with {value}; no habit markers ('again', 'as always'): a "
        "single line must not reveal the preference",
    )
    reports: list[str] = Field(
        default_factory=lambda: ["{name} went for the {value}.", "{name} picked the {value}."],
        description="third-person lines with {name} and {value}",
    )


class ToolArgSpec(_Strict):
    name: str = Field(pattern=ID)
    type: ArgType
    required: bool = True
    default: str | int | float | bool | None = None
    description: str = ""


class ToolSpec(_Strict):
    name: str = Field(pattern=ID)
    description: str
    arguments: list[ToolArgSpec] = Field(min_length=1)
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

    tool: str
    subject: str = Field(description="entity kind the call is about")
    arguments: dict[str, str]


class TaskMix(_Strict):
    single_hop: int = Field(default=16, ge=0)
    multi_hop: int = Field(default=16, ge=0)
    conflict_resolution: int = Field(default=14, ge=0)
    preference: int = Field(default=10, ge=0)
    function_calling: int = Field(default=14, ge=0)

    def counts(self) -> dict[str, int]:
        return {t: getattr(self, t) for t in TASKS}


class SmmSpec(_Strict):
    """The ``smm:`` section of a theme."""

    sources: list[SourceSpec] = Field(min_length=2)
    contacts: list[ContactSpec] = Field(
        default_factory=list, description="people outside the cast who send emails (a supplier, an owner)"
    )
    entity_kinds: list[EntityKindSpec] = Field(min_length=1)
    entities: list[EntitySpec] = Field(min_length=1)
    profile: list[ProfileFieldSpec] = Field(default_factory=list)
    preferences: list[PreferenceSpec] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)
    calls: list[BindingSpec] = Field(default_factory=list, description="function-calling item forms")
    conflicts: list[ConflictRouteSpec] = Field(
        default_factory=list, description="per-conflict routing of stale, updated and rumoured values"
    )
    tasks: TaskMix = Field(default_factory=TaskMix)
    conflict_gap: int = Field(default=6, ge=1, description="rounds between a stale fact and its update")
    update_days: tuple[int, int] = Field(default=(5, 12), description="days between stale and update")
    preference_support: int = Field(
        default=3,
        ge=2,
        le=6,
        description="choices of the preferred value; as many contrary choices are shown, one beside each",
    )
    target_sources_per_question: float = Field(default=2.5, ge=1.0)
    rounds_per_day: float = Field(default=6.0, gt=0, description="background rounds per day, all sources")
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
        for name, ids in (
            ("sources", [s.id for s in self.sources]),
            ("entity_kinds", [k.kind for k in self.entity_kinds]),
            ("entities", [e.id for e in self.entities]),
            ("tools", [t.name for t in self.tools]),
            ("contacts", [c.id for c in self.contacts]),
        ):
            for i, x in enumerate(ids):
                if x in ids[:i]:
                    raise ValueError(f"{name}.{i}: duplicate id {x!r}")
        kinds = {k.kind for k in self.entity_kinds}
        for i, e in enumerate(self.entities):
            if e.kind not in kinds:
                raise ValueError(f"entities.{i}.kind: unknown entity kind {e.kind!r}")
        for i, k in enumerate(self.entity_kinds):
            lo, hi = k.members
            if not 1 <= lo <= hi:
                raise ValueError(f"entity_kinds.{i}.members: expected 1 <= lo <= hi, got {k.members}")
            for j, a in enumerate(k.attributes):
                if a.type in ("string", "time", "integer") and len(a.values) < 4:
                    raise ValueError(
                        f"entity_kinds.{i}.attributes.{j}.values: need >= 4 values for a {a.type}"
                    )
                if a.type == "integer" and not all(v.lstrip("-").isdigit() for v in a.values):
                    raise ValueError(f"entity_kinds.{i}.attributes.{j}.values: not all integers")
        lo, hi = self.update_days
        if not 1 <= lo <= hi:
            raise ValueError(f"update_days: expected [lo, hi] with 1 <= lo <= hi, got [{lo}, {hi}]")
        if self.target_sources_per_question > len(self.sources):
            raise ValueError(
                f"target_sources_per_question: {self.target_sources_per_question} is more than the "
                f"{len(self.sources)} declared sources"
            )
        for i, t in enumerate(self.tools):
            names = [a.name for a in t.arguments]
            for j, n in enumerate(names):
                if n in names[:j]:
                    raise ValueError(f"tools.{i}.arguments.{j}.name: duplicate argument {n!r}")
        return self

    def check(self, theme: Theme) -> None:
        """Raise ``ValueError('smm.<path>: …')`` for references the section alone cannot check."""
        people = {p.id for p in theme.cast}
        for i, s in enumerate(self.sources):
            for j, m in enumerate(s.members):
                if m not in people:
                    raise ValueError(f"smm.sources.{i}.members.{j}: unknown person {m!r}")
            need = {"group_chat": 3, "dm": 2, "assistant_chat": 1}.get(s.kind, 0)
            if s.kind == "dm" and len(s.members) != 2:
                raise ValueError(f"smm.sources.{i}.members: a dm has exactly 2 members, got {len(s.members)}")
            if len(s.members) < need:
                raise ValueError(f"smm.sources.{i}.members: a {s.kind} needs at least {need} members")
        if self.pack is not None:
            from mnemoforge.schemas.packs import load_pack

            try:
                load_pack(self.pack)
            except ValueError as e:
                raise ValueError(f"smm.pack: {e}") from None
        if self.paraphrase_turns and not theme.text.backend:
            raise ValueError("smm.paraphrase_turns: needs a text.backend")
        if not any(s.kind in CONVERSATIONAL for s in self.sources):
            raise ValueError("smm.sources: at least one group_chat, dm or assistant_chat is required")
        by_kind = {k.kind: k for k in self.entity_kinds}
        for i, k in enumerate(self.entity_kinds):
            n = sum(e.kind == k.kind for e in self.entities)
            if k.membership == "one" and n * k.members[1] < len(theme.cast):
                raise ValueError(
                    f"smm.entity_kinds.{i}.members: {n} {k.kind} entities of at most {k.members[1]} "
                    f"members cannot hold all {len(theme.cast)} people"
                )
            for j, a in enumerate(k.attributes):
                if a.type == "person" and a.values:
                    raise ValueError(
                        f"smm.entity_kinds.{i}.attributes.{j}.values: person values come from the cast"
                    )
        check_values(self, theme, by_kind)
        check_routes(self, by_kind)
        check_topics(self, people)
        tools = {t.name: t for t in self.tools}
        for i, c in enumerate(self.calls):
            if c.tool not in tools:
                raise ValueError(f"smm.calls.{i}.tool: unknown tool {c.tool!r}")
            if c.subject not in by_kind:
                raise ValueError(f"smm.calls.{i}.subject: unknown entity kind {c.subject!r}")
            args = {a.name: a for a in tools[c.tool].arguments}
            for name, src in c.arguments.items():
                if name not in args:
                    raise ValueError(f"smm.calls.{i}.arguments.{name}: tool {c.tool!r} has no such argument")
                _check_binding(
                    f"smm.calls.{i}.arguments.{name}", src, c.subject, by_kind, self.profile, self.preferences
                )
            missing = [a.name for a in tools[c.tool].arguments if a.required and a.name not in c.arguments]
            if missing:
                raise ValueError(f"smm.calls.{i}.arguments: required arguments {missing} are not bound")

    def topics(self) -> dict[str, str]:
        """topic -> where a fact of it comes from (a path in the theme), for every topic in use."""
        return topics_in_use(self)

    def route(self, entity: str, key: str) -> ConflictRouteSpec | None:
        return next((r for r in self.conflicts if r.entity == entity and r.key == key), None)


def _check_binding(
    path: str,
    src: str,
    subject: str,
    kinds: dict[str, EntityKindSpec],
    profile: list[ProfileFieldSpec],
    preferences: list[PreferenceSpec],
) -> None:
    head, _, key = src.partition(".")
    if head in ("person", "profile") and kinds[subject].membership != "one":
        raise ValueError(
            f"{path}: {src!r} needs one person per call, but subject {subject!r} has `membership: many` "
            f"(several people per entity); bind {subject}.members, {subject}.name or an attribute, "
            f"or use a subject kind with `membership: one`"
        )
    if src == "person":
        return
    if head == "preference":
        if key not in {p.key for p in preferences}:
            raise ValueError(f"{path}: unknown preference {key!r}")
        if kinds[subject].membership != "one":
            raise ValueError(f"{path}: a preference needs a person, so subject {subject!r} must be 'one'")
        return
    if head == "profile":
        if key not in {f.key for f in profile}:
            raise ValueError(f"{path}: unknown profile field {key!r}")
        return
    if head != subject:
        raise ValueError(f"{path}: {src!r} must read the call's subject kind {subject!r}, person or profile")
    if key in ("name", "members"):
        return
    if key not in {a.key for a in kinds[head].attributes}:
        raise ValueError(f"{path}: kind {head!r} has no attribute {key!r}")
