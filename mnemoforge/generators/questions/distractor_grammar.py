"""Distractors the question's own grammar rules out, so a reader drops them without memory.

- **pronoun**: options are people and the question holds a gendered pronoun ("she", "his") that
  can only refer to the answer (no person the question names has that gender): a distractor of
  another gender is out;
- **asker**: a question in the first person ("Who did I meet?") is asked by the World's
  protagonist, so the protagonist is never a distractor;
- **number**: the question fixes the answer's number ("what is ...", "which ... were ...") and a
  distractor's noun has the other number;
- **article**: a question ending in a cloze article ("She brought a") rules out options the
  article does not fit.

Used by the ``fair_distractors`` gate and by the generators (which filter their pools with it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mnemoforge.english.words import article, singular_noun
from mnemoforge.generators.questions.cast_prior import cast_of, mentions
from mnemoforge.schemas.world import World
from mnemoforge.textnorm import answer_parts, normalize

PRONOUNS = {"she": "female", "her": "female", "hers": "female", "herself": "female"}
PRONOUNS |= {"he": "male", "him": "male", "his": "male", "himself": "male"}
NOUNS = {"woman": "female", "girl": "female", "lady": "female", "man": "male", "boy": "male"}
FIRST_PERSON = re.compile(r"\b(I|me|my|mine|myself)\b")
NUMBER_CUE = re.compile(r"^\s*(?:what|which)\b(?:\s+\w+){0,2}?\s+(is|are|was|were)\b", re.I)


_PEOPLE: dict[int, tuple[World, dict[str, tuple[str, str]]]] = {}


def _people(world: World) -> dict[str, tuple[str, str]]:
    """Normalised name or alias -> (person id, gender), built once per World object."""
    got = _PEOPLE.get(id(world))
    if got is None or got[0] is not world:
        if len(_PEOPLE) > 8:
            _PEOPLE.clear()
        out = {normalize(p.name): (p.id, p.gender) for p in world.people}
        out |= {normalize(a): (p.id, p.gender) for p in world.people for a in p.aliases if normalize(a)}
        got = _PEOPLE[id(world)] = (world, out)
    return got[1]


def _named(question: str, names: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
    t = f" {normalize(question)} "
    return [v for n, v in names.items() if n and f" {n} " in t]


def _gender_of(option: str, names: dict[str, tuple[str, str]]) -> set[str] | None:
    """The genders of an option's people (a name set has several), or None if not all people."""
    parts = answer_parts(option)
    if not parts or any(p not in names for p in parts):
        return None
    return {names[p][1] for p in parts}


def _plural(phrase: str) -> bool | None:
    """Whether a noun phrase is plural (its last word), None for names, numbers and sets."""
    words = re.findall(r"[A-Za-z]+", phrase)
    if not words or re.search(r"\d", phrase) or any(w[0].isupper() for w in words):
        return None
    last = words[-1].lower()
    if len(last) < 3 or last.endswith(("ss", "us", "is", "os")):
        return False
    single = singular_noun(last)
    return bool(single) and single != last


def ruled_out(question: str, answer: str, options: Sequence[str], world: World) -> dict[str, str]:
    """Distractor -> why the question's grammar (or its asker) rules it out; ``{}`` when none is."""
    names = _people(world)
    out: dict[str, str] = {}
    distractors = [o for o in options if o != answer]
    genders = {o: _gender_of(o, names) for o in options}
    if genders.get(answer) is not None:
        named = {g for _, g in _named(question, names)}  # names, descriptions, gendered nouns
        named |= {world.person(pid).gender for pid in mentions(question, cast_of(world).referred)}
        named |= {g for w, g in NOUNS.items() if re.search(rf"\b{w}\b", question.lower())}
        for w in re.findall(r"[a-z]+", question.lower()):
            g = PRONOUNS.get(w)
            if g is None or g in named:
                continue
            for d in distractors:
                if genders[d] is not None and g not in (genders[d] or set()):
                    out.setdefault(d, f"pronoun {w!r} cannot refer to {d!r}")
    if FIRST_PERSON.search(question) and world.protagonist:
        me = normalize(world.person(world.protagonist).name)
        for d in distractors:
            if me in answer_parts(d):
                out.setdefault(d, f"{d!r} holds the asker")
    cue = NUMBER_CUE.search(question)
    plural = bool(cue) and cue.group(1).lower() in ("are", "were")  # type: ignore[union-attr]
    if cue and _plural(answer) == plural:  # the answer agrees with the verb: a distractor must too
        for d in distractors:
            n = _plural(d)
            if n is not None and n != plural:
                out.setdefault(d, f"{cue.group(1)!r} does not agree with {d!r}")
    cloze = re.search(r"\b(a|an)\s*[?.]?\s*$", question.strip(), re.I)
    if cloze:
        want = cloze.group(1).lower()
        for d in distractors:
            if article(d) != want:
                out.setdefault(d, f"{want!r} does not fit {d!r}")
    return out
