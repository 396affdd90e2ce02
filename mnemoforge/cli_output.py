"""The consoles every command prints to, and the one way a command fails.

Errors are printed with console markup off, so a message quoting a regex (``^[a-z][a-z0-9_]*$``)
or a file name with brackets reaches the user intact.
"""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console

console = Console(stderr=True, soft_wrap=True)  # progress, summaries, warnings, errors
out = Console(soft_wrap=True)  # results a script may read (tables, OK lines)


def fail(msg: str, code: int = 2) -> NoReturn:
    """Print ``error: MSG`` on stderr as is and exit with ``code`` (2: bad input)."""
    console.print("[bold red]error:[/] ", end="", highlight=False)
    console.print(msg, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)
