"""The base of every theme record."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from mnemoforge.schemas.limits import MAX_TEXT


class Strict(BaseModel):
    """Base for theme records: unknown keys are errors, not silently ignored; no inf/NaN; every
    string at most ``MAX_TEXT`` characters unless its field states another limit
    (``schemas/limits.py`` gives each limit's reason)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, str_max_length=MAX_TEXT)
