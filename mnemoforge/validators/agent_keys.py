"""``verify``'s check that no agent table's option layout gives its answers away.

The rules (a letter of a list, how options move between rotations, which lists hold them) live
in the release's own validator (``exporters/release_validator.py``: standard library only, copied
into every release), so ``mnemoforge verify`` and ``scripts/validate_release.py`` apply the same
ones; this module only reads the tables through ``verify``'s shared reader.
"""

from __future__ import annotations

from pathlib import Path

from mnemoforge.exporters import release_validator
from mnemoforge.exporters.tables import TableReader


def check_agent_keys(root: Path, family: str, tables: TableReader | None = None) -> list[str]:
    """One problem per agent question table and rule that recovers the answer above chance."""
    data = root / f"data/{family}/questions.jsonl"
    if not data.is_file():
        return []
    return release_validator.check_agent_keys(root, family, (tables or TableReader()).rows(data))
