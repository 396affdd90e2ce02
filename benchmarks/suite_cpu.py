"""CPU seconds of the test suite per test, per xdist group and per worker (the critical path).

Load it as a pytest plugin, then summarise what it wrote:

    PYTHONPATH=. SUITE_CPU_DIR=/tmp/suite-cpu .venv/bin/python -m pytest -q -p no:cacheprovider \\
        -p benchmarks.suite_cpu
    .venv/bin/python benchmarks/suite_cpu.py /tmp/suite-cpu

Each process (an xdist worker ``gw0``, ``gw1``, or the controller / a serial run) writes one JSON
line per test: its group (the ``@group`` suffix ``tests/conftest.py`` gives its node id), CPU
seconds (user + sys of the process and its reaped children, from ``resource.getrusage``) and wall
seconds of setup + call + teardown; and at the end the process's whole CPU time, start and
collection included (``main``, the xdist controller, counts its workers too once they exit: the
whole run). CPU seconds hold up on a loaded machine where wall seconds do not; the
largest worker's total is what a quiet 2-core machine's wall time follows.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

_out: IO[str] | None = None


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _write(row: dict) -> None:
    global _out
    if _out is None:
        folder = Path(os.environ.get("SUITE_CPU_DIR", "suite-cpu"))
        folder.mkdir(parents=True, exist_ok=True)
        _out = (folder / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.jsonl").open("w")
    _out.write(json.dumps(row) + "\n")
    _out.flush()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    cpu, wall = _cpu(), time.time()
    yield
    group = item.nodeid.rsplit("@", 1)[1] if "@" in item.nodeid else item.nodeid.split("::")[0]
    spent = {"cpu": round(_cpu() - cpu, 3), "wall": round(time.time() - wall, 3)}
    _write({"id": item.nodeid, "group": group, **spent})


def pytest_sessionfinish(session: pytest.Session) -> None:
    _write({"process_cpu": round(_cpu(), 2)})


def summary(folder: Path, top: int = 12) -> str:
    """Per process: its whole CPU time, its tests' CPU time and its costliest groups; then the
    costliest tests."""
    lines, tests = [], []
    for path in sorted(folder.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        total = next((r["process_cpu"] for r in rows if "process_cpu" in r), None)
        mine = [r for r in rows if "cpu" in r]
        tests += mine
        groups: Counter[str] = Counter()
        for r in mine:
            groups[r["group"]] += r["cpu"]
        head = ", ".join(f"{g} {c:.1f}" for g, c in groups.most_common(6))
        lines.append(f"{path.stem}: process {total} CPU-s, tests {sum(groups.values()):.1f} ({head})")
    lines.append("costliest tests (CPU-s, wall-s):")
    for r in sorted(tests, key=lambda r: -r["cpu"])[:top]:
        lines.append(f"  {r['cpu']:7.2f} {r['wall']:7.2f}  {r['id']}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(Path(sys.argv[1] if len(sys.argv) > 1 else "suite-cpu")))
