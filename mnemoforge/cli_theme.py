"""``mnemoforge theme check`` and ``mnemoforge theme new`` (the ``theme`` sub-app of ``cli.py``)."""

from __future__ import annotations

from pathlib import Path

import typer

from mnemoforge.cli_help import examples
from mnemoforge.cli_output import fail as _fail
from mnemoforge.cli_output import out
from mnemoforge.registry import DEFAULT_FAMILY
from mnemoforge.theme_io import ThemeError

theme_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode="rich",
    help="Check a theme file or write a starter theme.",
    epilog=examples("mnemoforge theme new my_album", "mnemoforge theme check my_album.yaml"),
)


@theme_app.command("check", epilog=examples("mnemoforge theme check assets/themes/life_album.yaml"))
def theme_check(file: Path = typer.Argument(..., metavar="FILE", help="theme YAML file")) -> None:
    """Validate a theme without building: schema, registry names, paths and the family's own checks
    (a dry run of the build's checks); one line per problem, naming the field."""
    from mnemoforge.theme_checks import check_theme

    try:
        t = check_theme(file)
    except ThemeError as e:
        _fail(str(e))
    from mnemoforge.generators.families import get_family

    fam = get_family(t.family)  # its check_theme problems are in check_theme's error already
    for w in fam.theme_warnings(t):
        out.print(f"warning: {w}", highlight=False)
    out.print(
        f"OK {file}: {t.title!r}, {len(t.cast)} people, {len(t.places)} places, "
        f"{len(t.activities)} activities, {t.start} → {t.end}",
        highlight=False,
    )


@theme_app.command(
    "new",
    epilog=examples(
        "mnemoforge theme new my_album",
        "mnemoforge theme new team_chat --family smm --dest themes/team_chat.yaml",
    ),
)
def theme_new(
    name: str = typer.Argument(..., metavar="NAME", help="theme name (lower_snake_case)"),
    dest: Path = typer.Option(None, metavar="FILE", help="file to write (default: NAME.yaml)"),
    family: str = typer.Option(
        DEFAULT_FAMILY, metavar="icm|smm|memeye", help="album (icm), sources (smm) or visual chats (memeye)"
    ),
) -> None:
    """Write a commented starter theme that builds as is (smm, memeye: the shipped example)."""
    from mnemoforge.theme_starter import starter_theme

    path = dest or Path(f"{name}.yaml")
    if path.exists():
        _fail(f"{path} already exists")
    try:
        text = starter_theme(name, family)
    except ValueError as e:
        _fail(str(e))
    path.write_text(text, encoding="utf-8")
    typer.echo(str(path))
