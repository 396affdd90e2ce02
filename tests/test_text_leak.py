"""The text-leak check of the text_only_clue gate matches answer *values*, whole: words a value
shares with a source title, a tool name or an argument name are no leak."""

from __future__ import annotations

import datetime as dt
import json

from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.validators.panel_gates import answer_values, text_leak

CALL = json.dumps(
    [{"name": "update_roster", "arguments": {"shift": "Saturday morning", "staff": ["Priya Nair"], "n": 2}}]
)


def _q(answer: str) -> Question:
    return Question(
        id="q1",
        family="smm",
        category="function_calling",
        question="?",
        answer=answer,
        target_people=[],
        evidence=["o1"],
        facts_read=["f1"],
        cutoff=None,
        program=Program(fn="function_call"),
        lineage=Lineage(template="t", seed=0, program_hash="p", world_hash="w", answer_hash="a"),
    )


def _obs(content: str) -> Observation:
    return Observation(
        id="o1",
        source="roster",
        episode="roster",
        kind="table",
        timestamp=dt.datetime(2027, 1, 4, 9),
        order=0,
        content=content,
        expresses=[Expression(fact="f1", channel=Channel.pixel)],
    )


def test_values_of_a_call_list_are_its_argument_values() -> None:
    assert answer_values(CALL) == ["Saturday morning", "Priya Nair", "2"]
    assert answer_values("Oslo; Lisbon") == ["Oslo", "Lisbon"]


def test_label_words_shared_with_the_answer_are_no_leak() -> None:
    q = _q(CALL)
    assert text_leak(q, [_obs("[Table 3] Shift roster - update of the morning staff list")]) == ""
    assert text_leak(_q("North slip"), [_obs("[Photo 2] Slip photos")]) == ""


def test_a_stated_value_is_a_leak() -> None:
    assert "Priya Nair" in text_leak(_q(CALL), [_obs("[Table 3] Priya  Nair's roster")])
    assert text_leak(_q("North slip"), [_obs("The berth is north-slip now [Photo 2]")])
