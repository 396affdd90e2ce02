"""Run the build as a Prefect flow (embedded mode, no server needed) on a chosen task runner.

The flow calls the same stage functions as ``mnemoforge.pipeline``; output does not depend on
the runner (randomness comes from the seed and item ids, never from execution order).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

from mnemoforge.store.layout import OutputsLayout

TASK_RUNNERS = ("threads", "processes", "dask", "ray")


def prefect_env(outputs: Path) -> None:
    """Local, offline defaults, set before Prefect is imported; a user's own PREFECT_* settings win."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    os.environ.setdefault("PREFECT_RESULTS_PERSIST_BY_DEFAULT", "true")
    os.environ.setdefault(
        "PREFECT_RESULTS_LOCAL_STORAGE_PATH", str(OutputsLayout(outputs).prefect_results.resolve())
    )
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


def make_task_runner(name: str, workers: int, dask_address: str | None = None) -> object:
    """A Prefect task runner by name; Dask and Ray come from optional extras (``dask``, ``ray``).

    Dask uses the cluster at ``dask_address`` when given, else starts a local one.
    """
    if name == "threads":
        from prefect.task_runners import ThreadPoolTaskRunner

        return ThreadPoolTaskRunner(max_workers=workers)
    if name == "processes":
        from prefect.task_runners import ProcessPoolTaskRunner

        return ProcessPoolTaskRunner(max_workers=workers)
    if name == "dask":
        try:
            from prefect_dask import DaskTaskRunner
        except ImportError:
            raise ImportError(
                "the dask task runner needs the 'dask' extra: pip install 'mnemoforge[dask]'"
            ) from None
        if dask_address:
            return DaskTaskRunner(address=dask_address)
        kwargs = {"n_workers": workers, "threads_per_worker": 1, "processes": True, "dashboard_address": None}
        return DaskTaskRunner(cluster_class="distributed.LocalCluster", cluster_kwargs=kwargs)
    if name == "ray":
        try:
            from prefect_ray import RayTaskRunner
        except ImportError:
            raise ImportError(
                "the ray task runner needs the 'ray' extra: pip install 'mnemoforge[ray]'"
            ) from None
        return RayTaskRunner()
    raise ValueError(f"unknown task runner {name!r}; choose one of {TASK_RUNNERS}")


def build_flow(
    theme: Path,
    *,
    seed: int | None = None,
    outputs: Path = Path("outputs"),
    workers: int = 2,
    task_runner: str = "threads",
    dask_address: str | None = None,
    progress: Callable[[str, str], None] | None = None,
    variants: tuple[str, ...] = (),
    extend: int = 1,
) -> Path:
    """Build through Prefect; returns the release folder.

    ``progress(stage, state)`` receives each stage's Prefect state name ('Completed' or 'Cached').
    """
    prefect_env(outputs)
    from mnemoforge.flows.tasks import PROGRESS, build
    from mnemoforge.pipeline import BuildContext, run_lock
    from mnemoforge.theme_checks import check_theme

    t = check_theme(theme, seed)  # before the flow (and the Prefect server) starts
    seed = t.seed if seed is None else seed
    on_wait = (lambda msg: progress("lock", msg)) if progress else None
    lock: AbstractContextManager[object]
    more: tuple[int, ...]  # the single-family flow's --extend
    if t.families:  # one World in several families: the flow runs each family's stage loop
        from mnemoforge.flows.tasks import build_families
        from mnemoforge.multi_family import check_variants

        if extend != 1:
            from mnemoforge.variants import VariantError

            raise VariantError("--extend", "a families: theme has no extension of its World")
        check_variants(t, variants)  # fail fast, before the flow starts
        flow_fn, lock, more = build_families, nullcontext(), ()  # build_multi locks each family's run
    else:
        from mnemoforge.pipeline import warn_variant

        ctx = BuildContext(Path(theme), Path(outputs), seed, workers, variants=tuple(variants), extend=extend)
        if ctx.variants or extend != 1:  # fail fast, before the flow starts: an unknown name, a bad --extend
            from mnemoforge.pipeline import check_variants_asked

            check_variants_asked(ctx)
        warn_variant(ctx)
        # one build per run at a time (a second one waits, then finds its stages cached)
        lock = run_lock(BuildContext(Path(theme), Path(outputs), seed, workers), on_wait=on_wait)
        flow_fn, more = build, (extend,)
    runner = make_task_runner(task_runner, workers, dask_address)
    flow = flow_fn.with_options(task_runner=runner)
    if progress:
        PROGRESS.append(progress)
    quiet = _QuietExpected()
    for name in RUN_LOGGERS:  # the CLI says these errors in one line: no Prefect traceback before it
        logging.getLogger(name).addFilter(quiet)
    try:
        with lock, one_server_for_workers(task_runner, dask_address):
            return Path(flow(str(theme), seed, str(outputs), workers, tuple(variants), *more))
    finally:
        for name in RUN_LOGGERS:
            logging.getLogger(name).removeFilter(quiet)
        if progress:
            PROGRESS.remove(progress)


RUN_LOGGERS = ("prefect.task_runs", "prefect.flow_runs")


@contextmanager
def one_server_for_workers(task_runner: str, dask_address: str | None = None) -> Iterator[None]:
    """Worker processes (the ``processes`` runner, a local Dask cluster) connect to this process's
    temporary Prefect server: with no API URL set, each of them would start and migrate one of its
    own (about 6 CPU-s each). The URL goes to the environment they inherit, for the flow's run only;
    a configured server (``PREFECT_API_URL``, a profile) or a remote Dask cluster is left alone."""
    from prefect.settings import PREFECT_API_URL

    if task_runner not in ("processes", "dask") or dask_address or PREFECT_API_URL.value():
        yield
        return
    from prefect.server.api.server import SubprocessASGIServer

    server = SubprocessASGIServer()  # the one this process's flow would start: started once
    server.start()
    before = os.environ.get("PREFECT_API_URL")
    os.environ["PREFECT_API_URL"] = server.api_url
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PREFECT_API_URL", None)
        else:
            os.environ["PREFECT_API_URL"] = before


class _QuietExpected(logging.Filter):
    """Drops Prefect's failure logs for errors the CLI reports itself in one line: an environment
    fault (disk full, read-only folder), an existing or empty release, a lock timeout, the Worlds
    of a ``families:`` theme that do not make one."""

    def filter(self, record: logging.LogRecord) -> bool:
        from mnemoforge.cli_output import ENVIRONMENT_ERRNOS
        from mnemoforge.exporters.release import EmptyReleaseError, ReleaseExistsError
        from mnemoforge.generators.coherence import IncoherentWorld
        from mnemoforge.store.locks import LockTimeout

        exc = record.exc_info[1] if record.exc_info else None
        if exc is None:
            return True
        if isinstance(exc, ReleaseExistsError | EmptyReleaseError | LockTimeout | IncoherentWorld):
            return False
        return not (isinstance(exc, OSError) and exc.errno in ENVIRONMENT_ERRNOS)
