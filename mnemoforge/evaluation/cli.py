"""The ``mnemoforge evaluate`` command (registered on the main app by ``cli.py``)."""

from __future__ import annotations

from pathlib import Path

import typer

from mnemoforge.cli_output import console, fail
from mnemoforge.evaluation.tables import percent


def evaluate_command(
    release: Path = typer.Argument(..., help="release folder"),
    method: str = typer.Option(
        None,
        "--method",
        help="question_only, oracle_evidence, full_context_text, "
        "caption_memory, asr_only, retrieval, full_context_multimodal, "
        "retrieval_multimodal, concentrated[:METHOD]",
    ),
    model: str = typer.Option(
        None, "--model", help="a model SPEC YAML (a text: backend block), smollm2 or symbolic"
    ),
    matrix: Path = typer.Option(None, "--matrix", help="MATRIX.yaml: methods × models in one run"),
    out: Path = typer.Option(None, "--out", help="results folder (default: RELEASE-eval/<method>__<model>)"),
    limit: int = typer.Option(None, "--limit", min=1, help="evaluate only the first N items"),
    workers: int = typer.Option(4, "--workers", min=1, help="concurrent model calls"),
    judge: str = typer.Option("exact", "--judge", help="open-answer judge: exact, smollm2 or a model SPEC"),
    retriever: str = typer.Option("bm25", "--retriever", help="retrieval methods: bm25 or minilm"),
    top_k: int = typer.Option(5, "--top-k", min=1, help="retrieval methods: observations retrieved"),
    fps: float = typer.Option(0.5, "--fps", help="multimodal methods: video frames sampled per second"),
    on_overflow: str = typer.Option(
        "retrieval",
        "--on-overflow",
        help="full-context methods, an item whose history overflows the model's known context: "
        "retrieval (retrieve instead) or truncate (keep the latest lines)",
    ),
    allow_failures: bool = typer.Option(
        False, "--allow-failures", help="exit 0 although some model calls failed (they stay unscored)"
    ),
    variants: str = typer.Option(
        None,
        "--variants",
        metavar="all|NAMES",
        help="run once per length variant of the release (all, or e.g. oracle,l) and table the "
        "scores side by side (docs/variants.md)",
    ),
) -> None:
    """Run a memory method with a model over a release; writes results.json and summary.md.

    A multi-family release: every family's items and the cross items, one folder each, and a
    table with a row per family and cross (families.md; docs/cross-family.md).

    A model call that still fails after its retries makes its item *failed*: counted apart from
    the answered items, never scored as a wrong answer. Any failure exits 1 (after writing the
    results; a rerun resends only the failed calls) unless [bold]--allow-failures[/] is given."""
    from mnemoforge.evaluation.cross_keys import release_families
    from mnemoforge.evaluation.keys import EvaluationError
    from mnemoforge.evaluation.matrix import default_out, run_matrix, slug
    from mnemoforge.evaluation.methods import MethodConfig
    from mnemoforge.evaluation.runner import evaluate, failure_summary

    def progress(msg: str) -> None:
        console.print(f"  {msg}", highlight=False)

    def warn(line: str) -> None:
        console.print(f"warning: {line}", markup=False, highlight=False)

    try:
        if matrix is not None:
            if variants is not None:
                raise EvaluationError("--variants runs one --method and --model; leave out --matrix")
            if method or model:
                raise EvaluationError("--matrix replaces --method and --model; give one or the other")
            results = run_matrix(
                release, matrix, out, progress=progress, limit=limit, workers=workers, warn=warn
            )
            dest = out or default_out(release)
            for r in results:
                part = f" [{r['family']}]" if release_families(release) else ""
                score = percent(r["summary"].get("score"))
                typer.echo(
                    f"{r['method']:>28} × {r['model']['name']:<16}{part} score {score}"
                    + _failed(r["summary"])
                )
            typer.echo(str(dest / "summary.md"))
            _exit_on_failures(failure_summary(results), allow_failures)
            return
        if not method or not model:
            raise EvaluationError("give --method and --model (or --matrix MATRIX.yaml)")
        dest = out or default_out(release) / f"{slug(method)}__{slug(model)}"
        if on_overflow not in ("retrieval", "truncate"):
            raise EvaluationError(f"--on-overflow {on_overflow!r}: retrieval or truncate")
        cfg = MethodConfig(top_k=top_k, retriever=retriever, fps=fps, on_overflow=on_overflow)
        if release_families(release):
            return _evaluate_multi(
                release, method, model, dest, allow_failures, variants,
                limit=limit, workers=workers, judge=None if judge == "exact" else judge, config=cfg,
                progress=progress, warn=warn,
            )  # fmt: skip
        if variants is not None:
            return _evaluate_variants(
                release, variants, method, model, dest, allow_failures,
                limit=limit, workers=workers, judge=None if judge == "exact" else judge, config=cfg,
                progress=progress, warn=warn,
            )  # fmt: skip
        res = evaluate(
            release,
            method,
            model,
            dest,
            limit=limit,
            workers=workers,
            judge=None if judge == "exact" else judge,
            config=cfg,
            progress=progress,
            warn=warn,
        )
    except (EvaluationError, FileNotFoundError) as e:
        fail(str(e))
    s = res["summary"]
    typer.echo(
        f"{method} × {res['model']['name']}: {s['items']} items, {s['answered']} answered"
        + (f", {s['failed']} failed (not scored)" if s["failed"] else "")
        + f", score {percent(s.get('score'))}"
        + (
            f", MCQ {percent(s.get('accuracy'))} per rotation / {percent(s.get('all_four'))} all four"
            if s.get("mcq")
            else ""
        )
    )
    typer.echo(str(dest / "summary.md"))
    _exit_on_failures(failure_summary([res]), allow_failures)


