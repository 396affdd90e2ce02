"""Mutation check: how many small, deliberate bugs in a module does the test suite catch?

Each *mutant* is the package with one edit in one target module (a comparison flipped,
``and``/``or`` swapped, a ``not`` dropped, a number moved by one, ``min``/``max`` swapped, a
``return`` value replaced by a constant). The named tests run against each mutant in isolation; a
mutant is *killed* when they fail (or time out), and *survives* when they pass.

    python benchmarks/mutation.py                      # the default targets and their tests
    python benchmarks/mutation.py --target mnemoforge/generators/smm/programs.py --limit 40
    python benchmarks/mutation.py --target mnemoforge/validators/gates.py \
        --tests tests/test_gates_units.py

Isolation (``--isolation``): ``fork`` (the default, see ``mutation_fork.py``) tests each mutant
in a fork of one warm interpreter that has imported everything except the target and the modules
that import it; ``subprocess`` copies the package and starts a fresh interpreter per mutant
(about four times slower, same verdicts).

Writes ``benchmarks/results/mutation.json`` (per target: mutants, killed, survived with their
line and edit, and the kill ratio). Mutants are chosen deterministically (every site, in source
order; ``--limit`` takes an evenly spaced subset). Only standard library + pytest are used.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mutation_fork import PYTEST_ARGS, check_target_forked

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# hand-computed oracles of every question program and of the shared registry
ORACLES = [
    "tests/test_program_oracles.py",
    "tests/test_program_oracles_edges.py",
    "tests/test_program_oracles_registry.py",
]
DEFAULT_TARGETS: dict[str, list[str]] = {
    # the shared registry: FactView, Lexicon, `program`, `run_program`, `join_names`
    "mnemoforge/generators/questions/programs.py": ORACLES,
    "mnemoforge/generators/icm/programs.py": ORACLES,
    "mnemoforge/generators/icm/routine_programs.py": ORACLES,
    "mnemoforge/generators/icm/change_programs.py": ORACLES,
    "mnemoforge/generators/smm/programs.py": ORACLES,
    "mnemoforge/generators/memeye/programs.py": ORACLES,
    "mnemoforge/validators/gates.py": ["tests/test_gates_units.py"],
}

CMP_SWAP: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    line: int
    edit: str
    index: int  # the index-th mutation site of its kind in walk order


class _Sites(ast.NodeVisitor):
    """Lists every mutation site (in walk order) without changing anything."""

    def __init__(self) -> None:
        self.sites: list[tuple[str, int, str]] = []  # (kind, line, description)

    def visit_Compare(self, node: ast.Compare) -> None:
        for op in node.ops:
            if type(op) in CMP_SWAP:
                self.sites.append(
                    ("cmp", node.lineno, f"{type(op).__name__} -> {CMP_SWAP[type(op)].__name__}")
                )
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        self.sites.append(("bool", node.lineno, f"{type(node.op).__name__} -> swapped"))
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self.sites.append(("not", node.lineno, "not dropped"))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            self.sites.append(("num", node.lineno, f"{node.value} -> {node.value + 1}"))

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            other = "max" if node.func.id == "min" else "min"
            self.sites.append(("minmax", node.lineno, f"{node.func.id} -> {other}"))
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            self.sites.append(("return", node.lineno, "return value -> None"))
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:  # f-strings: messages, not logic
        return


class _Apply(ast.NodeTransformer):
    """Applies the ``target``-th site of ``kind`` (same walk order as ``_Sites``)."""

    def __init__(self, kind: str, target: int) -> None:
        self.kind, self.target, self.seen = kind, target, -1

    def _hit(self, kind: str) -> bool:
        if kind != self.kind:
            return False
        self.seen += 1
        return self.seen == self.target

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        for i, op in enumerate(node.ops):
            if type(op) in CMP_SWAP and self._hit("cmp"):
                node.ops[i] = CMP_SWAP[type(op)]()
        self.generic_visit(node)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        if self._hit("bool"):
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        self.generic_visit(node)
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        if isinstance(node.op, ast.Not) and self._hit("not"):
            self.generic_visit(node)
            return node.operand
        self.generic_visit(node)
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, int) and not isinstance(node.value, bool) and self._hit("num"):
            return ast.copy_location(ast.Constant(node.value + 1), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max") and self._hit("minmax"):
            node.func = ast.copy_location(
                ast.Name("max" if node.func.id == "min" else "min", ast.Load()), node
            )
        self.generic_visit(node)
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        if node.value is not None and self._hit("return"):
            self.generic_visit(node)
            return ast.copy_location(ast.Return(ast.Constant(None)), node)
        self.generic_visit(node)
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return node


def _skip_docstrings(tree: ast.Module) -> set[int]:
    """Lines of ``if TYPE_CHECKING``/``__all__``-style module scaffolding never worth mutating."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node, ast.stmt):
            if getattr(node, "col_offset", 1) == 0:  # module-level constants (registries, names)
                skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return skip


