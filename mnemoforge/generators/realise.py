"""Surface forms of the smm question programs, filled through the English layer
(``mnemoforge/english``): several forms per program shape, picked per item from the seed.

A form is picked per item from the seed and the item's program (never from its answer or its
task), so a single-hop and a conflict item over the same kind of fact share the same forms: the
wording does not say which items hold a conflict. Proper names take no article ("the lead of
Harbour Fair", not "the host visit Harbour Fair"); the kind's noun is used only where
no name is given ("Ode Varga's survey"). A label that is a verb phrase ("covered by",
"assigned to") takes its own forms ("Who covered Rota slot B?", "Who is Rota slot B assigned
to?"), never "the covered by of".
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mnemoforge.english import broken_patterns, indefinite, possessive, verb_form
from mnemoforge.english import fill as fill_template
from mnemoforge.english.words import participle_phrase

__all__ = ["FORMS", "Slots", "check", "fill", "possessive", "realise"]


@dataclass(frozen=True)
class Slots:
    """What a form may use: the attribute's label, whether it names a person (who-question), the
    entity's proper name, the person and the kind's noun."""

    label: str = ""
    who: bool = False
    name: str = ""
    person: str = ""
    noun: str = ""
    via: str = ""
    member: str = "is on"  # how a member belongs (the kind's ``belongs()``: "is on", "is signed up for")


ENTITY_FORMS = (
    ("entity.what_of", "What is the {label} of {name}?"),
    ("entity.for", "For {name}, what is the {label}?"),
    ("entity.recorded", "What {label} is on record for {name}?"),
    ("entity.tell", "Do you remember the {label} of {name}?"),
    ("entity.which", "Which {label} goes with {name}?"),
)
ENTITY_WHO_FORMS = (
    ("entity.who_of", "Who is the {label} of {name}?"),
    ("entity.who_for", "For {name}, who is the {label}?"),
    ("entity.who_recorded", "Who is on record as the {label} of {name}?"),
    ("entity.who_tell", "Do you remember who the {label} of {name} is?"),
    ("entity.who_which", "Which person is the {label} of {name}?"),
)
MEMBER_FORMS = (
    ("member.possessive", "What is the {label} of {person_s} {noun}?"),
    ("member.belongs", "{person} {member} {a_noun}. What is its {label}?"),
    ("member.for", "For the {noun} {person} works on, what is the {label}?"),
    ("member.recorded", "What {label} is on record for {person_s} {noun}?"),
    ("member.tell", "Do you remember the {label} of the {noun} {person} is part of?"),
)
MEMBER_WHO_FORMS = (
    ("member.who_possessive", "Who is the {label} of {person_s} {noun}?"),
    ("member.who_belongs", "{person} {member} {a_noun}. Who is its {label}?"),
    ("member.who_for", "For the {noun} {person} works on, who is the {label}?"),
    ("member.who_recorded", "Who is on record as the {label} of {person_s} {noun}?"),
    ("member.who_tell", "Do you remember who the {label} of {person_s} {noun} is?"),
)
LEAD_FORMS = (
    ("lead.possessive", "What is the {label} of the {via} of {person_s} {noun}?"),
    ("lead.belongs", "{person} {member} {a_noun}. What is the {label} of its {via}?"),
    ("lead.for", "For the {noun} {person} works on, what is the {via}'s {label}?"),
    ("lead.tell", "Do you remember the {label} of whoever is the {via} of {person_s} {noun}?"),
)
VERBAL_FORMS = (
    ("entity.verbal_is", "What is {name} {label}?"),
    ("entity.verbal_for", "For {name}, what is it {label}?"),
    ("entity.verbal_tell", "Do you remember what {name} is {label}?"),
)
VERBAL_WHO_FORMS = (
    ("entity.who_did", "Who {label_past} {name}?"),  # "by" labels only: "Who covered Rota slot B?"
    ("entity.who_is_verbal", "Who is {name} {label}?"),
    ("entity.who_tell_verbal", "Do you remember who {name} is {label}?"),
    ("entity.who_person_verbal", "Which person is {name} {label}?"),
)
MEMBER_VERBAL_FORMS = (
    ("member.verbal_is", "What is {person_s} {noun} {label}?"),
    ("member.verbal_belongs", "{person} {member} {a_noun}. What is it {label}?"),
    ("member.verbal_tell", "Do you remember what {person_s} {noun} is {label}?"),
)
MEMBER_VERBAL_WHO_FORMS = (
    ("member.who_did", "Who {label_past} {person_s} {noun}?"),  # "by" labels only
    ("member.who_is_verbal", "Who is {person_s} {noun} {label}?"),
    ("member.who_belongs_verbal", "{person} {member} {a_noun}. Who is it {label}?"),
    ("member.who_tell_verbal", "Do you remember who {person_s} {noun} is {label}?"),
)
LEAD_VERBAL_FORMS = (
    ("lead.person_verbal", "What is the {label} of the person {person_s} {noun} is {via}?"),
    ("lead.belongs_verbal", "{person} {member} {a_noun}. What is the {label} of the person it is {via}?"),
    ("lead.tell_verbal", "Do you remember the {label} of whoever {person_s} {noun} is {via}?"),
)
FORMS = {
    "entity": ENTITY_FORMS,
    "entity_who": ENTITY_WHO_FORMS,
    "member": MEMBER_FORMS,
    "member_who": MEMBER_WHO_FORMS,
    "lead": LEAD_FORMS,
    "entity_verbal": VERBAL_FORMS,
    "entity_who_verbal": VERBAL_WHO_FORMS,
    "member_verbal": MEMBER_VERBAL_FORMS,
    "member_who_verbal": MEMBER_VERBAL_WHO_FORMS,
    "lead_verbal": LEAD_VERBAL_FORMS,
}
"""Surface forms per program shape (``*_who`` when the answer is a person, ``*_verbal`` when the
label — for ``lead``, the ``via`` label — is a verb phrase)."""


def forms_for(shape: str, slots: Slots) -> tuple[tuple[str, str], ...]:
    """The forms ``shape`` may take with these slots."""
    verbal = participle_phrase(slots.via if shape == "lead" else slots.label)
    key = shape + ("_who" if slots.who and shape != "lead" else "") + ("_verbal" if verbal else "")
    forms = FORMS.get(key) or FORMS[shape + ("_verbal" if verbal else "")]
    by = (slots.via if shape == "lead" else slots.label).split()[-1:] == ["by"]
    return tuple(f for f in forms if by or "{label_past}" not in f[1])


def realise(shape: str, slots: Slots, rng: random.Random) -> tuple[str, str]:
    """A surface form for ``shape`` picked by ``rng``: (form id, text)."""
    forms = forms_for(shape, slots)
    form_id, text = forms[rng.randrange(len(forms))]
    return form_id, fill(text, slots)


def fill(text: str, slots: Slots) -> str:
    """A form filled with ``slots`` through the English layer."""
    words = slots.label.split()
    return fill_template(
        text,
        {
            "label": slots.label,
            "label_past": verb_form(words[0], "VBD") if words else "",
            "name": slots.name,
            "person": slots.person,
            "person_s": possessive(slots.person) if slots.person else "",
            "noun": slots.noun,
            "a_noun": indefinite(slots.noun) if slots.noun else "",
            "via": slots.via,
            "member": slots.member,
        },
    )


def check(text: str, names: list[str]) -> list[str]:
    """Broken patterns in a realised text (see :mod:`mnemoforge.english.check`)."""
    return broken_patterns(text, names)
