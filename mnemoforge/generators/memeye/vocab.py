"""Visual vocabulary of a scene kind: the keys a scene holds at each granularity, how they are
asked, and the option sets. It holds no domain word: what a kind draws is the drawing library's
(``backends/image/visual_catalog.py``), how it is spoken about comes from a content pack
(``memeye.kinds.<kind>.vocab``) or is composed in generic grammar (``base_vocab``), and a
scenario's declared drawables swap in the theme's own nouns (``scenario_vocab``).

Every scene has the same seven keys, and a scenario's declared drawables may swap two of them:

========= ===== =======================================================================
key       X     drawn as
========= ===== =======================================================================
gist      X1    the whole scene (the centre of the picture); a declared board lists text
left      X2    the item standing in the left part of the scene
right     X2    the item standing in the right part of the scene
mark      X3    which of four similar instances carries a small detail (counted from the left)
colour    X4    the colour of one small object (about 1 % of the frame)
count     X4    a number of small countable items (3–9)
label     X4    small legible text (a tag, or a declared sign)
order     X3    declared table-top: the left-to-right order of its four objects (replaces gist)
presence  X2    declared cast person: which declared object they hold (replaces left)
marked    X3    declared map: which named location its pin marks (replaces mark)
========= ===== =======================================================================

The large background has a per-scene neutral tint that is never asked about, so the asked
colour is a small region no captioner would single out.

Labels (integer fields formatted per kind, and their option sets) are in ``labels``.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

from mnemoforge.schemas.observations import Granularity

if TYPE_CHECKING:
    from mnemoforge.schemas.memeye import ScenarioSpec

KEYS = ("gist", "left", "right", "mark", "colour", "count", "label")
VIEW = "view"  # an unasked fact of a scene that has no key of its own: which scene a picture shows
GRANULARITY: dict[str, Granularity] = {
    "gist": "X1",
    "left": "X2",
    "right": "X2",
    "mark": "X3",
    "colour": "X4",
    "count": "X4",
    "label": "X4",
    "order": "X3",
    "presence": "X2",
    "marked": "X3",
    VIEW: "X1",
}
# keys that may change between photos (one change per scene and key, see world.plan_changes)
CHANGEABLE = ("gist", "left", "mark", "colour", "count", "label")
# the rotation the changes follow: each key alone at its granularity (X1 gist, X2 left, X3 mark)
# twice per cycle, each of the three X4 keys once, so every X*_Y3 cell gets a like share of the
# changes (one key per cell supplies X1-X3, three keys share X4); no key twice in a row
CHANGE_CYCLE = ("gist", "left", "mark", "colour", "gist", "left", "mark", "count", "label")
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
    """What one scene kind shows (the library's drawables, ``visual_catalog``) and how questions
    and captions speak about it (a pack's ``memeye.kinds.<kind>.vocab``, or composed)."""

    kind: str
    image_kind: str
    gists: tuple[str, ...]
    items: tuple[str, ...]
    instances: str
    detail: str
    count_noun: str
    colour_noun: str
    label_noun: str
    gist_form: str  # present tense, ``{w}`` = the scene with its preposition
    prep: str  # preposition before a scene name ("in the boathouse", "at the Thursday choir")
    caption_noun: str = "A picture"
    caption_gist: str = "{g}"
    caption_instances: str = ""
    table_noun: str = ""  # declared table-top arrangement (the ``order`` variable)
    table_items: tuple[str, ...] = ()
    person: str = ""  # declared cast person (the ``presence`` variable): their name
    holds: tuple[str, ...] = ()
    label_type: str = ""  # declared label of a value type (level, count, time): its type and range
    label_range: tuple[int, ...] = ()
    map_noun: str = ""  # declared map (the ``marked`` variable): its noun, the pin's, its places
    map_marker: str = ""
    map_places: tuple[str, ...] = ()

    def where(self, scene: str) -> str:
        if not scene:
            return ""
        from mnemoforge.english import fill

        prep = self.prep.replace("{", "{{").replace("}", "}}")
        return fill(prep + " {scene}", {"scene": scene}, capitalise=False)

    def question(self, key: str, scene: str, when: str = "", other: str | None = None) -> str:
        """The question about ``key`` of one scene (or of ``scene`` and ``other``, answered in that
        order), present tense; ``when`` is '' or ' now' etc.; ``scene`` '' asks about a shared
        object wherever it is seen."""
        w = self.where(scene)
        if other is not None:
            scene, w, when = f"{scene} and {other}", f"{w} and {self.where(other)}", f"{when}, respectively"
        which = f"which of the four {self.instances}"
        forms = {
            "gist": self.gist_form,
            "left": "What stands in the left part of {s}{t}?",
            "right": "What stands in the right part of {s}{t}?",
            "mark": f"Counting from the left, {which} {{w}} has {self.detail}{{t}}?",
            "colour": f"What colour is {self.colour_noun} {{w}}{{t}}?",
            "count": f"How many {self.count_noun} are there {{w}}{{t}}?",
            "label": f"What is {self.label_noun} {{w}}{{t}}?",
            "order": f"From left to right, in what order do the things stand on {self.table_noun} "
            "{w}{t}?",
            "presence": f"What is {self.person} holding {{w}}{{t}}?",
            "marked": f"Where is {self.map_marker} marked on {self.map_noun} {{w}}{{t}}?"
            if self.map_marker
            else f"Which place is marked on {self.map_noun} {{w}}{{t}}?",
        }
        from mnemoforge.english import fill

        return fill(forms[key], {"s": scene, "w": w, "t": when})


# neutral background tints (never asked, never a COLOURS value): wall, tablecloth, header, facade
BACKDROPS: dict[str, tuple[str, ...]] = {
    "room": ("#e9e4da", "#dfe3e6", "#e6ddd3", "#e2e6dc"),
    "board": ("#5b4a3c", "#4c5257", "#6a5646", "#525a4e"),
    "dashboard": ("#505866", "#3f4a5a", "#5a5262", "#46505a"),
    "street": ("#b8aea2", "#a9a9a4", "#bfb4a8", "#aeb2ac"),
    "shelf": ("#efeae0", "#e4e8ea", "#ece4dc", "#e6eadf"),
}


def colour_hex(name: str) -> str:
    return COLOURS[name][0]


def colour_group(name: str) -> str:
    return COLOURS[name][1]


def colour_options(answer: str, stale: str | None, rng: random.Random) -> list[str]:
    """Three wrong colours making two same-group pairs with the answer's group and one other
    (so no group holds a majority); ``stale`` (a Y3 stale state) is always one of them."""
    groups: dict[str, list[str]] = {}
    for c, (_, g) in COLOURS.items():
        groups.setdefault(g, []).append(c)
    ga = colour_group(answer)
    near = rng.choice([c for c in groups[ga] if c not in (answer, stale)])
    if stale is not None and colour_group(stale) == ga:
        other = rng.choice(sorted(g for g in groups if g != ga))
        return [stale, *rng.sample(groups[other], 2)]
    if stale is not None:
        return [stale, near, rng.choice([c for c in groups[colour_group(stale)] if c != stale])]
    other = rng.choice(sorted(g for g in groups if g != ga))
    return [near, *rng.sample(groups[other], 2)]


def count_window(
    values: list[int], rng: random.Random, low: int, high: int, avoid: set[int], rank: int | None = None
) -> list[int]:
    """Four consecutive numbers holding every one of ``values``, none in ``avoid``, within
    [low, high] where possible; the start puts ``values[0]`` at ``rank`` (0 = smallest) where a
    window allows it, else it is seeded, so the answer's rank is not fixed."""
    lo, hi = min(values), max(values)
    starts = [s for s in range(hi - 3, lo + 1) if not avoid & set(range(s, s + 4))]
    inside = [s for s in starts if s >= low and s + 3 <= high]
    pool = inside or starts or [max(1, hi - 3)]
    placed = [s for s in pool if values[0] - s == rank]
    s = placed[0] if placed else rng.choice(pool)
    return list(range(s, s + 4))


# ---- the kind's wording: a pack's, or composed from the library's drawable names --------------


def base_vocab(
    kind: str, pack: str | None = None, scene_packs: tuple[str, ...] | list[str] = ()
) -> KindVocab:
    """The vocabulary of a scene kind: the drawables of the theme's opted-in scene packs
    (``visual_catalog``; none: the kind draws only what a scenario declares) with the wording of
    the pack's ``memeye.kinds.<kind>.vocab``, or composed from the drawables' names in generic
    grammar when the theme names no pack (or the pack has no wording for the kind)."""
    from mnemoforge.backends.image.visual_catalog import EMPTY, kind_drawables
    from mnemoforge.schemas.packs import load_pack

    d = kind_drawables(kind, scene_packs)
    mp = load_pack(pack).memeye if pack else None
    kp = mp.kinds.get(kind) if mp else None  # type: ignore[call-overload]
    w = kp.vocab if kp is not None else None
    if d is EMPTY:  # only the declared drawables: their nouns come in with ``scenario_vocab``
        return KindVocab(
            kind=kind, image_kind=w.image_kind if w else f"{kind}_photo", gists=(), items=(),
            instances="", detail="", count_noun="", colour_noun="", label_noun="", gist_form="",
            prep=w.prep if w else "at", caption_noun=w.caption_noun if w else "A picture",
        )  # fmt: skip
    if w is not None:
        return KindVocab(
            kind, w.image_kind, d.gists, d.items, w.instances, d.detail, w.count_noun, w.colour_noun,
            w.label_noun, w.gist_form, w.prep, w.caption_noun, w.caption_gist, w.caption_instances,
        )  # fmt: skip
    return KindVocab(
        kind=kind,
        image_kind=f"{kind}_photo",
        gists=d.gists,
        items=d.items,
        instances=d.instances,
        detail=d.detail,
        count_noun=f"{d.countables} in the bottom row",
        colour_noun=f"the {d.colour_object}",
        label_noun="the text on the white label",
        gist_form=f"Which {d.gist_noun} does the picture show {{w}}{{t}}?",
        prep="at",
        caption_noun="A picture",
        caption_gist=f"its {d.gist_noun}: {{g}}",
        caption_instances=d.instances,
    )


def vocab_for(
    sc: ScenarioSpec,
    pack: str | None = None,
    draws: dict | None = None,
    scene_packs: tuple[str, ...] | list[str] = (),
) -> KindVocab:
    """A scenario's vocabulary: its kind's (``base_vocab``) with its declared drawables swapped in
    (``draws``: ``world.draws_of(sc, theme)``; default: the scenario's own, without a person's name)."""
    if draws is None:
        d = sc.draws.model_dump(mode="json", exclude_none=True)
        draws = d or None
    return scenario_vocab(base_vocab(sc.kind, pack, scene_packs), draws)


# ---- drawables a scenario declares (``scenarios.*.draws``) --------------------------------------

BOARD_SEP = ", "  # a board's list as one gist value: its lines joined (a pair answer uses " / ")
ORDER_SEP = " > "  # a table-top order, left to right (ordered: a name list would compare as a set)


def scenario_vocab(v: KindVocab, draws: dict | None) -> KindVocab:
    """``v`` with the scenario's declared drawables swapped in (``draws`` is
    ``DrawsSpec.model_dump()``; None or empty: the kind's own)."""
    if not draws:
        return v
    change: dict[str, object] = {}
    if draws.get("board"):
        b = draws["board"]
        change["gists"] = tuple(BOARD_SEP.join(lst) for lst in b["lists"])
        change["gist_form"] = f"What is listed on {b['noun']} {{w}}{{t}}?"
    if draws.get("colour"):
        change["colour_noun"] = draws["colour"]["noun"]
    if draws.get("count"):
        change["count_noun"] = draws["count"]["noun"]
    if draws.get("label"):
        change["label_noun"] = draws["label"]["noun"]
        if draws["label"].get("type", "code") != "code":
            from mnemoforge.generators.typed_values import bounds

            change["label_type"] = draws["label"]["type"]
            change["label_range"] = bounds(draws["label"])
    if draws.get("table"):
        change["table_noun"] = draws["table"]["noun"]
        change["table_items"] = tuple(draws["table"]["items"])
    if draws.get("person"):
        change["person"] = draws["person"].get("name") or "the person"
        change["holds"] = tuple(draws["person"]["holds"])
    if draws.get("map"):
        m = draws["map"]
        change |= {"map_noun": m["noun"], "map_marker": m.get("marker") or ""}
        change["map_places"] = tuple(m["places"])
    return replace(v, **change)  # type: ignore[arg-type]


# key -> the declared drawable that draws it when no scene pack supplies the kind's own
DECLARED_KEY = {"gist": "board", "colour": "colour", "count": "count", "label": "label"}
SWAPPED = {"gist": ("table", "order"), "left": ("person", "presence"), "mark": ("map", "marked")}


def keys_of(draws: dict | None, packed: bool = True) -> tuple[str, ...]:
    """The keys a scene of a scenario shows: a declared table-top arrangement draws ``order``
    where the gist would be, a declared person ``presence`` where the left item would be, a
    declared map ``marked`` where the marked instances would be; without a scene pack
    (``packed`` False) only the declared drawables' keys."""
    d = draws or {}
    out = [k for k in KEYS if not (k in SWAPPED and d.get(SWAPPED[k][0]))]
    if not packed:
        out = [k for k in out if k in DECLARED_KEY and d.get(DECLARED_KEY[k])]
    return tuple(out + [key for part, key in SWAPPED.values() if d.get(part)])


def rotations(order: str) -> list[str]:
    """The four cyclic rotations of a table-top order (``ORDER_SEP``-joined): as an option set
    every object stands once at every position, so no position majority points at one."""
    xs = order.split(ORDER_SEP)
    return [ORDER_SEP.join(xs[k:] + xs[:k]) for k in range(len(xs))]


def vocab_json(v: KindVocab) -> str:
    """``v`` as the JSON a scene entity keeps (attr ``vocab``; an undeclared label type is left out)."""
    d = asdict(v)
    if not v.label_type:
        del d["label_type"], d["label_range"]
    if not v.map_places:
        del d["map_noun"], d["map_marker"], d["map_places"]
    return json.dumps(d, sort_keys=True)


def entity_vocab(attrs: dict[str, str]) -> KindVocab:
    """The vocabulary of a scene entity, as the World planned it (attr ``vocab``)."""
    raw = json.loads(attrs["vocab"])
    return KindVocab(**{k: tuple(x) if isinstance(x, list) else x for k, x in raw.items()})
