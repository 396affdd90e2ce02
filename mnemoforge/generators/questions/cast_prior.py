"""Solvers that answer from what the cast *is*, never from what happened at the asked time.

Each reads the question text and the options against the World's static declarations — who owns
which object, which activity is held where, each person's habits, relation words and roles — and
scores every option; none reads an observation or a date. An item one of them answers needs no
memory of the asked time: the ``cast_prior`` gate rejects it (a solver whose top set holds the
answer and not every option), and the release's shortcut panel reports each solver's accuracy over
the items it applies to (chance 1/k). Like a reader who watched the whole album once and kept only
the cast sheet.

A solver applies to an item when the question names what it needs (a person, an object, an
activity) and every option is of the type it ranks (objects, places, habits, relation words,
people); it returns ``None`` otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mnemoforge.generators.questions.relations import relation_lexicon
from mnemoforge.schemas.world import World
from mnemoforge.textnorm import STOPWORDS, answer_parts, normalize

Scores = list[float] | None


@dataclass(frozen=True)
class Cast:
    """The World's static declarations, by normalised surface name."""

    people: dict[str, str]  # name (and alias) -> person id
    objects: dict[str, str]  # object name -> object id
    owner: dict[str, str]  # object id -> owner id
    places: dict[str, str]  # place name -> place id
    activities: dict[str, str]  # verb or noun phrase -> activity
    held_at: dict[str, dict[str, int]]  # activity -> place id -> events held there
    habits: dict[str, set[str]]  # person id -> normalised habits
    relation_words: dict[tuple[str, str], set[str]]  # (a, b) -> words either calls the other
    roles: dict[str, set[str]] = field(default_factory=dict)  # person id -> role words
    referred: dict[str, str] = field(default_factory=dict)  # names and descriptions -> person id
    habit_of: dict[str, str] = field(default_factory=dict)  # normalised habit -> a person holding it
    words: frozenset[str] = frozenset()  # every relation word (declared and the lexicon's), normalised


_CASTS: dict[int, tuple[World, Cast]] = {}


def cast_of(world: World) -> Cast:
    """The :class:`Cast` of ``world`` (built once per World object; a World is immutable)."""
    got = _CASTS.get(id(world))
    if got is None or got[0] is not world:
        if len(_CASTS) > 8:
            _CASTS.clear()
        got = _CASTS[id(world)] = (world, _cast(world))
    return got[1]


def _cast(world: World) -> Cast:
    people = {normalize(p.name): p.id for p in world.people}
    people |= {normalize(a): p.id for p in world.people for a in p.aliases if normalize(a)}
    held: dict[str, dict[str, int]] = {}
    acts: dict[str, str] = {}
    for e in world.events:
        held.setdefault(e.activity, {}).setdefault(e.place, 0)
        held[e.activity][e.place] += 1
        for phrase in (e.verb, e.noun):
            if normalize(phrase):
                acts[normalize(phrase)] = e.activity
    words: dict[tuple[str, str], set[str]] = {}
    for r in world.relations:
        for w in (r.a_calls_b, r.kind):
            if w:
                words.setdefault((r.a, r.b), set()).add(normalize(w))
                words.setdefault((r.b, r.a), set()).add(normalize(w))
    return Cast(
        people=people,
        objects={normalize(o.name): o.id for o in world.objects},
        owner={o.id: o.owner for o in world.objects if o.owner},
        places={normalize(p.name): p.id for p in world.places},
        activities=acts,
        held_at=held,
        habits={p.id: {normalize(h) for h in p.habits} for p in world.people},
        relation_words=words,
        roles={p.id: _content_words(p.role) for p in world.people},
        referred=people | _descriptions(world),
        habit_of={normalize(h): p.id for p in world.people for h in p.habits},
        words=frozenset(
            {w for ws in words.values() for w in ws} | {normalize(w) for w in relation_lexicon()}
        ),
    )


def _descriptions(world: World) -> dict[str, str]:
    """The referring expressions questions use for people ("the woman with a ponytail"): the
    drawn cues of each person are part of the cast a viewer learns, so a description names them."""
    from mnemoforge.generators.referring import describe

    out = {}
    for p in world.people:
        d = describe(world, p.id)
        if d and normalize(d):
            out[normalize(d)] = p.id
    return out


def _content_words(text: str) -> set[str]:
    return {w for w in normalize(text).split() if w not in STOPWORDS and len(w) > 2}


_PATTERNS: dict[int, tuple[dict[str, str], re.Pattern[str] | None]] = {}
_FOUND: dict[tuple[int, str], list[str]] = {}


