"""Relation words: their gender and what each implies (``assets/lexicon/relations.yaml``), for
distractor rules (a word also true under the ontology is never a distractor) and the cast prior."""

from __future__ import annotations

from functools import lru_cache

from mnemoforge import yaml_io
from mnemoforge.theme_io import ASSETS

RELATIONS_FILE = ASSETS / "lexicon" / "relations.yaml"


@lru_cache(maxsize=1)
def relation_lexicon() -> dict[str, dict]:
    """Relation words with their gender and implications (``assets/lexicon/relations.yaml``)."""
    data = yaml_io.safe_load(RELATIONS_FILE.read_text(encoding="utf-8"))
    return {str(k): dict(v or {}) for k, v in data.items()}


def implied(word: str) -> set[str]:
    """Every relation word that ``word`` implies, transitively ("boss" ⇒ manager ⇒ colleague)."""
    lex, out, todo = relation_lexicon(), set(), [word]
    while todo:
        for w in lex.get(todo.pop(), {}).get("implies", []):
            if w not in out:
                out.add(w)
                todo.append(w)
    return out


def also_true_relation(answer: str, word: str) -> bool:
    """``word`` would also be a right answer: equal, implied by the answer, or implying it."""
    return word == answer or word in implied(answer) or answer in implied(word)


def gender_agrees(word: str, gender: str) -> bool:
    g = relation_lexicon().get(word, {}).get("gender")
    return g is None or g == gender
