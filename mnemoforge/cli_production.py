"""Production commands: ``theme draft`` (a model writes a theme), ``ledger RUN`` (what a run's model
calls cost) and the body of ``build --preflight`` (what a build would cost, before paying)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from mnemoforge import yaml_io
from mnemoforge.cli_help import examples
from mnemoforge.cli_output import console, out
from mnemoforge.cli_output import fail as _fail
from mnemoforge.registry import DEFAULT_FAMILY


def _print_wide(table: Table) -> None:
    """Tables of many numeric columns: at least 150 columns wide, also when stdout is not a terminal."""
    import sys

    from rich.console import Console

    Console(file=sys.stdout, width=max(out.width, 150), soft_wrap=True).print(table)


def _backend_spec(
    config: Path | None, provider: str | None, model: str | None, base_url: str | None, key_env: str | None
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if config is not None:
        import yaml

        try:
            loaded = yaml_io.safe_load(config.read_text())
        except (OSError, yaml.YAMLError) as e:
            _fail(f"{config}: cannot read the backend config ({e})")
        if not isinstance(loaded, dict):
            _fail(f"{config}: expected a mapping such as {{provider: openai, model: gpt-4o-mini}}")
        spec.update(loaded.get("backend", loaded) if isinstance(loaded.get("backend"), dict) else loaded)
    for k, v in (("provider", provider), ("model", model), ("base_url", base_url), ("api_key_env", key_env)):
        if v is not None:
            spec[k] = v
    spec.setdefault("provider", "openai")
    if "model" not in spec:
        _fail("--model is required (or a --backend-config file naming one)")
    return spec


def theme_draft(
    description: str = typer.Argument(
        ..., metavar="DESCRIPTION", help="a few lines on what the theme is about"
    ),
    family: str = typer.Option(
        DEFAULT_FAMILY, metavar="icm|smm|memeye", help="benchmark family of the theme"
    ),
    dest: Path | None = typer.Option(None, metavar="FILE", help="file to write (default: NAME.yaml)"),
    model: str | None = typer.Option(None, metavar="MODEL", help="model name, e.g. gpt-4o-mini"),
    provider: str | None = typer.Option(None, metavar="openai|gemini", help="text backend (default openai)"),
    base_url: str | None = typer.Option(None, metavar="URL", help="endpoint (an OpenAI-compatible server)"),
    api_key_env: str | None = typer.Option(None, metavar="VAR", help="environment variable with the key"),
    backend_config: Path | None = typer.Option(
        None, metavar="FILE", help="YAML text backend config (as a theme's text.backend)"
    ),
    attempts: int = typer.Option(3, min=1, max=10, metavar="N", help="model tries in all (errors go back)"),
    max_tokens: int = typer.Option(8192, min=256, metavar="N", help="reply length limit"),
) -> None:
    """Draft a theme with a text model: its YAML is checked as `theme check` does; problems go back to
    the model up to --attempts times. Writes a theme that passes `theme check`, or fails (exit 2)
    listing what was still wrong."""
    from mnemoforge.backends.text.registry import make_text_backend
    from mnemoforge.production.draft import DraftError, draft_theme, header
    from mnemoforge.store import atomic

    spec = _backend_spec(backend_config, provider, model, base_url, api_key_env)
    if dest is not None and dest.exists():
        _fail(f"{dest} already exists")
    try:
        backend = make_text_backend(spec)
    except (ValueError, ImportError) as e:
        _fail(f"text backend: {e}")
    try:
        draft = draft_theme(description, family, backend, attempts=attempts, max_tokens=max_tokens)
    except ValueError as e:
        _fail(str(e))
    except DraftError as e:
        _fail(f"theme draft with {backend.id}: {e}")
    finally:
        close = getattr(backend, "close", None)
        if callable(close):
            close()
    for i, a in enumerate(draft.attempts, 1):
        if a.continuations:
            console.print(
                f"attempt {i}: the answer was cut at the length limit; the model continued it "
                f"{a.continuations} time(s)",
                highlight=False,
            )
        if a.problems:
            sent = f"attempt {i}: {len(a.problems)} problem(s) sent back to the model"
            console.print(sent, highlight=False)
    path = dest or Path(f"{draft.name}.yaml")
    if path.exists():
        _fail(f"{path} already exists (the drafted theme is named {draft.name!r}; pass --dest)")
    atomic.write_text(path, header(description, backend.id, len(draft.attempts)) + draft.text)
    typer.echo(str(path))


def ledger_command(
    run: Path = typer.Argument(..., metavar="RUN", help="run folder (outputs/runs/ID) or a ledger.jsonl"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
    against: bool = typer.Option(
        False, "--preflight", help="also the run theme's preflight estimate beside what was paid, per driver"
    ),
) -> None:
    """Summarise a run's call ledger: model calls, cache hits, errors, tokens, media and estimated cost,
    by stage and by backend:model."""
    import json

    from mnemoforge.production.drivers import ledger_drivers
    from mnemoforge.store import ledger

    path = run if run.is_file() else ledger.ledger_path(run)
    if not run.exists():
        _fail(f"{run}: no such run folder")
    rows = ledger.read_ledger(path)
    summary = ledger.summarise(rows)
    pf = _run_preflight(path.parent) if against else None
    paid = ledger_drivers(rows)
    if as_json:
        if pf is not None:
            summary["drivers"] = {"estimate": pf.as_dict()["drivers"], "ledger": paid,
                                  "estimated_cost": pf.totals()["cost"]}  # fmt: skip
        typer.echo(json.dumps(summary, indent=2, sort_keys=True))
        return
    if not rows:
        out.print(f"{path}: no model calls recorded (an offline build makes none)", highlight=False)
        return
    cols = ("calls", "cached", "errors", "tokens_in", "tokens_out", "images", "media_seconds", "cost")
    currency = ledger.run_prices(path.parent).currency
    out.print(f"{path}: {len(rows)} rows", highlight=False)
    for title, group in (("stage", summary["by_stage"]), ("backend:model", summary["by_model"])):
        table = Table()
        table.add_column(title)
        for c in cols:
            table.add_column(f"cost {currency}" if c == "cost" else c.replace("_", " "), justify="right")
        for name, s in [*group.items(), ("total", summary["total"])]:
            table.add_row(name, *[f"{s[c]:.4f}" if c == "cost" else f"{s[c]:g}" for c in cols])
        _print_wide(table)
    if pf is not None:
        _print_wide(drivers_table(pf, paid))
        out.print(
            f"estimated {pf.totals()['cost']:.4f} {currency} before the build; the ledger's paid total is "
            f"{paid['cost']:.4f} {currency}",
            highlight=False,
        )


def _fit(theme_path: Path, pf: Any) -> dict[str, Any]:
    """``--fit-length``: the settings that reach the reference's minutes (``Family.fit_length``)."""
    from mnemoforge.generators.families import get_family
    from mnemoforge.theme_io import load_theme

    ref = next((d.reference for d in pf.drivers if d.name == "video minutes"), None)
    if not ref:
        return {"lines": ["no reference minutes for this family: nothing to fit"], "knobs": None}
    planned = next(d.planned for d in pf.drivers if d.name == "video minutes")
    if planned <= ref * 1.05:
        return {"lines": [f"{planned:.1f} min is within 5% of the reference's {ref:g}: nothing to change"],
                "knobs": {}}  # fmt: skip
    theme = load_theme(theme_path)
    got = get_family(theme.family).fit_length(theme, pf.seed, ref)
    if got is None:
        return {"lines": ["this family has no length knobs: nothing to fit"], "knobs": None}
    return got


