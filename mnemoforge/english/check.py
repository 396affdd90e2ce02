"""Known broken patterns in generated English text, for every family's templates.

A realised text must not contain a determiner before a proper name ("the Ode Varga") or a
possessive ("the Kenji's sketchbook", "my Brina's treat tin"), two determiners in a row ("a the"),
a noun phrase of itself ("the host of the host visit"), a doubled word ("the the", "board board"),
a past tense after "did" ("did Chen Yu had"), a verb phrase used as a role noun ("the covered by
of"), an empty slot (doubled spaces, a space before punctuation, a leftover ``{field}``) or a
function-call tail. :func:`broken_patterns` lists what it finds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_DOUBLED = re.compile(r"\b(\w+)\s+\1\b", re.I)
_SELF_OF = re.compile(r"\bthe (\w+) of the \1\b", re.I)
_EMPTY = re.compile(r"\s{2,}|\s[?,.;:!]|\{\w*\}|\(\s*\)")
_DET_DET = re.compile(r"\b(a|an|the|my)\s+(a|an|the|my)\b", re.I)
_DET_POSSESSIVE = re.compile(r"\b(the|a|an|my|your|our)\s+[A-Z][\w-]*(\s+[A-Z][\w-]*)*'s?\b")
_ROLE_VERB = re.compile(r"\bthe\s+\w+ed\s+(by|to|for|with)\s+of\b", re.I)
# "did" + its subject (a name's capitalised words, or a pronoun) + a verb
_SUBJECT = r"(?:[A-Z\u0080-\uffff][^\s?,.]*\s+){1,4}?|(?:he|she|they|you|we|I|it)\s+"
_DID = re.compile(rf"\b[Dd]id\s+({_SUBJECT})([a-z]+)\b")


def broken_patterns(text: str, proper_names: Iterable[str] = ()) -> list[str]:
    """Every known broken pattern in ``text``; ``proper_names`` are names that take no article."""
    found = []
    m = _DOUBLED.search(text)
    if m:
        found.append(f"doubled word {m.group(0)!r}")
    m = _SELF_OF.search(text)
    if m:
        found.append(f"'the X of the X': {m.group(0)!r}")
    if _EMPTY.search(text):
        found.append("empty slot or stray spacing")
    for pattern, what in ((_DET_DET, "two determiners"), (_DET_POSSESSIVE, "determiner before a possessive"),
                          (_ROLE_VERB, "verb phrase as a role noun")):  # fmt: skip
        m = pattern.search(text)
        if m:
            found.append(f"{what}: {m.group(0)!r}")
    for m in _DID.finditer(text):
        if _past_tense(m.group(2)):
            found.append(f"past tense after 'did': {m.group(0)!r}")
    for name in proper_names:
        if name and name[0].isupper() and re.search(rf"\b(the|a|an)\s+{re.escape(name)}\b", text, re.I):
            found.append(f"determiner before the proper name {name!r}")
    return found


def _past_tense(word: str) -> bool:
    from mnemoforge.english.words import _verb_lemma, verb_form

    lemma = _verb_lemma(word)
    return lemma != word and verb_form(lemma, "VBD") == word
