"""``mnemoforge review RUN``: the local human-review page of a run folder (registered in ``cli.py``)."""

from __future__ import annotations

from pathlib import Path

import typer

from mnemoforge.cli_help import examples
from mnemoforge.cli_output import fail as _fail


def review(
    run: Path = typer.Argument(..., metavar="RUN", help="run folder (outputs/runs/<run_id>)"),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="port on 127.0.0.1 (0: any free one)"),
) -> None:
    """Serve a page on 127.0.0.1 where a reviewer passes or excludes each shot and candidate item.

    Reason tags (face_drift, identity_error, wrong_prop, bad_audio, off_theme, ambiguous, wrong_key,
    unnatural) and a note go with each decision into RUN/review/decisions.jsonl (rewritten
    atomically). Then `mnemoforge freeze RUN --version X.Y.Z` applies them through the
    `human_review` gate: excluded items are rejected, items citing an excluded shot become
    unanswerable, and the funnel and card record the review coverage. Ctrl-C stops the server."""
    from mnemoforge.review_server import ReviewServer
    from mnemoforge.validators.human_review import DecisionsError, load_decisions

    try:
        load_decisions(run)  # a malformed file fails here, naming its line
        server = ReviewServer(run, port)
    except (FileNotFoundError, DecisionsError, OSError) as e:
        _fail(str(e))
    typer.echo(f"reviewing {run} at {server.url} (loopback only; Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def register(app: typer.Typer) -> None:
    app.command(
        epilog=examples(
            "mnemoforge review outputs/runs/life_album-s7-1a2b3c4d",
            "mnemoforge review outputs/runs/life_album-s7-1a2b3c4d --port 9000",
        )
    )(review)
