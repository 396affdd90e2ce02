"""The family boundary: shared modules do not switch on the built-in family names.

Every module under ``mnemoforge/`` outside the family packages (``generators/icm``,
``generators/smm``, ``generators/memeye``) is scanned for the names as string literals and for
imports of a family package. ``ALLOWED`` lists what is left per file; it only shrinks: a file with
fewer hits than listed fails too, so the list is lowered with the change that removed them.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "mnemoforge"
NAMES = frozenset({"icm", "smm", "memeye"})
FAMILY_DIRS = tuple(PKG / "generators" / n for n in sorted(NAMES))

# file (relative to mnemoforge/) -> string-literal hits left, each for good:
# - registry.py: the built-in registration table (the three families and the MemEye peer format,
#   as in pyproject.toml; a table so that the JSON schemas list them in one order whether
#   mnemoforge is a checkout or a wheel) and ``DEFAULT_FAMILY``, the family of a theme without
#   ``family:``: the lines that register built-ins, which issue 32 allows.
ALLOWED: dict[str, int] = {
    "registry.py": 5,
}
# file -> imports of a family package (``from mnemoforge.generators.icm ... import``): none; shared
# code asks the family object (``mnemoforge.family.Family``)
ALLOWED_IMPORTS: dict[str, int] = {}


def _shared_modules() -> list[Path]:
    return sorted(
        p for p in PKG.rglob("*.py") if not any(p.is_relative_to(d) for d in FAMILY_DIRS)
    )


def _family_module(name: str) -> bool:
    parts = name.split(".")
    return len(parts) > 2 and parts[:2] == ["mnemoforge", "generators"] and parts[2] in NAMES


def _hits(path: Path) -> tuple[int, int]:
    """(family names as string literals, imports of a family package) in one module."""
    literals = imports = 0
    for n in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in NAMES:
            literals += 1
        elif isinstance(n, ast.ImportFrom) and n.level == 0:
            imports += _family_module(n.module or "")
        elif isinstance(n, ast.Import):
            imports += sum(_family_module(a.name) for a in n.names)
    return literals, imports


def counts() -> tuple[dict[str, int], dict[str, int]]:
    lits, imps = {}, {}
    for p in _shared_modules():
        lit, imp = _hits(p)
        rel = p.relative_to(PKG).as_posix()
        if lit:
            lits[rel] = lit
        if imp:
            imps[rel] = imp
    return lits, imps


def test_no_new_family_name_literals_in_shared_modules() -> None:
    lits, _ = counts()
    assert lits == ALLOWED, (
        "family names as string literals in shared modules changed; move the switch into the "
        f"family (a Family method) and lower ALLOWED. now: {lits}"
    )


def test_no_new_family_imports_in_shared_modules() -> None:
    _, imps = counts()
    assert imps == ALLOWED_IMPORTS, f"imports of family packages from shared modules: {imps}"


def test_scan_sees_a_switch(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text('if fam == "memeye":\n    from mnemoforge.generators.smm import tools\n')
    assert _hits(probe) == (1, 1)
