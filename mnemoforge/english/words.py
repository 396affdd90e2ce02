"""English words for generated text: articles, plurals, ordinals and lists (on ``inflect``),
verb forms (on ``lemminflect``).

One helper for every family and renderer, so "an hour", "a university lecturer", "an HR manager",
"crampon sets need" and "did Chen Yu have a family dinner" come out right for any theme's words.
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from types import ModuleType
from typing import Any


def _import_inflect() -> ModuleType:
    """``inflect`` imported without ``typeguard``'s run-time checks: its ``@typechecked``
    decorators re-parse the module's source at import, about 3 s of CPU in every process that
    builds or collects the tests. Only argument type checks are skipped; results are the same."""
    if "inflect" in sys.modules:
        return sys.modules["inflect"]
    try:
        import typeguard
    except ImportError:  # pragma: no cover - inflect without typeguard
        import inflect

        return inflect
    original = typeguard.typechecked

    def passthrough(target: Any = None, **_: Any) -> Any:
        return target if target is not None else (lambda t: t)

    typeguard.typechecked = passthrough  # type: ignore[assignment]
    try:
        import inflect
    finally:
        typeguard.typechecked = original
    return inflect


_ENGINE = _import_inflect().engine()


@lru_cache(maxsize=4096)
def article(phrase: str) -> str:
    """The indefinite article ``a`` or ``an`` for ``phrase`` (by its pronunciation)."""
    phrase = phrase.strip()
    if not phrase:
        return "a"
    return _ENGINE.a(phrase).split(" ", 1)[0]


def with_article(phrase: str) -> str:
    """``phrase`` with its indefinite article: ``with_article("hour") == "an hour"``."""
    phrase = phrase.strip()
    return f"{article(phrase)} {phrase}"


@lru_cache(maxsize=4096)
def plural(noun: str, count: int = 2) -> str:
    """The plural of ``noun`` when ``count`` is not 1 (``plural("box") == "boxes"``)."""
    return noun if count == 1 else _ENGINE.plural_noun(noun) or noun


def count_noun(count: int, noun: str) -> str:
    """``"1 box"``, ``"3 boxes"``."""
    return f"{count} {plural(noun, count)}"


_ARTICLE_WORD = re.compile(r"(?<![\w'-])(an?|An?)\s+(?=([\w][\w'-]*))")


def fix_articles(text: str) -> str:
    """Re-choose every ``a``/``an`` in ``text`` for the word after it (``"a iron kettle"`` →
    ``"an iron kettle"``, ``"an user"`` → ``"a user"``); a capital ``A`` counts as an article only
    at the start of a sentence (so "plan A is" is left alone)."""

    def repl(m: re.Match[str]) -> str:
        word, nxt = m.group(1), m.group(2)
        start = text[: m.start()].rstrip()
        if word[0] == "A" and start and start[-1] not in ".!?:\"'(":
            return m.group(0)
        new = article(nxt)
        return (new.capitalize() if word[0] == "A" else new) + m.group(0)[len(word) :]

    return _ARTICLE_WORD.sub(repl, text)


def singular_noun(word: str) -> str | None:
    """The singular of a plural noun ("crampons" -> "crampon"), None when ``word`` is not plural."""
    return _ENGINE.singular_noun(word) or None


def ordinal(n: int) -> str:
    """``"first"``, ``"second"``, ``"twenty-first"``."""
    return str(_ENGINE.number_to_words(_ENGINE.ordinal(n)))


def join(items: list[str], conj: str = "and") -> str:
    """``"A"``, ``"A and B"``, ``"A, B and C"`` (no serial comma, as the answers are written)."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return items[0] if items else ""
    return ", ".join(items[:-1]) + f" {conj} " + items[-1]


@lru_cache(maxsize=4096)
def is_plural(phrase: str) -> bool:
    """The noun phrase ``phrase`` is plural by its last word ("crampon sets", "boxes"). A
    capitalised last word (a name: "Tomás Reyes", "Atlas Dashboard") counts as singular."""
    words = phrase.strip().split()
    if not words:
        return False
    last = words[-1].strip(".,;:!?")
    if not last.isalpha() or not last.islower() or not last.endswith("s"):
        return False
    from lemminflect import getLemma

    lemma = getLemma(last, upos="NOUN")
    return bool(lemma) and lemma[0] != last


