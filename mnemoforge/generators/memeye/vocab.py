"""Visual vocabulary of each scene kind: what a scene holds at each granularity and how it is asked.

Every scene has the same seven keys (the values differ by kind):

====== ===== ==========================================================================
key    X     drawn as
====== ===== ==========================================================================
gist   X1    the whole scene: a room's use, the game on the board, the dashboard view, weather
left   X2    the item standing in the left part of the scene
right  X2    the item standing in the right part of the scene
mark   X3    which of four similar instances carries a small detail (counted from the left)
colour X4    a colour (wall, tablecloth, header bar, facade), named with near neighbours
count  X4    a number of small countable items (3–9)
label  X4    small legible text (a price, a score, a step count, a route code)
====== ===== ==========================================================================
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mnemoforge.schemas.observations import Granularity

KEYS = ("gist", "left", "right", "mark", "colour", "count", "label")
GRANULARITY: dict[str, Granularity] = {
    "gist": "X1",
    "left": "X2",
    "right": "X2",
    "mark": "X3",
    "colour": "X4",
    "count": "X4",
    "label": "X4",
}
# keys that may change between photos (one change per scene and key, see world.plan_changes)
CHANGEABLE = ("gist", "left", "mark", "colour", "count", "label")
N_INSTANCES = 4
POSITIONS = ("first", "second", "third", "fourth")

# colour name -> (hex, near group); distractors for a colour come from its group first
COLOURS: dict[str, tuple[str, str]] = {
    "sage green": ("#9caf88", "green"),
    "olive green": ("#708238", "green"),
    "mint green": ("#98d8b0", "green"),
    "forest green": ("#2e6b3a", "green"),
    "sky blue": ("#87ceeb", "blue"),
    "navy blue": ("#1f2f5c", "blue"),
    "teal": ("#2a8c8c", "blue"),
    "powder blue": ("#b0c8e0", "blue"),
    "terracotta": ("#c8643c", "red"),
    "coral": ("#f08070", "red"),
    "brick red": ("#9c3a2c", "red"),
    "dusty rose": ("#c89090", "red"),
    "mustard yellow": ("#d4a72c", "yellow"),
    "butter yellow": ("#f2dc82", "yellow"),
    "ochre": ("#c08a30", "yellow"),
    "lavender": ("#b4a0d2", "purple"),
    "plum": ("#6e3c64", "purple"),
    "mauve": ("#a07898", "purple"),
}


@dataclass(frozen=True)
class KindVocab:
    """What one scene kind shows and how questions ask about it (``{s}`` = scene name)."""

    image_kind: str
    gists: tuple[str, ...]
    items: tuple[str, ...]
    instances: str
    detail: str
    count_noun: str
    colour_noun: str
    label_noun: str
    gist_question: str

    def question(self, key: str, scene: str) -> str:
        """The atomic (Y1) question about ``key`` of a scene."""
        forms = {
            "gist": self.gist_question,
            "left": "What stood in the left part of {s}?",
            "right": "What stood in the right part of {s}?",
            "mark": f"Counting from the left, which of the four {self.instances} in {{s}} had {self.detail}?",
            "colour": f"What colour was {self.colour_noun} in {{s}}?",
            "count": f"How many {self.count_noun} were there in {{s}}?",
            "label": f"What was {self.label_noun} in {{s}}?",
        }
        return forms[key].format(s=scene)


VOCAB: dict[str, KindVocab] = {
    "room": KindVocab(
        image_kind="room_photo",
        gists=("guest bedroom", "home office", "nursery", "art studio"),
        items=("bookshelf", "floor lamp", "armchair", "dresser", "potted palm"),
        instances="mugs on the shelf",
        detail="a star sticker",
        count_noun="red books standing on the floor",
        colour_noun="the wall",
        label_noun="the price written on the tag hanging",
        gist_question="What kind of room was set up in {s}?",
    ),
    "board": KindVocab(
        image_kind="game_board",
        gists=("chess", "checkers", "reversi", "backgammon"),
        items=("scorepad", "dice cup", "sand timer", "snack bowl", "card box"),
        instances="face-down cards",
        detail="a folded corner",
        count_noun="captured pieces beside the board",
        colour_noun="the tablecloth",
        label_noun="the score written on the note card",
        gist_question="Which game was set up on the board at {s}?",
    ),
    "dashboard": KindVocab(
        image_kind="health_dashboard",
        gists=("sleep summary", "step summary", "heart-rate summary", "hydration summary"),
        items=("ring chart", "bar chart", "line chart", "pie chart", "gauge"),
        instances="day tiles",
        detail="a gold ring",
        count_noun="trophy icons",
        colour_noun="the header bar",
        label_noun="the step count shown in the footer",
        gist_question="Which view was open on {s}?",
    ),
    "street": KindVocab(
        image_kind="street_view",
        gists=("sunny", "rainy", "snowy", "foggy"),
        items=("bus stop", "bakery", "pharmacy", "fountain", "bike rack"),
        instances="parked cars",
        detail="a roof box",
        count_noun="traffic cones",
        colour_noun="the building facade",
        label_noun="the route code on the bus-route sign",
        gist_question="What was the weather like at {s}?",
    ),
}


def colour_hex(name: str) -> str:
    return COLOURS[name][0]


def near_colours(name: str) -> list[str]:
    """Colours of the same group (the 'near colour' distractors), then the rest, by name."""
    group = COLOURS[name][1]
    same = sorted(c for c, (_, g) in COLOURS.items() if g == group and c != name)
    other = sorted(c for c, (_, g) in COLOURS.items() if g != group)
    return same + other


def make_label(kind: str, rng: random.Random) -> str:
    """Small legible text of a scene kind."""
    if kind == "room":
        return f"${rng.randint(12, 89)}.{rng.choice(['00', '50', '90', '99'])}"
    if kind == "board":
        return f"{rng.randint(10, 39)}-{rng.randint(10, 39)}"
    if kind == "dashboard":
        return f"{rng.randint(3, 14)},{rng.randint(100, 999)}"
    return f"{rng.choice('ABCDEFHKLMNPRSTW')}{rng.randint(10, 99)}"


def near_labels(kind: str, label: str) -> list[str]:
    """Plausible misreadings of a label: swapped or nudged digits, a neighbouring letter."""
    out: list[str] = []
    if kind == "room":
        whole, cents = label[1:].split(".")
        out = [
            f"${whole[::-1]}.{cents}",
            f"${int(whole) + 1}.{cents}",
            f"${whole}.{cents[::-1]}",
            f"${int(whole) - 1}.{cents}",
            f"${whole}.{'50' if cents != '50' else '90'}",
        ]
    elif kind == "board":
        a, b = label.split("-")
        out = [f"{b}-{a}", f"{a}-{int(b) + 1}", f"{int(a) + 1}-{b}", f"{a}-{int(b) - 1}"]
    elif kind == "dashboard":
        th, rest = label.split(",")
        out = [
            f"{th},{rest[::-1]}",
            f"{int(th) + 1},{rest}",
            f"{th},{rest[0]}{rest[2]}{rest[1]}",
            f"{int(th) - 1},{rest}",
        ]
    else:
        letter, num = label[0], label[1:]
        out = [
            f"{letter}{num[::-1]}",
            f"{chr(ord(letter) + 1)}{num}",
            f"{letter}{int(num) + 1}",
            f"{letter}{int(num) - 1}",
        ]
    return [x for x in dict.fromkeys(out) if x != label and "-" != x[:1]]
