"""Reading files that input names: regular files only, with a size cap, inside allowed folders.

A theme, a price table or a prompt is input from anyone. ``read_capped`` refuses what is not a
regular file before opening it (``/dev/zero``, a FIFO that would block ``open``, a folder) and
never reads more than its cap, so no path a theme names can hang or exhaust a build.
``inside`` says whether a path, once resolved (``..`` and symbolic links followed), lies inside
one of the allowed folders.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "assets"
ALLOWED_ENV = "MNEMOFORGE_ALLOWED_PATHS"
"""Extra folders (``os.pathsep``-separated) a theme may name files in, besides its own folder."""


class BoundedReadError(ValueError):
    """A file that may not be read: not a regular file, too large, or unreadable."""


def read_capped(path: Path | str, limit: int, what: str = "file") -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes."""
    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as e:
        raise BoundedReadError(f"{path}: cannot read the {what} ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise BoundedReadError(f"{path}: not a regular file (a {what} must be a file)")
    if st.st_size > limit:
        raise BoundedReadError(f"{path}: {st.st_size} bytes; a {what} may have at most {limit}")
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise BoundedReadError(f"{path}: cannot read the {what} ({e.strerror or e})") from None
    if len(data) > limit:  # it grew while being read
        raise BoundedReadError(f"{path}: more than {limit} bytes; a {what} may have at most {limit}")
    return data


def allowed_roots(own: Iterable[Path] = ()) -> list[Path]:
    """``own`` folders, the project's ``assets/`` and the folders in ``MNEMOFORGE_ALLOWED_PATHS``."""
    roots = [Path(p) for p in own] + [ASSETS]
    roots += [Path(p).expanduser() for p in os.environ.get(ALLOWED_ENV, "").split(os.pathsep) if p.strip()]
    return [r.resolve() for r in roots]


def inside(path: Path, roots: Iterable[Path]) -> bool:
    """Whether ``path`` resolves to one of ``roots`` or a path below one."""
    real = Path(path).resolve()
    return any(real == r or r in real.parents for r in roots)
