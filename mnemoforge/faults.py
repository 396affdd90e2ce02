"""Fault injection for crash-safety tests: ``MNEMOFORGE_CRASH_AT=name[:n]`` kills the process
the n-th time (default first) the named checkpoint is reached, as a SIGKILL would."""

from __future__ import annotations

import os

_hits: dict[str, int] = {}


def checkpoint(name: str) -> None:
    spec = os.environ.get("MNEMOFORGE_CRASH_AT")
    if not spec:
        return
    target, sep, nth = spec.rpartition(":")
    if not sep or not nth.isdigit():
        target, nth = spec, "1"
    if target != name:
        return
    _hits[name] = _hits.get(name, 0) + 1
    if _hits[name] >= int(nth or 1):
        os._exit(137)
