"""Re-export of :mod:`mnemoforge.textnorm` (moved below generators and validators, which both
normalise answers and options)."""

from mnemoforge.textnorm import (
    ARTICLES,
    NUMBER_WORDS,
    STOPWORDS,
    answer_parts,
    normalize,
    proper_nouns,
    sentences,
    stem,
    tokens,
)

__all__ = [
    "ARTICLES",
    "NUMBER_WORDS",
    "STOPWORDS",
    "answer_parts",
    "normalize",
    "proper_nouns",
    "sentences",
    "stem",
    "tokens",
]
