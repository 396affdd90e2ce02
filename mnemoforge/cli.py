"""The ``mnemoforge`` command line (typer + rich)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from mnemoforge.theme_io import DEFAULT_THEME, ThemeError, load_theme

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__)
theme_app = typer.Typer(no_args_is_help=True, help="Check or create theme files.")
app.add_typer(theme_app, name="theme")
console = Console(stderr=True, soft_wrap=True)
out = Console(soft_wrap=True)


def _fail(msg: str, code: int = 2) -> None:
    # the message is printed as is: markup off, so regex brackets such as [a-z] survive
    console.print("[bold red]error:[/] ", end="", highlight=False)
    console.print(msg, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@app.command()
def build(
    theme: Path = typer.Argument(DEFAULT_THEME, help="theme YAML file"),
    seed: int | None = typer.Option(None, min=0, max=2**63 - 1, help="world seed (default: the theme's)"),
    outputs: Path = typer.Option(Path("outputs"), help="outputs folder (runs, releases, catalog)"),
    workers: int = typer.Option(2, min=1, help="render worker processes"),
    orchestrator: str = typer.Option("prefect", help="prefect (embedded flow) or local (plain calls)"),
    task_runner: str = typer.Option("threads", help="prefect task runner: threads, processes, dask or ray"),
    dask_address: str | None = typer.Option(
        None, help="an existing Dask scheduler (default: a local cluster)"
    ),
) -> None:
    """Build a release from THEME; prints the release folder it wrote."""
    from mnemoforge.exporters.release import ReleaseExistsError
    from mnemoforge.lifecycle import start_watchdog
    from mnemoforge.store.locks import LockTimeout
    from mnemoforge.theme_checks import check_theme

    try:
        check_theme(theme, seed)  # every theme problem, before any work starts
        start_watchdog()  # helpers (render workers, the Prefect server) die with this process
        with console.status("building…") as status:

            def progress(stage: str, event: str) -> None:
                if event == "start":
                    status.update(f"[bold]{stage}[/]…")
                elif event.endswith((" clips", " shards")):
                    status.update(f"[bold]{stage}[/] {event}")
                else:
                    console.print(f"  {stage}: {event.lower()}")

            if orchestrator == "prefect":
                from mnemoforge.flows.build import build_flow

                release = build_flow(
                    theme,
                    seed=seed,
                    outputs=outputs,
                    workers=workers,
                    task_runner=task_runner,
                    progress=progress,
                )
            elif orchestrator == "local":
                from mnemoforge.pipeline import build as build_local

                release = build_local(
                    theme, seed=seed, outputs=outputs, workers=workers, progress=progress
                ).release_dir
            else:
                _fail(f"--orchestrator must be 'prefect' or 'local', got {orchestrator!r}")
    except ThemeError as e:
        _fail(str(e))
    except (ReleaseExistsError, LockTimeout) as e:
        _fail(str(e))
    _warn_shortfall(Path(release))
    typer.echo(str(release))


def _warn_shortfall(release: Path) -> None:
    """One warning line per category the theme asked more of than its World supports."""
    from mnemoforge.generators.shortfall import warning_lines

    funnel = release / "gates" / "funnel.json"
    short = json.loads(funnel.read_text()).get("shortfall", []) if funnel.is_file() else []
    for line in warning_lines(short):
        console.print(f"warning: {line}", markup=False, highlight=False, soft_wrap=True)


@app.command()
def freeze(
    run: Path = typer.Argument(..., help="run folder (outputs/runs/<run_id>)"),
    version: str = typer.Option(..., "--version", help="release version X.Y.Z"),
    notes: str | None = typer.Option(None, help="a line for the CHANGELOG entry"),
) -> None:
    """Freeze a finished run as an immutable release; refuses to overwrite a different release."""
    import re

    from mnemoforge.exporters.release import ReleaseExistsError
    from mnemoforge.pipeline import RunStateError, freeze_run

    if not re.match(r"^\d+\.\d+\.\d+$", version):
        _fail(f"--version must look like 1.2.3, got {version!r}")
    try:
        typer.echo(str(freeze_run(run, version, notes)))
    except (RunStateError, ReleaseExistsError, ThemeError) as e:
        _fail(str(e))


@app.command()
def gate(
    run: Path = typer.Argument(..., help="run folder (outputs/runs/<run_id>)"),
    only: list[str] = typer.Option(None, "--only", help="re-run just this gate (repeatable)"),
) -> None:
    """Re-run the quality gates on an existing run; unchanged verdicts come from the cache."""
    from mnemoforge.pipeline import BuildContext, RunStateError, gate_run, load_run_meta, run_lock
    from mnemoforge.store.locks import LockTimeout
    from mnemoforge.validators.gate_runner import gate_names

    unknown = sorted(set(only or []) - set(gate_names()))
    if unknown:
        _fail(f"unknown gate(s) {unknown}; gates are {gate_names()}")
    try:
        meta = load_run_meta(run)
        ctx = BuildContext(run / "theme.yaml", run.parent.parent, int(meta["seed"]))
        with run_lock(ctx, on_wait=lambda msg: console.print(msg, markup=False, highlight=False)):
            result = gate_run(ctx, set(only) if only else None)
    except (RunStateError, ThemeError, FileNotFoundError, LockTimeout) as e:
        _fail(str(e))
    funnel = json.loads((run / "gates" / "funnel.json").read_text())
    for st in funnel["stages"]:
        n_new, n_old = result.computed.get(st["gate"]), result.cached.get(st["gate"])
        how = "kept from last run" if n_new is None else f"{n_new} computed, {n_old} cached"
        und = f", undecided {st['undecided']:>4}" if st.get("undecided") else ""
        typer.echo(f"{st['gate']:>20}: rejected {st['rejected']:>4}{und}, kept {st['kept']:>4}  ({how})")
    typer.echo(f"{funnel['kept']} of {funnel['candidates']} candidates kept")
    if funnel.get("undecided"):
        typer.echo(
            f"{funnel['undecided']} undecided (model calls failed; see gates/verdicts.jsonl 'failures'): "
            f"run `mnemoforge gate {run}` again to retry exactly them"
        )


@app.command()
def verify(release: Path = typer.Argument(..., help="release folder")) -> None:
    """Re-check every checksum, schema, count, evidence id and answer of a release."""
    from mnemoforge.validators.release_audit import manifest_sha256
    from mnemoforge.validators.release_check import verify_release

    problems = verify_release(release)
    if problems:
        for p in problems:
            console.print("[red]FAIL[/] ", end="", highlight=False)
            console.print(p, markup=False, highlight=False, soft_wrap=True)
        console.print(f"{len(problems)} problem(s) in {release}", markup=False, highlight=False)
        raise typer.Exit(1)
    typer.echo(f"OK {release}")
    # pin the release by this digest: MANIFEST.json holds every other file's sha256
    typer.echo(f"MANIFEST.json sha256 {manifest_sha256(release)}")


@app.command()
def push(
    release: Path = typer.Argument(..., help="release folder"),
    repo_id: str = typer.Option(..., "--repo-id", help="ORG/NAME of the dataset repo"),
    private: bool = typer.Option(False, "--private", help="create the repo private"),
    dry_run: bool = typer.Option(False, "--dry-run", help="list what would be uploaded; no network"),
    revision: str = typer.Option("main", help="branch to commit to"),
) -> None:
    """Upload a verified release to the Hugging Face Hub (token: HF_TOKEN or `hf auth login`)."""
    from mnemoforge.exporters.hub import PushError, push_release

    try:
        res = push_release(release, repo_id, private=private, dry_run=dry_run, revision=revision)
    except PushError as e:
        _fail(str(e), code=1)
    if dry_run:
        for f in res.files:
            typer.echo(f"{f.bytes:>12}  {f.path_in_repo}")
        typer.echo(f"dry run: {len(res.files)} files, {res.bytes} bytes would go to {repo_id}")
    else:
        typer.echo(f"pushed {len(res.files)} files ({res.bytes} bytes) to {res.url}")


@app.command()
def export(
    release: Path = typer.Argument(..., help="release folder"),
    fmt: str = typer.Option(..., "--format", help="locomo, m3bench or memeye"),
    out: Path = typer.Option(
        ..., "--out", help="folder to write (empty, or an earlier export of this format)"
    ),
) -> None:
    """Write a release in a peer benchmark's format (category mapping documented in each export)."""
    from mnemoforge.exporters.peers import EXPORTERS, ExportError, export_release

    if fmt not in EXPORTERS:
        _fail(f"--format must be one of {sorted(EXPORTERS)}, got {fmt!r}")
    try:
        files = export_release(release, fmt, out)
    except ExportError as e:
        _fail(str(e))
    typer.echo(f"{len(files)} files written to {out}")


