"""Scale-out: docker-compose.yml, prefect.yaml and the worker image, checked by parsing (no Docker
here), and the same topology run for real on loopback: a Prefect server (SQLite), a process work
pool, the deployment from prefect.yaml and a worker, building a small theme to a verified release.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from mnemoforge import yaml_io
from mnemoforge.pipeline import build as plain_build
from mnemoforge.validators.release_check import verify_release

from .conftest import small_theme_data

# the parsing checks run in the default suite; what starts Prefect (CLI help, an import of the flow
# in a child process, the loopback server and worker) is marked `integration`

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
PREFECT_YAML = ROOT / "prefect.yaml"
DOCKERFILE = ROOT / "docker" / "Dockerfile"
PREFECT = [sys.executable, "-m", "prefect"]
DEPLOYMENT = "mnemoforge-build"
RUN_TIMEOUT_S = 240


# ----------------------------------------------------------------------------- parsing helpers


def _compose() -> dict:
    return yaml_io.safe_load(COMPOSE.read_text())


def _deployment() -> dict:
    spec = yaml_io.safe_load(PREFECT_YAML.read_text())
    (dep,) = [d for d in spec["deployments"] if d["name"] == DEPLOYMENT]
    return dep


def _command(service: dict) -> list[str]:
    cmd = service.get("command", [])
    return shlex.split(cmd) if isinstance(cmd, str) else [str(c) for c in cmd]


def _option(cmd: list[str], name: str) -> str:
    assert name in cmd, f"{name} missing from {cmd}"
    return cmd[cmd.index(name) + 1]


def _env(service: dict) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k: str(v) for k, v in env.items()}


def _mounts(service: dict) -> dict[str, str]:
    """source -> target for the service's volumes (short or long syntax)."""
    out = {}
    for vol in service.get("volumes", []):
        if isinstance(vol, str):
            source, target = vol.split(":")[:2]
        else:
            source, target = vol["source"], vol["target"]
        out[source] = target
    return out


def _is_prefect_worker(service: dict) -> bool:
    return _command(service)[:3] == ["prefect", "worker", "start"]


def _dockerfile_args() -> dict[str, str]:
    args = re.findall(r"^ARG\s+(\w+)=(\S*)", DOCKERFILE.read_text(), flags=re.M)
    return {k: v.strip("\"'") for k, v in args}


def _dockerfile_base() -> str:
    (base,) = re.findall(r"^FROM\s+(\S+)", DOCKERFILE.read_text(), flags=re.M)
    for name, value in _dockerfile_args().items():
        base = base.replace("${" + name + "}", value)
    return base


HELPS = [("server", "start"), ("worker", "start"), ("work-pool",), ("deploy",)]

# One child process answers what the two CLI checks ask of Prefect: `prefect <sub> --help` of each
# command docker-compose.yml runs (Prefect's own CLI app, as `python -m prefect` runs it) and the
# flow prefect.yaml's entrypoint names. Importing Prefect here would freeze its settings for later
# tests; one child instead of one per command saves a Prefect import (about 0.9 CPU-s) each.
_PROBE = """
import contextlib, importlib, io, json, sys
from prefect import Flow
from prefect.cli import app
subs, module, func = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
helps = {}
for sub in subs:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        sys.argv = ["prefect", *sub, "--help"]
        try:
            app()
        except SystemExit as e:
            assert e.code in (0, None), (sub, e.code)
    helps[" ".join(sub)] = buf.getvalue()
f = getattr(importlib.import_module(module), func)
flow = {"flow": isinstance(f, Flow), "name": f.name, "params": sorted(f.parameters.properties)}
json.dump({"helps": helps, "flow": flow}, sys.stdout)
"""


@pytest.fixture(scope="module")
def prefect_probe() -> dict:
    """``{"helps": {"server start": its --help text, ...}, "flow": {...}}`` from one child process."""
    path, func = _deployment()["entrypoint"].split(":")
    module = path.removesuffix(".py").replace("/", ".")
    cmd = [sys.executable, "-c", _PROBE, json.dumps(HELPS), module, func]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


# ----------------------------------------------------------------------------- (a) parsing


