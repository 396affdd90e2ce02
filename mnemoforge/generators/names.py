"""People's names: their parts, the form a speaker uses, and how a name is said aloud.

A cast member's name has separate parts (``given``, ``family``, ``title``, ``aliases``; see
``docs/names-and-language.md``). A theme may give them, or only ``name``; then the parts are
read from it (:func:`split_name`): leading words found in ``assets/lexicon/names.yaml``
(``titles``) are the title, and of the rest the last word is the family name and the words
before it the given name (``name_order: family_first`` reverses that: the first word is the
family name). A one-word name is a given name. A name that is only a title is refused.

:func:`form` gives the form a speaker would use in a register:

============ =================================== ==========================
register     rule                                "Dr. Amara Okafor" (alias "Ama")
============ =================================== ==========================
``full``     the display name                    Dr. Amara Okafor
``plain``    given and family, no title          Amara Okafor
``formal``   title and family, else ``plain``    Dr. Okafor
``colleague`` the given name                      Amara
``friend``   an alias, else the given name       Ama
``given``    the given name                      Amara
============ =================================== ==========================

With ``name_order: family_first`` the ``colleague``, ``friend`` and ``given`` forms are the whole
name without title (a colleague says "王芳", not "芳"), unless a friend has an alias to use. A form never is
a bare title, and when ``among`` is given a short form another person shares falls back to the
``plain`` name. :func:`register_between` picks the register from the relation between speaker
and addressee (``assets/lexicon/names.yaml``, ``registers``; a relation's ``address`` wins).

Speech: :func:`speech_text` turns a line into what an English voice is given to read. Each
person's written forms are replaced by their spoken forms (the theme's ``spoken`` name, or the
``anyascii`` transliteration of the name); any other character outside the Latin script is
transliterated too (Han characters one syllable at a time, so "王芳" is read "Wang Fang").
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal, Protocol

import yaml

NAMES_FILE = Path(__file__).resolve().parent.parent.parent / "assets" / "lexicon" / "names.yaml"
Register = Literal["full", "plain", "formal", "colleague", "friend", "given"]
REGISTERS: tuple[Register, ...] = ("full", "plain", "formal", "colleague", "friend", "given")
NameOrder = Literal["given_first", "family_first"]


class Named(Protocol):
    """A cast member as the theme (``PersonSpec``) or the World (``Person``) holds it."""

    id: str
    name: str
    aliases: list[str]


@functools.cache
def lexicon() -> dict[str, Any]:
    """``assets/lexicon/names.yaml``: titles, and registers by relation kind."""
    with NAMES_FILE.open(encoding="utf-8") as f:
        return yaml.safe_load(f)


@functools.cache
def _titles() -> frozenset[str]:
    return frozenset(t.casefold() for t in lexicon()["titles"])


def is_title(word: str) -> bool:
    """``word`` is a title ("Dr.", "Capt.", "Professor") in the names lexicon."""
    return word.casefold() in _titles()


@functools.cache
def script_of(ch: str) -> str:
    """The Unicode script word of a letter or mark ("LATIN", "ARABIC", "CJK", "DEVANAGARI"); ""
    for anything else (digits, punctuation, combining accents of no script)."""
    if unicodedata.category(ch)[0] not in "LM":
        return ""
    try:
        first = unicodedata.name(ch).split()[0]
    except ValueError:
        return ""
    if first == "COMBINING":
        return ""
    return "CJK" if first in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL") else first


def scripts(text: str) -> set[str]:
    """Every script among the letters of ``text``."""
    return {s for s in map(script_of, text) if s}


def _joiner(a: str, b: str) -> str:
    """No space between two parts written in Han characters (王 + 芳 = 王芳), else one."""
    return "" if a and b and scripts(a + b) == {"CJK"} else " "


def compose(given: str, family: str, title: str = "", order: NameOrder = "given_first") -> str:
    """The display name from its parts (title first; family first when ``order`` says so)."""
    first, second = (family, given) if order == "family_first" else (given, family)
    core = (first + _joiner(first, second) + second).strip() if first and second else first or second
    return f"{title} {core}".strip() if title else core


@dataclass(frozen=True)
class NameParts:
    """A person's resolved name parts (``title`` and ``family`` may be "")."""

    name: str
    given: str
    family: str
    title: str
    order: NameOrder
    aliases: tuple[str, ...]

    @property
    def plain(self) -> str:
        return compose(self.given, self.family, "", self.order)


