"""The package's import graph has no cycles, counting imports inside functions too.

A lazy import that closes a circle (a family registry importing gates that import programs that
import the registry) hides a layering mistake; this test reads every module's imports with ``ast``
(imports under ``if TYPE_CHECKING:`` are ignored) and fails naming the modules of each cycle.

Imports made through the plugin registry count too: a module that calls ``registry.load(GROUP, …)``
depends on every module registered in that group (``mnemoforge.registry.targets``: the built-ins
and any installed plugin), so a cycle closed through a string lookup is seen like any other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mnemoforge
from mnemoforge import registry

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
        elif isinstance(node, ast.Call) and _is_registry_load(node.func):
            found.update(_registered_modules(node))
    return found & known


def _is_registry_load(func: ast.expr) -> bool:
    """``registry.load(...)`` (the one place a plugin is imported by name)."""
    return isinstance(func, ast.Attribute) and func.attr == "load" and ast.unparse(func.value) == "registry"


def _registered_modules(call: ast.Call) -> set[str]:
    """The modules a ``registry.load`` call may import: its group's, or every group's when the
    group is not a constant of ``mnemoforge.registry``."""
    group = call.args[0] if call.args else None
    attr = group.attr if isinstance(group, ast.Attribute) else None
    groups = [getattr(registry, attr)] if attr and hasattr(registry, attr) else list(registry.GROUPS)
    return {t.partition(":")[0] for g in groups for t in registry.targets(g).values()}


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


# Generators sit below validators: a generator module imports no ``mnemoforge.validators`` module,
# except these (module -> the validators modules it may import), each an existing dependency that
# still waits for its helper to move into a lower layer. Add nothing here: move the helper instead.
GENERATOR_VALIDATOR_IMPORTS: dict[str, set[str]] = {
    # family plugins assemble their family's gates (the Family contract's `gates`), and a family's
    # own gates live in its package (issue 32), built on the gate base and the shared gate helpers
    "mnemoforge.generators.icm.family": {
        "mnemoforge.validators.gates",
        "mnemoforge.validators.perceivable",
        "mnemoforge.validators.prompts",
    },
    "mnemoforge.generators.memeye.family": {"mnemoforge.validators.gates"},
    "mnemoforge.generators.memeye.gates": {
        "mnemoforge.validators.gates",
        "mnemoforge.validators.panel_gates",
    },
    "mnemoforge.generators.memeye.drawn": {"mnemoforge.validators.gates"},
    "mnemoforge.generators.memeye.ocr": {"mnemoforge.validators.gates"},
    "mnemoforge.generators.smm.family": {"mnemoforge.validators.gates"},
    "mnemoforge.generators.smm.gates": {"mnemoforge.validators.gates", "mnemoforge.validators.solver"},
    # prompt templates (the loader and its hash live in validators.prompts, read by the pipeline's keys)
    "mnemoforge.generators.icm.model_dialogue": {"mnemoforge.validators.prompts"},
    # the icm model planners (``text.plan``, ``text.plan_shots``; moved from ``production/`` into the
    # family, issue 32): their prompts, and the panel's ordered concurrent map for batches of clips
    "mnemoforge.generators.icm.model_plan": {"mnemoforge.validators.prompts"},
    "mnemoforge.generators.icm.model_shots": {
        "mnemoforge.validators.answerers.panel",
        "mnemoforge.validators.prompts",
    },
    "mnemoforge.generators.questions.paraphrase": {"mnemoforge.validators.prompts"},
    # option sets screened by the option-only solvers and the text retrieval the gates run; these
    # modules are hashed into the questions and gates stage keys where they are (pipeline.STAGE_SOURCES)
    "mnemoforge.generators.memeye.option_screen": {
        "mnemoforge.validators.answerers.embed_cache",
        "mnemoforge.validators.answerers.option_solvers",
        "mnemoforge.validators.text_retrieval",
    },
    "mnemoforge.generators.icm.profile_options": {"mnemoforge.validators.answerers.option_solvers"},
    # icm sets planned against the panel's text-only sentence solver and the text_only_clue gate's
    # retrieval (on the items that claim visual evidence, as the gate decides)
    "mnemoforge.generators.text_share": {
        "mnemoforge.validators.answerers.embed_cache",
        "mnemoforge.validators.answerers.option_solvers",
        "mnemoforge.validators.panel_gates",
        "mnemoforge.validators.sentence_retrieval",
        "mnemoforge.validators.text_retrieval",
    },
    "mnemoforge.generators.option_balance": {
        "mnemoforge.validators.answerers.embed_cache",
        "mnemoforge.validators.answerers.option_solvers",
    },
    "mnemoforge.generators.smm.options": {
        "mnemoforge.validators.answerers.embed_cache",
        "mnemoforge.validators.answerers.option_prior",
        "mnemoforge.validators.text_retrieval",
    },
    # answer normalisation and exact match shared with the judges
    "mnemoforge.generators.questions.options": {"mnemoforge.validators.answerers.textnorm"},
    "mnemoforge.generators.memeye.item_options": {"mnemoforge.validators.answerers.judges"},
}


def _generator_validator_imports() -> dict[str, set[str]]:
    mods = _modules()
    out = {}
    for name, path in mods.items():
        if name.startswith("mnemoforge.generators"):
            found = {m for m in _imports(path, set(mods)) if m.startswith("mnemoforge.validators")}
            if found:
                out[name] = found
    return out


def _layering_violations(found: dict[str, set[str]]) -> dict[str, list[str]]:
    """Per generator module, the validators modules it imports beyond its allow-list entry."""
    new = {m: sorted(v - GENERATOR_VALIDATOR_IMPORTS.get(m, set())) for m, v in found.items()}
    return {m: v for m, v in new.items() if v}


def test_generators_do_not_import_validators() -> None:
    found = _generator_validator_imports()
    assert "mnemoforge.generators.option_balance" in found  # the graph was really read
    assert _layering_violations(found) == {}, "a generator imports validators: move the helper lower"


def test_the_generator_rule_flags_new_imports_lazy_ones_too(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from mnemoforge.validators import gates\n")
    gates = "mnemoforge.validators.gates"
    assert _imports(f, {"mnemoforge.validators", gates}) == {gates}
    found = {
        "mnemoforge.generators.new_module": {gates},
        "mnemoforge.generators.memeye.family": {gates, "mnemoforge.validators.panel_gates"},
        "mnemoforge.generators.smm.family": {gates},
    }
    assert _layering_violations(found) == {
        "mnemoforge.generators.new_module": [gates],
        "mnemoforge.generators.memeye.family": ["mnemoforge.validators.panel_gates"],
    }


def test_a_registry_lookup_is_an_import_edge(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text(
        "from mnemoforge import registry\n\ndef f(n):\n    return registry.load(registry.FAMILIES_GROUP, n)\n"
    )
    fam = "mnemoforge.generators.smm.family"
    assert _imports(f, {"mnemoforge.registry", fam}) == {"mnemoforge.registry", fam}
    mods = _modules()
    graph_from = _imports(mods["mnemoforge.generators.families"], set(mods))
    assert {t.partition(":")[0] for t in registry.targets(registry.FAMILIES_GROUP).values()} <= graph_from
