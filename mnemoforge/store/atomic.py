"""Atomic file writes: readers see the old file or the new one, never half of one.

Temp files are made with ``mkstemp`` beside their target (``.tmp-NAME.<random>``), so two
threads or processes writing the same path never share one; each writer removes its own on
error. Leftovers of a killed build are swept by the next build of the same run only
(``sweep_temp_files(run.root)``, under the run lock), never across an outputs folder that
other builds are writing into.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from mnemoforge.hashing import canonical_json

TMP_PREFIX = ".tmp-"


def tmp_path_for(path: Path, suffix: str = "") -> Path:
    """A fresh, empty temp file beside ``path``, unique to this call (``mkstemp``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{path.name}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    return Path(name)


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temp path beside ``path``; on success it replaces ``path``, on error it is removed.

    The temp file exists (empty) when yielded; writers may overwrite or replace it.
    """
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


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries (a rename into it survives a power cut once this returns)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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


def sweep_temp_files(root: Path, pattern: str = f"{TMP_PREFIX}*") -> list[Path]:
    """Remove temp files a killed process left under ``root``; returns what was removed.

    Call it only on a folder this process owns (a run folder under its run lock): a concurrent
    writer's temp files there would be deleted under it.
    """
    removed = []
    if root.exists():
        for p in sorted(root.rglob(pattern)):
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            elif p.exists():
                p.unlink(missing_ok=True)
            removed.append(p)
    return removed
