"""Where a benchmark ran: the ``machine`` block every result JSON under ``benchmarks/results/`` carries.

    from machine import write_result      # a script in benchmarks/ (its folder is on sys.path)
    write_result(path, result)            # adds result["machine"], writes the JSON atomically

The block names the CPU model, the cores (all, and those this process may use), memory, the load
average when the script started (when this module was first imported) and when it wrote its result,
Python, the platform, ffmpeg, and the commit measured (with the files under ``mnemoforge/`` that
differed from it). A figure from a loaded machine (``loadavg_start``/``loadavg_end`` well above the
usable cores) is indicative only; the docs' performance page shows the block beside the figures.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # not on this platform
        return []


STARTED = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "loadavg": _loadavg()}
"""When and under what load the script started (this module is imported at its start)."""


def _first(path: str, prefix: str) -> str:
    try:
        with open(path) as f:
            return next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith(prefix)), "")
    except OSError:
        return ""


def _ffmpeg() -> str:
    try:
        from mnemoforge.backends.video import ffmpeg_exe

        out = subprocess.run(
            [ffmpeg_exe(), "-hide_banner", "-version"], capture_output=True, text=True, check=False
        )
        return out.stdout.splitlines()[0] if out.stdout else ""
    except Exception as exc:  # report, never fail a benchmark over its description
        return f"unknown ({type(exc).__name__})"


def _git() -> tuple[str, list[str]]:
    git = ["git", "--no-optional-locks", "-C", str(HERE.parent)]  # read-only: never touches the index
    try:
        commit = subprocess.run(
            [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        )
        status = subprocess.run(
            [*git, "status", "--porcelain", "--untracked-files=no", "--", "mnemoforge"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return "", []
    return commit.stdout.strip(), [ln[3:] for ln in status.stdout.splitlines() if ln.strip()]


def machine() -> dict[str, Any]:
    """The machine block: CPU, cores, memory, load at start and now, Python, platform, ffmpeg, commit."""
    mem = _first("/proc/meminfo", "MemTotal").split()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    commit, changed = _git()
    try:
        import mnemoforge

        version = mnemoforge.__version__
    except Exception:  # a script run outside the venv
        version = ""
    return {
        "cpu_model": _first("/proc/cpuinfo", "model name") or platform.processor(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "mem_total_gb": round(int(mem[0]) / 1024 / 1024, 1) if mem else None,
        "started_at": STARTED["at"],
        "loadavg_start": STARTED["loadavg"],
        "loadavg_end": _loadavg(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "ffmpeg": _ffmpeg(),
        "mnemoforge": version,
        "git_commit": commit,
        "mnemoforge_uncommitted_changes": changed,
    }


def shared_note(block: dict[str, Any]) -> str:
    """One line on how far the figures can be trusted: a load above the usable cores means other
    processes competed for them, so wall figures are indicative."""
    cores = block.get("cpus_usable") or 1
    peak = max([*block.get("loadavg_start", [])[:1], *block.get("loadavg_end", [])[:1]], default=0.0)
    if peak > cores:
        return f"shared machine: 1-min load {peak} over {cores} usable cores, wall figures indicative"
    return f"1-min load {peak} on {cores} usable cores"


def write_result(path: Path, result: dict[str, Any], indent: int = 2, **dump: Any) -> Path:
    """``result`` with its ``machine`` block (set here, at the end of the run), written atomically."""
    block = machine()
    block["note"] = shared_note(block)
    result["machine"] = {
        **block,
        **{k: v for k, v in (result.get("machine") or {}).items() if k not in block},
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(result, indent=indent, **dump) + "\n", encoding="utf-8")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return path
