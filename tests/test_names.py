"""Names in parts and the forms a speaker uses; speech text for any script; fonts that cover a
name's script; speech that cannot fit a shot refused by ``theme check``; the English layer."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from mnemoforge.english import broken_patterns, fill, is_plural, join, ordinal, verb_base, verb_form
from mnemoforge.generators import names
from mnemoforge.schemas.theme import PersonSpec, RelationSpec, Theme
from mnemoforge.theme_io import THEMES_DIR, ThemeError, load_theme

TESTS = Path(__file__).resolve().parent / "themes"
GLASS = TESTS / "glassworks_icm.yaml"


def _person(**kw: object) -> PersonSpec:
    base = yaml.safe_load(GLASS.read_text(encoding="utf-8"))["cast"][4]  # Tavita's appearance
    drop = ("name", "given", "family", "title", "aliases", "spoken")
    base = {k: v for k, v in base.items() if k not in drop}
    return PersonSpec.model_validate({**base, **kw})


@pytest.mark.parametrize(
    ("spec", "parts"),
    [
        ({"name": "Dr. Amara Okafor"}, ("Amara", "Okafor", "Dr.")),
        ({"name": "Capt. Anna Maria Meier"}, ("Anna Maria", "Meier", "Capt.")),
        ({"name": "Tavita"}, ("Tavita", "", "")),
        ({"name": "Li Ming", "name_order": "family_first"}, ("Ming", "Li", "")),
        ({"given": "芳", "family": "王", "name_order": "family_first"}, ("芳", "王", "")),
        ({"given": "Amina", "family": "Haddad", "title": "Dr."}, ("Amina", "Haddad", "Dr.")),
    ],
)
def test_name_parts_from_name_or_fields(spec: dict, parts: tuple[str, str, str]) -> None:
    n = names.parts(_person(**spec))
    assert (n.given, n.family, n.title) == parts


def test_name_composed_from_parts() -> None:
    assert _person(given="芳", family="王", name_order="family_first").name == "王芳"
    assert _person(given="Amina", family="Haddad", title="Dr.").name == "Dr. Amina Haddad"


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"name": "Dr."}, "name"),
        ({"name": "Dr. Prof."}, "name"),
        ({"name": "Ana Lima", "given": "Anna"}, "given"),
        ({"name": "王芳", "spoken": "王 芳"}, "spoken"),
    ],
)
def test_bad_names_are_refused_naming_the_field(spec: dict, field: str) -> None:
    with pytest.raises(ValidationError, match=rf"{field}: "):
        _person(**spec)


def test_forms_of_address() -> None:
    okafor = _person(name="Dr. Amara Okafor", aliases=["Ama"])
    got = {r: names.form(okafor, r) for r in names.REGISTERS}
    assert got == {
        "full": "Dr. Amara Okafor",
        "plain": "Amara Okafor",
        "formal": "Dr. Okafor",
        "colleague": "Amara",
        "friend": "Ama",
        "given": "Amara",
    }
    wang = _person(given="芳", family="王", name_order="family_first")
    assert {names.form(wang, r) for r in names.REGISTERS} == {"王芳"}
    one = _person(name="Tavita")
    assert {names.form(one, r) for r in names.REGISTERS} == {"Tavita"}


def test_a_shared_short_form_falls_back_to_the_plain_name() -> None:
    a = _person(id="anna_b", name="Anna Berg")
    b = _person(id="anna_k", name="Dr. Anna Kovacs")
    assert names.form(b, "colleague", among=[a, b]) == "Anna Kovacs"
    assert names.form(b, "formal", among=[a, b]) == "Dr. Kovacs"


def test_register_follows_the_relation() -> None:
    rels = [
        RelationSpec(a="elodie", b="soren", kind="client"),
        RelationSpec(a="priya", b="tavita", kind="friend"),
        RelationSpec(a="wang_fang", b="amina", kind="colleague", address="formal"),
    ]
    assert names.register_between(rels, "elodie", "soren") == "formal"
    assert names.register_between(rels, "soren", "elodie") == "formal"
    assert names.register_between(rels, "tavita", "priya") == "friend"
    assert names.register_between(rels, "wang_fang", "amina") == "formal"
    assert names.register_between(rels, "priya", "soren") == "colleague"


def test_speech_text_says_every_script_in_latin_letters() -> None:
    theme = load_theme(GLASS)
    said = names.speech_text("Good to see you, Dr. حداد. 王芳 and प्रिया शर्मा say hi, Élodie.", theme.cast)
    assert said == "Good to see you, Dr. Haddad. Wang Fang and Priya Srma say hi, Élodie."
    assert names.transliterate("王芳") == "Wang Fang"
    assert names.speech_text("Plain English.", theme.cast) == "Plain English."


def test_bare_titles_are_found() -> None:
    okafor = _person(name="Dr. Amara Okafor")
    assert names.bare_titles("Dr., say hello to Dr. for us.", [okafor])
    assert not names.bare_titles("Dr. Okafor, say hello to Amara for us.", [okafor])


@pytest.mark.parametrize("text", ["Dr. أمينة حداد", "王芳", "प्रिया शर्मा", "Prof. Søren Ødegård"])
def test_a_name_is_drawn_in_a_font_that_covers_its_script(text: str) -> None:
    """The chosen font maps every character (fontTools cmap) and draws it unlike its .notdef."""
    from PIL import ImageFont

    from mnemoforge.backends.image import documents_base, fonts
    from mnemoforge.backends.image.font_cover import covering_font

    assert fonts.renderable(text) == text and documents_base.sanitize(text) == text
    cover = covering_font(text)
    assert cover is not None and cover.covers(text)
    f = fonts.font(24, text)
    assert isinstance(f, ImageFont.FreeTypeFont) and Path(str(f.path)) == cover.path
    notdef = bytes(f.getmask("\uffff"))
    assert all(bytes(f.getmask(ch)) != notdef for ch in text if not ch.isspace() and ch.isalpha())


def test_latin_text_keeps_the_built_in_font() -> None:
    from PIL import ImageFont

    from mnemoforge.backends.image import fonts

    assert fonts.font(20, "COLD SHOP") is fonts.font(20)  # the built-in one: Latin release bytes unchanged
    assert "Noto" in str(getattr(fonts.font(20, "王芳"), "path", ""))
    assert isinstance(fonts.font(20, "王芳"), ImageFont.FreeTypeFont)


def _theme_data(**person: object) -> dict:
    data = yaml.safe_load(GLASS.read_text(encoding="utf-8"))
    data["cast"][4].update(person)
    return data


def test_theme_check_refuses_a_habit_no_shot_can_hold(tmp_path: Path) -> None:
    from mnemoforge.theme_checks import check_theme

    habit = "patiently reheats and reshapes every single lip of the tall commissioned goblets by hand " * 2
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(_theme_data(habits=[habit.strip()]), allow_unicode=True), encoding="utf-8")
    with pytest.raises(ThemeError) as e:
        check_theme(path)
    assert "cast.4.habits.0" in str(e.value) and "shot holds 8 s" in str(e.value)


def test_theme_check_refuses_a_name_too_long_to_say(tmp_path: Path) -> None:
    from mnemoforge.theme_checks import check_theme

    path = tmp_path / "t.yaml"
    long_name = "Tavita " + " ".join(["Fa'asavalu"] * 6)  # under the 80-character name limit...
    data = _theme_data(name=long_name)
    data["cast"][4]["voice"]["rate"] = 80  # ...but too long to say in 8 s at the slowest rate
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ThemeError, match=r"cast\.4\.name: the calibration line"):
        check_theme(path)


def test_planned_lines_fit_their_shots_and_say_no_frequency_twice() -> None:
    from mnemoforge.english.words import _frequency_re
    from mnemoforge.generators.icm.album import plan_album, speech_need
    from mnemoforge.generators.icm.world import plan_world

    theme = load_theme(GLASS)
    world = plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, _ = plan_album(theme, world)
    lines = [(s, ln) for c in clips for s in c.shots for ln in s.dialogue]
    assert lines
    for shot, _ in lines:
        need = speech_need(world, [(x.speaker, x.text, [], []) for x in shot.dialogue])
        assert need <= shot.duration_s, shot.id
    habit_lines = [ln.text for _, ln in lines if any(f.startswith("f_habit_") for f in ln.facts)]
    assert habit_lines and all(len(_frequency_re().findall(t)) <= 1 for t in habit_lines), habit_lines


def test_the_default_theme_names_its_cast_family_first() -> None:
    theme: Theme = load_theme(THEMES_DIR / "life_album.yaml")
    li_guo = theme.person("li_guo")
    assert names.form(li_guo, "colleague") == "Li Guo"
    assert names.addressed(theme, "li_ming", "li_guo") == "Dad"  # his son, by the declared alias
    assert names.addressed(theme, "wang_lei", "li_guo") == "Li Guo"


@pytest.mark.parametrize(
    ("template", "slots", "expected"),
    [
        ("Did you bring the {object}, {other}?", {"object": "Kenji's sketchbook", "other": "Ana"},
         "Did you bring Kenji's sketchbook, Ana?"),
        ("I'll bring my {object}.", {"object": "Brina's treat tin"}, "I'll bring Brina's treat tin."),
        ("A photo of a {x}.", {"x": "the equipment store board"}, "A photo of the equipment store board."),
        ("What is on the {x} board?", {"x": "avalanche-risk board"}, "What is on the avalanche-risk board?"),
        ("{x} needs a second review.", {"x": "crampon sets"}, "Crampon sets need a second review."),
        ("{x} is ready.", {"x": "Atlas Dashboard"}, "Atlas Dashboard is ready."),
        ("The date for {x} is May 3.", {"x": "crampon sets"}, "The date for crampon sets is May 3."),
        ("How many times did {p} {v:base}?", {"p": "Chen Yu", "v": "had a family dinner"},
         "How many times did Chen Yu have a family dinner?"),
        ("Bring {o:a}.", {"o": "hour glass"}, "Bring an hour glass."),
        ("The {n:ordinal} one.", {"n": 3}, "The third one."),
        ("Here we are at {p}.", {"p": "the dressing room"}, "Here we are in the dressing room."),
        ("At {p} again.", {"p": "the boathouse kitchen"}, "In the boathouse kitchen again."),
        ("Back at {p}.", {"p": "West Lake Park"}, "Back at West Lake Park."),
        ("Meet me {p:at}.", {"p": "the ward"}, "Meet me in the ward."),
    ],
)  # fmt: skip
def test_fill_agrees(template: str, slots: dict, expected: str) -> None:
    assert fill(template, slots) == expected
    assert not broken_patterns(expected)


def test_words() -> None:
    assert verb_base("went rowing") == "go rowing"
    assert verb_form("covered", "VBD") == "covered" and verb_form("led", "VBD") == "led"
    assert is_plural("crampon sets") and not is_plural("blue thermos") and not is_plural("Tomás Reyes")
    assert join(["A", "B", "C"]) == "A, B and C" and ordinal(21) == "twenty-first"


@pytest.mark.parametrize(
    "text",
    [
        "How many times did Chen Yu had a family dinner?",
        "Who is the covered by of Rota slot B?",
        "Where is the Kenji's sketchbook?",
        "I keep my Brina's treat tin close.",
        "A photo of a the equipment store board.",
        "What is on the avalanche-risk board board?",
    ],
)
def test_broken_patterns_are_caught(text: str) -> None:
    assert broken_patterns(text)


def test_a_member_is_said_to_belong_once_and_in_the_kinds_words() -> None:
    from mnemoforge.generators.smm.scaffold import member_sentence
    from mnemoforge.schemas.smm import EntityKindSpec

    attr = [{"key": "lead", "label": "lead", "values": ["a", "b", "c", "d"]}]
    crew = EntityKindSpec.model_validate(
        {"kind": "crew", "noun": "boarding", "membership": "one", "attributes": attr}
    )
    sets = EntityKindSpec.model_validate({"kind": "kit", "noun": "kit", "attributes": attr})
    signed = EntityKindSpec.model_validate(
        {"kind": "kit", "noun": "kit", "member_phrase": "has signed out", "attributes": attr}
    )
    assert member_sentence("Ana", crew, "Wharf Boarding") == "Ana is on the Wharf Boarding."
    assert member_sentence("Ana", crew, "Wharf Boarding", first_person=True) == "I'm on the Wharf Boarding."
    assert member_sentence("Ana", sets, "Crampon sets") == "Ana is signed up for the Crampon sets."
    assert member_sentence("Ana", signed, "Crampon sets") == "Ana has signed out the Crampon sets."
    said = member_sentence("Ana", signed, "Crampon sets", first_person=True)
    assert said == "I have signed out the Crampon sets."
