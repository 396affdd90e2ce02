"""memeye items come from what the theme declares (issue 30): on unseen-domain themes that opt
into no scene pack, >= 90 % of kept items name a declared object, place or person (scene names
masked) and no value of the built-in scene pack appears anywhere in the release; a theme that
declares too little for a cell gets one shortfall line naming the cell and what to declare; the
visual-word rule names the declarations that collide and bans no ordinary domain noun by default.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from mnemoforge import yaml_io
from mnemoforge.backends.image.visual_catalog import load_scene_pack
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.schemas.theme import Theme
from mnemoforge.theme_io import load_theme, parse_theme

TEST_THEMES = Path(__file__).parent / "themes"
UNSEEN = (
    "fjord_hut_memeye.yaml",
    "riding_stable_memeye.yaml",
    "sumava_ranger_memeye.yaml",
    "dolomites_rescue_memeye.yaml",
)


def _dict(name: str) -> dict:
    return yaml_io.safe_load((TEST_THEMES / name).read_text(encoding="utf-8"))


def declared_names(theme: Theme) -> set[str]:
    """Every name the theme declares: cast (full and given names), places, objects, and each
    scenario's drawables (nouns, board lines, table objects, what a person holds, a map's places
    and what its pin marks)."""
    assert theme.memeye is not None
    out: set[str] = set()
    for p in theme.cast:
        out |= {p.name, p.name.split()[-2] if len(p.name.split()) > 1 else p.name}
    out |= {p.name for p in theme.places} | {o.name for o in theme.objects}
    for sc in theme.memeye.scenarios:
        d = sc.draws
        for part in (d.board, d.colour, d.count, d.label, d.table):
            if part is not None:
                out.add(part.noun)
        out |= {line for lst in (d.board.lists if d.board else []) for line in lst}
        out |= set(d.table.items if d.table else []) | set(d.person.holds if d.person else [])
        if d.map is not None:
            out |= {d.map.noun, d.map.marker or "", *d.map.places}
    return {n.lower() for n in out if n}


def declared_share(theme: Theme, questions: list[dict]) -> float:
    """The share of items whose question or answer names a declared thing, scene names masked."""
    assert theme.memeye is not None
    names = declared_names(theme)
    scenes = sorted({s.lower() for sc in theme.memeye.scenarios for s in sc.scenes}, key=len, reverse=True)
    hits = 0
    for q in questions:
        text = f"{q['question']} {q['answer']}".lower()
        for s in scenes:
            text = text.replace(s, " ")
        hits += any(re.search(rf"(?<![a-z]){re.escape(n)}(?![a-z])", text) for n in names)
    return hits / max(1, len(questions))


def pack_phrases() -> set[str]:
    """The built-in scene pack's values (gists, region items, instances, countables...)."""
    out: set[str] = set()
    for d in load_scene_pack("home_scenes").values():
        out |= set(d.gists) | set(d.items) | {d.instances, d.countables, d.colour_object, d.detail}
    return {x.lower() for x in out if x}


def release_texts(release: Path) -> list[str]:
    out = []
    for path in sorted((release / "data/memeye").glob("*.jsonl")):
        for row in read_jsonl(path):
            for key in ("content", "caption", "question", "answer"):
                if isinstance(row.get(key), str):
                    out.append(row[key])
            out += [x for x in row.get("options") or [] if isinstance(x, str)]
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, fjord_hut_build) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    from mnemoforge.pipeline import build

    out = {}
    for name in UNSEEN:
        res = (  # fjord_hut_memeye: the session's build (tests/conftest.py), also read by test_unseen_worlds
            fjord_hut_build
            if name == "fjord_hut_memeye.yaml"
            else build(TEST_THEMES / name, outputs=tmp_path_factory.mktemp(name.split(".")[0]), workers=1)
        )
        out[name] = res.release_dir
    return out


@pytest.mark.integration
@pytest.mark.parametrize("name", UNSEEN)
def test_items_name_what_the_theme_declares(built: dict[str, Path], name: str) -> None:
    theme = load_theme(TEST_THEMES / name)
    qs = read_jsonl(built[name] / "data/memeye/questions.jsonl")
    assert len(qs) >= 4
    assert declared_share(theme, qs) >= 0.9, [q["question"] for q in qs]
    phrases = pack_phrases()
    leaked = {
        p for t in release_texts(built[name]) for p in phrases if re.search(rf"\b{re.escape(p)}\b", t.lower())
    }
    assert not leaked, leaked


