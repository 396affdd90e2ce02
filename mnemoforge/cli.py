"""Entry point of the ``mnemoforge`` command (typer + rich). The app's help is ``APP_HELP``;
each command's help is its docstring plus an ``Examples`` epilog (see ``cli_help``).

Commands written in their own modules are registered at the end of this file, one line each.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from mnemoforge.schemas.theme import Theme

from mnemoforge import cli_help, cli_output
from mnemoforge.cli_help import examples
from mnemoforge.cli_output import console
from mnemoforge.cli_output import fail as _fail
from mnemoforge.theme_io import DEFAULT_THEME, ThemeError

cli_help.install()

APP_HELP = """Build frozen, versioned benchmarks for the long-term multimodal memory of AI agents.

Write a theme (YAML: a cast, places, objects, sources, a stretch of time), then build it offline
into a checksummed release with real media, questions with computed answers, and gate verdicts.
Run [bold]mnemoforge COMMAND --help[/] for a command's options and examples."""

app = typer.Typer(
    cls=cli_output.CleanErrors,
    add_completion=False,
    no_args_is_help=True,
    help=APP_HELP,
    rich_markup_mode="rich",
    epilog=examples(
        "mnemoforge theme new my_album --dest my_album.yaml",
        "mnemoforge build my_album.yaml",
        "mnemoforge verify outputs/releases/my_album/0.1.0",
        "mnemoforge report outputs/releases/my_album/0.1.0",
    ),
)
app.add_typer(__import__("mnemoforge.cli_theme", fromlist=["x"]).theme_app, name="theme")


@contextmanager
def _live(stage: str) -> Iterator[None]:
    """A progress bar for one long step on stderr (counts when the step reports them)."""
    from mnemoforge.progress import BuildDisplay

    with BuildDisplay(console) as display:
        display.callback(stage, "start")
        yield
        display.callback(stage, "ran")