def test_compose_topology() -> None:
    services = _compose()["services"]
    for name in ("postgres", "server", "worker", "dask-scheduler", "dask-worker"):
        assert name in services, name
        assert services[name].get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
    for name in ("postgres", "server", "worker"):
        assert not services[name].get("profiles"), f"{name} must start by default"
    for name in ("dask-scheduler", "dask-worker"):
        assert services[name]["profiles"] == ["dask"]

    # pinned images: postgres and dask never `latest`, the server on the worker image's Prefect
    postgres, server = services["postgres"], services["server"]
    assert re.fullmatch(r"postgres:\d+(\.\d+)*", postgres["image"]), postgres["image"]
    assert re.fullmatch(r"ghcr\.io/dask/dask:\d{4}\.\d+\.\d+", services["dask-scheduler"]["image"])
    assert re.fullmatch(r"prefecthq/prefect:3\.\d+\.\d+-python3\.\d+", server["image"]), server["image"]
    assert server["image"] == _dockerfile_base()
    for name, svc in services.items():
        if "build" not in svc:
            assert ":" in svc["image"] and "latest" not in svc["image"].split(":")[1], name

    # the server keeps its state in the postgres service
    url = urlsplit(_env(server)["PREFECT_API_DATABASE_CONNECTION_URL"])
    pg = _env(postgres)
    assert url.scheme == "postgresql+asyncpg"
    assert (url.hostname, url.port or 5432) == ("postgres", 5432)
    assert (url.username, url.password, url.path.lstrip("/")) == (
        pg["POSTGRES_USER"],
        pg["POSTGRES_PASSWORD"],
        pg["POSTGRES_DB"],
    )
    assert server["depends_on"]["postgres"]["condition"] == "service_healthy"
    cmd = _command(server)
    assert cmd[:3] == ["prefect", "server", "start"] and _option(cmd, "--host") == "0.0.0.0"
    port = _option(cmd, "--port")
    assert f"{port}:{port}" in server["ports"]


def test_compose_workers_share_outputs_and_pool() -> None:
    compose = _compose()
    services = compose["services"]
    dep = _deployment()
    pool = dep["work_pool"]["name"]
    server_port = _option(_command(services["server"]), "--port")

    workers = {n: s for n, s in services.items() if _is_prefect_worker(s)}
    assert "worker" in workers
    shared = [v for v in compose["volumes"] if v != "postgres-data"]
    assert shared == ["outputs"], shared
    targets = set()
    for name, svc in {**workers, "dask-worker": services["dask-worker"]}.items():
        env = _env(svc)
        target = _mounts(svc).get("outputs")
        assert target, f"{name} does not mount the shared outputs volume"
        targets.add(target)
        # the flow's default `outputs` (relative to the pull step's working directory) is the volume,
        # and the stage cache lives on it too, so every worker sees the same runs and results
        root = Path(env["MNEMOFORGE_ROOT"])
        assert root / dep["parameters"]["outputs"] == Path(target)
        assert Path(env["PREFECT_RESULTS_LOCAL_STORAGE_PATH"]).is_relative_to(target)
        assert env["PREFECT_API_URL"] == f"http://server:{server_port}/api"
    assert len(targets) == 1, f"workers mount outputs at different paths: {targets}"

    for name, svc in workers.items():
        cmd = _command(svc)
        assert _option(cmd, "--pool") == pool, name
        assert _option(cmd, "--type") == "process", name
        assert svc["depends_on"]["server"]["condition"] == "service_healthy"
        assert svc["build"]["dockerfile"] == "docker/Dockerfile" and svc["build"]["context"] == "."

    dask_worker = services["dask-worker"]
    scheduler_cmd = _command(services["dask-scheduler"])
    assert scheduler_cmd[:2] == ["dask", "scheduler"]
    assert _command(dask_worker)[:3] == [
        "dask",
        "worker",
        f"tcp://dask-scheduler:{_option(scheduler_cmd, '--port')}",
    ]
    # the Dask workers run the project's code with the scheduler's dask release
    dask_version = services["dask-scheduler"]["image"].split(":")[1]
    assert "dask" in dask_worker["build"]["args"]["EXTRAS"].split(",")
    assert f"=={dask_version}" in dask_worker["build"]["args"]["EXTRA_PIP"]


@pytest.mark.integration
def test_compose_commands_are_real_cli_commands(prefect_probe: dict) -> None:
    services = _compose()["services"]
    helps = {sub: prefect_probe["helps"][" ".join(sub)] for sub in HELPS}
    assert all("Usage" in text for text in helps.values()), helps
    for name, svc in services.items():
        cmd = _command(svc)
        if cmd[:1] == ["prefect"] and tuple(cmd[1:3]) in helps:
            for flag in (c for c in cmd if c.startswith("--")):
                assert flag in helps[tuple(cmd[1:3])], f"{name}: `{' '.join(cmd[:3])}` has no option {flag}"
    # the one-shot registration runs the same CLI: pool inspect/create and deploy --all
    script = " ".join(_command(services["register"]))
    assert f"prefect work-pool create {_deployment()['work_pool']['name']} --type process" in script
    assert "prefect --no-prompt deploy --all" in script
    assert "inspect" in helps[("work-pool",)] and "--all" in helps[("deploy",)]


