"""Every problem a theme check reports names a field path of the theme: a sweep of mutations over
the starter themes (schema and loader), and the memeye visual-word rule for scene names and for
the lines of the content pack a theme names."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from mnemoforge import yaml_io
from mnemoforge.schemas import packs
from mnemoforge.schemas.theme import Theme
from mnemoforge.theme_checks import check_theme
from mnemoforge.theme_io import ThemeError, parse_theme
from mnemoforge.theme_starter import starter_theme

TOP = {info.alias or name for name, info in Theme.model_fields.items()}


def _leaves(data: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _leaves(v, (*path, i))
    else:
        yield path, data


def _mutations(value: Any) -> list[Any]:
    if isinstance(value, bool):
        return [[value]]
    if isinstance(value, int | float):
        return [-7, "many"]
    if isinstance(value, str):
        return ["", {"a": 1}]
    return [[{}]]


def _assert_names_a_field(field: str, message: str) -> None:
    assert field not in ("<root>", "<family>", "build") and " " not in field, (field, message)
    assert field.split(".")[0] in TOP, (field, message)


@pytest.mark.parametrize("family", ["icm", "smm", "memeye"])
def test_every_schema_problem_of_a_mutated_starter_names_its_field(family: str) -> None:
    data = yaml_io.safe_load(starter_theme("tiny", family))
    leaves = list(_leaves(data))
    rng = random.Random(f"field-paths-{family}")
    sample = rng.sample(leaves, min(len(leaves), 120))
    problems = 0
    for path, value in sample:
        for bad in _mutations(value):
            mutated = copy.deepcopy(data)
            node = mutated
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = bad
            try:
                parse_theme(mutated, Path(f"{family}.yaml"))
            except ThemeError as e:
                for field, message in e.problems:
                    _assert_names_a_field(field, message)
                    problems += 1
    assert problems > 100  # the mutations were caught, each with its field


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("packs", "word", "said"),
    [
        ("[home_scenes]", "first", "'first' is an instance position"),  # the scene pack's word
        ("[]", "scraper", "'scraper' is an object on the table"),  # the starter's own table-top
    ],
)
def test_a_visual_word_in_a_scene_name_names_the_scene(
    tmp_path: Path, packs: str, word: str, said: str
) -> None:
    text = starter_theme("tiny", "memeye")
    assert "scene_packs: []" in text
    text = text.replace("scene_packs: []", f"scene_packs: {packs}").replace(
        "the attic", f"the {word} attic", 1
    )
    with pytest.raises(ThemeError) as e:
        check_theme(_write(tmp_path, "tiny.yaml", text))
    fields = {f for f, _ in e.value.problems}
    assert fields == {"memeye.scenarios.0.scenes.1"}, e.value.problems
    assert said in e.value.problems[0][1]


def test_a_visual_word_in_a_pack_line_names_the_pack_field_and_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "packs"
    folder.mkdir()
    shipped = (packs.PACKS / "visual_diary.yaml").read_text(encoding="utf-8")
    line = "      - Here is {s} as of today. The renovation keeps going.\n"
    assert line in shipped
    pack = shipped.replace("name: visual_diary", "name: diary_words").replace(
        line, "      - Here is {s} as of today. The first coat of paint.\n"
    )
    (folder / "diary_words.yaml").write_text(pack, encoding="utf-8")
    monkeypatch.setattr(packs, "PACKS", folder)
    packs.load_pack.cache_clear()
    try:
        theme = yaml_io.safe_load(starter_theme("tiny", "memeye"))
        theme["memeye"]["pack"] = "diary_words"
        theme["memeye"]["scene_packs"] = ["home_scenes"]  # 'first' is an instance position of the pack
        with pytest.raises(ThemeError) as e:
            check_theme(_write(tmp_path, "tiny.yaml", yaml.safe_dump(theme, sort_keys=False)))
    finally:
        packs.load_pack.cache_clear()
    assert e.value.problems, "the visual word was not reported"
    for field, message in e.value.problems:
        assert field == "memeye.pack", (field, message)
    messages = " ".join(m for _, m in e.value.problems)
    where = "assets/packs/diary_words.yaml, memeye.kinds.room.share.0"
    assert f"{where}: 'first' is an instance position" in messages
