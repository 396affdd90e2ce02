"""Answerers and judges for gates and diagnostics: symbolic, lexical (BM25), embedding, local model.

Heavy dependencies (sentence-transformers, transformers, llama-cpp) load lazily, on first use.
"""

from mnemoforge.validators.answerers.judges import ExactMatchJudge, ModelJudge, TokenF1Judge
from mnemoforge.validators.answerers.lexical import BM25, LexicalAnswerer
from mnemoforge.validators.answerers.panel import Panel, PanelResult, RotationEM, rotation_em
from mnemoforge.validators.answerers.protocol import (
    Answer,
    Answerer,
    Context,
    ContextItem,
    Judge,
    JudgeScore,
    MissingExtra,
)
from mnemoforge.validators.answerers.registry import ANSWERERS, make_answerer, register_answerer
from mnemoforge.validators.answerers.symbolic import SymbolicAnswerer

__all__ = [
    "ANSWERERS",
    "BM25",
    "Answer",
    "Answerer",
    "Context",
    "ContextItem",
    "ExactMatchJudge",
    "Judge",
    "JudgeScore",
    "LexicalAnswerer",
    "MissingExtra",
    "ModelJudge",
    "Panel",
    "PanelResult",
    "RotationEM",
    "SymbolicAnswerer",
    "TokenF1Judge",
    "make_answerer",
    "register_answerer",
    "rotation_em",
]
