"""A multi-family theme (``families:``) as each of its families sees it (docs/cross-family.md)."""

from __future__ import annotations

import yaml

from mnemoforge import registry, yaml_io
from mnemoforge.schemas.theme import Theme


def family_sections() -> list[str]:
    """The registered families that have a theme section of their own (``smm:``, ``memeye:``)."""
    return [f for f in registry.names(registry.FAMILIES_GROUP) if f in Theme.model_fields]


def project_theme_bytes(theme_bytes: bytes, family: str) -> bytes:
    """The theme file of one family of a multi-family theme: ``family: F``, no ``families``, no
    other family's section (everything shared stays as written)."""
    data = yaml_io.safe_load(theme_bytes)
    others = set(family_sections()) - {family}
    out = {k: v for k, v in data.items() if k != "families" and k not in others}
    out["family"] = family
    return yaml.safe_dump(out, sort_keys=False, allow_unicode=True, width=1000).encode()


def project_theme(theme: Theme, family: str) -> Theme:
    """The loaded theme as its ``family`` projection sees it (for ``theme check``)."""
    others = set(family_sections()) - {family}
    return theme.model_copy(update={"family": family, "families": None, **dict.fromkeys(others)})
