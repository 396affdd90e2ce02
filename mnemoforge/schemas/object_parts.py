"""A declared object drawn by a part of the drawing library (issue 30: both picture families use
the same library). An object of an album theme may declare ``draws:`` with the same schema as a
memeye scenario (``schemas/memeye.py``: ``DrawsSpec``), one part per object, and the ``place``
it stands at (a board on the office wall, a shelf in the store room, a chart map by the door).
Its wide shots at that place draw it with that part; the World's timeline of the part's key
holds the value each shot shows (``generators/icm/drawn_parts.py``).

The parts an album object may take, each with the World key its value lives under:

- ``label``: a written value (``sign``, ``board``, ``screen``, ``tag`` or ``chart``) of a
  declared ``type`` (``level``, ``count``, ``time``);
- ``count``: counted items (``box``, ``bottle``, ``tin``, ``coin``, ``book``, ``cone``) on a
  shelf, or in a ``bin``, ``crate`` or ``basket``;
- ``map``: a map with 4-6 named places and a pin at one (``marked``);
- ``colour``: a vehicle, an aircraft, an animal or a thing, drawn in the object's colour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mnemoforge.schemas.memeye import DrawsSpec

# the part -> the World attribute its value lives under (the memeye state keys, SHARED_DRAWABLES)
OBJECT_PARTS = {"label": "label", "count": "count", "map": "marked", "colour": "colour"}
COUNT_SPAN = (1, 9)  # counted items on a shelf: as many as fit one legible row
MAX_PARTS_PER_PLACE = 2  # drawn at the two top corners of a wide shot


def part_of(draws: DrawsSpec) -> str:
    """The one part an object's ``draws`` declares; ``ValueError`` naming what is wrong."""
    declared = [k for k in ("board", "colour", "count", "label", "table", "person", "map")
                if getattr(draws, k) is not None]  # fmt: skip
    if len(declared) != 1:
        got = ", ".join(declared) or "none"
        raise ValueError(f"an object draws exactly one part ({', '.join(OBJECT_PARTS)}); got {got}")
    part = declared[0]
    if part not in OBJECT_PARTS:
        raise ValueError(
            f"{part}: a scenario's part (memeye); an object draws one of {', '.join(OBJECT_PARTS)}"
        )
    if part == "label" and draws.label is not None and draws.label.type == "code":
        raise ValueError("label.type: give the written value's type (level, count or time); "
                         "a `code` label takes a scene pack's format")  # fmt: skip
    return part


def check_object_parts(objects: list, places: set[str]) -> None:
    """An object that ``draws`` a part stands at a declared ``place`` and has no owner (nobody
    carries a board); at most ``MAX_PARTS_PER_PLACE`` such objects per place."""
    per_place: dict[str, list[str]] = {}
    for i, o in enumerate(objects):
        if o.place is not None and o.place not in places:
            raise ValueError(f"objects.{i}.place: unknown place {o.place!r}")
        if o.draws is None:
            continue
        try:
            part_of(o.draws)
        except ValueError as e:
            raise ValueError(f"objects.{i}.draws: {e}") from None
        if o.place is None:
            raise ValueError(f"objects.{i}.place: an object that draws a part stands at a place; declare it")
        if o.owner is not None:
            raise ValueError(
                f"objects.{i}.owner: an object standing at a place (`place`) is nobody's to bring"
            )
        per_place.setdefault(o.place, []).append(o.id)
    for place, ids in per_place.items():
        if len(ids) > MAX_PARTS_PER_PLACE:
            raise ValueError(
                f"objects: {', '.join(ids)} all stand at {place!r}; a wide shot draws at most "
                f"{MAX_PARTS_PER_PLACE} declared parts per place"
            )