def _evaluate_variants(
    release: Path, text: str, method: str, model: str, dest: Path, allow_failures: bool, **kwargs: object
) -> None:
    """``--variants``: one run per length variant, then their scores side by side."""
    from mnemoforge.evaluation.runner import failure_summary
    from mnemoforge.evaluation.variant_curve import evaluate_variants

    rows, results = evaluate_variants(release, text, method, model, dest, **kwargs)
    for r in rows:
        typer.echo(
            f"{r['variant']:>10} ({r['size']} {r['unit']}, {r['observations']} observations): "
            f"score {percent(r['score'])}"
            + (f", MCQ {percent(r['accuracy'])}" if r["accuracy"] is not None else "")
        )
    typer.echo(str(dest / "variants.md"))
    _exit_on_failures(failure_summary(results), allow_failures)


def _evaluate_multi(
    release: Path, method: str, model: str, dest: Path, allow_failures: bool, variants: str | None,
    **kwargs: object,
) -> None:  # fmt: skip
    """A multi-family release: one run per family and one over the cross items, side by side
    (``--variants``: each family's curve, the cross items over their full histories)."""
    from mnemoforge.evaluation.multi import evaluate_multi, evaluate_multi_variants
    from mnemoforge.evaluation.runner import failure_summary

    if variants is not None:
        curve, runs = evaluate_multi_variants(release, variants, method, model, dest, **kwargs)
        for r in curve:
            scores = ", ".join(f"{k} {percent(v)}" for k, v in r.items() if k != "variant")
            typer.echo(f"{r['variant']:>10}: {scores}")
        typer.echo(str(dest / "variants.md"))
        _exit_on_failures(failure_summary(runs), allow_failures)
        return
    rows, results = evaluate_multi(release, method, model, dest, **kwargs)
    for r in rows:
        if "not_run" in r:
            typer.echo(f"{r['part']:>8}: not run ({r['not_run']})")
            continue
        typer.echo(
            f"{r['part']:>8}: {r['items']} items, {r['answered']} answered"
            + (f", {r['failed']} failed (not scored)" if r["failed"] else "")
            + f", score {percent(r['score'])}"
            + (f", MCQ {percent(r['accuracy'])}" if r["accuracy"] is not None else "")
        )
    typer.echo(str(dest / "families.md"))
    _exit_on_failures(failure_summary(results), allow_failures)


def _failed(summary: dict) -> str:
    return f"  ({summary['failed']} of {summary['items']} items failed)" if summary.get("failed") else ""


def _exit_on_failures(line: str | None, allowed: bool) -> None:
    """One line on stderr for failed calls; exit 1 unless they are allowed."""
    if line is None:
        return
    if allowed:
        console.print(f"warning: {line}", markup=False, highlight=False)
        return
    fail(f"{line}; run the command again to resend them (answers are cached), or pass --allow-failures", 1)


def export_harness_command(release: Path, fmt: str, out: Path) -> None:
    """``mnemoforge export RELEASE --format inspect|lmms-eval --out DIR``."""
    from mnemoforge.evaluation.keys import EvaluationError
    from mnemoforge.exporters.harness import export_harness

    try:
        files = export_harness(release, fmt, out)
    except (EvaluationError, FileNotFoundError) as e:
        fail(str(e))
    typer.echo(f"{len(files)} files written to {out}")