def split_name(name: str, order: NameOrder = "given_first") -> tuple[str, str, str]:
    """(given, family, title) read from a display name (the rule in the module docstring).

    Raises ``ValueError`` for a name that is only a title."""
    words = name.split()
    k = 0
    while k < len(words) and is_title(words[k]):
        k += 1
    title, rest = " ".join(words[:k]), words[k:]
    if not rest:
        raise ValueError(f"{name!r} is only a title; give the person's given or family name too")
    if len(rest) == 1:
        return rest[0], "", title
    if order == "family_first":
        return " ".join(rest[1:]), rest[0], title
    return " ".join(rest[:-1]), rest[-1], title


def parts(p: Any) -> NameParts:
    """The resolved parts of a theme ``PersonSpec`` or a World ``Person`` (declared ones win)."""
    order: NameOrder = getattr(p, "name_order", None) or "given_first"
    given, family, title = getattr(p, "given", None), getattr(p, "family", None), getattr(p, "title", None)
    if not given and not family:  # none declared (a World person keeps "")
        given, family, derived_title = split_name(p.name, order)
        title = derived_title if title is None else title
    return NameParts(p.name, given or "", family or "", title or "", order, tuple(p.aliases))


def _plain_or_name(n: NameParts) -> str:
    return n.plain or n.name


def form(p: Any, register: Register = "colleague", among: Iterable[Any] = ()) -> str:
    """The form of ``p``'s name a speaker uses in ``register`` (table in the module docstring).

    ``among``: the other people in view; a short form one of them shares (two "Anna"s, an alias
    equal to someone's given name) becomes the ``plain`` name. Never a bare title."""
    n = parts(p)
    if register == "full":
        return n.name
    if register == "plain":
        return _plain_or_name(n)
    if register == "formal":
        out = f"{n.title} {n.family}" if n.title and n.family else _plain_or_name(n)
    elif register == "friend" and n.aliases:
        out = n.aliases[0]
    elif n.order == "family_first" or not n.given:
        out = _plain_or_name(n)
    else:
        out = n.given
    if register in ("colleague", "friend", "given") and out != _plain_or_name(n):
        key = out.casefold()
        for q in among:
            if q.id != p.id and key in {f.casefold() for f in _short_forms(q)}:
                return _plain_or_name(n)
    return out


def _short_forms(p: Any) -> set[str]:
    n = parts(p)
    out = {n.given, n.family, *n.aliases} - {""}
    return out


def forms(p: Any) -> list[str]:
    """Every written form of ``p``'s name, longest first (for checks and speech)."""
    n = parts(p)
    out = {form(p, r) for r in REGISTERS} | set(n.aliases) | ({n.family} if n.family else set())
    return sorted(out, key=lambda s: (-len(s), s))


def register_between(relations: Iterable[Any], speaker: str, addressee: str) -> Register:
    """How ``speaker`` addresses (or speaks of) ``addressee``: a relation's ``address`` when set,
    else the lexicon's register of its kind or ``a_calls_b`` word (``formal`` before ``friend``),
    else ``colleague``. A relation counts from either side."""
    regs = lexicon()["registers"]
    formal = {k.casefold() for k in regs["formal"]}
    friend = {k.casefold() for k in regs["friend"]}
    found: Register = "colleague"
    for r in relations:
        if {r.a, r.b} != {speaker, addressee} or speaker == addressee:
            continue
        declared = getattr(r, "address", None)
        if declared in ("formal", "colleague", "friend"):
            return declared  # type: ignore[no-any-return]
        words = {r.kind.casefold(), (r.a_calls_b or "").casefold()}
        if words & formal:
            return "formal"
        if words & friend:
            found = "friend"
    return found


def addressed(world_or_theme: Any, speaker: str, pid: str) -> str:
    """The form of person ``pid``'s name that ``speaker`` uses (their relation's register), told
    apart from the rest of the cast. ``world_or_theme``: a World (``people``) or a Theme (``cast``)."""
    people = getattr(world_or_theme, "people", None) or world_or_theme.cast
    person = next(p for p in people if p.id == pid)
    return form(person, register_between(world_or_theme.relations, speaker, pid), among=people)


# ------------------------------------------------------------------------------------------ speech


def _is_latin(ch: str) -> bool:
    return ch.isascii() or script_of(ch) in ("LATIN", "")


@functools.cache
def _anyascii(text: str) -> str:
    from anyascii import anyascii

    return anyascii(text)


