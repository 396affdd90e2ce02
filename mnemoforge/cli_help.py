"""Help-text conventions for the command line: value names instead of type labels.

Recent typer versions print a type label beside every parameter (``<bool>`` on flags and
``--help``, ``<path>`` on arguments). Our options name their values with ``metavar``
(``--seed N``, ``--outputs DIR``) and our arguments are named in the usage line, so the label
column shows the metavar, nothing for flags and arguments, and typer's label otherwise.
"""

from __future__ import annotations

from typing import Any

import click
import typer.core


def _option_type(self: Any, ctx: click.Context) -> str | None:
    if self.metavar is not None:
        return self.metavar
    if getattr(self, "is_flag", False) or getattr(self, "is_bool_flag", False):
        return ""
    return _ORIGINAL_OPTION(self, ctx)


def _argument_type(self: Any, ctx: click.Context) -> str | None:
    return None  # the usage line already shows ARGUMENT


_ORIGINAL_OPTION = getattr(typer.core.TyperOption, "display_type_rich", None)


def install() -> None:
    """Apply the conventions (idempotent; only affects help output; older typers lack the hook)."""
    if _ORIGINAL_OPTION is not None:
        typer.core.TyperOption.display_type_rich = _option_type  # type: ignore[method-assign]
    if hasattr(typer.core.TyperArgument, "display_type_rich"):
        typer.core.TyperArgument.display_type_rich = _argument_type  # type: ignore[method-assign]


def examples(*lines: str) -> str:
    """An ``Examples`` epilog, one command per line (kept as typed)."""
    body = "\n\n".join(f"  [bold]$[/] {line}" for line in lines)
    return f"[bold]Examples[/]\n\n{body}"