def mutants(source: str) -> list[tuple[str, int, Mutant]]:
    tree = ast.parse(source)
    sites = _Sites()
    sites.visit(tree)
    skip = _skip_docstrings(tree)
    counters: dict[str, int] = {}
    out = []
    for kind, line, desc in sites.sites:
        idx = counters.get(kind, 0)
        counters[kind] = idx + 1
        if line not in skip:
            out.append((kind, idx, Mutant(line=line, edit=desc, index=idx)))
    return out


def mutate(source: str, kind: str, index: int) -> str:
    tree = _Apply(kind, index).visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree))


def run_tests(pkg_root: Path, tests: list[str], timeout: float) -> bool:
    """True when the tests pass against the package copy under ``pkg_root`` (run from there, so
    pytest's rootdir import of ``tests/`` puts the mutated package first on the path)."""
    env = dict(os.environ, PYTHONPATH=str(pkg_root), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", *PYTEST_ARGS, *tests]
    try:
        r = subprocess.run(cmd, cwd=pkg_root, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return r.returncode == 0


def check_target_subprocess(target: str, tests: list[str], sites: list, source: str, timeout: float) -> dict:
    """Each mutant in a copy of the package, tested by a fresh interpreter (slow, fully isolated)."""
    killed, survived = 0, []
    with tempfile.TemporaryDirectory(prefix="mnemoforge-mutation-") as tmp:
        pkg_root = Path(tmp)
        shutil.copytree(ROOT / "mnemoforge", pkg_root / "mnemoforge")
        shutil.copytree(ROOT / "tests", pkg_root / "tests")
        shutil.copy(ROOT / "pyproject.toml", pkg_root / "pyproject.toml")
        (pkg_root / "assets").symlink_to(ROOT / "assets")
        copy = pkg_root / target
        if not run_tests(pkg_root, tests, timeout):
            raise SystemExit(f"{tests} fail on the unmutated code: fix them first")
        for kind, idx, m in sites:
            try:
                mutated = mutate(source, kind, idx)
            except Exception:  # an edit that does not unparse is not a mutant
                continue
            copy.write_text(mutated, encoding="utf-8")
            if run_tests(pkg_root, tests, timeout):
                survived.append({"line": m.line, "edit": m.edit})
            else:
                killed += 1
        copy.write_text(source, encoding="utf-8")
    return {"killed": killed, "survived": survived}


def check_target(target: str, tests: list[str], limit: int | None, timeout: float, isolation: str) -> dict:
    source = (ROOT / target).read_text(encoding="utf-8")
    sites = mutants(source)
    if limit and len(sites) > limit:
        step = len(sites) / limit
        sites = [sites[int(i * step)] for i in range(limit)]
    res = None
    if isolation == "fork":
        res = check_target_forked(target, tests, sites, source, timeout, mutate)
    if res is None:
        res = check_target_subprocess(target, tests, sites, source, timeout)
    killed, survived = res["killed"], res["survived"]
    total = killed + len(survived)
    return {
        "tests": tests,
        "mutants": total,
        "killed": killed,
        "survived": survived,
        "kill_ratio": round(killed / total, 3) if total else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", action="append", help="module path (repeatable); default: the built-in list")
    ap.add_argument("--tests", action="append", help="test files run against each mutant of --target")
    ap.add_argument("--limit", type=int, default=None, help="at most this many mutants per target")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per test run (a hang = killed)")
    ap.add_argument(
        "--isolation",
        choices=["fork", "subprocess"],
        default="fork",
        help="fork: each mutant in a fork of one warm interpreter (fast); subprocess: a fresh one each",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/mutation.json")
    a = ap.parse_args()
    targets = {t: a.tests or ORACLES for t in a.target} if a.target else DEFAULT_TARGETS
    t0 = time.perf_counter()
    report: dict = {"targets": {}}
    for target, tests in targets.items():
        res = check_target(target, tests, a.limit, a.timeout, a.isolation)
        report["targets"][target] = res
        print(f"{target}: {res['killed']}/{res['mutants']} killed ({res['kill_ratio']})", flush=True)
    k = sum(r["killed"] for r in report["targets"].values())
    n = sum(r["mutants"] for r in report["targets"].values())
    report["overall"] = {"mutants": n, "killed": k, "kill_ratio": round(k / n, 3) if n else None}
    report["seconds"] = round(time.perf_counter() - t0, 1)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(a.out, report, indent=2, sort_keys=True)
    print(f"overall: {k}/{n} killed ({report['overall']['kill_ratio']}) in {report['seconds']} s")


if __name__ == "__main__":
    main()