def transliterate(text: str) -> str:
    """``text`` with every letter outside the Latin script in Latin letters (``anyascii``); Han
    characters are read one syllable at a time ("王芳" -> "Wang Fang"). Latin text is kept as is
    (accents included: an English voice reads "Anaïs")."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if _is_latin(ch):
            out.append(ch)
            i += 1
            continue
        j = i
        while j < len(text) and not _is_latin(text[j]):
            j += 1
        run = text[i:j]
        if scripts(run) == {"CJK"}:
            syl = [_anyascii(c) for c in run if c.strip()]
            word = " ".join(s[:1].upper() + s[1:].lower() for s in syl if s)
        else:
            word = _anyascii(run)
            word = word[:1].upper() + word[1:] if run[:1].isalpha() else word
        out.append(word)
        i = j
    return re.sub(r"[ \t]{2,}", " ", "".join(out))


def spoken_parts(p: Any) -> NameParts:
    """The parts of ``p``'s name as said: read from the theme's ``spoken`` name with the same rule
    as ``name``, else each part transliterated."""
    n = parts(p)
    said = getattr(p, "spoken", None)
    if said:
        given, family, title = split_name(said, n.order)
        if not n.family and family:  # a one-word name said in several words ("王芳": "Wang Fang")
            given, family = said.split(None, len(title.split()))[-1] if title else said, ""
        title = title or transliterate(n.title)
    else:
        given, family, title = transliterate(n.given), transliterate(n.family), transliterate(n.title)
    aliases = tuple(transliterate(a) for a in n.aliases)
    return NameParts(compose(given, family, title, n.order), given, family, title, n.order, aliases)


def spoken_forms(p: Any) -> list[tuple[str, str]]:
    """(written form, spoken form) pairs of ``p``'s name, longest written form first."""
    return list(_spoken_forms(_name_key(p)))


def _name_key(p: Any) -> tuple:
    """What :func:`parts` and :func:`spoken_parts` read of ``p`` (a theme or World person)."""
    get = functools.partial(getattr, p)
    return (p.name, get("name_order", None), get("given", None), get("family", None),
            get("title", None), tuple(p.aliases), get("spoken", None))  # fmt: skip


@functools.lru_cache(maxsize=4096)
def _spoken_forms(key: tuple) -> tuple[tuple[str, str], ...]:
    name, name_order, given, family, title, aliases, spoken = key
    p = SimpleNamespace(name=name, name_order=name_order, given=given, family=family, title=title,
                        aliases=list(aliases), spoken=spoken)  # fmt: skip
    n, s = parts(p), spoken_parts(p)
    pairs = {n.name: s.name, n.plain: s.plain, n.given: s.given, n.family: s.family}
    if n.title and n.family:
        pairs[f"{n.title} {n.family}"] = f"{s.title} {s.family}"
    pairs |= dict(zip(n.aliases, s.aliases, strict=True))
    return tuple(sorted(((w, x) for w, x in pairs.items() if w and x), key=lambda t: (-len(t[0]), t[0])))


def speech_text(text: str, people: Sequence[Any]) -> str:
    """What an English voice is given to say for ``text``: names in their spoken forms, any other
    letter outside the Latin script transliterated (see the module docstring). Worked out once
    per text and cast (a plan asks the same lines' lengths again and again)."""
    return _speech_text(text, tuple(map(_name_key, people)))


@functools.lru_cache(maxsize=1 << 16)
def _speech_text(text: str, keys: tuple[tuple, ...]) -> str:
    changed = [(w, s) for w, s in _renamed(keys) if w in text]
    if changed:
        pattern = re.compile("|".join(re.escape(w) for w, _ in changed))
        table = dict(changed)
        text = pattern.sub(lambda m: table[m.group(0)], text)
    return transliterate(text) if not all(map(_is_latin, text)) else text


@functools.lru_cache(maxsize=256)
def _renamed(keys: tuple[tuple, ...]) -> tuple[tuple[str, str], ...]:
    """The (written, spoken) pairs of a cast that differ, longest written form first."""
    pairs = sorted((pr for k in keys for pr in _spoken_forms(k)), key=lambda t: (-len(t[0]), t[0]))
    return tuple((w, s) for w, s in pairs if w != s)


# ------------------------------------------------------------------------------------------ checks


def says_name(p: Any, text: str) -> bool:
    """Whether ``text`` states ``p``'s name as answers and options write it: the display name or
    the plain name (given and family). An alias ("Dad"), a given name alone ("Amara") or a title
    with the family name ("Dr. Okafor") addresses the person without telling a listener which
    name in a list of names is theirs, so it binds no face to a name."""
    return any(re.search(rf"(?<!\w){re.escape(f)}(?!\w)", text) for f in {p.name, parts(p).plain} if f)


def bare_titles(text: str, people: Iterable[Any]) -> list[str]:
    """Titles of ``people`` standing in ``text`` with no name after them ("Dr., say hello")."""
    found = []
    for p in people:
        title = parts(p).title
        if not title:
            continue
        for m in re.finditer(rf"(?<!\w){re.escape(title)}(?!\w)", text):
            after = text[m.end() :].lstrip()
            if not after or not after[0].isalpha() or after[0].islower():
                found.append(f"bare title {title!r} ({p.id})")
                break
    return found
