"""The release manifest: what a frozen release contains, hashed."""

from __future__ import annotations

from pydantic import Field

from mnemoforge.schemas.world import Record


class FileEntry(Record):
    sha256: str
    bytes: int


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