@app.command()
def report(
    source: Path = typer.Argument(..., help="a release folder or a run folder"),
    out: Path = typer.Option(
        None, "--out", help="folder for index.html and figures (default: SOURCE-report)"
    ),
) -> None:
    """Write a static HTML report with PNG figures: cast, timeline, sources, funnel, taxonomy, examples."""
    from mnemoforge.exporters.report import write_report

    dest = out or source.parent / f"{source.name}-report"
    try:
        typer.echo(str(write_report(source, dest)))
    except ValueError as e:
        _fail(str(e))


@theme_app.command("check")
def theme_check(file: Path) -> None:
    """Validate a theme without building: schema, registry names, paths and the family's checks."""
    from mnemoforge.theme_checks import check_theme

    try:
        t = check_theme(file)
    except ThemeError as e:
        _fail(str(e))
    out.print(
        f"OK {file}: {t.title!r}, {len(t.cast)} people, {len(t.places)} places, "
        f"{len(t.activities)} activities, {t.start} → {t.end}",
        highlight=False,
    )


@theme_app.command("new")
def theme_new(
    name: str,
    dest: Path = typer.Option(None, help="file to write (default: NAME.yaml)"),
    family: str = typer.Option("icm", help="icm (album), smm (sources) or memeye (visual)"),
) -> None:
    """Write a commented starter theme that builds as is."""
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


@app.command()
def cast(
    theme: Path = typer.Argument(DEFAULT_THEME, help="theme YAML file"),
    out: Path = typer.Option(Path("cast.png"), help="PNG file to write"),
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


@app.command()
def catalog(
    sql: str = typer.Argument(..., help="SQL over runs, questions, evidence, verdicts, media, releases"),
    outputs: Path = typer.Option(Path("outputs")),
) -> None:
    """Query the DuckDB catalog."""
    from mnemoforge.store.catalog import Catalog
    from mnemoforge.store.layout import OutputsLayout

    path = OutputsLayout(outputs).catalog
    if not path.exists():
        _fail(f"{path}: no catalog yet (build something first)")
    with Catalog(path) as cat:
        cur = cat.con.execute(sql)
        table = Table(*[d[0] for d in cur.description])
        for row in cur.fetchall():
            table.add_row(*map(str, row))
    out.print(table)


if __name__ == "__main__":
    app()