@app.command(
    epilog=examples(
        "mnemoforge build",
        "mnemoforge build assets/themes/office_launch.yaml --seed 11 --workers 4",
        "mnemoforge build my_album.yaml --orchestrator local --outputs /tmp/out --quiet",
        "mnemoforge build my_album.yaml --json > summary.json",
    )
)
def build(
    theme: Path = typer.Argument(
        DEFAULT_THEME, metavar="THEME", help="theme YAML file", show_default="assets/themes/life_album.yaml"
    ),
    seed: int | None = typer.Option(
        None, min=0, max=2**63 - 1, metavar="N", help="world seed (default: the theme's)"
    ),
    outputs: Path = typer.Option(
        Path("outputs"), metavar="DIR", help="outputs folder (runs, releases, catalog)"
    ),
    workers: int | None = typer.Option(
        None, min=1, metavar="N", help="render worker processes (default 2; families that render in "
        "processes only)", show_default=False
    ),
    orchestrator: str = typer.Option(
        "prefect", metavar="prefect|local", help="the embedded Prefect flow, or plain function calls"
    ),
    task_runner: str = typer.Option(
        "threads", metavar="threads|processes|dask|ray", help="Prefect task runner"
    ),
    dask_address: str | None = typer.Option(
        None, metavar="tcp://HOST:PORT", help="an existing Dask scheduler (default: a local cluster)"
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="no progress bars or summary: print only the release folder"
    ),
    as_json: bool = typer.Option(
        False, "--json", help="print the build summary as one JSON object on stdout, nothing else"
    ),
    preflight: bool = typer.Option(
        False, "--preflight", help="print the model calls, media and estimated cost per stage; build nothing"
    ),
    prices: Path | None = typer.Option(
        None, metavar="FILE", help="--preflight: a price table laid over assets/prices.yaml"
    ),
    fit_length: bool = typer.Option(
        False, "--fit-length", help="--preflight: search album knobs that bring its length to the reference"
    ),
    variants: str | None = typer.Option(
        None,
        metavar="NAMES",
        help="length variants besides the full history, e.g. oracle,s,m,l (sizes from the theme's "
        "variants: section), and modality ablations (icm transcript_only, smm no_attachments, memeye "
        "captions_for_pictures); docs/variants.md",
        show_default=False,
    ),
    extend: int = typer.Option(
        1, metavar="K", min=1,
        help="with length variants (icm): the variants draw filler from K times the album's clips, "
        "more clips of the same World rendered for them; docs/variants.md",
    ),  # fmt: skip
) -> None:
    """Build a release from THEME: plan, episodes, render, questions, gates, freeze.

    Shows a progress bar per stage with counts and time estimates (on stderr), then a summary
    table: per category the candidates requested, produced and kept and why any fell short,
    media counts, warnings, and the release folder and size. The release folder is the last
    line on stdout (or, with [bold]--json[/], the summary is). A re-run reuses finished stages.
    """
    from mnemoforge.exporters.release import EmptyReleaseError, ReleaseExistsError
    from mnemoforge.generators.families import get_family
    from mnemoforge.lifecycle import start_watchdog
    from mnemoforge.progress import BuildDisplay
    from mnemoforge.store.locks import LockTimeout
    from mnemoforge.summary import collecting_warnings
    from mnemoforge.theme_checks import check_theme

    if preflight:
        from mnemoforge.cli_production import preflight_command

        return preflight_command(theme, seed, prices, as_json=as_json, fit=fit_length)
    try:
        t = check_theme(theme, seed)  # every theme problem, before any work starts
        _check_build_options(t.family, orchestrator, task_runner, workers, dask_address)
        asked = _variant_names(t, variants)
        if extend != 1 and t.families:
            _fail("--extend: a families: theme has no extension of its World (docs/variants.md)")
        if extend != 1 and not any(n not in get_family(t.family).ablations for n in asked):
            _fail("--extend: needs length variants, e.g. --variants oracle,s,m,l (docs/variants.md)")
        if extend != 1 and not get_family(t.family).extends:
            _fail(f"--extend: family {t.family} has no extension of its World (icm has)")
        workers = workers or 2
        cli_output.writable_folder(outputs, "--outputs")
        start_watchdog()  # helpers (render workers, the Prefect server) die with this process
        with (
            collecting_warnings() as warnings,
            BuildDisplay(console, enabled=not (quiet or as_json)) as display,
        ):
            progress = display.callback
            if t.families and orchestrator == "local":  # one world in several families (docs/cross-family.md)
                from mnemoforge.multi_family import build_multi

                with _one_world(theme):
                    built = build_multi(
                        theme, seed=seed, outputs=outputs, workers=workers, progress=progress, variants=asked
                    )
                release = built.release_dir
            elif orchestrator == "prefect":
                from mnemoforge.flows.build import build_flow

                with _one_world(theme):  # a families: theme's flow merges their Worlds
                    release = build_flow(
                        theme,
                        seed=seed,
                        outputs=outputs,
                        workers=workers,
                        task_runner=task_runner,
                        dask_address=dask_address,
                        progress=progress,
                        variants=asked,
                        extend=extend,
                    )
            elif orchestrator == "local":
                from mnemoforge.pipeline import build as build_local

                release = build_local(  # the theme was checked above
                    theme, seed=seed, outputs=outputs, workers=workers, progress=progress, checked=True,
                    variants=asked, extend=extend,
                ).release_dir  # fmt: skip
            else:
                _fail(f"--orchestrator must be 'prefect' or 'local', got {orchestrator!r}")
    except ThemeError as e:
        _fail(str(e))
    except (ReleaseExistsError, LockTimeout) as e:
        _fail(str(e))
    except EmptyReleaseError as e:
        _fail(str(e), 1)
    if t.families:
        typer.echo(str(release))
        return
    if not as_json:
        _warn_shortfall(Path(release))
    _report_build(release, outputs, display, warnings, quiet=quiet, as_json=as_json)


@contextmanager
def _one_world(theme: Path) -> Iterator[None]:
    """A ``families:`` theme whose families' Worlds disagree: one error line (the theme must change)."""
    from mnemoforge.generators.coherence import IncoherentWorld

    try:
        yield
    except IncoherentWorld as e:
        _fail(f"{theme}: the families' Worlds do not make one World: {'; '.join(map(str, e.problems))}")


def _check_build_options(
    family: str, orchestrator: str, task_runner: str, workers: int | None, dask_address: str | None
) -> None:
    """An option the build would not use is an error naming it (never silently dropped)."""
    from mnemoforge.generators.families import get_family

    if dask_address and (orchestrator != "prefect" or task_runner != "dask"):
        _fail(
            f"--dask-address is used by the Prefect flow's dask task runner only (this build: "
            f"--orchestrator {orchestrator} --task-runner {task_runner}); add --task-runner dask"
        )
    if workers is not None and not get_family(family).uses_workers:
        _fail(f"--workers: family {family} renders in one process; leave the option out")


