"""YAML reading through libyaml's parser where PyYAML was built with it (about eight times faster
than the pure-Python parser; same resolver and constructors, so the same data), else the
pure-Python one."""

from __future__ import annotations

from typing import IO, Any

import yaml

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(stream: str | bytes | IO[str] | IO[bytes]) -> Any:
    """``yaml.safe_load`` with the fastest safe loader available."""
    return yaml.load(stream, Loader=SafeLoader)  # noqa: S506 (a safe loader)
