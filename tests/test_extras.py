"""Every extra the documentation names exists in pyproject.toml (``pip install '.[X]'`` works)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMED = [
    re.compile(r"\bextras? `([a-z][a-z0-9-]*)`"),  # "extra `llm`"
    re.compile(r"`([a-z][a-z0-9-]*)` extra\b"),  # "the `llm` extra"
    re.compile(r"\.\[([a-z0-9,-]+)\]"),  # pip install -e '.[ml,llm]'
]


def documented_extras() -> dict[str, set[str]]:
    """Extra name -> the pages naming it (README, docs/, the quickstart's extras table)."""
    found: dict[str, set[str]] = {}
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        names = [n for rx in NAMED for m in rx.finditer(text) for n in m.group(1).split(",")]
        table = text.split("## Optional extras", 1)[1] if "## Optional extras" in text else ""
        names += [
            n
            for m in re.finditer(r"^\| `([^|]+)` \|", table, re.M)
            for n in re.findall(r"[a-z0-9-]+", m.group(1))
        ]
        for name in names:
            found.setdefault(name, set()).add(str(page.relative_to(ROOT)))
    return found


def test_every_documented_extra_exists() -> None:
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    named = documented_extras()
    assert {"llm", "eval", "llama-server"} <= set(named)  # the scan finds what the docs name
    missing = {n: sorted(p) for n, p in named.items() if n not in extras}
    assert not missing, f"extras named in the docs but not in pyproject.toml: {missing}"
