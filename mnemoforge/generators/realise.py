"""The realisation layer: several surface forms per question program, filled with the theme's
nouns and labels, with articles and possessives done once.

A form is picked per item from the seed and the item's program (never from its answer or its
task), so a single-hop and a conflict item over the same kind of fact share the same forms: the
wording does not say which items hold a conflict. Proper names take no article ("the lead of
Harbour Fair", not "the host visit Harbour Fair"); the kind's noun is used only where
no name is given ("Ode Varga's survey").
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mnemoforge.generators.grammar import with_article
from mnemoforge.generators.wording import broken_patterns


def possessive(name: str) -> str:
    """``Ode Varga's``, ``James'``."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


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
    ("member.belongs", "{person} is on {a_noun}. What is its {label}?"),
    ("member.for", "For the {noun} {person} works on, what is the {label}?"),
    ("member.recorded", "What {label} is on record for {person_s} {noun}?"),
    ("member.tell", "Do you remember the {label} of the {noun} {person} is part of?"),
)
MEMBER_WHO_FORMS = (
    ("member.who_possessive", "Who is the {label} of {person_s} {noun}?"),
    ("member.who_belongs", "{person} is on {a_noun}. Who is its {label}?"),
    ("member.who_for", "For the {noun} {person} works on, who is the {label}?"),
    ("member.who_recorded", "Who is on record as the {label} of {person_s} {noun}?"),
    ("member.who_tell", "Do you remember who the {label} of {person_s} {noun} is?"),
)
LEAD_FORMS = (
    ("lead.possessive", "What is the {label} of the {via} of {person_s} {noun}?"),
    ("lead.belongs", "{person} is on {a_noun}. What is the {label} of its {via}?"),
    ("lead.for", "For the {noun} {person} works on, what is the {via}'s {label}?"),
    ("lead.tell", "Do you remember the {label} of whoever is the {via} of {person_s} {noun}?"),
)
FORMS = {
    "entity": ENTITY_FORMS,
    "entity_who": ENTITY_WHO_FORMS,
    "member": MEMBER_FORMS,
    "member_who": MEMBER_WHO_FORMS,
    "lead": LEAD_FORMS,
}
"""Surface forms per program shape (``*_who`` when the answer is a person)."""


def realise(shape: str, slots: Slots, rng: random.Random) -> tuple[str, str]:
    """A surface form for ``shape`` picked by ``rng``: (form id, text)."""
    forms = FORMS[f"{shape}_who"] if slots.who and f"{shape}_who" in FORMS else FORMS[shape]
    form_id, text = forms[rng.randrange(len(forms))]
    return form_id, fill(text, slots)


def fill(text: str, slots: Slots) -> str:
    out = text.format(
        label=slots.label,
        name=slots.name,
        person=slots.person,
        person_s=possessive(slots.person) if slots.person else "",
        noun=slots.noun,
        a_noun=with_article(slots.noun) if slots.noun else "",
        via=slots.via,
    )
    return out[0].upper() + out[1:]


def check(text: str, names: list[str]) -> list[str]:
    """Broken patterns in a realised text (see :mod:`mnemoforge.generators.wording`)."""
    return broken_patterns(text, names)
