"""The base of every theme record."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Base for theme records: unknown keys are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
