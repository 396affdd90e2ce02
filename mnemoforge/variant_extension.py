"""More episodes of the same World for the longer length variants (issue 36).

An album of a few dozen clips cannot give every item a short history an eighth of its long one:
an item whose evidence spans 4 clips needs 32 it may read. ``extend`` adds episodes of the same
World (the family's ``variant_extension``: icm ``generators/icm/extension.py``) that every length
variant but the oracle may draw as filler, never as evidence; ``variants.apply`` then re-derives
each item on histories that include them and drops, from all variants and with the reason, an
item a longer history changes or leaves ambiguous.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from mnemoforge.family import Family
from mnemoforge.hashing import content_hash, source_hash
from mnemoforge.run_inputs import load_observations, load_world
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.code_deps import reachable_sources
from mnemoforge.store.layout import RunLayout
from mnemoforge.variants import VariantError


@dataclass
class Extended:
    """A run's World and observations with an extension's episodes added (``extend``)."""

    world: World
    observations: list[Observation]
    added: list[str]
    """The extension's episodes (stream order)."""


def extend(
    family: Family, theme: Theme, world: World, observations: list[Observation], run_root: Path, factor: int
) -> Extended:
    """The run's history made ``factor`` times as many episodes by the family's extension of the
    same World (``Family.variant_extension``): filler the longer variants draw, never evidence.
    Pass the result to ``apply``, which re-derives every item on histories that include it."""
    if factor < 1:
        raise VariantError("extend", f"a factor of at least 1, got {factor}")
    units = list(dict.fromkeys(family.variant_unit(o) for o in observations))
    n = (factor - 1) * len(units)
    got = family.variant_extension(theme, world, run_root, n) if n else None
    if got is None:
        if n:
            raise VariantError("extend", f"family {family.name} plans no extension episodes")
        return Extended(world, observations, [])
    big, extra = got
    have = set(units)
    added = list(dict.fromkeys(u for o in extra if (u := family.variant_unit(o)) not in have))
    return Extended(big, [*observations, *extra], added)


def extended_run(
    run: RunLayout, fam: Family, theme: Theme, run_key: str, factor: int, workers: int = 1
) -> Path:
    """The run folder a variant freeze with ``build --extend factor`` reads instead of ``run``: the
    run with ``(factor - 1)`` times its episodes more, rendered (``Family.write_variant_extension``),
    under ``<run>/extended/x<factor>/``; made once per run (``run_key``: its gates' cache key), code
    and factor (``key.txt``), then reused."""
    mods = [sys.modules[__name__], importlib.import_module(type(fam).__module__)]
    key = content_hash(run_key, "extend", factor, source_hash(*mods, *reachable_sources(*mods)))
    dest = run.root / "extended" / f"x{factor}"
    stamp = dest / "key.txt"
    if stamp.is_file() and stamp.read_text() == key:
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    units = {fam.variant_unit(o) for o in load_observations(run)}
    n = (factor - 1) * len(units)
    if fam.write_variant_extension(theme, load_world(run), run.root, n, dest, workers) is None:
        raise VariantError("--extend", f"family {fam.name} plans no extension episodes (icm has)")
    atomic.write_text(stamp, key)
    return dest
