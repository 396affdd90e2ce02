"""Fill an English template with a theme's words: the one place where slots meet grammar.

``fill("Did you bring the {object}, {other}?", slots)`` substitutes each ``{slot}`` and then makes
the sentence agree with what went in:

* a determiner before a value that takes none is dropped: a proper name or a possessive
  ("the Kenji's sketchbook" -> "Kenji's sketchbook", "my Brina's treat tin" -> "Brina's treat
  tin"), or a value that brings its own ("a the equipment store board" -> "the equipment store
  board");
* a word doubled across the join is said once ("the {noun} board" with "avalanche-risk board");
* a third-person-singular verb right after a plural value that opens a clause agrees with it
  ("{item} needs" with "crampon sets" -> "crampon sets need"; not "the date for {item} is", whose
  subject is "the date");
* ``a``/``an`` are chosen for the word after them, spacing is tidied and the first letter is a
  capital.

A slot may carry a form after a colon: ``{verb:base}`` (base form of a past-tense phrase:
"had a family dinner" -> "have a family dinner"), ``{verb:past}``, ``{noun:the}`` / ``{noun:a}``
(with the article it takes), ``{noun:pl}`` (plural), ``{name:s}`` (possessive: "Ode Varga's",
"James'"), ``{n:ordinal}`` ("third"), ``{place:at}`` (with the preposition of being there: "in the
dressing room", "at West Lake Park"); a plain "at {place}" takes "in" the same way where the value is
a room. Values are never parsed as templates.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from typing import Any

from mnemoforge.english.words import (
    fix_articles,
    is_plural,
    locative,
    ordinal,
    plural,
    plural_verb,
    third_singular_lemma,
    verb_base,
    verb_form,
    with_article,
)

DETERMINERS = frozenset({"the", "a", "an", "my", "your", "his", "her", "its", "our", "their", "this", "that"})
_TRAILING_DET = re.compile(r"(?i)(?:^|(?<=\s))(the|an?|my|your|his|her|its|our|their)\s+$")
_POSSESSIVE = re.compile(r"\w['’]s?\b")


def possessive(name: str) -> str:
    """``Ode Varga's``, ``James'``."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def takes_no_article(phrase: str) -> bool:
    """A noun phrase that takes no article or possessive before it: one that starts with a
    determiner, a proper name (a capital, or a letter of a script without case), or holds a
    possessive ("Kenji's sketchbook")."""
    words = phrase.strip().split()
    if not words:
        return False
    first = words[0]
    if first.lower() in DETERMINERS or _POSSESSIVE.search(phrase):
        return True
    ch = first[0]
    return ch.isupper() or (ch.isalpha() and not ch.islower())


def definite(phrase: str) -> str:
    """``the sketchbook``, ``Kenji's sketchbook``, ``West Lake Park``."""
    return phrase if takes_no_article(phrase) else f"the {phrase}"


def indefinite(phrase: str) -> str:
    """``an hour``, ``Kenji's sketchbook``."""
    return phrase if takes_no_article(phrase) else with_article(phrase)


FORMS: dict[str, Callable[[str], str]] = {
    "": lambda v: v,
    "base": verb_base,
    "past": lambda v: " ".join([verb_form(v.split()[0], "VBD"), *v.split()[1:]]) if v else v,
    "the": definite,
    "a": indefinite,
    "pl": plural,
    "s": possessive,
    "ordinal": lambda v: ordinal(int(v)),
    "at": locative,
}


def _first_word(text: str) -> str:
    m = re.match(r"\s*([\w'-]+)", text)
    return m.group(1) if m else ""


def _last_word(text: str) -> str:
    m = re.search(r"([\w'-]+)\s*$", text)
    return m.group(1) if m else ""


def fill(template: str, slots: Mapping[str, Any], capitalise: bool = True) -> str:
    """``template`` with its slots filled and made to agree (see the module docstring)."""
    out = ""
    prev: str | None = None  # the value just written, for the literal after it
    subject = False  # that value opens a clause (it may be the subject of the verb after it)
    for literal, field, spec, _conv in string.Formatter().parse(template):
        if prev is not None:
            literal = _after_value(prev, literal, subject)
        out += literal
        prev = None
        if field is None:
            continue
        value = FORMS[spec or ""](str(slots[field]))
        if not spec and _AT.search(out) and locative(value).startswith("in "):  # "in the ward"
            out = _AT.sub(lambda m: m.group(1) + ("In " if m.group(2) == "At" else "in "), out)
        if value and takes_no_article(value) and spec not in ("base", "past"):
            out = _TRAILING_DET.sub("", out)
        last = _last_word(out)
        if last and last.lower() == _first_word(value).lower() and out.endswith(" "):
            out = out[: len(out) - len(last) - 1]
        subject = _CLAUSE_START.search(out) is not None
        out += value
        prev = value
    return tidy(out, capitalise)


_AT = re.compile(r"(^|\s)(at|At) $")
_CLAUSE_START = re.compile(r"(^|[,;:.!?]\s*|\b(and|but|so|then|because|while|when|that)\s+)$", re.I)


def _after_value(value: str, literal: str, subject: bool) -> str:
    """The literal after ``value`` with a doubled word dropped and, where ``value`` opens a clause,
    its verb agreeing."""
    word = _first_word(literal)
    if word and word.lower() == _last_word(value).lower() and literal.startswith(" "):
        literal = literal[1 + len(word) :]
        word = _first_word(literal)
    if subject and word and literal.startswith(" ") and is_plural(value) and third_singular_lemma(word):
        literal = " " + plural_verb(word) + literal[1 + len(word) :]
    return literal


def tidy(text: str, capitalise: bool = True) -> str:
    """Articles re-chosen, doubled spaces and spaces before punctuation gone, first letter a
    capital."""
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"\s+([?,.;:!])", r"\1", text).strip()
    text = fix_articles(text)
    return text[:1].upper() + text[1:] if capitalise and text else text
