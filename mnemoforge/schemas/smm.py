"""Theme section of the source-distributed family (SMMBench): sources, authority, tools, tasks.

Filled in by the SMM family; ``check`` validates references against the rest of the theme.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from mnemoforge.schemas.theme import Theme


class SmmSpec(BaseModel):
    """The ``smm:`` section of a theme."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def check(self, theme: Theme) -> None:
        """Raise ``ValueError('smm.<path>: …')`` for references the section alone cannot check."""