@pytest.mark.integration
def test_typed_level_is_drawn_and_asked_as_a_level(built: dict[str, Path]) -> None:
    """The snow-risk level (type level, range 1-5) is a digit 1-5, options from the same range."""
    qs = read_jsonl(built["fjord_hut_memeye.yaml"] / "data/memeye/questions.jsonl")
    level = [q for q in qs if "snow-risk sign" in q["question"]]
    assert level
    for q in level:
        assert q["answer"] in "12345" and all(o in ("1", "2", "3", "4", "5") for o in q["options"]), q


def test_the_pack_measure_sees_the_catalogue() -> None:
    """The measure is not vacuous: the shipped theme (opted into home_scenes) asks about the
    pack's scenes, which the masked share counts as undeclared."""
    theme = load_theme(Path(__file__).parent.parent / "assets/themes/visual_diary.yaml")
    assert theme.memeye is not None and theme.memeye.scene_packs == ["home_scenes"]
    fake = [{"question": "What stands in the left part of the boathouse?", "answer": "bus stop"}]
    assert declared_share(theme, fake) == 0.0 and "bus stop" in pack_phrases()


def test_a_cell_nothing_declared_draws_gets_one_shortfall_line(caplog: pytest.LogCaptureFixture) -> None:
    from mnemoforge.generators.memeye.check import theme_warnings

    data = _dict("fjord_hut_memeye.yaml")
    data["memeye"]["scenarios"][1]["draws"].pop("table")
    data["memeye"]["scenarios"][1]["changes"] = [{"key": "count", "scenes": [0], "restock": True}]
    data["memeye"]["targets"] = {"X3_Y1": 1}
    theme = parse_theme(data, TEST_THEMES / "fjord_hut_memeye.yaml")
    with caplog.at_level(logging.WARNING):
        lines = [w for w in theme_warnings(theme) if "X3_Y1" in w]
    assert len(lines) == 1 and "`table`" in lines[0] and "memeye.scene_packs" in lines[0], lines


def test_an_undeclared_key_change_is_refused_naming_what_to_declare() -> None:
    data = _dict("fjord_hut_memeye.yaml")
    data["memeye"]["scenarios"][0]["changes"].append({"key": "mark", "after": "2027-01-05"})
    with pytest.raises(
        ValueError, match=r"memeye.scenarios.0.changes.4.key: 'mark' is not drawn.*scene_packs"
    ):
        parse_theme(data, TEST_THEMES / "fjord_hut_memeye.yaml").memeye.check(  # type: ignore[union-attr]
            parse_theme(data, TEST_THEMES / "fjord_hut_memeye.yaml")
        )


def test_ordinary_domain_nouns_are_not_visual_words_by_default() -> None:
    """Without a scene pack, 'radio', 'log', 'snow' and '2,100 m' in scene names are fine; a word
    the theme adds to memeye.visual_words is refused, naming that field."""
    from mnemoforge.generators.memeye.check import visual_word_problems

    data = _dict("fjord_hut_memeye.yaml")
    data["memeye"]["scenarios"][0]["scenes"] = ["the radio mast", "the snow log at 2,100 m"]
    theme = parse_theme(data, TEST_THEMES / "fjord_hut_memeye.yaml")
    assert visual_word_problems(theme) == []
    data["memeye"]["visual_words"] = ["radio"]
    problems = visual_word_problems(parse_theme(data, TEST_THEMES / "fjord_hut_memeye.yaml"))
    assert problems and problems[0].startswith("memeye.scenarios.0.scenes.0: 'radio'")
    assert "memeye.visual_words" in problems[0]
    data["memeye"]["visual_words"] = []
    data["memeye"]["scenarios"][0]["scenes"] = ["the car park", "the level 3 cairn"]  # a drawn level
    problems = visual_word_problems(parse_theme(data, TEST_THEMES / "fjord_hut_memeye.yaml"))
    assert problems and "memeye.scenarios.0.draws.label" in problems[0] and "'3'" in problems[0]


def test_a_value_said_in_a_text_names_the_declaration_it_collides_with() -> None:
    """A chat line of one scenario saying a value another scenario's drawable shows: the refusal
    names the text's field and the drawable's declaration."""
    from mnemoforge.generators.memeye import world
    from mnemoforge.generators.memeye.sessions import check_text_clean

    theme = load_theme(TEST_THEMES / "fjord_hut_memeye.yaml")
    w = world.plan_world(theme, theme.seed)
    with pytest.raises(
        ValueError,
        match=r"memeye.scenarios.1.scenes.0: .*'compass'.*memeye.scenarios.1 \(hut_log\).draws.table",
    ):
        check_text_clean(w, {"memeye.scenarios.1.scenes.0": "the compass room"})
