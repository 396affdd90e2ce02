"""Theme section of the visual-centric family (MemEye): scenarios, sessions, X×Y cell targets.

Filled in by the MemEye family; ``check`` validates references against the rest of the theme.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from mnemoforge.schemas.theme import Theme


class MemEyeSpec(BaseModel):
    """The ``memeye:`` section of a theme."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def check(self, theme: Theme) -> None:
        """Raise ``ValueError('memeye.<path>: …')`` for references the section alone cannot check."""
