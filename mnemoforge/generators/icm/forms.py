"""Surface forms for the icm question templates (the realisation layer, as ``generators/realise.py``
is for smm): several wordings per template, picked per item from the seed and the item's
arguments (never from its answer), so no template's wording dominates a release.

A form may use the template's fields plus ``obj`` (him / her / them) and ``person_s`` (the
possessive); forms are filled through the English layer (``english.fill``: ``{verb:base}`` after
"did", articles and possessives with proper nouns). Forms with a possessive are skipped when the
person is named by a description ("the man with short hair's" reads badly). A template without
forms here (one added later) keeps its own text.
"""

from __future__ import annotations

from typing import Any

from mnemoforge.english import fill, possessive
from mnemoforge.hashing import content_hash
from mnemoforge.rng import derive_rng

FORMS: dict[str, tuple[tuple[str, str], ...]] = {
    "recall.companions.v1": (
        ("companions.joined", "Who joined {person} when {subj} {verb} at {place} in {month}?"),
        ("companions.with", "In {month}, {person} {verb} at {place}. Who was with {obj}?"),
        ("companions.company", "Who kept {person} company when {subj} {verb} at {place} in {month}?"),
        ("companions.else", "When {person} {verb} at {place} in {month}, who else was there?"),
        ("companions.came", "Who came along when {person} {verb} at {place} in {month}?"),
    ),
    "recall.object.v1": (
        ("object.along", "What did {person} bring along when {subj} {verb} in {month}?"),
        ("object.when", "When {person} {verb} in {month}, what did {subj} bring?"),
        ("object.had", "In {month}, {person} {verb}. What did {subj} have with {obj}?"),
        ("object.which", "Which thing did {person} bring when {subj} {verb} in {month}?"),
    ),
    "recall.place.v1": (
        ("place.go", "Where did {person} and {other} go when they {verb} in {month}?"),
        ("place.were", "When {person} and {other} {verb} in {month}, where were they?"),
        ("place.happen", "In {month}, {person} and {other} {verb}. Where did that happen?"),
        ("place.which", "Which place did {person} and {other} go to when they {verb} in {month}?"),
    ),
    "retrieval.count.v1": (
        ("count.times", "How many times did {person} take part when people {verb} between {from} and {to}?"),
        ("count.between", "Between {from} and {to}, how many times did {person} join in when people {verb}?"),
        ("count.often", "From {from} to {to}, how often was {person} there when people {verb}?"),
        ("count.among", "Counting from {from} to {to}, how many times was {person} among those who {verb}?"),
    ),
    "retrieval.brought.count.v1": (
        (
            "brought.times",
            "How many times did {person} bring the {object} when people {verb} between {from} and {to}?",
        ),
        (
            "brought.between",
            "Between {from} and {to}, how often did {person} have the {object} along when people {verb}?",
        ),
        (
            "brought.counting",
            "From {from} to {to}, how many times did {person} have the {object} when people {verb}?",
        ),
    ),
    "retrieval.together.v1": (
        (
            "together.both",
            "How many times were {person} and {other} both there when people {verb} between {from} and {to}?",
        ),
        (
            "together.between",
            "Between {from} and {to}, how often did {person} and {other} both join in when people {verb}?",
        ),
        (
            "together.count",
            "From {from} to {to}, how often were {person} and {other} together when people {verb}?",
        ),
    ),
    "retrieval.companion.v1": (
        ("companion.most", "Across the album, who most often joined {person} when {subj} {verb}?"),
        ("companion.whole", "Over the whole album, who was with {person} most often when {subj} {verb}?"),
        ("companion.usually", "When {person} {verb}, who usually came along, across the album?"),
        ("companion.most_times", "Who went along most times when {person} {verb}, over the album?"),
    ),
    "retrieval.binding.v1": (
        (
            "binding.name",
            "What is the name of the person who brought the {object} when people {verb} in {month}?",
        ),
        ("binding.who", "Who brought the {object} when people {verb} in {month}?"),
        ("binding.had", "In {month}, when people {verb}, who had the {object} with them?"),
        ("binding.which", "Which person brought the {object} along when people {verb} in {month}?"),
    ),
    "profile.choice.v1": (
        ("choice.usually", "Judging from the whole album, what {key} does {person} usually go for?"),
        ("choice.pick", "What {key} does {person} usually pick, judging from the album?"),
        ("choice.tend", "Across the album, which {key} does {person} tend to choose?"),
        ("choice.usual", "Going by the whole album, what is {person_s} usual {key}?"),
    ),
    "profile.habit.v1": (
        ("habit.mention", "What habit do people keep mentioning about {person}?"),
        ("habit.saying", "What do people keep saying {person} does?"),
        ("habit.known", "Across the album, what habit is {person} known for?"),
        ("habit.comes_up", "Which habit of {person_s} keeps coming up?"),
    ),
    "profile.relation.v1": (
        ("relation.how", "How is {other} related to {person}?"),
        ("relation.what", "What is {other} to {person}?"),
        ("relation.which", "What relation is {other} to {person}?"),
        ("relation.who", "Who is {other} to {person}?"),
    ),
}
"""Surface forms per template id: (form id, text)."""

DAY_OF = {
    "recall.companions.day.v1": "recall.companions.v1",
    "recall.object.day.v1": "recall.object.v1",
    "recall.place.day.v1": "recall.place.v1",
    "retrieval.binding.day.v1": "retrieval.binding.v1",
}
"""Templates that name an event by its day take their month twin's forms ("in {month}" read as
"on {day}"), so a release with many day items does not ask them all in one wording."""
FORMS |= {
    day: tuple(
        (fid, text.replace("In {month}", "On {day}").replace("in {month}", "on {day}"))
        for fid, text in FORMS[month]
    )
    for day, month in DAY_OF.items()
}

OBJECT_PRONOUN = {"he": "him", "she": "her", "they": "them"}


def realise(
    template_id: str, text: str, fields: dict[str, str], seed: int, args: dict[str, Any]
) -> tuple[str, str]:
    """(form id, question text) for one item: a form of ``template_id`` (or the template's own
    ``text`` when it has none), filled with ``fields``."""
    forms = FORMS.get(template_id, ())
    described = fields.get("person", "").startswith("the ")
    usable = [f for f in forms if not (described and "{person_s}" in f[1])]
    slots = dict(fields)
    slots["obj"] = OBJECT_PRONOUN.get(fields.get("subj", ""), "them")
    slots["person_s"] = possessive(fields["person"]) if fields.get("person") else ""
    if not usable:
        return template_id, fill(text, slots)
    rng = derive_rng(seed, "icm", "form", template_id, content_hash(args))
    form_id, form = usable[rng.randrange(len(usable))]
    return form_id, fill(form, slots)
