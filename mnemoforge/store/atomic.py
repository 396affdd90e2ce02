"""Atomic file writes: readers see the old file or the new one, never half of one."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from mnemoforge.hashing import canonical_json

TMP_PREFIX = ".tmp-"


def tmp_path_for(path: Path) -> Path:
    return path.with_name(f"{TMP_PREFIX}{path.name}.{os.getpid()}")


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temp path beside ``path``; on success it replaces ``path``, on error it is removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = tmp_path_for(path)
    try:
        yield tmp
        if tmp.exists():
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_bytes(path: Path, data: bytes) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return path


def write_text(path: Path, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, obj: object, *, indent: int | None = 2) -> Path:
    return write_text(path, canonical_json(obj, indent=indent) + "\n")


def write_jsonl(path: Path, rows: list) -> Path:
    return write_text(path, "".join(canonical_json(r) + "\n" for r in rows))


def sweep_temp_files(root: Path) -> list[Path]:
    """Remove temp files a killed process left behind; returns what was removed."""
    removed = []
    if root.exists():
        for p in sorted(root.rglob(f"{TMP_PREFIX}*")):
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
            removed.append(p)
    return removed