@lru_cache(maxsize=4096)
def _verb_lemma(word: str) -> str:
    from lemminflect import getLemma

    out = getLemma(word, upos="VERB")
    return out[0] if out else word


def verb_base(phrase: str) -> str:
    """A verb phrase in its base form, for after "did" or "to": ``verb_base("had a family dinner")
    == "have a family dinner"``, ``verb_base("went rowing") == "go rowing"``."""
    head, _, rest = phrase.strip().partition(" ")
    base = _verb_lemma(head.lower()) if head else head
    return f"{base} {rest}".strip()


@lru_cache(maxsize=4096)
def verb_form(verb: str, tag: str) -> str:
    """``verb`` (any form) inflected to a Penn tag: ``VBD`` past, ``VBZ`` third person singular,
    ``VBP`` plural present, ``VBN`` past participle, ``VBG`` gerund."""
    from lemminflect import getInflection

    lemma = _verb_lemma(verb.lower())
    if lemma == "be":
        return {"VBD": "was", "VBZ": "is", "VBP": "are", "VBN": "been", "VBG": "being"}.get(tag, verb)
    out = getInflection(lemma, tag=tag)
    return out[0] if out else verb


@lru_cache(maxsize=4096)
def third_singular_lemma(word: str) -> str | None:
    """The lemma of ``word`` when it is a third-person-singular present verb ("needs" -> "need",
    "is" -> "be", "has" -> "have"), else None."""
    w = word.lower()
    if w in ("is", "was", "has", "does"):
        return {"is": "be", "was": "be", "has": "have", "does": "do"}[w]
    if not w.endswith("s") or not w.isalpha():
        return None
    lemma = _verb_lemma(w)
    return lemma if lemma != w and verb_form(lemma, "VBZ") == w else None


def plural_verb(word: str) -> str:
    """The plural-subject form of a third-person-singular verb: "needs" -> "need", "is" -> "are",
    "was" -> "were", "has" -> "have" (case kept for a leading capital)."""
    lemma = third_singular_lemma(word)
    if lemma is None:
        return word
    out = {"is": "are", "was": "were"}.get(word.lower()) or (lemma if lemma != "be" else "are")
    return out.capitalize() if word[:1].isupper() else out


@lru_cache(maxsize=1)
def _lexicon() -> dict[str, Any]:
    """``assets/lexicon/english.yaml``."""
    from pathlib import Path

    import yaml

    path = Path(__file__).resolve().parent.parent.parent / "assets" / "lexicon" / "english.yaml"
    return dict(yaml.safe_load(path.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _frequency_re() -> re.Pattern[str]:
    words = _lexicon()["frequency"]
    return re.compile(
        r"(?i)\b(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\b"
    )


def has_frequency(text: str) -> bool:
    """``text`` says how often ("every morning", "as always"; ``assets/lexicon/english.yaml``)."""
    return bool(_frequency_re().search(text))


PARTICLES = frozenset({"by", "to", "for", "with", "from", "at", "on", "in", "into", "under"})


@lru_cache(maxsize=1024)
def participle_phrase(label: str) -> bool:
    """``label`` is a verb phrase ending in a preposition ("covered by", "assigned to", "signed
    off by"), not a role noun ("lead", "point of contact"): it reads "who is X covered by", never
    "the covered by of X"."""
    words = label.lower().split()
    if len(words) < 2 or words[-1] not in PARTICLES:
        return False
    head = words[0]
    lemma = _verb_lemma(head)
    return lemma != head and verb_form(lemma, "VBN") == head


@lru_cache(maxsize=1024)
def locative(place: str) -> str:
    """``place`` with the preposition of being there: "in the dressing room", "in the boathouse
    kitchen" (a room: its last word is one of the lexicon's ``inside`` nouns or ends in "room"),
    else "at West Lake Park", "at the riverside", "at the parents' house"."""
    head = re.sub(r"['’]s?$", "", place.strip().split()[-1].lower()) if place.strip() else ""
    inside = head.endswith("room") or head in set(_lexicon()["inside"])
    return f"{'in' if inside else 'at'} {place.strip()}"
