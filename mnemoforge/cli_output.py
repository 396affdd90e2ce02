"""The consoles every command prints to, and the one way a command fails.

Errors are printed with console markup off, so a message quoting a regex (``^[a-z][a-z0-9_]*$``)
or a file name with brackets reaches the user intact.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from typer.core import TyperGroup

console = Console(stderr=True, soft_wrap=True)  # progress, summaries, warnings, errors
out = Console(soft_wrap=True)  # results a script may read (tables, OK lines)


def fail(msg: str, code: int = 2) -> NoReturn:
    """Print ``error: MSG`` on stderr as is and exit with ``code`` (2: bad input, 1: the
    environment failed: a full disk, a read-only folder)."""
    console.print("[bold red]error:[/] ", end="", highlight=False)
    console.print(msg, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


ENVIRONMENT_ERRNOS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "not permitted",
    errno.ENOTDIR: "a path on the way is a file, not a folder",
    errno.EISDIR: "it is a folder, not a file",
    errno.EEXIST: "a file is in the way",
    errno.ENAMETOOLONG: "the path is too long",
    errno.EMFILE: "too many open files",
    errno.ENOMEM: "out of memory",
    errno.EIO: "an input/output error",
}
"""OSErrors that say the machine cannot do what was asked (not a bug): one line, exit 1."""


def environment_message(e: OSError) -> str:
    """One line for an environment fault: what failed, where, and why in words."""
    where = e.filename if e.filename is not None else "a file"
    why = ENVIRONMENT_ERRNOS.get(e.errno or 0, e.strerror or str(e))
    text = f"{where}: {why}" + (f" ({e.strerror})" if e.strerror and e.strerror.lower() != why else "")
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        text += "; free some space and run the command again (finished work is reused)"
    return text


class CleanErrors(TyperGroup):
    """Every command: an environment fault (disk full, read-only folder, a file where a folder
    belongs) ends as one ``error:`` line and exit 1, never a traceback."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except OSError as e:
            if e.errno not in ENVIRONMENT_ERRNOS:
                raise
            fail(environment_message(e), 1)


def writable_folder(path: Path, option: str) -> None:
    """``path`` is (or can be made) a folder this process can write into; one ``error:`` line
    and exit 2 (a file given) or 1 (the file system refuses) otherwise, before any work starts."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        fail(f"{option} {path}: is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".tmp-write-probe.{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        if e.errno == errno.ENOTDIR:
            fail(f"{option} {path}: a path on the way is a file, not a folder")
        fail(f"{option} {path}: cannot write there ({ENVIRONMENT_ERRNOS.get(e.errno or 0, e.strerror)})", 1)