@pytest.mark.integration
def test_prefect_yaml_entrypoint_is_the_build_flow(prefect_probe: dict) -> None:
    dep = _deployment()
    path, _ = dep["entrypoint"].split(":")
    assert (ROOT / path).is_file()
    flow = prefect_probe["flow"]  # imported in the child process (see _PROBE)
    assert flow["flow"] and flow["name"] == DEPLOYMENT
    assert set(dep["parameters"]) == {"theme", "seed", "outputs", "workers", "task_runner", "dask_address"}
    assert set(dep["parameters"]) <= set(flow["params"])
    assert (ROOT / dep["parameters"]["theme"]).is_file()
    # workers change into the checkout named by MNEMOFORGE_ROOT, which the image sets to its WORKDIR
    spec = yaml_io.safe_load(PREFECT_YAML.read_text())
    (step,) = spec["pull"]
    assert step["prefect.deployments.steps.set_working_directory"]["directory"] == "{{ $MNEMOFORGE_ROOT }}"
    workdir = re.findall(r"^WORKDIR\s+(\S+)", DOCKERFILE.read_text(), flags=re.M)[-1]
    assert _env(_compose()["services"]["worker"])["MNEMOFORGE_ROOT"] == workdir


def test_dockerfile_installs_the_project() -> None:
    text = DOCKERFILE.read_text()
    assert _dockerfile_base().startswith("prefecthq/prefect:3.")
    for src in ("pyproject.toml", "mnemoforge", "assets", "prefect.yaml"):
        assert re.search(rf"^COPY\s+{re.escape(src)}\b", text, flags=re.M), src
    install = " ".join(re.findall(r"^RUN\s+(.*(?:\\\n.*)*)", text, flags=re.M))
    assert re.search(r"pip install [^&]*-e \"\.", install), install
    assert '"prefect==${PREFECT_VERSION}"' in install  # never drift from the server's release
    # the default install builds offline; torch comes only with the `ml` extra, which it does not ask for
    assert "torch" not in install
    for name, svc in _compose()["services"].items():
        extras = svc.get("build", {}).get("args", {}).get("EXTRAS", "")
        assert "ml" not in extras.split(","), name


# ----------------------------------------------------------------------------- (b) loopback


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only, never a proxy


def _get(url: str) -> dict | None:
    try:
        with _LOCAL.open(url, timeout=5) as resp:
            return json.loads(resp.read() or b"null")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def _tail(path: Path, n: int = 3000) -> str:
    return path.read_text(errors="replace")[-n:] if path.exists() else ""


