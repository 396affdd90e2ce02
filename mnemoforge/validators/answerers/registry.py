"""Answerers registered by name, built from config (``make_answerer("lexical", top_k=5)``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnemoforge.schemas.build_settings import OPTION_SOLVER_NAMES
from mnemoforge.validators.answerers.protocol import Answerer


def _symbolic(**config: Any) -> Answerer:
    from mnemoforge.validators.answerers.symbolic import SymbolicAnswerer

    if config:
        raise TypeError(f"the symbolic answerer takes no config, got {sorted(config)}")
    return SymbolicAnswerer()


def _lexical(**config: Any) -> Answerer:
    from mnemoforge.validators.answerers.lexical import LexicalAnswerer

    return LexicalAnswerer(**config)


def _embedding(**config: Any) -> Answerer:
    from mnemoforge.validators.answerers.embedding import EmbeddingAnswerer

    return EmbeddingAnswerer(**config)


def _local(**config: Any) -> Answerer:
    from mnemoforge.validators.answerers.local_model import LocalModelAnswerer

    return LocalModelAnswerer(**config)


def _option_prior(**config: Any) -> Answerer:
    from mnemoforge.validators.answerers.option_prior import OptionPriorAnswerer

    if config:
        raise TypeError(f"the option_prior answerer takes no config, got {sorted(config)}")
    return OptionPriorAnswerer()


def _option_solver(solver: str) -> Callable[..., Answerer]:
    def make(**config: Any) -> Answerer:
        from mnemoforge.validators.answerers.option_solvers import OptionSolverAnswerer

        return OptionSolverAnswerer(solver, **config)

    return make


def _text_retrieval_minilm(**config: Any) -> Answerer:
    from mnemoforge.validators.answerers.retrieval import MiniLMRetrievalAnswerer

    return MiniLMRetrievalAnswerer(**config)


def _centroid_minilm(**config: Any) -> Answerer:
    from mnemoforge.validators.answerers.option_solvers import OptionSolverAnswerer

    return OptionSolverAnswerer("centroid", **{"similarity": "minilm", "optional": True, **config})


OPTION_SOLVERS = OPTION_SOLVER_NAMES
"""The option-only solvers of :mod:`option_solvers`, each a built-in answerer ``solver_<name>``
(config: ``margin``, ``similarity`` lexical|minilm)."""

ANSWERERS: dict[str, Callable[..., Answerer]] = {
    **{f"solver_{name}": _option_solver(name) for name in OPTION_SOLVERS},
    "solver_centroid_minilm": _centroid_minilm,
    "text_retrieval_minilm": _text_retrieval_minilm,
    "option_prior": _option_prior,
    "symbolic": _symbolic,
    "lexical": _lexical,
    "embedding": _embedding,
    "local": _local,
}


def register_answerer(name: str, factory: Callable[..., Answerer]) -> None:
    """Add a plugin answerer (e.g. a chat-model client) under a new name."""
    if name in ANSWERERS:
        raise ValueError(f"answerer {name!r} is already registered")
    ANSWERERS[name] = factory


def make_answerer(name: str, **config: Any) -> Answerer:
    """Build a registered answerer; unknown names raise ``KeyError`` listing the known ones.

    Model-backed answerers raise ``MissingExtra`` naming the extra to install when their
    packages are absent; heavy imports happen only here, never at package import.
    """
    if name not in ANSWERERS:
        raise KeyError(f"unknown answerer {name!r}; known: {', '.join(sorted(ANSWERERS))}")
    return ANSWERERS[name](**config)
