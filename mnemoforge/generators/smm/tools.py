"""The smm family's function calling under the name its dataset cards give users
(``mnemoforge.generators.smm.tools.score_calls``, in every smm release's README): the code is the
shared tool-call answer kind, ``mnemoforge.generators.tool_calls``, which evaluation scores for any
family; this module keeps the released instructions working."""

from mnemoforge.generators.tool_calls import (
    call_plan,
    normalise_call,
    normalise_value,
    parse_calls,
    score_calls,
    tools_of,
    typed,
    validate_calls,
)

__all__ = [
    "call_plan",
    "normalise_call",
    "normalise_value",
    "parse_calls",
    "score_calls",
    "tools_of",
    "typed",
    "validate_calls",
]