def _procs() -> dict[tuple[int, str], tuple[int, int]]:
    """(pid, start time) -> (parent pid, process group) of every live, non-zombie process (Linux /proc)."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in "ZX":
            out[(int(stat.parent.name), fields[19])] = (int(fields[1]), int(fields[2]))
    return out


def _family(leader: int, known: set[tuple[int, str]] = frozenset()) -> set[tuple[int, str]]:
    """The live processes we started as ``leader``: its process group, its descendants (a worker's flow
    runs may start their own sessions), and any of ``known`` still alive."""
    procs = _procs()
    family = {key for key, (_, pgid) in procs.items() if pgid == leader or key[0] == leader}
    family |= known & procs.keys()
    grew = True
    while grew:
        pids = {pid for pid, _ in family}
        more = {key for key, (ppid, _) in procs.items() if ppid in pids} - family
        family |= more
        grew = bool(more)
    return family


def _start(cmd: list[str], env: dict[str, str], log: Path, cwd: Path) -> subprocess.Popen:
    """Start ``cmd`` as the leader of its own process group (so stopping it takes its children)."""
    with log.open("wb") as out:
        return subprocess.Popen(
            cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def _stop(proc: subprocess.Popen, grace_s: float = 30) -> None:
    """SIGTERM the processes we started as ``proc`` (see ``_family``), SIGKILL what is left after
    ``grace_s``, and fail if any survive."""
    family = _family(proc.pid)
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10)):
        for pid, _ in family:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            proc.poll()
            family = _family(proc.pid, family)
            if proc.returncode is not None and not family:
                return
            time.sleep(0.2)
    proc.wait(timeout=10)
    assert not _family(proc.pid, family), f"leaked processes started by {proc.pid}"


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> str:
    proc = subprocess.run([*PREFECT, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"prefect {' '.join(args)}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.mark.integration
def test_deployment_runs_on_a_loopback_server(tmp_path: Path) -> None:
    theme = tmp_path / "deploy.yaml"  # the suite's small theme (320x180, 3 clips): the topology is
    theme.write_text(yaml.safe_dump(small_theme_data(clips=3), sort_keys=False))  # the point, not size
    deployed, logs = tmp_path / "deployed", tmp_path / "logs"
    logs.mkdir()

    port = _free_port()
    api = f"http://127.0.0.1:{port}/api"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MNEMOFORGE_"))}
    base.update(
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    server_env = {
        **base,
        "PREFECT_HOME": str(tmp_path / "server-home"),  # SQLite database in here
        "PREFECT_UI_ENABLED": "false",
    }
    client_env = {**base, "PREFECT_HOME": str(tmp_path / "client-home"), "PREFECT_API_URL": api}
    worker_env = {
        **client_env,
        "MNEMOFORGE_ROOT": str(ROOT),  # as in docker-compose.yml: the pull step changes into it
        "PREFECT_RESULTS_LOCAL_STORAGE_PATH": str(deployed / ".prefect" / "results"),
        "PREFECT_WORKER_QUERY_SECONDS": "1",
    }
    pool = _deployment()["work_pool"]["name"]
    timings: dict[str, float] = {}
    t0 = time.monotonic()

    server = _start(
        [*PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        server_env,
        logs / "server.log",
        tmp_path,
    )
    worker = None
    try:
        # the reference build, while the server starts
        plain = plain_build(theme, outputs=tmp_path / "plain", workers=1)
        timings["plain_build"] = time.monotonic() - t0
        deadline = time.monotonic() + 120
        while _get(f"{api}/health") is not True:
            assert server.poll() is None, f"server exited:\n{_tail(logs / 'server.log')}"
            assert time.monotonic() < deadline, f"server not healthy:\n{_tail(logs / 'server.log')}"
            time.sleep(0.5)
        timings["server_healthy"] = time.monotonic() - t0

        _cli(["work-pool", "create", pool, "--type", "process"], client_env, tmp_path)
        worker = _start(
            [*PREFECT, "worker", "start", "--pool", pool, "--type", "process", "--limit", "1"],
            worker_env,
            logs / "worker.log",
            tmp_path,
        )
        # registered from prefect.yaml, exactly as `docker compose run --rm register` does
        _cli(["--no-prompt", "deploy", "--all"], client_env, ROOT)
        timings["deployed"] = time.monotonic() - t0

        params = {"theme": str(theme), "outputs": str(deployed), "workers": 1}
        out = _cli(
            ["deployment", "run", f"{DEPLOYMENT}/{DEPLOYMENT}", "--params", json.dumps(params)],
            client_env,
            tmp_path,
        )
        flow_run_id = re.search(r"UUID: ([0-9a-f-]{36})", out).group(1)
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while True:
            flow_run = _get(f"{api}/flow_runs/{flow_run_id}") or {}
            state = flow_run.get("state") or {}
            if state.get("type") in {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}:
                break
            assert worker.poll() is None, f"worker exited:\n{_tail(logs / 'worker.log')}"
            assert time.monotonic() < deadline, (
                f"flow run still {state.get('name')}:\n{_tail(logs / 'worker.log')}"
            )
            time.sleep(1)
        timings["flow_run_done"] = time.monotonic() - t0
        assert state["type"] == "COMPLETED", f"{state}\n{_tail(logs / 'worker.log')}"
        assert state["name"] == "Completed"
    finally:
        try:
            if worker is not None:
                _stop(worker)  # before the server, so it can deregister cleanly
        finally:
            _stop(server)
    timings["stopped"] = time.monotonic() - t0
    print("loopback timings (s from start):", {k: round(v, 1) for k, v in timings.items()})

    release = deployed / plain.release_dir.relative_to(tmp_path / "plain")
    assert release.is_dir(), sorted(p.name for p in deployed.rglob("*"))[:50]
    assert verify_release(release) == []
    assert (release / "MANIFEST.json").read_bytes() == (plain.release_dir / "MANIFEST.json").read_bytes()
    # the stage cache went to the worker's configured result storage
    assert any((deployed / ".prefect" / "results").iterdir())
