"""Atomic file writes: readers see the old file or the new one, never half of one.

Temp files are made with ``mkstemp`` beside their target (``.tmp-NAME.<random>``), so two
threads or processes writing the same path never share one; each writer removes its own on
error. Leftovers of a killed build are swept by the next build of the same run only
(``sweep_temp_files(run.root)``, under the run lock), never across an outputs folder that
other builds are writing into.

Files are made readable like any dataset: ``0666 & ~umask`` (0644 under the usual umask 022),
folders ``0777 & ~umask`` (0755), whatever ``mkstemp``/``mkdtemp`` chose (0600/0700).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from mnemoforge.hashing import canonical_json

TMP_PREFIX = ".tmp-"
_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """This process's umask, read without changing it where Linux says it (``/proc``); elsewhere
    set and restored under a lock (``os.umask`` is the only portable reader)."""
    try:
        m = re.search(r"^Umask:\s*([0-7]+)", Path("/proc/self/status").read_text(), re.M)
        if m:
            return int(m.group(1), 8)
    except OSError:
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode of a written file: readable by all unless the umask says otherwise."""
    return 0o666 & ~current_umask()


def dir_mode() -> int:
    """The mode of a made folder: readable and listable by all unless the umask says otherwise."""
    return 0o777 & ~current_umask()


def make_readable(path: Path) -> Path:
    """Give a file ``file_mode()`` (a folder ``dir_mode()``): temp files start private."""
    os.chmod(path, dir_mode() if Path(path).is_dir() else file_mode())
    return Path(path)


def mkstemp_beside(path: Path, suffix: str = "", mode: int | None = None) -> tuple[int, Path]:
    """``mkstemp`` beside ``path`` (``.tmp-NAME.<random>SUFFIX``), already given ``mode`` (default
    ``file_mode()``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{path.name}.", suffix=suffix, dir=path.parent)
    os.fchmod(fd, file_mode() if mode is None else mode)
    return fd, Path(name)


def tmp_path_for(path: Path, suffix: str = "", mode: int | None = None) -> Path:
    """A fresh, empty temp file beside ``path``, unique to this call (``mkstemp``)."""
    fd, name = mkstemp_beside(path, suffix, mode)
    os.close(fd)
    return name


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temp path beside ``path``; on success it replaces ``path``, on error it is removed.

    The temp file exists (empty) when yielded; writers may overwrite or replace it.
    """
    mode = file_mode()  # read once a write (Linux: from /proc)
    tmp = tmp_path_for(path, mode=mode)
    try:
        yield tmp
        if tmp.exists():
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            os.chmod(tmp, mode)  # a writer may have replaced the temp file with its own
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
