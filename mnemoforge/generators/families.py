"""Family lookup: the registered families by name (``mnemoforge.registry``'s
``mnemoforge.families`` group), imported lazily so a build of one family never imports another's
renderers. The contract itself (``Family``, ``ReleaseInput``) lives in ``mnemoforge.family``.
"""

from __future__ import annotations

import importlib

from mnemoforge import registry
from mnemoforge.family import Family, OnProgress, ReleaseInput
from mnemoforge.generators.questions import programs as programs_mod

__all__ = ["Family", "OnProgress", "ReleaseInput", "family_names", "get_family", "import_program_modules"]


def get_family(name: str) -> Family:
    if name not in registry.targets(registry.FAMILIES_GROUP):
        raise KeyError(f"unknown family {name!r}; known: {registry.names(registry.FAMILIES_GROUP)}")
    fam = registry.load(registry.FAMILIES_GROUP, name)
    if not isinstance(fam, Family):
        target = registry.targets(registry.FAMILIES_GROUP)[name]
        raise TypeError(f"family {name!r} ({target}) is not a mnemoforge.family.Family instance")
    return fam


def import_program_modules() -> None:
    """Import every family's program modules so its programs are registered (a family whose
    package is not installed in this checkout is skipped)."""
    for name in registry.names(registry.FAMILIES_GROUP):
        module = registry.targets(registry.FAMILIES_GROUP)[name].partition(":")[0]
        try:
            fam = get_family(name)
        except ModuleNotFoundError as e:
            if e.name is None or not module.startswith(e.name):
                raise
            continue
        for m in fam.program_modules:
            importlib.import_module(m)


def family_names() -> list[str]:
    """Every registered family's name, sorted."""
    return registry.names(registry.FAMILIES_GROUP)


programs_mod.LOADERS.append(import_program_modules)  # an unknown program: load every family's
