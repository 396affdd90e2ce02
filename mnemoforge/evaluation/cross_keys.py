"""The evaluator's side of a multi-family release (docs/cross-family.md): which releases are
multi-family, where a member family's World lies, and the tables the cross items are reported
under. No import of the evaluation's keys or views (``keys.py`` reads these)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

EVAL_TITLES: Mapping[str, str] = {"families": "Cross items by family pair", "bridge": "Cross items by bridge"}
"""The cross items' tables in ``summary.md`` (key -> title)."""


class CrossEval:
    """What the evaluation tables read of the cross items, shaped as a Family's ``eval_*``
    attributes: by family pair (the families the evidence spans) and by bridge kind."""

    eval_keys: tuple[str, ...] = tuple(EVAL_TITLES)
    eval_titles: Mapping[str, str] = EVAL_TITLES

    def eval_group(self, category: str, labels: Mapping[str, str]) -> dict[str, str]:
        return {"families": labels.get("families", "?"), "bridge": category.split(">", 1)[0]}


def eval_family(name: str) -> Any:
    """The object whose ``eval_keys``, ``eval_titles`` and ``eval_group`` tables an item of family
    ``name`` is reported under: the registered family, or :class:`CrossEval` for the cross items
    (KeyError for a family no installed package registers)."""
    from mnemoforge.generators.cross_items import CROSS
    from mnemoforge.generators.families import get_family

    return CrossEval() if name == CROSS else get_family(name)


def manifest_of(release: Path) -> dict[str, Any]:
    path = Path(release) / "MANIFEST.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def release_families(release: Path) -> list[str]:
    """The families of a multi-family release (its MANIFEST's ``families``); [] for any other."""
    return list(manifest_of(release).get("families") or [])


def multi_root_of(release: Path) -> Path | None:
    """The multi-family release a family's release lies in (``ROOT/families/F/``), else None."""
    from mnemoforge.exporters.multi_release import FAMILIES_DIR

    release = Path(release)
    root = release.parent.parent
    if release.parent.name == FAMILIES_DIR and release.name in release_families(root):
        return root
    return None


def shared_world(release: Path) -> Path | None:
    """The World file of a family's release inside a multi-family release (the root's)."""
    root = multi_root_of(release)
    return None if root is None else root / "data" / "world.json"
