"""The package's import graph has no cycles, counting imports inside functions too.

A lazy import that closes a circle (a family registry importing gates that import programs that
import the registry) hides a layering mistake; this test reads every module's imports with ``ast``
(imports under ``if TYPE_CHECKING:`` are ignored) and fails naming the modules of each cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mnemoforge

ROOT = Path(mnemoforge.__file__).parent


def _modules() -> dict[str, Path]:
    out = {}
    for f in ROOT.rglob("*.py"):
        parts = ("mnemoforge", *f.relative_to(ROOT).with_suffix("").parts)
        name = ".".join(parts).removesuffix(".__init__")
        out[name] = f
    return out


def _imports(path: Path, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{a.name}" for a in node.names} & known
            # `from pkg import submodule` depends on the submodule (every import runs the package's
            # __init__ first, whatever its form, so that is no edge of its own)
            found.update(subs if len(subs) == len(node.names) else {node.module, *subs})
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found & known


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_even_through_lazy_imports() -> None:
    mods = _modules()
    graph = {name: _imports(path, set(mods)) - {name} for name, path in mods.items()}
    assert len(graph) > 100 and sum(map(len, graph.values())) > 300  # the graph was really read
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_lazy_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
