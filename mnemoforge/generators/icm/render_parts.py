"""What the renderer needs to draw a declared part in a shot (``generators/icm/drawn_parts.py``):
kept apart from the World's planning, so the plan stage does not reach the drawing code."""

from __future__ import annotations

import datetime as dt

from mnemoforge.backends.image.protocol import PartPlacement
from mnemoforge.generators.icm.drawn_parts import part_key, part_spec, part_value
from mnemoforge.schemas.memeye import LABEL_RANGES
from mnemoforge.schemas.world import World


def part_placement(world: World, oid: str, when: dt.datetime) -> PartPlacement:
    """What the renderer needs to draw a drawn object at ``when``: its part, drawable, declared
    look and the value the World holds then."""
    o = world.object(oid)
    part, _ = part_key(o)
    spec = part_spec(world, oid)
    value = (
        part_value(world, oid, when) if part != "colour" else world.value_at(oid, "colour", when) or o.color
    )
    lo, hi = (
        (spec.get("range") or LABEL_RANGES.get(spec.get("type", ""), (0, 0))) if part == "label" else (0, 0)
    )
    return PartPlacement(
        oid=oid,
        part=part,
        drawable=spec.get("drawable", part),
        value=value,
        colour=spec.get("colour") or "" if part == "count" else "",
        lo=int(lo),
        hi=int(hi),
        container=spec.get("container") or "" if part == "count" else "",
        places=tuple(spec.get("places", ())),
        style=spec.get("style", ""),
        look=(spec.get("size") or "", spec.get("coat") or "", spec.get("markings") or "none"),
    )