def _run_preflight(run_dir: Path) -> Any:
    """The preflight of the run's own theme copy and seed (``RUN/theme.yaml``, ``RUN/run.json``)."""
    import json

    from mnemoforge.backends.prices import PriceError
    from mnemoforge.production.preflight import preflight
    from mnemoforge.theme_io import ThemeError

    try:
        seed = int(json.loads((run_dir / "run.json").read_text())["seed"])
        return preflight(run_dir / "theme.yaml", seed)
    except (OSError, ValueError, KeyError, ThemeError, PriceError) as e:
        _fail(f"{run_dir}: cannot estimate the run's theme ({e})")


def register_theme_draft() -> None:
    """Add ``draft`` to the ``theme`` sub-app (``cli.py`` calls this once)."""
    from mnemoforge.cli_theme import theme_app

    theme_app.command(
        "draft",
        epilog=examples(
            'mnemoforge theme draft "three flatmates over a winter" --model gpt-4o-mini',
            'mnemoforge theme draft "a food truck crew" --base-url http://127.0.0.1:8000/v1 --model qwen',
        ),
    )(theme_draft)


def drivers_table(pf: Any, paid: dict[str, float] | None = None) -> Table:
    """The cost drivers beside the reference (and, given a ledger's ``paid`` figures, beside those)."""
    table = Table(title=f"cost drivers of {pf.theme} (reference scaled to {pf.plan.get('clips', 0):g} clips)")
    cols = ["driver", "planned", "reference", "ratio", f"cost {pf.currency}"]
    if paid is not None:
        cols.insert(2, "ledger")
    for c in cols:
        table.add_column(c, justify="left" if c == "driver" else "right")
    table.add_column("note")
    for d in pf.drivers:
        cells = [d.name, f"{d.planned:g}"]
        if paid is not None:
            got = paid.get(d.name)
            cells.append("" if got is None else f"{got:g}")
        cells += [
            "not published" if d.reference is None else f"{d.reference:g}",
            "" if d.ratio is None else f"{d.ratio:.2f}",
            "" if d.cost is None else f"{d.cost:.4f}",
            d.note,
        ]
        table.add_row(*cells)
    return table


