"""Every bad theme is one clear error before any work starts, in ``theme check`` and ``build`` alike.

Each row mutates a valid theme (data or raw bytes) and names the field path the error must
name. Both commands must exit 2 with that path in the message, no traceback, and nothing written
under the outputs folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge import yaml_io
from mnemoforge.cli import app
from mnemoforge.theme_starter import starter_theme

from .conftest import small_theme_data

Mutation = Callable[[dict], Any]


def _set(path: str, value: Any) -> Mutation:
    def mutate(d: dict) -> None:
        *head, last = path.split(".")
        node: Any = d
        for k in head:
            node = node[int(k)] if isinstance(node, list) else node.setdefault(k, {})
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


def _do(*fns: Mutation) -> Mutation:
    def mutate(d: dict) -> None:
        for f in fns:
            f(d)

    return mutate


def _chat(**cfg: Any) -> Mutation:
    return _do(
        _set("gates.answerers", {"symbolic": {}, "lexical": {}, "m": {"kind": "chat", **cfg}}),
        _set("gates.panels", {"oracle": ["symbolic", "m"]}),
    )


OPENAI = {"provider": "openai", "model": "x", "base_url": "http://127.0.0.1:9/v1"}

# (id, family, mutation of the data | raw text rewrite, field path the message must contain)
DATA_ROWS: list[tuple[str, str, Mutation, str]] = [
    # the issue's mutations
    ("impossible_date", "icm", _set("start", "2025-02-30"), "start"),
    ("seed_2_pow_70", "icm", _set("seed", 2**70), "seed"),
    ("shots_per_clip_reversed", "icm", _set("album.shots_per_clip", [3, 1]), "album.shots_per_clip"),
    ("shots_per_clip_zero", "icm", _set("album.shots_per_clip", [0, 0]), "album.shots_per_clip"),
    ("empty_shot_durations", "icm", _set("album.shot_durations", []), "album.shot_durations"),
    ("infinite_activity_weight", "icm", _set("activities.0.weight", float("inf")), "activities.0.weight"),
    ("odd_width", "icm", _set("album.width", 321), "album.width"),
    (
        "unknown_answerer",
        "icm",
        _do(
            _set("gates.answerers", {"symbolic": {}, "lexical": {}, "oracle_bot": {"kind": "nosuch"}}),
            _set("gates.panels", {"oracle": ["oracle_bot"]}),
        ),
        "gates.answerers.oracle_bot.kind",
    ),
    (
        "unknown_text_provider",
        "icm",
        _set("text", {"backend": {"provider": "nosuch", "model": "m"}, "paraphrase_questions": True}),
        "text.backend.provider",
    ),
    (
        "missing_diffusers_model_folder",
        "icm",
        _set("render", {"image": "diffusers", "image_model": "/nonexistent/models/sd-tiny"}),
        "render.image",
    ),
    ("update_days_reversed", "smm", _set("smm.update_days", [14, 6]), "smm.update_days"),
    ("negative_update_days", "smm", _set("smm.update_days", [-3, 5]), "smm.update_days"),
    (
        "target_sources_50",
        "smm",
        _set("smm.target_sources_per_question", 50),
        "smm.target_sources_per_question",
    ),
    ("relation_to_oneself", "icm", _set("relations.0.b", "ana"), "relations.0.b"),
    ("duplicate_display_names", "icm", _set("cast.1.name", "Ana"), "cast.1.name"),
    ("missing_prompts_dir", "icm", _set("gates.prompts_dir", "/nonexistent/prompts"), "gates.prompts_dir"),
    # our own: encodings, dates, numbers, registries, paths, names
    ("month_13", "icm", _set("end", "2025-13-01"), "end"),
    ("negative_seed", "icm", _set("seed", -1), "seed"),
    ("seed_just_past_int64", "icm", _set("seed", 2**63), "seed"),
    ("odd_height", "icm", _set("album.height", 181), "album.height"),
    ("nan_semitones", "icm", _set("cast.0.voice.semitones", float("nan")), "cast.0.voice.semitones"),
    ("nan_answer_share", "icm", _set("gates.max_answer_share", float("nan")), "gates.max_answer_share"),
    ("alias_is_another_name", "icm", _set("cast.1.aliases", ["ana"]), "cast.1.aliases.0"),
    (
        "duplicate_place_names",
        "icm",
        lambda d: _set("places.1.name", d["places"][0]["name"])(d),
        "places.1.name",
    ),
    ("chat_unknown_provider", "icm", _chat(provider="nosuch", model="m"), "gates.answerers.m.provider"),
    (
        "chat_unknown_prompt",
        "icm",
        _chat(**OPENAI, mcq_prompt="no_such_prompt"),
        "gates.answerers.m.mcq_prompt",
    ),
    ("chat_unknown_setting", "icm", _chat(**OPENAI, temprature=0.2), "gates.answerers.m"),
    (
        "lexical_unknown_setting",
        "icm",
        _set("gates.answerers.lexical", {"bogus": 1}),
        "gates.answerers.lexical",
    ),
    ("symbolic_with_settings", "icm", _set("gates.answerers.symbolic", {"k": 1}), "gates.answerers.symbolic"),
    ("text_prompt_missing", "icm", _set("text", {"backend": OPENAI, "prompt": "nope"}), "text.prompt"),
    ("smm_nan_activity", "smm", _set("smm.sources.0.activity", float("nan")), "smm.sources.0.activity"),
    ("unknown_relation_person", "icm", _set("relations.0.a", "zed"), "relations.0.a"),
    ("one_clip", "icm", _set("album.clips", 1), "album.clips"),
    ("zero_fps", "icm", _set("album.fps", 0), "album.fps"),
    ("version_not_semver", "icm", _set("version", "1.0"), "version"),
    ("not_a_mapping", "icm", lambda d: ["a", "list"], "<root>"),
    # memeye drawables and state variables (issue 12)
    (
        "person_not_in_cast",
        "memeye",
        _set(
            "memeye.scenarios.0.draws", {"person": {"cast": "zed", "holds": ["rake", "hose", "jug", "lid"]}}
        ),
        "memeye.scenarios.0.draws.person.cast",
    ),
    (
        "presence_without_person",
        "memeye",
        _set("memeye.scenarios.0.changes", [{"key": "presence", "after": "2025-11-01"}]),
        "memeye.scenarios.0.changes.0.key",
    ),
    (
        "table_of_three",
        "memeye",
        _set("memeye.scenarios.0.draws", {"table": {"noun": "the bench", "items": ["rake", "hose", "jug"]}}),
        "memeye.scenarios.0.draws.table.items",
    ),
    (
        "table_item_with_comma",
        "memeye",
        _set(
            "memeye.scenarios.0.draws",
            {"table": {"noun": "the bench", "items": ["rake, old", "hose", "jug", "lid"]}},
        ),
        "memeye.scenarios.0.draws.table",
    ),
    (
        "board_and_table",
        "memeye",
        _set(
            "memeye.scenarios.0.draws",
            {
                "table": {"noun": "the bench", "items": ["rake", "hose", "jug", "lid"]},
                "board": {"noun": "the board", "lists": [["a"], ["b"], ["c"], ["d"]]},
            },
        ),
        "memeye.scenarios.0.draws",
    ),
    (
        "gist_change_under_a_table",
        "memeye",
        _do(
            _set(
                "memeye.scenarios.0.draws",
                {"table": {"noun": "the bench", "items": ["rake", "hose", "jug", "lid"]}},
            ),
            _set("memeye.scenarios.0.changes", [{"key": "gist", "every_days": 20}]),
        ),
        "memeye.scenarios.0.changes.0.key",
    ),
    (
        "unknown_label_drawable",
        "memeye",
        _set("memeye.scenarios.0.draws", {"label": {"drawable": "neon", "noun": "x"}}),
        "memeye.scenarios.0.draws.label.drawable",
    ),
    (
        "unknown_colour_drawable",
        "memeye",
        _set("memeye.scenarios.0.draws", {"colour": {"drawable": "truck", "noun": "x"}}),
        "memeye.scenarios.0.draws.colour.drawable",
    ),
    (
        "held_object_named_by_a_scene",
        "memeye",
        _set(
            "memeye.scenarios.0.draws",
            {"person": {"cast": "nadia", "holds": ["spare key", "hose", "jug", "lid"]}},
        ),
        "memeye.scenarios.0.scenes.0",
    ),
    (
        "presence_never_changes_in_time",
        "memeye",
        _do(
            _set(
                "memeye.scenarios.0.draws",
                {"person": {"cast": "nadia", "holds": ["rake", "hose", "jug", "lid"]}},
            ),
            _set("memeye.scenarios.0.changes", [{"key": "presence", "dates": ["2026-03-01"]}]),
        ),
        "memeye.scenarios.home_renovation.changes",
    ),
]

RAW_ROWS: list[tuple[str, Callable[[str], bytes], str]] = [
    ("undecodable_bytes", lambda t: t.encode() + b"\ndescription: caf\xe9\n", "not UTF-8"),
    ("utf16_file", lambda t: t.encode("utf-16"), "not UTF-8"),
    ("duplicate_yaml_key", lambda t: (t + "\ntitle: second title\n").encode(), "duplicate key 'title'"),
    (
        "duplicate_nested_key",
        lambda t: t.replace("album:\n", "album:\n  fps: 12\n  fps: 24\n", 1).encode(),
        "duplicate key 'fps'",
    ),
    ("empty_file", lambda t: b"", "<root>"),
]


def _base(family: str) -> dict:
    if family == "icm":
        return small_theme_data()
    return yaml_io.safe_load(starter_theme("tiny", family))


def _invoke(args: list[str]):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, args)


def _assert_clean_failure(theme: Path, tmp_path: Path, needle: str) -> None:
    out = tmp_path / "outputs"
    for args in (
        ["theme", "check", str(theme)],
        ["build", str(theme), "--outputs", str(out), "--orchestrator", "local", "--workers", "1"],
    ):
        r = _invoke(args)
        text = r.output
        assert r.exit_code == 2, (args[0], r.exit_code, text, r.exception)
        assert "Traceback" not in text
        assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
        assert needle in text, (needle, text)
        assert str(theme) in text, "the message names the file"
    assert not (out / "releases").exists() and not (out / "runs").exists()


@pytest.mark.parametrize(
    ("family", "mutate", "field"), [r[1:] for r in DATA_ROWS], ids=[r[0] for r in DATA_ROWS]
)
def test_bad_theme_data_is_one_clear_error(family: str, mutate: Mutation, field: str, tmp_path: Path) -> None:
    data = _base(family)
    replaced = mutate(data)
    theme = tmp_path / "bad.yaml"
    theme.write_text(yaml.safe_dump(replaced if replaced is not None else data, sort_keys=False))
    _assert_clean_failure(theme, tmp_path, field)


@pytest.mark.parametrize(("rewrite", "needle"), [r[1:] for r in RAW_ROWS], ids=[r[0] for r in RAW_ROWS])
def test_bad_theme_bytes_are_one_clear_error(
    rewrite: Callable[[str], bytes], needle: str, tmp_path: Path
) -> None:
    theme = tmp_path / "bad.yaml"
    theme.write_bytes(rewrite(yaml.safe_dump(small_theme_data(), sort_keys=False)))
    _assert_clean_failure(theme, tmp_path, needle)


def test_regex_patterns_are_printed_intact(tmp_path: Path) -> None:
    data = small_theme_data()
    data["cast"][0]["id"] = "Ana Bad"
    theme = tmp_path / "bad.yaml"
    theme.write_text(yaml.safe_dump(data, sort_keys=False))
    r = _invoke(["theme", "check", str(theme)])
    assert r.exit_code == 2
    assert "^[a-z][a-z0-9_]*$" in r.output, r.output


def test_seed_option_outside_int64_is_refused(tmp_path: Path) -> None:
    theme = tmp_path / "ok.yaml"
    theme.write_text(yaml.safe_dump(small_theme_data(), sort_keys=False))
    out = tmp_path / "outputs"
    for seed in (str(2**70), "-1"):
        r = _invoke(["build", str(theme), "--seed", seed, "--outputs", str(out), "--orchestrator", "local"])
        assert r.exit_code == 2 and "--seed" in r.output, r.output
    assert not out.exists()


def test_table_covers_the_issue_and_more() -> None:
    assert len(DATA_ROWS) + len(RAW_ROWS) >= 40
