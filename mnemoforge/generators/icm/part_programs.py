"""Recall programs over declared parts (issue 30; registered on import): what a drawn object
showed at one event, read from the World's ``shows`` fact of that event (the value its timeline
holds then, which the event's wide shot draws): the level written on a board, how many items
stood on a shelf, the place a map's pin marked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mnemoforge.generators.icm.drawn_parts import drawn_objects, part_key
from mnemoforge.generators.icm.programs import _unique_event
from mnemoforge.generators.questions.common import Template
from mnemoforge.generators.questions.programs import FactView, Unanswerable, program
from mnemoforge.schemas.world import World

# the part -> its recall template (``templates.T``); a colour part shows one colour throughout
PART_TEMPLATES = {"label": "recall.part.v1", "count": "recall.part.count.v1", "map": "recall.part.map.v1"}


@program
def part_shown(view: FactView, args: dict[str, Any]) -> str:
    """What the declared ``object`` showed at the person's (activity, day) event."""
    ev = _unique_event(view, [args["person"]], args["activity"], args["day"])
    got = view.find("shows", subject=args["object"], event=ev)
    if len(got) != 1 or got[0].value is None:
        raise Unanswerable(f"{args['object']} shows {len(got)} values at {ev}")
    return got[0].value


def part_candidates(
    world: World, templates: dict[str, Template]
) -> Iterator[tuple[Template, dict[str, Any]]]:
    """One recall item per drawn object, event at its place and participant (none without parts)."""
    parts = [(o, part_key(o)[0]) for o in drawn_objects(world.objects)]
    parts = [(o, part) for o, part in parts if part in PART_TEMPLATES]
    for ev in world.events if parts else ():
        day = ev.start.strftime("%Y-%m-%d")
        for o, part in parts:
            if o.place != ev.place:
                continue
            for p in ev.participants:
                args = {"person": p, "activity": ev.activity, "day": day, "object": o.id}
                yield templates[PART_TEMPLATES[part]], args


def part_fields(world: World, args: dict[str, Any]) -> dict[str, str]:
    """The question's words for a drawn object: ``part`` (its declared noun), ``marker`` (what a
    map's pin stands for; default: the pin)."""
    if "object" not in args or world.object(args["object"]).draws is None:
        return {}
    d = world.object(args["object"]).draws
    assert d is not None
    spec = d.label or d.count or d.map
    marker = d.map.marker if d.map is not None else None
    return {"part": spec.noun if spec is not None else "", "marker": marker or "the pin"}
