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


_started = time.time()
_load_start = [round(x, 2) for x in os.getloadavg()]


def pytest_sessionfinish(session: pytest.Session) -> None:
    load = [round(x, 2) for x in os.getloadavg()]
    _write({"process_cpu": round(_cpu(), 2), "process_wall": round(time.time() - _started, 2),
            "loadavg": [_load_start, load]})  # fmt: skip


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


def _rows(path: Path) -> list[dict]:
    return (
        [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []
    )


def figures(folder: Path, top: int = 30) -> dict:
    """The run's figures as a result file keeps them: wall and CPU seconds of each process (``main``
    is the controller: the whole run), the costliest groups and tests."""
    procs, tests = {}, []
    for path in sorted(folder.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        end = next((r for r in rows if "process_cpu" in r), {})
        mine = [r for r in rows if "cpu" in r]
        tests += mine
        procs[path.stem] = {
            "cpu_s": end.get("process_cpu"),
            "wall_s": end.get("process_wall"),
            "tests": len(mine),
            "tests_cpu_s": round(sum(r["cpu"] for r in mine), 1),
        }
    groups: Counter[str] = Counter()
    for r in tests:
        groups[r["group"]] += r["cpu"]
    load = next((r["loadavg"] for r in _rows(folder / "main.jsonl") if "loadavg" in r), None)
    return {
        "benchmark": "suite_cpu",
        "machine": {"suite_loadavg_start": load[0], "suite_loadavg_end": load[1]} if load else {},
        "wall_s": procs.get("main", {}).get("wall_s"),
        "cpu_s": procs.get("main", {}).get("cpu_s"),
        "processes": procs,
        "groups_cpu_s": {g: round(c, 1) for g, c in groups.most_common(15)},
        "costliest_tests": [
            {"id": r["id"], "cpu_s": r["cpu"], "wall_s": r["wall"]}
            for r in sorted(tests, key=lambda r: -r["cpu"])[:top]
        ],
    }


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Summarise what the plugin wrote; --json keeps the figures.")
    ap.add_argument("folder", nargs="?", type=Path, default=Path("suite-cpu"))
    ap.add_argument(
        "--json",
        type=Path,
        help="write the figures (with the machine block) here, e.g. benchmarks/results/suite_cpu.json",
    )
    ap.add_argument("--command", default="", help="the pytest command measured (recorded in the JSON)")
    a = ap.parse_args()
    print(summary(a.folder))
    if a.json:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from machine import write_result

        write_result(a.json, {**figures(a.folder), "command": a.command})
        print(f"wrote {a.json}")
