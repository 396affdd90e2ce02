"""Dense captions of the shared pictures, for caption-based memory baselines (caption-proof runs).

A dense caption describes the scene (X1 gist) and what stands in its regions (X2), but never an
instance identity (X3) or a pixel-level value (X4: colours, counts, small text): those are what
native visual memory must keep. ``facts`` lists the X1/X2 facts a caption states. The *minimal*
caption the shortcut gate uses is the shared ``[image: <kind>]`` tag (``panel_gates.minimal_caption``).
"""

from __future__ import annotations

import json

from mnemoforge.english import fill, with_article
from mnemoforge.generators.memeye.sessions import scene_of
from mnemoforge.generators.memeye.vocab import entity_vocab
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.world import World


def dense_caption(world: World, o: Observation) -> dict:
    """The caption record of one image round."""
    scene = scene_of(o, world)
    assert scene is not None, o.id
    ent = world.entity(scene)
    v = entity_vocab(ent.attrs)
    facts = {
        world.fact(e.fact).object: world.fact(e.fact) for e in o.expresses if e.granularity in ("X1", "X2")
    }
    draws = json.loads(ent.attrs["draws"]) if ent.attrs.get("draws") else {}
    board, table, person = draws.get("board"), draws.get("table"), draws.get("person")
    if "gist" in facts:
        gist = facts["gist"].value or ""
        said = (
            f"with {board['noun']} listing {gist}"
            if board
            else v.caption_gist.format(g=gist, a=with_article(gist))
        )
    else:  # a table-top arrangement stands where the gist would be (its order is X3: not said)
        said = f"with four things standing on {table['noun']}" if table else "as before"
    if "presence" in facts:
        left = f"{person.get('name', 'a person')} holding {with_article(facts['presence'].value or '')}"
    else:
        left = with_article(facts["left"].value or "") if "left" in facts else ""
    if "right" in facts:  # a scene pack's region items and instances
        text = fill(
            "{noun} of {scene}, {said}; {left} in the left part and {right:a} in the right part, four "
            "{instances} in a row at the top.",
            {"noun": v.caption_noun, "scene": ent.name, "said": said, "left": left,
             "right": facts["right"].value or "", "instances": v.caption_instances},
        )  # fmt: skip
    else:  # only the declared drawables
        parts = [said] if "gist" in facts or table else []
        parts += [f"{left} in the left part"] if left else []
        text = fill("{noun} of {scene}{rest}.", {"noun": v.caption_noun, "scene": ent.name,
                    "rest": "".join(f", {p}" for p in parts)})  # fmt: skip
    return {
        "observation": o.id,
        "session": o.episode,
        "scenario": o.source,
        "image": o.media[0],
        "caption": text,
        "facts": sorted(f.id for f in facts.values()),
    }


def dense_captions(world: World, observations: list[Observation]) -> list[dict]:
    return [dense_caption(world, o) for o in observations if o.media]
