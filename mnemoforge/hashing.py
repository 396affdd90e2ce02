"""Canonical JSON and content hashes: the basis of caching, lineage and manifests."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def _default(o: Any) -> Any:
    if isinstance(o, BaseModel):
        return o.model_dump(mode="json")
    if isinstance(o, dt.datetime | dt.date):
        return o.isoformat()
    if isinstance(o, Enum):
        return o.value
    if isinstance(o, Path):
        return o.as_posix()
    if isinstance(o, set | frozenset):
        return sorted(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def canonical_json(obj: Any, *, indent: int | None = None) -> str:
    """Sorted-key JSON with a fixed layout, so equal data gives equal bytes."""
    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    sep = (",", ":") if indent is None else (",", ": ")
    return json.dumps(
        obj, sort_keys=True, ensure_ascii=False, separators=sep, indent=indent, default=_default
    )


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def content_hash(*parts: Any) -> str:
    """Hash of any JSON-able parts (order matters)."""
    return sha256_bytes(canonical_json(list(parts)).encode())


def short(h: str, n: int = 12) -> str:
    return h[:n]


def source_hash(*modules: object) -> str:
    """Hash of the given modules' (or source paths') files: part of every stage's cache key."""
    import inspect

    h = hashlib.sha256()
    for m in modules:
        src = m if isinstance(m, Path) else inspect.getsourcefile(m)  # type: ignore[arg-type]
        if src:
            h.update(Path(src).read_bytes())
    return h.hexdigest()
