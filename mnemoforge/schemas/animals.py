"""Animals of an icm theme's cast (``animals:``): drawn, never speaking.

An animal goes with its ``companions`` (person ids): it is in the shots in which one of them is
seen, beside them. It has an anchor picture (a drawn animal, not a face) and no voice: nobody
hears it speak and no line is given to it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mnemoforge.schemas.limits import MAX_CAST, MAX_NAME, Name
from mnemoforge.schemas.strict import Strict

Species = Literal["dog", "cat", "horse", "bird"]
Markings = Literal["none", "patch", "spots", "socks", "blaze"]
ANIMAL_ID_RE = r"^[a-z][a-z0-9_]*$"


class AnimalSpec(Strict):
    """An animal of the cast."""

    id: str = Field(pattern=ANIMAL_ID_RE, max_length=MAX_NAME, description="animal id")
    name: str = Field(min_length=1, max_length=MAX_NAME, description="its name, e.g. 'Bruno'")
    species: Species = Field(description="what it is drawn as")
    size: Literal["small", "medium", "large"] = Field(default="medium", description="drawn size")
    coat: str = Field(pattern=r"^#[0-9a-fA-F]{6}$", description="main coat (or plumage) colour")
    markings: Markings = Field(default="none", description="drawn markings, in markings_color")
    markings_color: str = Field(
        default="#f4f1ea", pattern=r"^#[0-9a-fA-F]{6}$", description="colour of the markings"
    )
    collar: str | None = Field(
        default=None, pattern=r"^#[0-9a-fA-F]{6}$", description="collar (or halter) colour; none: no collar"
    )
    companions: list[Name] = Field(
        min_length=1, max_length=MAX_CAST, description="person ids it goes with (it is seen beside them)"
    )
