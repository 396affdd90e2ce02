"""The release manifest: what a frozen release contains, hashed."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_serializer

from mnemoforge.schemas.world import Record


class FileEntry(Record):
    sha256: str
    bytes: int


class VariantEntry(Record):
    """One variant of a release, as ``MANIFEST.json`` lists it (tools discover variants here).

    A length variant gives every item in it its own history (``haystacks`` table): the sizes are
    over those histories. An ablation is one history, the whole one as the ablation leaves it."""

    name: str
    family: str
    unit: str = Field(description="what size counts: clips (icm), sessions (smm)")
    size: float = Field(description="episodes per item's history, the mean (ablations: of the one history)")
    size_min: int | None = Field(default=None, description="length variants: the smallest item history")
    size_max: int | None = Field(default=None, description="length variants: the largest item history")
    target: int | None = Field(description="episodes asked for (None: a share, or the evidence only)")
    share: float | None = Field(default=None, description="the share of each item's history asked for")
    observations: float = Field(description="observations per item's history, the mean (ablations: all)")
    questions: int = Field(description="the kept items in the variant")
    left_out: int = Field(
        default=0, description="kept items not in this variant: their evidence spans more than its target"
    )
    config: str = Field(
        description="the card config of the variant's agent input (length variants: each item's history)"
    )
    ablation: bool = Field(
        default=False, description="a modality ablation of the whole history (not re-derived: items may fail)"
    )
    answerable: int | None = Field(
        default=None, description="ablations: items whose evidence survives and still gives the answer"
    )


class ReleaseManifest(Record):
    name: str
    version: str
    family: str
    seed: int
    code_version: str
    theme_sha256: str
    run_id: str
    counts: dict[str, int]
    files: dict[str, FileEntry] = Field(description="release-relative path -> checksum")
    variants: list[VariantEntry] | None = Field(
        default=None, description="length variants (build --variants): one config each; absent: none"
    )

    families: list[str] | None = Field(
        default=None,
        description="a multi-family release (docs/cross-family.md): its families, each under families/F/; "
        "absent: a single-family release",
    )

    @model_serializer(mode="wrap")
    def _drop_no_variants(self, handler: Any) -> dict[str, Any]:
        out = handler(self)
        if self.variants is None:  # a release without variants keeps the manifest it always had
            out.pop("variants", None)
        if self.families is None:  # so does a single-family release
            out.pop("families", None)
        return out
