"""The option-prior answerer: it reads only the option set, finds answers betrayed by how the
distractors were built, and abstains on balanced sets."""

from __future__ import annotations

import itertools

import pytest

from mnemoforge.schemas.theme import GateSpec
from mnemoforge.validators.answerers.option_prior import (
    OptionPriorAnswerer,
    near_variant_centre,
    slot_majority,
    sum_of_two,
    unique_form,
)
from mnemoforge.validators.answerers.protocol import Context
from mnemoforge.validators.answerers.registry import make_answerer

EMPTY = Context((), None, (), None)


@pytest.mark.parametrize(
    ("options", "prior"),
    [
        (["12", "5", "14", "7"], sum_of_two),  # the addends of a total are offered
        (
            ["Ana; Paris; 3", "Ben; Paris; 3", "Ana; Oslo; 3", "Ana; Paris; 5"],
            slot_majority,
        ),  # one slot per distractor
        (["$26.90", "$27.90", "$62.90", "$45.00"], near_variant_centre),  # misreads of the answer
        (["11:30", "noon", "evening", "morning"], None),  # a lone format among words: not judged (words vary)
        (["$12", "$15", "$18", "12 dollars"], unique_form),  # a lone format among figures is the answer here
    ],
)
def test_each_prior_finds_the_answer_whatever_the_order(options: list[str], prior) -> None:  # type: ignore[no-untyped-def]
    ans = OptionPriorAnswerer()
    picks = set()
    for perm in itertools.permutations(range(4)):
        opts = [options[i] for i in perm]
        got = ans.answer("q?", opts, EMPTY)
        picks.add(got.text if got.ok else None)
    if prior is None:
        assert picks == {None}
    else:
        assert prior(options) is not None
        expected = options[3] if prior is unique_form else options[0]
        assert picks == {expected}  # the same option under every order: a hit under all rotations


def test_balanced_option_sets_give_no_prior() -> None:
    ans = OptionPriorAnswerer()
    balanced = [
        [
            "Ana Lima; Nimbus Print",
            "Chloe Martin; Nimbus Print",
            "Ana Lima; Kestrel Cloud",
            "Chloe Martin; Kestrel Cloud",
        ],
        ["27-14", "27-13", "14-28", "14-27"],  # two options tie on near variants
        ["Prague", "Helsinki", "Stockholm", "Zurich"],
        ["9", "7", "8", "11"],
    ]
    for opts in balanced:
        got = ans.answer("q?", opts, EMPTY)
        assert not got.ok and got.choice is None, opts
    assert not ans.answer("open?", None, EMPTY).ok


def test_option_prior_is_on_the_default_option_only_panel_without_declaring_it() -> None:
    spec = GateSpec(answerers={"lexical": {}})  # a theme that lists only its own answerers
    assert "option_prior" in spec.panels["option_only"]
    assert set(spec.resolved_answerers()) >= {"lexical", "option_prior", "symbolic"}
    assert make_answerer("option_prior").id == "option_prior:v1"
    with pytest.raises(TypeError):
        make_answerer("option_prior", strength=2)