def _pattern(names: dict[str, str]) -> re.Pattern[str] | None:
    """One alternation of every name, longest first (a longer name wins where two start at one
    word), built once per names mapping (the Cast's mappings live as long as the Cast)."""
    got = _PATTERNS.get(id(names))
    if got is None or got[0] is not names:
        if len(_PATTERNS) > 64:
            _PATTERNS.clear()
            _FOUND.clear()
        alts = "|".join(re.escape(n) for n in sorted((n for n in names if n), key=len, reverse=True))
        got = _PATTERNS[id(names)] = (names, re.compile(rf"(?<!\w)(?:{alts})(?!\w)") if alts else None)
    return got[1]


def mentions(text: str, names: dict[str, str]) -> list[str]:
    """Ids of the names written in ``text`` (whole words, normalised), in order of appearance
    (memoised: a question's option sets are screened many times)."""
    pattern = _pattern(names)
    key = (id(names), text)
    if key not in _FOUND:
        found: list[str] = []
        for m in pattern.finditer(normalize(text)) if pattern else ():
            if names[m.group(0)] not in found:
                found.append(names[m.group(0)])
        if len(_FOUND) > 65536:
            _FOUND.clear()
        _FOUND[key] = found
    return _FOUND[key]


def _all_in(options: Sequence[str], names: dict[str, str]) -> list[list[str]] | None:
    """Each option's ids when every part of every option is one of ``names``; else None."""
    out = []
    for o in options:
        parts = answer_parts(o)
        if not parts or any(p not in names for p in parts):
            return None
        out.append([names[p] for p in parts])
    return out


def own_object(question: str, options: Sequence[str], cast: Cast) -> Scores:
    """ "What did X bring": the object X owns. "Who brought the O": O's owner."""
    objs = _all_in(options, cast.objects)
    if objs is not None:
        named = set(mentions(question, cast.referred))
        if not named:
            return None
        return [float(sum(cast.owner.get(o) in named for o in ids)) for ids in objs]
    people = _all_in(options, cast.people)
    asked = [o for o in mentions(question, cast.objects) if o in cast.owner]
    if people is None or not asked:
        return None
    return [float(sum(cast.owner[o] in ids for o in asked)) for ids in people]


def activity_place(question: str, options: Sequence[str], cast: Cast) -> Scores:
    """Where an activity happens: the place the theme holds it at most often (the only one where
    an activity is held at a single place)."""
    places = _all_in(options, cast.places)
    acts = mentions(question, cast.activities)
    if places is None or not acts:
        return None
    return [float(sum(cast.held_at.get(a, {}).get(p, 0) for a in acts for p in ids)) for ids in places]


def habit(question: str, options: Sequence[str], cast: Cast) -> Scores:
    """A habit option that is one of the named person's declared habits."""
    if not options or any(normalize(o) not in cast.habit_of for o in options):
        return None
    named = mentions(question, cast.referred)
    if not named:
        return None
    return [float(any(normalize(o) in cast.habits.get(p, set()) for p in named)) for o in options]


def relation(question: str, options: Sequence[str], cast: Cast) -> Scores:
    """Relation words: the word the two named people use for each other. People (or name sets):
    those related to the people the question names, the more of them the better (a spouse, a
    sibling join them; "who apart from A joined B" reads B's relatives as well as A's)."""
    named = mentions(question, cast.referred)
    if options and all(normalize(o) in cast.words for o in options):
        if len(named) < 2:
            return None
        pair = cast.relation_words.get((named[0], named[1]), set())
        return [float(normalize(o) in pair) for o in options]
    people = _all_in(options, cast.people)
    if people is None or not named:
        return None
    return [float(sum((n, p) in cast.relation_words for n in named for p in ids)) for ids in people]


def role(question: str, options: Sequence[str], cast: Cast) -> Scores:
    """People options: the one whose declared role shares the most words with the question
    ("who led the kitchen" → the chef's role)."""
    people = _all_in(options, cast.people)
    if people is None:
        return None
    asked = _content_words(question)
    return [float(sum(len(cast.roles.get(p, set()) & asked) for p in ids)) for ids in people]


SOLVERS: dict[str, Callable[[str, Sequence[str], Cast], Scores]] = {
    "own_object": own_object,
    "activity_place": activity_place,
    "habit": habit,
    "relation": relation,
    "role": role,
}


def tells(question: str, options: Sequence[str], world: World) -> dict[str, list[int]]:
    """Per applicable solver, its top options (indices) where it prefers some options to others."""
    cast = cast_of(world)
    out = {}
    for name, solver in SOLVERS.items():
        scores = solver(question, options, cast)
        if scores is None or len(set(scores)) < 2:
            continue
        top = max(scores)
        out[name] = [i for i, s in enumerate(scores) if s == top]
    return out
