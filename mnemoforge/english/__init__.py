"""The English realisation layer: every family's questions, options, captions, chat lines and
documents are worded through it (``docs/names-and-language.md``).

* :mod:`mnemoforge.english.words` — articles, plurals, ordinals, lists (``inflect``), verb forms
  and agreement (``lemminflect``), frequency phrases;
* :mod:`mnemoforge.english.fill` — templates filled with a theme's words, made to agree
  (determiners, possessives, doubled words, subject-verb agreement);
* :mod:`mnemoforge.english.check` — known broken patterns, for the tests and the gates;
* names and forms of address are in :mod:`mnemoforge.generators.names`.
"""

from mnemoforge.english.check import broken_patterns
from mnemoforge.english.fill import definite, fill, indefinite, possessive, takes_no_article, tidy
from mnemoforge.english.words import (
    article,
    count_noun,
    fix_articles,
    has_frequency,
    is_plural,
    join,
    ordinal,
    plural,
    verb_base,
    verb_form,
    with_article,
)

__all__ = [
    "article",
    "broken_patterns",
    "count_noun",
    "definite",
    "fill",
    "fix_articles",
    "has_frequency",
    "indefinite",
    "is_plural",
    "join",
    "ordinal",
    "plural",
    "possessive",
    "takes_no_article",
    "tidy",
    "verb_base",
    "verb_form",
    "with_article",
]
