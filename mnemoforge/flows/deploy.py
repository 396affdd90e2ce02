"""A module-level flow for Prefect deployments (``prefect.yaml``, the docker-compose workers).

``prefect deploy`` and workers load a flow object by entrypoint (``mnemoforge/flows/deploy.py:build``).
``build`` here is that entrypoint, with plain parameters a user can type in the UI or pass with
``--param`` (paths as strings, the seed optional). It resolves them against the working directory
(the pull step in ``prefect.yaml`` sets it to ``$MNEMOFORGE_ROOT``) and runs the same ``build_flow``
(its stages appear as a subflow), so a deployed build writes the same release as a local one.

Persisted task results go where the worker's ``PREFECT_RESULTS_LOCAL_STORAGE_PATH`` says (fixed when
the flow run starts; docker-compose.yml points it at the shared ``outputs/.prefect/results``, so
every worker sees the same stage cache), else under ``$PREFECT_HOME/storage``.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow

from mnemoforge.flows.build import build_flow

DEFAULT_THEME = "assets/themes/life_album.yaml"


@flow(name="mnemoforge-build", log_prints=True, persist_result=False)
def build(
    theme: str = DEFAULT_THEME,
    seed: int | None = None,
    outputs: str = "outputs",
    workers: int = 2,
    task_runner: str = "threads",
    dask_address: str | None = None,
) -> str:
    """Build a release from ``theme`` into ``outputs``; returns the release folder.

    Relative paths are taken from the working directory. ``seed`` defaults to the theme's seed.
    ``task_runner="dask"`` with ``dask_address`` (e.g. ``tcp://dask-scheduler:8786``) uses an
    existing Dask cluster; without an address a local cluster is started.
    """
    theme_path = Path(theme).expanduser().resolve()
    outputs_path = Path(outputs).expanduser().resolve()
    print(f"building {theme_path} into {outputs_path} (seed={seed}, workers={workers})")
    release = build_flow(
        theme_path,
        seed=seed,
        outputs=outputs_path,
        workers=workers,
        task_runner=task_runner,
        dask_address=dask_address,
    )
    print(f"release: {release}")
    return str(release)
