"""The starter theme's comments are the schema's field descriptions, and its data is unchanged by
them; every field of the theme and pack schemas has a description for the reference to show."""

from __future__ import annotations

import re

import pytest

from mnemoforge import yaml_io
from mnemoforge.schema_docs import field_comment, resolve, walk
from mnemoforge.schemas.packs import Pack
from mnemoforge.schemas.theme import Theme
from mnemoforge.theme_io import DEFAULT_THEME, parse_theme
from mnemoforge.theme_starter import example_theme, key_paths, starter_source, starter_theme, strip_comments

FAMILIES = ["icm", "smm", "memeye"]
INLINE = re.compile(r"\s# (?P<comment>.+)$")  # a comment after a value (colours are quoted: "#rrggbb")


def _commented_keys(text: str) -> dict[tuple[str, ...], str]:
    """Key path -> its comment: the comment after its value, or the comment lines right above it."""
    lines = text.splitlines()
    paths = dict(key_paths(text))
    out: dict[tuple[str, ...], str] = {}
    above: list[str] = []
    header = True
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("#"):
            if not header:
                above.append(stripped[1:].strip())
            continue
        header = False
        if i in paths:
            m = INLINE.search(line)
            comment = " ".join(above) if above else (m.group("comment") if m else "")
            assert not (above and m), f"line {i + 1}: a comment above and after the key"
            if comment:
                assert paths[i] not in out, f"{paths[i]} is commented twice"
                out[paths[i]] = comment
        else:
            assert not above, f"comment lines above line {i + 1}, which holds no key: {above}"
        above = []
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_every_commented_key_is_its_schema_description(family: str) -> None:
    text = starter_theme("tiny", family)
    commented = _commented_keys(text)
    assert len(commented) >= 25, sorted(commented)
    for path, comment in commented.items():
        info = resolve(Theme, path)
        assert info is not None, f"{'.'.join(path)} is commented but is no schema field"
        described = " ".join((info.description or "").split())
        assert described and comment.startswith(described), (path, comment, described)
        assert comment == field_comment(info), (path, comment)
    # and every described field the starter sets is commented where it first appears
    first = {p for _, p in key_paths(text)}
    wanted = {p for p in first if (info := resolve(Theme, p)) is not None and info.description}
    assert not wanted - set(commented), sorted(wanted - set(commented))


def test_literal_choices_follow_the_description() -> None:
    commented = _commented_keys(starter_theme("tiny"))
    assert commented[("cast", "appearance", "face_shape")] == (
        "outline of the drawn face: oval | round | square | heart | long"
    )
    assert commented[("family",)].startswith("icm: identity-centric video")  # choices named: not repeated
    assert commented[("questions", "total")].startswith("items kept")  # kept after the gates, not candidates


@pytest.mark.parametrize("family", FAMILIES)
def test_the_starter_builds_the_same_data_as_before_comments(family: str) -> None:
    text = starter_theme("my_bench", family)
    data = yaml_io.safe_load(text)
    assert yaml_io.safe_load(strip_comments(text)) == data
    theme = parse_theme(data, DEFAULT_THEME)
    assert (theme.name, theme.family, theme.title) == ("my_bench", family, "My Bench")
    if family == "icm":
        return
    path = starter_source(family)
    assert path is not None
    example = yaml_io.safe_load(path.read_text(encoding="utf-8"))
    assert data[family].pop("pack") is None  # a new domain starts packless
    assert example[family].pop("pack") or path != example_theme(family)
    for key in ("name", "title"):
        data.pop(key), example.pop(key)
    assert data == example


def test_key_paths_walk_lists_and_skip_flow_mappings() -> None:
    text = "a: 1\nb:\n  - c: 2\n    d: {e: 3}\n  - c: 4\nf:\n  g:\n    h: [1]\n"
    assert key_paths(text) == [
        (0, ("a",)),
        (1, ("b",)),
        (2, ("b", "c")),
        (3, ("b", "d")),
        (4, ("b", "c")),
        (5, ("f",)),
        (6, ("f", "g")),
        (7, ("f", "g", "h")),
    ]


def test_strip_comments_keeps_quoted_hashes_and_apostrophes() -> None:
    text = "a: \"#ff0000\"   # red\nb: Ana's flat # where\n# gone\nc: 'x # y'\n"
    assert strip_comments(text) == "a: \"#ff0000\"\nb: Ana's flat\nc: 'x # y'\n"


@pytest.mark.parametrize("root", [Theme, Pack])
def test_every_schema_field_has_a_description(root: type) -> None:
    missing = [f"{d.model.__name__}.{f.name}" for d in walk(root) for f in d.fields if not f.description]
    assert not missing, missing