def _variant_names(theme: Theme, text: str | None) -> tuple[str, ...]:
    """``--variants``: the names, each one the theme or the defaults size (else an error naming it)."""
    if text is None:
        return ()
    from mnemoforge.generators.families import get_family
    from mnemoforge.variants import VariantError, parse_names, resolve

    try:
        names = parse_names(text)
        if theme.families:  # every listed family's length variants (docs/cross-family.md)
            from mnemoforge.multi_family import check_variants

            check_variants(theme, names)
        else:
            resolve(theme, get_family(theme.family), names)
    except VariantError as e:
        _fail(str(e))
    return tuple(names)


def _warn_shortfall(release: Path) -> None:
    """One warning line per category the theme asked more of than its World supports."""
    from mnemoforge.generators.families import get_family
    from mnemoforge.generators.shortfall import warning_lines

    funnel = release / "gates" / "funnel.json"
    short = json.loads(funnel.read_text()).get("shortfall", []) if funnel.is_file() else []
    for line in warning_lines(short, lambda family: get_family(family).warns_own_shortfall):
        console.print(f"warning: {line}", markup=False, highlight=False, soft_wrap=True)


def _report_build(
    release: Path, outputs: Path, display: object, warnings: list[str], *, quiet: bool, as_json: bool
) -> None:
    """The end of a build: the summary (table on stderr, or JSON on stdout), then the folder."""
    from mnemoforge.store.layout import OutputsLayout
    from mnemoforge.summary import build_summary, summary_table

    run_id = json.loads((release / "config.resolved.json").read_text()).get("run_id")
    stages = {
        k: {"state": t.state, "seconds": round(t.seconds, 3)}
        for k, t in getattr(display, "timings", {}).items()
    }
    run_dir = OutputsLayout(outputs).run(run_id).root if run_id else None
    summary = build_summary(release, run_dir, warnings=warnings, stages=stages)
    if as_json:
        typer.echo(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    if quiet:
        for w in summary["warnings"]:
            console.print(f"[yellow]warning:[/] {w}", highlight=False)
    else:
        console.print(summary_table(summary))
    typer.echo(str(release))


@app.command(
    epilog=examples(
        'mnemoforge freeze outputs/runs/life_album-s7-1a2b3c4d --version 1.0.0 --notes "First public cut."'
    )
)
def freeze(
    run: Path = typer.Argument(..., metavar="RUN", help="run folder (outputs/runs/<run_id>)"),
    version: str = typer.Option(..., "--version", metavar="X.Y.Z", help="release version"),
    notes: str | None = typer.Option(None, metavar="TEXT", help="a line for the CHANGELOG entry"),
    variants: str | None = typer.Option(
        None, metavar="NAMES", help="length variants and ablations, as for build (docs/variants.md)"
    ),
) -> None:
    """Freeze a finished run as another release version (with a CHANGELOG entry).

    Re-freezing identical content is a no-op; different content under an existing version is
    refused. Prints the release folder."""
    import re

    from mnemoforge.exporters.release import EmptyReleaseError, ReleaseExistsError
    from mnemoforge.pipeline import RunStateError, freeze_run
    from mnemoforge.variants import VariantError, parse_names

    if not re.match(r"^\d+\.\d+\.\d+$", version):
        _fail(f"--version must look like 1.2.3, got {version!r}")
    try:
        names = () if variants is None else tuple(parse_names(variants))
        typer.echo(str(freeze_run(run, version, notes, variants=names)))
    except (RunStateError, ReleaseExistsError, ThemeError, EmptyReleaseError, VariantError) as e:
        _fail(str(e))


@app.command(
    epilog=examples(
        "mnemoforge gate outputs/runs/life_album-s7-1a2b3c4d",
        "mnemoforge gate outputs/runs/life_album-s7-1a2b3c4d --only oracle --only option_only",
    )
)
def gate(
    run: Path = typer.Argument(..., metavar="RUN", help="run folder (outputs/runs/<run_id>)"),
    only: list[str] = typer.Option(None, "--only", metavar="GATE", help="re-run just this gate (repeatable)"),
) -> None:
    """Re-run the quality gates on a run folder and print the funnel.

    Verdicts are cached, so after a prompt change only the calls that use that prompt are
    recomputed; each gate line says how many verdicts were computed and how many cached. Verdicts
    whose model calls failed are undecided, never cached: a re-run asks exactly them again."""
    from mnemoforge.pipeline import BuildContext, RunStateError, gate_run, run_lock
    from mnemoforge.store.locks import LockTimeout
    from mnemoforge.validators.gate_runner import gate_names

    unknown = sorted(set(only or []) - set(gate_names()))
    if unknown:
        _fail(f"unknown gate(s) {unknown}; gates are {gate_names()}")
    try:
        ctx = BuildContext.of_run(run)
        with run_lock(ctx, on_wait=lambda msg: console.print(msg, markup=False, highlight=False)):
            with _live("gates"):
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


@app.command(epilog=examples("mnemoforge verify outputs/releases/life_album/0.1.0"))
def verify(release: Path = typer.Argument(..., metavar="RELEASE", help="release folder")) -> None:
    """Re-check every checksum, schema, count, evidence id and answer of a release.

    Prints OK and the MANIFEST.json sha256 to pin the release by, or one FAIL line per problem
    and exits 1."""
    from mnemoforge.validators.release_audit import manifest_sha256
    from mnemoforge.validators.release_check import verify_release

    with _live("verify"):
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


@app.command(
    epilog=examples(
        "mnemoforge push outputs/releases/life_album/0.1.0 --repo-id my-org/life-album --dry-run",
        "HF_TOKEN=... mnemoforge push outputs/releases/life_album/0.1.0 --repo-id my-org/life-album",
    )
)
def push(
    release: Path = typer.Argument(..., metavar="RELEASE", help="release folder"),
    repo_id: str = typer.Option(..., "--repo-id", metavar="ORG/NAME", help="the dataset repo"),
    private: bool = typer.Option(False, "--private", help="create the repo private"),
    dry_run: bool = typer.Option(False, "--dry-run", help="list what would be uploaded; no network"),
    revision: str = typer.Option("main", metavar="BRANCH", help="branch to commit to"),
) -> None:
    """Verify a release, then upload every file in one commit to a Hugging Face dataset repo.

    The token comes from HF_TOKEN or `hf auth login` and is never written or printed;
    HF_ENDPOINT selects another Hub (extra [bold]hub[/])."""
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


@app.command(
    epilog=examples(
        "mnemoforge export outputs/releases/life_album/0.1.0 --format locomo --out /tmp/locomo",
        "mnemoforge export outputs/releases/visual_diary/0.1.0 --format memeye --out /tmp/memeye",
    )
)
def export(
    release: Path = typer.Argument(..., metavar="RELEASE", help="release folder"),
    fmt: str = typer.Option(
        ..., "--format", metavar="locomo|m3bench|memeye|inspect|lmms-eval", help="peer format or harness task"
    ),
    out: Path = typer.Option(
        ...,
        "--out",
        metavar="DIR",
        help="folder to write (empty, an earlier export of this format, or for m3bench an M3-Agent checkout)",
    ),
    base_url: str = typer.Option(
        None,
        "--base-url",
        metavar="URL",
        help="locomo: URL the img_url of image turns start with (default: file:// of --out)",
    ),
) -> None:
    """Write a release in a peer benchmark's format, or a harness task, so existing code runs on it.

    Peer formats: locomo, m3bench, memeye; harness tasks: inspect, lmms-eval (built from the agent
    view). Each peer export also writes mnemoforge_export.json (the source release, files, and
    each item's id and cutoff); pairs a format cannot hold are refused, naming the formats that can."""
    from mnemoforge.exporters.peers import ExportError, export_release, formats

    if fmt in ("inspect", "lmms-eval"):  # harness tasks (mnemoforge.exporters.harness_*)
        from mnemoforge.evaluation.cli import export_harness_command

        export_harness_command(release, fmt, out)
        return
    if fmt not in (known := formats()):
        _fail(f"--format must be one of {sorted(known)}, got {fmt!r}")
    try:
        with _live("export"):
            files = export_release(
                release, fmt, out, base_url=base_url, warn=lambda m: typer.echo(f"warning: {m}", err=True)
            )
    except ExportError as e:
        _fail(str(e))
    typer.echo(f"{len(files)} files written to {out}")


# Commands defined in their own modules: one registration line each, below.
__import__("mnemoforge.cli_inspect", fromlist=["x"]).register(app)
app.command("evaluate")(__import__("mnemoforge.evaluation.cli", fromlist=["x"]).evaluate_command)
app.command("ledger")(__import__("mnemoforge.cli_production", fromlist=["x"]).ledger_command)
__import__("mnemoforge.cli_production", fromlist=["x"]).register_theme_draft()
__import__("mnemoforge.cli_review", fromlist=["x"]).register(app)


if __name__ == "__main__":
    app()
