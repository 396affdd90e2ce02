"""Text normalisation shared by generators (options, distractor rules), the lexical answerer and the
judges (pure, deterministic)."""

from __future__ import annotations

import re
import string
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import snowballstemmer

ARTICLES = {"a", "an", "the"}
NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
STOPWORDS = ARTICLES | set(
    "and or of to in on at for with by from as is are was were be been did do does done has have had "
    "it its this that these those what which who whom whose when where why how he she they them his "
    "her their i you we me my our your not no so if then than into about across".split()
)
_PUNCT = str.maketrans({c: " " for c in string.punctuation + "\u2018\u2019\u201c\u201d\u2013\u2014"})
_SET_SPLIT = re.compile(r"\s*(?:,|;|&|\band\b|\bplus\b)\s*")


# _fold, normalize and answer_parts are pure and called on the same few thousand option and
# answer strings over and over (option draws, judges, option-prior screens): cached per process
@lru_cache(maxsize=65536)
def _fold(text: str) -> str:
    """Lowercase, strip accents and possessive 's."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return re.sub(r"(\w)['\u2019]s\b", r"\1", text)


@lru_cache(maxsize=65536)
def normalize(text: str) -> str:
    """SQuAD-style normalisation: lowercase, no punctuation, no articles, number words as digits."""
    words = _fold(text).translate(_PUNCT).split()
    return " ".join(NUMBER_WORDS.get(w, w) for w in words if w not in ARTICLES)


@lru_cache(maxsize=65536)
def answer_parts(text: str) -> frozenset[str]:
    """A name list ("A, B and C") as a set of normalised parts; a single answer is a 1-set."""
    parts = (normalize(p) for p in _SET_SPLIT.split(_fold(text)))
    return frozenset(p for p in parts if p)


_LOCAL = threading.local()


def _porter2() -> snowballstemmer.stemmer:
    """One stemmer per thread: a Snowball stemmer keeps its cursor in the object, so two threads
    (panels ask answerers concurrently) sharing one corrupt each other's words."""
    st = getattr(_LOCAL, "stemmer", None)
    if st is None:
        st = _LOCAL.stemmer = snowballstemmer.stemmer("english")
    return st


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter2 (Snowball English) stem: 'rows' ~ 'rowing' ~ 'rowed' ~ 'row'."""
    return _porter2().stemWord(word)


_NAME = re.compile(r"(?<!^)\b[A-Z][\w'\u2019-]*")


def proper_nouns(texts: Iterable[str]) -> frozenset[str]:
    """Folded words written capitalised after the start of a sentence in any of ``texts``
    (names such as James or Charles), to keep unstemmed across the whole corpus."""
    out: set[str] = set()
    for text in texts:
        for sent in sentences(text):
            out.update(_fold(m.group(0)).translate(_PUNCT).strip() for m in _NAME.finditer(sent))
    return frozenset(w for w in out if w and " " not in w)


def tokens(text: str, *, keep_stopwords: bool = False, names: frozenset[str] = frozenset()) -> list[str]:
    """Index tokens: normalised words, stopwords dropped (unless asked), Porter2-stemmed except
    ``names`` (from :func:`proper_nouns`), so 'james' is not read as 'jame' nor 'charles' as 'charl'."""
    words = normalize(text).split()
    return [w if w in names else stem(w) for w in words if keep_stopwords or w not in STOPWORDS]


def sentences(text: str) -> list[str]:
    """Split text into sentences (on . ! ? ; and newlines), keeping non-empty ones."""
    return [s.strip() for s in re.split(r"(?<=[.!?;])\s+|\n+", text) if s.strip()]