def preflight_command(
    theme: Path, seed: int | None, prices: Path | None, *, as_json: bool = False, fit: bool = False
) -> None:
    """``build --preflight``: the estimate as a table (or JSON); nothing is built or written."""
    import json

    from mnemoforge.backends.prices import PriceError
    from mnemoforge.production.preflight import preflight
    from mnemoforge.theme_io import ThemeError

    try:
        pf = preflight(theme, seed, prices)
    except (ThemeError, PriceError) as e:
        _fail(str(e))
    found = _fit(theme, pf) if fit else None
    if as_json:
        data = pf.as_dict()
        if found is not None:
            data["fit_length"] = found
        typer.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    plan = ", ".join(f"{v:g} {k.replace('_', ' ')}" for k, v in pf.plan.items() if isinstance(v, int | float))
    table = Table(title=f"preflight {pf.theme} (seed {pf.seed}): {plan}")
    cols = (
        "stage",
        "backend",
        "model",
        "operation",
        "calls",
        "tokens in",
        "tokens out",
        "images",
        "video s",
        "speech s",
        f"cost {pf.currency}",
    )
    for c in cols:
        table.add_column(c, justify="left" if c in cols[:4] else "right")
    for r in pf.rows:
        cost = f"{r.cost:.4f}" + ("" if r.priced else " (unpriced)")
        table.add_row(
            r.stage,
            r.backend,
            r.model,
            r.operation,
            str(r.calls),
            str(r.tokens_in),
            str(r.tokens_out),
            str(r.images),
            f"{r.video_seconds:g}",
            f"{r.speech_seconds:g}",
            cost,
        )
    t = pf.totals()
    table.add_row(
        "total",
        "",
        "",
        "",
        f"{t['calls']:g}",
        f"{t['tokens_in']:g}",
        f"{t['tokens_out']:g}",
        f"{t['images']:g}",
        f"{t['video_seconds']:g}",
        f"{t['speech_seconds']:g}",
        f"{t['cost']:.4f}",
    )
    _print_wide(table)
    for r in pf.rows:
        if r.note:
            console.print(f"{r.stage}/{r.operation} {r.backend}: {r.note}", highlight=False)
    if pf.drivers:
        _print_wide(drivers_table(pf))
    for h in pf.hints:
        console.print(f"length: {h}", highlight=False)
    if found is not None:
        for line in found["lines"]:
            console.print(f"fit-length: {line}", highlight=False)
    if pf.plan.get("note"):
        console.print(f"note: {pf.plan['note']}", highlight=False)
    for w in pf.warnings:
        console.print(f"warning: {w}", highlight=False)
    unpriced = sorted({r.model for r in pf.rows if not r.priced})
    if unpriced:
        console.print(
            f"warning: no price for {', '.join(unpriced)} (add it to a --prices file)", highlight=False
        )
    console.print(
        f"estimated total {t['cost']:.4f} {pf.currency} (planned in {pf.seconds:.1f} s; nothing was written)",
        highlight=False,
    )
