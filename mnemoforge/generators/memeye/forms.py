"""Surface forms for the memeye questions (the realisation layer, as ``generators/realise.py`` is
for smm and ``generators/icm/forms.py`` for icm): the question a scene's vocabulary asks, framed in
one of several wordings, picked per item from the seed and the item's arguments (never its answer
or its cell), so no form dominates a release and the frame tells nothing about the item."""

from __future__ import annotations

from typing import Any

from mnemoforge.hashing import content_hash
from mnemoforge.rng import derive_rng

FRAMES = (
    ("plain", "{q}"),
    ("pictures", "Going by the pictures you were shown, {q}"),
    ("back", "Thinking back to the photos, {q}"),
    ("images", "From the images shared in the chats, {q}"),
    ("showed", "Based on what the photos showed, {q}"),
)


def frame(question: str, seed: int, template_id: str, args: dict[str, Any]) -> tuple[str, str]:
    """(form id, text): ``question`` in a seeded frame."""
    rng = derive_rng(seed, "memeye", "form", template_id, content_hash(args))
    fid, text = FRAMES[rng.randrange(len(FRAMES))]
    q = question if fid == "plain" else question[0].lower() + question[1:]
    return f"{template_id}.{fid}", text.format(q=q)
