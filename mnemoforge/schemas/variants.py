"""Length variants: several histories of each kept item (a theme's ``variants:`` section).

Each kept item gets its own history per variant: ``oracle`` the episodes (icm clips, smm and
memeye sessions) with its evidence; every other variant those plus more episodes of the same World
that the item may read, up to a target: a ``size`` (a count) or a ``share`` of the episodes the
item may read (rounded down), in the family's unit (``Family.variant_unit_name``). ``s``, ``m`` and
``l`` have defaults (1/8, 1/3 and all of them), so ``build --variants oracle,s,m,l`` needs no
``variants:`` section. An item whose evidence is above a variant's target is left out of it.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from mnemoforge.schemas.strict import Strict

ORACLE = "oracle"
VARIANT_NAME = r"^[a-z][a-z0-9_]{0,31}$"
VariantName = Annotated[str, StringConstraints(pattern=VARIANT_NAME)]
MAX_VARIANTS = 16
MAX_UNITS = 100_000


class VariantSpec(Strict):
    """One length variant's target size: ``size`` episodes, or a ``share`` of the World's."""

    size: int | None = Field(
        default=None, ge=1, le=MAX_UNITS,
        description="target episodes per item (icm: clips; smm: sessions, one source's messages of one "
        "day; memeye: chat sessions), at most those it may read; an item whose evidence spans more "
        "is left out of the variant",
    )  # fmt: skip
    share: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="target as a share of the episodes each item may read, rounded down (instead of size)",
    )

    @model_validator(mode="after")
    def _one_target(self) -> VariantSpec:
        if self.size is not None and self.share is not None:
            raise ValueError("size: give size or share, not both")
        return self


DEFAULT_VARIANTS: dict[str, VariantSpec] = {
    ORACLE: VariantSpec(),
    "s": VariantSpec(share=1 / 8),
    "m": VariantSpec(share=1 / 3),
    "l": VariantSpec(share=1.0),
}
"""The four names ``--variants`` knows without a ``variants:`` section (L is the whole World, 8x S)."""


def check_variants(variants: dict[str, VariantSpec]) -> None:
    """A theme's ``variants:`` section: at most ``MAX_VARIANTS``; ``oracle`` takes no size; any
    other name has a size or a share (the four default names may leave theirs out)."""
    if len(variants) > MAX_VARIANTS:
        raise ValueError(f"variants: {len(variants)} variants, at most {MAX_VARIANTS}")
    for name, spec in variants.items():
        if name == ORACLE and (spec.size is not None or spec.share is not None):
            raise ValueError(
                "variants.oracle: the oracle variant holds the evidence episodes only; remove its size/share"
            )
        if name != ORACLE and spec.size is None and spec.share is None and name not in DEFAULT_VARIANTS:
            raise ValueError(f"variants.{name}: give a size (episodes) or a share of the World's episodes")
