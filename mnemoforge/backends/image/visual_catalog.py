"""What the memeye drawing library can draw for each built-in scene kind, by the names of its
drawables (the renderer is keyed by them: ``visual_gists.GISTS``, ``visual_scene.ITEMS``).

These are the library's own names for its shapes (a bookshelf, a chess board, rain), not a
domain's words: how a theme's questions, captions and chat *speak* about a kind (what the
picture is, "the price on the hanging tag", "Which game is set up ...") comes from a content
pack's ``memeye.kinds.<kind>.vocab``, or, without one, is composed in generic grammar from these
names (``generators/memeye/vocab.base_vocab``).
"""

from __future__ import annotations

from dataclasses import dataclass

from mnemoforge.backends.image.visual_gists import GISTS
from mnemoforge.backends.image.visual_props import ITEMS as PROP_ITEMS
from mnemoforge.backends.image.visual_shelf import ITEMS as SHELF_ITEMS


@dataclass(frozen=True)
class KindDrawables:
    """The drawables of one scene kind."""

    gists: tuple[str, ...]  # X1: what the centre of the picture draws
    gist_noun: str  # what a gist is, as a plain noun ("game", "weather")
    items: tuple[str, ...]  # X2: region drawables (two per picture, >= 5 to draw options from)
    instances: str  # X3: the four look-alike instances (plural)
    detail: str  # X3: the small detail one of them carries
    countables: str  # X4: the countable drawable (plural)
    colour_object: str  # X4: the small object carrying the colour


def _items(names: list[str]) -> tuple[str, ...]:
    missing = [n for n in names if n not in PROP_ITEMS and n not in SHELF_ITEMS]
    assert not missing, missing
    return tuple(names)


CATALOG: dict[str, KindDrawables] = {
    "room": KindDrawables(
        GISTS["room"],
        "room setup",
        _items(["bookshelf", "floor lamp", "armchair", "dresser", "potted palm"]),
        "mugs",
        "a star sticker",
        "red books",
        "vase",
    ),
    "board": KindDrawables(
        GISTS["board"],
        "game",
        _items(["scorepad", "dice cup", "sand timer", "snack bowl", "card box"]),
        "cards",
        "a folded corner",
        "captured pieces",
        "coaster",
    ),
    "dashboard": KindDrawables(
        GISTS["dashboard"],
        "screen view",
        _items(["ring chart", "bar chart", "line chart", "pie chart", "gauge"]),
        "tiles",
        "a gold ring",
        "trophy icons",
        "round badge",
    ),
    "street": KindDrawables(
        GISTS["street"],
        "weather",
        _items(["bus stop", "bakery", "pharmacy", "fountain", "bike rack"]),
        "parked cars",
        "a roof box",
        "traffic cones",
        "door",
    ),
    "shelf": KindDrawables(
        GISTS["shelf"],
        "stock",
        _items(["shopping basket", "price scanner", "sample stand", "flower bucket", "sale sign"]),
        "jars",
        "a red seal",
        "coupons",
        "bag on the hook",
    ),
}
