"""Fast isolation for ``mutation.py``: test each mutant in a forked copy of one warm interpreter.

A fresh interpreter per mutant spends most of its time importing pytest, pydantic and the
package. Here the parent imports, once per target, every module the tests import that does not
(transitively, by a static scan of ``mnemoforge/``) import the target module; each mutant then
runs in a ``fork()`` of that parent, which imports the mutated target (from a temporary file, via
a finder placed first on ``sys.meta_path``) and everything that depends on it afresh, and runs
pytest in-process. Nothing a child does reaches the parent or the next mutant.

If the warm parent ever holds the target or a module that imports it (a dynamic import the scan
cannot see), the target falls back to one interpreter per mutant.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.util
import json
import multiprocessing
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTEST_ARGS = ["-x", "-q", "-p", "no:cacheprovider", "-o", "addopts="]


def module_name(path: Path) -> str:
    rel = path.resolve().relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, name: str) -> set[str]:
    """Every module ``path`` may import (top level or lazily), with the packages above each."""
    is_pkg = path.name == "__init__.py"
    pkg = name if is_pkg else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join([*head, base] if base else head)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)  # `from pkg import submodule`
    parents = {".".join(m.split(".")[:i]) for m in out for i in range(1, m.count(".") + 1)}
    parents |= {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    return out | parents


def dependents(target: str) -> set[str]:
    """The target module and every ``mnemoforge`` module that imports it, directly or not."""
    graph = {module_name(p): _imports(p, module_name(p)) for p in (ROOT / "mnemoforge").rglob("*.py")}
    deps, frontier = {target}, [target]
    while frontier:
        t = frontier.pop()
        for mod, imps in graph.items():
            if mod not in deps and t in imps:
                deps.add(mod)
                frontier.append(mod)
    return deps


class _MutantFinder(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, path: str) -> None:
        self.name, self.path = name, path

    def find_spec(self, fullname, path=None, target=None):  # noqa: ANN001, ANN201
        if fullname == self.name:
            return importlib.util.spec_from_file_location(fullname, self.path)
        return None


def _quiet() -> None:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)


def _child(tests: list[str], target: str, mutated: str | None, report: str | None) -> None:
    import pytest

    _quiet()
    sys.dont_write_bytecode = True
    if mutated is not None:
        sys.meta_path.insert(0, _MutantFinder(target, mutated))
    os.chdir(ROOT)
    rc = int(pytest.main([*PYTEST_ARGS, *tests]))
    if report is not None:  # the baseline run: which modules the tests import, in import order
        mods = [(n, getattr(m, "__file__", None)) for n, m in list(sys.modules.items())]
        Path(report).write_text(json.dumps(mods), encoding="utf-8")
    os._exit(rc)


def _run(
    tests: list[str], target: str, mutated: str | None, timeout: float, report: str | None = None
) -> bool:
    """True when the tests pass in a forked child (a timeout counts as a failure)."""
    p = multiprocessing.get_context("fork").Process(target=_child, args=(tests, target, mutated, report))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.kill()
        p.join()
        return False
    return p.exitcode == 0


def _preload(mods: list[tuple[str, str | None]], skip: set[str]) -> None:
    tests_dir = str(ROOT / "tests")
    for name, file in mods:
        if name in sys.modules or name in skip or name == "__main__" or name == "conftest":
            continue
        if name.startswith("tests.") or name == "tests" or (file and file.startswith(tests_dir)):
            continue
        try:
            importlib.import_module(name)
        except Exception:  # aliases and modules made at run time: the child imports what it needs
            pass


def check_target_forked(
    target: str,
    tests: list[str],
    sites: list,
    source: str,
    timeout: float,
    mutate: Callable[[str, str, int], str],
) -> dict | None:
    """Kill counts for ``sites`` of ``target`` (``None``: fall back to one interpreter per mutant).

    Each call runs in its own process, so one target's warm modules never reach the next."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_target_worker, args=(target, tests, sites, source, timeout, child, mutate))
    p.start()
    child.close()
    try:
        res = parent.recv()
    except EOFError:
        res = {"error": "the worker died"}
    p.join()
    if "error" in res:
        print(f"{target}: {res['error']}; one interpreter per mutant instead", flush=True)
        return None
    return res


def _target_worker(target, tests, sites, source, timeout, conn, mutate) -> None:  # noqa: ANN001
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    name = module_name(ROOT / target)
    deps = dependents(name)
    with tempfile.TemporaryDirectory(prefix="mnemoforge-mutation-") as tmp:
        report = os.path.join(tmp, "modules.json")
        if not _run(tests, name, None, timeout, report):
            conn.send({"error": f"{tests} fail on the unmutated code: fix them first"})
            return
        _preload(json.loads(Path(report).read_text(encoding="utf-8")), deps)
        leaked = sorted(d for d in deps if d in sys.modules)
        if leaked:
            conn.send({"error": f"warm modules import the target dynamically ({leaked[:3]})"})
            return
        killed, survived = 0, []
        for i, (kind, idx, m) in enumerate(sites):
            try:
                mutated = mutate(source, kind, idx)
            except Exception:  # an edit that does not unparse is not a mutant
                continue
            path = os.path.join(tmp, f"mutant_{i}_{Path(target).name}")  # a fresh name: no stale bytecode
            Path(path).write_text(mutated, encoding="utf-8")
            if _run(tests, name, path, timeout):
                survived.append({"line": m.line, "edit": m.edit})
            else:
                killed += 1
        conn.send({"killed": killed, "survived": survived})
