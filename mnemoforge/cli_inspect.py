"""Commands that look at what was built: ``report`` (an HTML report of a release or run), ``cast`` (a
contact sheet of a theme's cast) and ``catalog`` (SQL over the DuckDB catalog); registered in ``cli.py``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from mnemoforge.cli_help import examples
from mnemoforge.cli_output import fail as _fail
from mnemoforge.cli_output import out
from mnemoforge.theme_io import DEFAULT_THEME, ThemeError, load_theme


def report(
    source: Path = typer.Argument(..., metavar="SOURCE", help="a release folder or a run folder"),
    out: Path = typer.Option(
        None, "--out", metavar="DIR", help="folder for index.html and figures (default: SOURCE-report)"
    ),
) -> None:
    """Write a static HTML report with PNG figures for a release or a run.

    Cast, timelines, sources, the gate funnel, the taxonomy heatmap, per-category counts and
    example items with their evidence. A multi-family release: a section per family (each with its
    full report in a subfolder) and a cross section. Prints the folder."""
    from mnemoforge.exporters.report_multi import write_any_report

    dest = out or source.parent / f"{source.name}-report"
    try:
        typer.echo(str(write_any_report(source, dest)))
    except ValueError as e:
        _fail(str(e))


def cast(
    theme: Path = typer.Argument(
        DEFAULT_THEME, metavar="THEME", help="theme YAML file", show_default="assets/themes/life_album.yaml"
    ),
    out: Path = typer.Option(Path("cast.png"), metavar="FILE.png", help="PNG file to write"),
) -> None:
    """Draw a contact sheet of the cast: face anchors, voices and every outfit."""
    from mnemoforge.backends.image.procedural import png_bytes
    from mnemoforge.backends.registry import image_backend
    from mnemoforge.exporters.contact_sheet import contact_sheet
    from mnemoforge.store import atomic

    try:
        t = load_theme(theme)
    except ThemeError as e:
        _fail(str(e))
    atomic.write_bytes(out, png_bytes(contact_sheet(t, image_backend(t.render))))
    typer.echo(str(out))


def catalog(
    sql: str = typer.Argument(
        ..., metavar="SQL", help="a query over runs, questions, evidence, verdicts, media, releases"
    ),
    outputs: Path = typer.Option(Path("outputs"), metavar="DIR", help="outputs folder holding the catalog"),
) -> None:
    """Query the DuckDB catalog of every run and release (read-only) and print a table."""
    from mnemoforge.store.catalog import Catalog
    from mnemoforge.store.layout import OutputsLayout

    path = OutputsLayout(outputs).catalog
    if not path.exists():
        _fail(f"{path}: no catalog yet (build something first)")
    import duckdb

    with Catalog(path, read_only=True) as cat:  # queries only: no write lock, no changes
        try:
            cur = cat.con.execute(sql)
        except duckdb.Error as e:
            what = "the catalog is opened read-only; " if "read-only" in str(e).lower() else ""
            _fail(f"{path}: {what}{str(e).splitlines()[0]}")
        table = Table(*[d[0] for d in cur.description or [("result",)]])
        for row in cur.fetchall():
            table.add_row(*map(str, row))
    out.print(table)


def register(app: typer.Typer) -> None:
    """Add the commands to ``app`` (``cli.py`` calls this right after ``export``, keeping the help order)."""
    app.command(
        epilog=examples(
            "mnemoforge report outputs/releases/life_album/0.1.0",
            "mnemoforge report outputs/runs/life_album-s7-1a2b3c4d --out /tmp/report",
        )
    )(report)
    app.command(epilog=examples("mnemoforge cast assets/themes/life_album.yaml --out cast.png"))(cast)
    app.command(
        epilog=examples(
            'mnemoforge catalog "SELECT theme, count(*) FROM runs GROUP BY theme"',
            'mnemoforge catalog "SELECT category, count(*) FROM questions WHERE kept GROUP BY category"',
        )
    )(catalog)
