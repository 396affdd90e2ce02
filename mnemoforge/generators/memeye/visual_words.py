"""The visual-word rule of the memeye family: a text the agent reads (scene names, chat lines)
never names a value a picture of the scenario can show, or a text-only reader would know it
without looking. ``library_words`` lists the words of every value a scene of a vocabulary can draw
(words of three letters or more, as ``sessions.value_words``); ``visual_word_problems`` names each
one a text uses, with the declaration it collides with and a rewording.
"""

from __future__ import annotations

import re

from mnemoforge.generators.memeye.vocab import COLOURS, POSITIONS, KindVocab

IGNORED = {"the", "and", "a", "an", "of", "to", "in", "at", "on", "for", "with"}
REWORD = {
    "first": "earliest, opening, 1st",
    "second": "next, another, 2nd",
    "third": "later, 3rd",
    "fourth": "last, 4th",
}


def words_of(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in IGNORED and len(w) > 2}


def library_words(v: KindVocab, field: str = "", extra: tuple[str, ...] | list[str] = ()) -> dict[str, str]:
    """word -> what it names and where it is declared, for every value a scene of vocabulary ``v``
    can show (``field``: the scenario's theme path, ``memeye.scenarios.<i>``; ``extra``: the
    theme's own ``memeye.visual_words``). A scene pack's values count only when the theme opted
    into one (``v.items``); without one, ordinary domain nouns are not visual words."""
    at = f"{field}.draws" if field else "draws"
    packed = bool(v.items)
    board = v.gist_form.startswith("What is listed on")  # a declared board's gists are its lists
    groups: list[tuple[str, tuple[str, ...], str]] = [
        ("a scene gist", v.gists, f"{at}.board.lists" if board else "memeye.scene_packs"),
        ("a drawn item", v.items, "memeye.scene_packs"),
        ("an instance position", POSITIONS if v.instances else (), "memeye.scene_packs"),
        ("a colour", tuple(COLOURS) if packed or v.colour_noun else (),
         "memeye.scene_packs" if packed else f"{at}.colour"),
        ("an object on the table", v.table_items, f"{at}.table.items"),
        ("an object the person holds", v.holds, f"{at}.person.holds"),
        ("a place on the map", v.map_places, f"{at}.map.places"),
        ("a word the theme says its pictures show", tuple(extra), "memeye.visual_words"),
    ]  # fmt: skip
    out: dict[str, str] = {}
    for what, values, decl in groups:
        for value in values:
            for w in words_of(value):
                out.setdefault(w, f"{what} ({value!r}, declared in {decl})")
    return out


def _numbers(text: str) -> list[str]:
    """The numbers of a text as written ("2,100 m" is one number, 2100; "14:30" a time)."""
    return [n.replace(",", "") for n in re.findall(r"\d{1,2}:\d\d|\d[\d,]*\d|\d", text)]


def visual_word_problems(
    v: KindVocab, text: str, field: str = "", extra: tuple[str, ...] | list[str] = ()
) -> list[str]:
    """One message per visual value word in ``text`` (with a suggested rewording), for the
    pictures of vocabulary ``v``, naming the declaration the word collides with."""
    lib, kind = library_words(v, field, extra), v.kind
    out = []
    for w in sorted(words_of(text)):
        if w in lib:
            alt = REWORD.get(w, "a word the pictures do not show")
            out.append(f"{w!r} is {lib[w]} that {kind} pictures draw; reword with e.g. {alt}")
    label_at = f"{field}.draws.label" if field else "draws.label"
    if v.label_type:  # a declared level, count or time: only its own values are drawn
        from mnemoforge.generators.typed_values import values

        drawn = set(values(v.label_type, *v.label_range))
        for n in sorted(set(_numbers(text)) & drawn):
            out.append(f"{n!r} is a value {label_at} ({v.label_type} {v.label_range[0]}-{v.label_range[-1]}) "
                       "draws; write it in words or drop it")  # fmt: skip
    elif v.items or v.label_noun:  # the kind's label format: any number of three digits or more
        decl = label_at if v.label_noun and not v.items else "memeye.scene_packs"
        for n in sorted({n for n in _numbers(text) if n.isdigit() and len(n) >= 3}):
            out.append(f"{n!r} may equal a label number {kind} pictures draw (declared in {decl}); "
                       "write it in words or drop it")  # fmt: skip
    return out
