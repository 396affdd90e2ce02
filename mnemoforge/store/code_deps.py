"""Which source files a stage's code reaches: the part of a cache key that follows code edits.

A family names the modules of each stage (``Family.stage_modules``); those modules import helpers
(a renderer's drawing code, a question family's wording forms, a speech backend) that shape the
stage's output just as much. :func:`reachable_sources` follows the imports of the named modules,
read with ``ast`` (imports inside functions count, ``if TYPE_CHECKING:`` blocks do not), through
the generation code (``mnemoforge.generators`` and ``mnemoforge.backends``), so that editing any
module a stage can run re-runs that stage. Validators, exporters and schemas enter a key only
where the pipeline names them (``pipeline.STAGE_SOURCES``), so a gate edit re-runs only the gates.
"""

from __future__ import annotations

import ast
import threading
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType

import mnemoforge

PACKAGE_ROOT = Path(mnemoforge.__file__).resolve().parent
FOLLOWED = ("mnemoforge.generators", "mnemoforge.backends")
# CPython 3.11 before 3.11.8 keeps the AST converter's recursion depth in interpreter-wide state, so
# two threads parsing at once can fail with "AST constructor recursion depth mismatch" (gh-106905);
# a threaded executor (dask's local scheduler) asks for several stages' keys at once.
_PARSE_LOCK = threading.Lock()


@cache
def _module_files() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for f in sorted(PACKAGE_ROOT.rglob("*.py")):
        parts = ("mnemoforge", *f.relative_to(PACKAGE_ROOT).with_suffix("").parts)
        out[".".join(parts).removesuffix(".__init__")] = f
    return out


@cache
def _imports(name: str) -> frozenset[str]:
    files = _module_files()
    path = files.get(name)
    if path is None:
        return frozenset()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*head, base] if base else head)
            found.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in files)
            if base in files:
                found.add(base)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in files)
    return frozenset(found)


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    """Every statement under ``nodes``, at any depth (an import is a statement, never part of an
    expression, so only statement bodies are walked), leaving out the body of an
    ``if TYPE_CHECKING:`` (its ``else`` counts)."""
    for node in nodes:
        yield node
        for f in _BODIES:
            if f == "body" and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            yield from _statements(getattr(node, f, None) or [])


def _followed(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in FOLLOWED)


@cache
def _closure(names: tuple[str, ...]) -> tuple[str, ...]:
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(2, len(parts)) if _followed(".".join(parts[:i])))
        todo.extend(n for n in _imports(name) if _followed(n))
    return tuple(sorted(seen))


def reachable_sources(*modules: ModuleType) -> list[Path]:
    """Source files of the generation modules the given modules import, directly or not (the given
    modules themselves excluded), in a fixed order."""
    named = tuple(sorted(m.__name__ for m in modules))
    with _PARSE_LOCK:
        files = _module_files()
        closure = _closure(named)
    return [files[n] for n in closure if n not in named and n in files]
