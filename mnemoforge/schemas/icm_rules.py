"""Theme records of the icm family's world rules: who may take part in an activity, when, and
what is said there (dialogue line banks with typed slots)."""

from __future__ import annotations

import string
from typing import Any, Literal

from pydantic import Field, model_serializer, model_validator

from mnemoforge.schemas.limits import MAX_CAST, MAX_ITEMS, MAX_LINES, Lines, Name, Text
from mnemoforge.schemas.strict import Strict

Day = Literal[
    "weekday", "weekend", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"
]
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# the slots each dialogue function may use: a template naming any other slot is an error
SLOTS: dict[str, frozenset[str]] = {
    "small_talk": frozenset({"other", "name", "place", "noun", "object"}),
    "relation": frozenset({"name", "relation", "other"}),
    "habit": frozenset({"name", "habit"}),
    "choice": frozenset({"value", "other"}),
    "place": frozenset({"place", "other"}),
    "promise": frozenset({"object", "noun"}),
    "plan": frozenset({"noun", "place"}),
    "animal": frozenset({"animal"}),
}
"""A promise or plan line names no one else: an addressee named beside the object or the planned
outing is most often one of the people who come to it, so the line would answer the
who-came-along items from text alone."""


_Strict = Strict  # unknown keys, inf/NaN and unbounded text are errors (schemas/strict.py)


class WhoSpec(_Strict):
    """Who may take part in an activity.

    ``protagonist``: ``required`` (every event includes them), ``optional`` or ``excluded``.
    The other participants are drawn from the cast members that match ``relations`` (relation
    kinds linking them to the protagonist, in either direction), ``roles`` or ``people`` (any of
    the three; with none set, anyone may come), minus ``exclude``. ``required``: named people
    every event includes (an event is held only when they can come). ``linked``: every participant
    must be related to another participant (so strangers never meet).
    """

    protagonist: Literal["required", "optional", "excluded"] = Field(
        default="optional", description="whether every event of the activity includes the protagonist"
    )
    relations: list[Name] = Field(
        default_factory=list,
        max_length=MAX_ITEMS,
        description="relation kinds linking a participant to the protagonist (either way)",
    )
    roles: list[Name] = Field(
        default_factory=list, max_length=MAX_ITEMS, description="roles a participant may have"
    )
    people: list[Name] = Field(
        default_factory=list, max_length=MAX_CAST, description="person ids who may take part"
    )
    exclude: list[Name] = Field(
        default_factory=list, max_length=MAX_CAST, description="person ids who never take part"
    )
    required: list[Name] = Field(
        default_factory=list,
        max_length=MAX_CAST,
        description="person ids every event of the activity includes (like protagonist: required)",
    )
    linked: bool = Field(default=False, description="every participant is related to another participant")


def template_slots(template: str) -> set[str]:
    """The ``{slot}`` names a template uses (ValueError for a malformed template)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


class LineBank(_Strict):
    """Wordings per dialogue function; several per function keep lines from repeating.

    ``choice`` is keyed by preference kind (``drink``, ``food``, ``music`` ...), so a drink only
    ever fills a drink template. Slots allowed per function: see ``SLOTS``.
    """

    small_talk: list[Text] = Field(
        default_factory=list,
        max_length=MAX_LINES,
        description="slots {other}, {name}, {place}, {noun}, {object} (the album fills no {place})",
    )
    relation: list[Text] = Field(
        default_factory=list,
        max_length=MAX_LINES,
        description="a relation said aloud: {name}, {relation}, {other}",
    )
    habit: list[Text] = Field(
        default_factory=list, max_length=MAX_LINES, description="a habit mentioned: {name}, {habit}"
    )
    choice: dict[Name, Lines] = Field(
        default_factory=dict,
        max_length=MAX_ITEMS,
        description="per preference kind (drink, food, ...): {value}, {other}",
    )
    place: list[Text] = Field(
        default_factory=list,
        max_length=MAX_LINES,
        description="names a sign-less place: {place}, {other} (wordings without {other} first)",
    )
    promise: list[Text] = Field(
        default_factory=list,
        max_length=MAX_LINES,
        description="the speaker will bring their {object} to the next {noun}; names no one else",
    )
    """The speaker will bring their ``{object}`` to the next ``{noun}`` (of this activity)."""
    plan: list[Text] = Field(
        default_factory=list,
        max_length=MAX_LINES,
        description="the speaker's next outing: the {noun} at {place}; names no one else",
    )
    """The speaker's next outing: the ``{noun}`` of the activity they plan, at ``{place}``."""
    animal: list[Text] = Field(
        default_factory=list,
        max_length=MAX_LINES,
        description="a cast animal named by its companion while it is seen: {animal}",
    )

    @model_serializer(mode="wrap")
    def _drop_no_animal(self, handler: Any) -> dict[str, Any]:  # banks before it dump as they did
        out = handler(self)
        if not out.get("animal", 1):
            out.pop("animal", None)
        return out

    @model_validator(mode="after")
    def _slots_typed(self) -> LineBank:
        for fn, allowed in SLOTS.items():
            value = getattr(self, fn)
            groups = value.items() if isinstance(value, dict) else [(None, value)]
            for key, templates in groups:
                for i, t in enumerate(templates):
                    where = f"{fn}.{key}.{i}" if key else f"{fn}.{i}"
                    try:
                        used = template_slots(t)
                    except ValueError as e:
                        raise ValueError(f"{where}: malformed template {t!r} ({e})") from None
                    bad = used - allowed
                    if bad:
                        raise ValueError(
                            f"{where}: slot(s) {sorted(bad)} not allowed in a {fn} line "
                            f"(allowed: {sorted(allowed)})"
                        )
        return self

    def merged(self, other: LineBank) -> LineBank:
        """This bank with ``other``'s wordings added (activity bank over the album's)."""
        choice = {k: list(v) for k, v in self.choice.items()}
        for k, v in other.choice.items():
            choice[k] = [*v, *choice.get(k, [])]
        return LineBank(
            small_talk=list(other.small_talk or self.small_talk),  # an activity's small talk replaces
            relation=[*other.relation, *self.relation],
            habit=[*other.habit, *self.habit],
            choice=choice,
            place=[*other.place, *self.place],
            promise=[*other.promise, *self.promise],
            plan=[*other.plan, *self.plan],
            animal=[*other.animal, *self.animal],
        )
