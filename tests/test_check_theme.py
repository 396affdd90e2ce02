"""``check_theme`` for smm and memeye: malformed-but-parseable themes are reported with the field
and a fix (at load or in the dry run), never left to crash the build; well-formed ones pass."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from mnemoforge import yaml_io
from mnemoforge.generators.families import get_family
from mnemoforge.theme_io import ThemeError, parse_theme

from .conftest import TEST_THEMES

FERRY = yaml_io.safe_load((TEST_THEMES / "ferry_crew.yaml").read_text())
BAKERY = yaml_io.safe_load((TEST_THEMES / "bakery_log.yaml").read_text())


def _problems(data: dict[str, Any]) -> list[str]:
    """Load problems, else the family's dry-run problems."""
    try:
        theme = parse_theme(data, Path("t.yaml"))
    except ThemeError as e:
        return [str(e)]
    return get_family(theme.family).check_theme(theme)


def _ferry(edit: Any) -> dict[str, Any]:
    d = copy.deepcopy(FERRY)
    edit(d["smm"])
    return d


def _bakery(edit: Any) -> dict[str, Any]:
    d = copy.deepcopy(BAKERY)
    edit(d["memeye"])
    return d


def _kind(s: dict, kind: str) -> dict:
    return next(k for k in s["entity_kinds"] if k["kind"] == kind)


CASES = [
    (  # a `calls` binding typed person on a `membership: many` kind (was KeyError: None in the build)
        "person_on_many",
        lambda: _ferry(lambda s: s["calls"][1]["arguments"].update(run="person")),
        ["membership: many", "smm.calls.1.arguments.run"],
    ),
    (
        "route_update_below_stale",
        lambda: _ferry(lambda s: s["conflicts"][0].update(stale="sailing_roster", update="deck_chat")),
        ["smm.conflicts.0.update", "authority"],
    ),
    (
        "route_immutable",
        lambda: _ferry(
            lambda s: s["conflicts"].append(
                {
                    "entity": "islet_crossing",
                    "key": "vessel",
                    "stale": "deck_chat",
                    "update": "sailing_roster",
                }
            )
        ),
        ["smm.conflicts.2.key", "mutable: true"],
    ),
    (
        "fixed_value_not_in_pool",
        lambda: _ferry(lambda s: s["entities"][0]["values"].update(vessel="Albatross")),
        ["smm.entities.0.values.vessel", "add it"],
    ),
    (
        "fixed_person_wrong_role",
        lambda: _ferry(lambda s: s["entities"][0]["values"].update(mate="olu_adeyemi")),
        ["smm.entities.0.values.mate", "purser"],
    ),
    (
        "unknown_role",
        lambda: _ferry(lambda s: _kind(s, "crossing")["attributes"][1].update(roles=["captain"])),
        ["roles", "captain"],
    ),
    (
        "unknown_pack",
        lambda: _ferry(lambda s: s.update(pack="no_such_pack")),
        ["smm.pack", "no_such_pack"],
    ),
    (  # a scene name with a drawn value word (was ValueError: ... visual value words ['first'])
        "scene_names_a_position",
        lambda: _bakery(lambda m: m["scenarios"][1]["scenes"].__setitem__(0, "the first cupboard")),
        ["memeye.scenarios.1.scenes.0", "'first'", "earliest"],
    ),
    (
        "scene_names_an_item",
        lambda: _bakery(lambda m: m["scenarios"][0]["scenes"].__setitem__(1, "the basket corner")),
        ["memeye.scenarios.0.scenes.1", "'basket'"],
    ),
    (
        "assistant_named_a_colour",
        lambda: _bakery(lambda m: m.update(assistant="Teal")),
        ["memeye.assistant", "'teal'"],
    ),
]


@pytest.mark.parametrize(("name", "make", "needles"), CASES, ids=[c[0] for c in CASES])
def test_malformed_themes_are_reported_with_the_field(name: str, make: Any, needles: list[str]) -> None:
    problems = _problems(make())
    assert problems, name
    text = " ".join(problems)
    for n in needles:
        assert n in text, (name, problems)


def test_well_formed_test_themes_pass() -> None:
    assert _problems(copy.deepcopy(FERRY)) == []
    assert _problems(copy.deepcopy(BAKERY)) == []


def test_shortfalls_say_what_to_add() -> None:
    theme = parse_theme(_ferry(lambda s: s["tasks"].update(multi_hop=60)), Path("t.yaml"))
    warnings = get_family("smm").theme_warnings(theme)  # type: ignore[attr-defined]
    assert any("multi_hop" in w and "membership: one" in w for w in warnings), warnings
