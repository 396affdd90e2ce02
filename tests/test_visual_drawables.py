"""The generic drawables of the memeye library beyond board/colour/count: a vehicle carrying the
X4 colour, a sign carrying the X4 text, a table-top arrangement of four named objects (the
``order`` variable) and a cast person in their own colours holding one named object (the
``presence`` variable). Each test reads the drawn state back from the pixels."""

from __future__ import annotations

from PIL import Image

from mnemoforge.backends.image.colors import rgb
from mnemoforge.backends.image.visual_figures import CARD, INKS
from mnemoforge.backends.image.visual_scene import SceneState, render_scene

ITEMS = ("shackle", "buoy", "oilskin", "lantern")
HOLDS = ("boathook", "mooring rope", "chart tube", "fender")
PERSON = (("bottom", "#404040"), ("hair", "#201410"), ("skin", "#c89870"), ("top", "#2050a0"))


def _state(**kw: object) -> SceneState:
    base = dict(
        kind="street",
        gist="sunny",
        left="bus stop",
        right="fountain",
        mark=2,
        colour="#2a8c8c",
        count=4,
        label="E84",
        seed=7,
        colour_drawable="vehicle",
        label_drawable="sign",
        table_items=ITEMS,
        order=("lantern", "shackle", "oilskin", "buoy"),
        person_colours=PERSON,
        person_holds=HOLDS,
        held="chart tube",
    )
    return SceneState(**(base | kw))  # type: ignore[arg-type]


def _colours(img: Image.Image, box: list[int]) -> set[tuple[int, int, int]]:
    return {c for _, c in img.crop(tuple(box)).getcolors(1 << 20)}  # type: ignore[misc]


def _dark(img: Image.Image, box: list[int]) -> int:
    return sum(n for n, c in img.crop(tuple(box)).getcolors(1 << 20) if max(c) < 90)  # type: ignore[misc]


def test_vehicle_carries_the_colour() -> None:
    for colour in ("#2a8c8c", "#c8643c"):
        img, lay = render_scene(_state(colour=colour))
        assert img.getpixel(tuple(lay["colour_point"])) == rgb(colour)
        box = _colours(img, lay["colour_box"])
        assert (30, 30, 30) in box and (190, 220, 240) in box  # wheels and the window


def test_sign_shows_the_label_text() -> None:
    a, la = render_scene(_state(label="E84"))
    b, lb = render_scene(_state(label="F82"))
    assert la["label"] == lb["label"] and la["label"][1] < 0.5 * a.height  # a sign up top, not the tag
    assert _dark(a, la["label"]) > 20 and (30, 60, 120) in _colours(a, la["label"])  # text, border
    assert a.crop(tuple(la["label"])).tobytes() != b.crop(tuple(lb["label"])).tobytes()
    tag = [round(0.70 * a.width) + 2, round(0.875 * a.height) + 2, round(0.97 * a.width) - 2, a.height - 2]
    assert _dark(a, tag) == 0  # the bottom tag is not drawn: the sign holds the text


def test_table_draws_the_order_left_to_right() -> None:
    order = ("lantern", "shackle", "oilskin", "buoy")
    img, lay = render_scene(_state(order=order))
    recs = lay["table"]
    assert [r["item"] for r in recs] == list(order)
    assert [r["box"][0] for r in recs] == sorted(r["box"][0] for r in recs)
    for r in recs:  # each object in its own ink, each with a written name card
        assert INKS[ITEMS.index(r["item"])] in _colours(img, r["box"])
        assert CARD in _colours(img, r["card"]) and _dark(img, r["card"]) > 5
    moved, lay2 = render_scene(_state(order=order[1:] + order[:1]))
    first = lay2["table"][0]
    assert first["item"] == "shackle" and INKS[ITEMS.index("shackle")] in _colours(moved, first["box"])
    assert INKS[ITEMS.index("shackle")] not in _colours(img, recs[0]["box"])


def test_person_in_their_colours_holds_the_object() -> None:
    img, lay = render_scene(_state(held="chart tube"))
    p = lay["person"]
    got = _colours(img, p["person"])
    assert {rgb(c) for _, c in PERSON} <= got  # skin, hair, top, bottom of the cast member
    assert p["item"] == "chart tube" and INKS[HOLDS.index("chart tube")] in _colours(img, p["box"])
    other, lo = render_scene(_state(held="fender"))
    assert INKS[HOLDS.index("fender")] in _colours(other, lo["person"]["box"])
    assert INKS[HOLDS.index("chart tube")] not in _colours(other, lo["person"]["box"])
    assert img.crop(tuple(p["card"])).tobytes() != other.crop(tuple(lo["person"]["card"])).tobytes()
