"""Run theme mutants through ``theme check`` and, where it passes, ``build``: the fault table's
theme rows (``benchmarks/faults.py``).

Each mutant runs in a fork of one warm interpreter (mnemoforge imported once), with a deadline;
a hang is a child still running at its deadline (its stack is dumped to the results, so the
hanging code is named). A mutant's outcome is one of:

- ``rejected``: exit 2, no traceback, the message names the theme file and the field, in under
  ``CHECK_GOAL_S``, nothing written;
- ``slow_reject`` / ``unclear_reject``: exit 2, but too slow, or without the file or the field;
- ``traceback``: ``theme check`` raised or printed a traceback;
- ``hang``: ``theme check`` did not finish by its deadline;
- ``accepted``: ``theme check`` passed; with ``--build`` the build then gives ``built`` (exit 0,
  a release with questions), ``build_failed`` (any other exit: theme check missed a problem the
  build hit), ``build_traceback`` or ``build_hang``.

    python benchmarks/fault_themes.py                          # the three starter themes, checks only
    python benchmarks/fault_themes.py --build --limit 60       # and build what theme check accepts
    python benchmarks/fault_themes.py --theme ~/my_themes/x.yaml   # a theme kept outside the project
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import multiprocessing as mp
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from machine import write_result  # noqa: E402
from theme_mutations import Mutant, all_mutants  # noqa: E402

CHECK_GOAL_S = 1.0  # the goal: a bad theme is refused within a second of CPU time (the check's own
# process; on a shared 2-core machine at load 15 the wall time is mostly waiting for a core)
CHECK_DEADLINE_S = 60.0  # past this, theme check is hung (a valid memeye theme with a cold MiniLM
# cache takes 10-30 s on a loaded 2-core machine: its dry run encodes a few hundred option texts)
BUILD_DEADLINE_S = 600.0
MAX_OUTPUT = 1 << 20  # characters of a child's output sent back (a check's errors are one line each)


def base_themes() -> dict[str, dict]:
    """Small, fast-building versions of the three families' starter themes."""
    import yaml

    from mnemoforge.theme_starter import starter_theme
    from tests.conftest import small_theme_data

    icm = small_theme_data(clips=4)
    icm["questions"]["total"] = 6
    smm = yaml.safe_load(starter_theme("tiny_smm", "smm"))
    memeye = yaml.safe_load(starter_theme("tiny_memeye", "memeye"))
    return {"icm": _jsonable(icm), "smm": _jsonable(smm), "memeye": _jsonable(memeye)}


def _jsonable(data: Any) -> Any:
    """Dates as ISO text, as a theme author writes them (the mutants are dumped to YAML)."""
    import datetime as dt

    if isinstance(data, dict):
        return {k: _jsonable(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_jsonable(v) for v in data]
    if isinstance(data, dt.date):
        return data.isoformat()
    return data


def _names_field(output: str, field: str) -> bool:
    """The error names ``field`` (or a field on its path: an empty mapping's missing child, the
    list a bad entry sits in)."""
    named: list[str] = []
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("- "):
            named.append(line[2:].split(": ", 1)[0])
        elif ": invalid theme: " in line:
            named.append(line.split(": invalid theme: ", 1)[1].split(": ", 1)[0])
    for got in named:
        if field in ("<root>", "<file>"):
            return True  # a file-level fault: the file is the field
        if got == field or got.startswith(field + ".") or field.startswith(got + "."):
            return True
        if got.startswith("line ") or got in ("<root>", "<file>"):
            return True
    return False


def _child(conn: Any, args: list[str], stack_file: str, deadline: float) -> None:
    with open(stack_file, "w") as f:
        faulthandler.dump_traceback_later(deadline - 1.0, file=f, exit=False)
        from typer.testing import CliRunner

        from mnemoforge.cli import app

        t0, c0 = time.perf_counter(), time.process_time()
        r = CliRunner().invoke(app, args)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        faulthandler.cancel_dump_traceback_later()
    exc = r.exception
    conn.send(
        {
            "exit": r.exit_code,
            "seconds": round(seconds, 3),
            "cpu_seconds": round(cpu, 3),
            # the whole output (a memeye build's --json summary runs past 3,000 characters: cut
            # there, its head was lost and a built release counted as empty); records cut it
            "output": r.output[-MAX_OUTPUT:],
            "exception": None if exc is None or isinstance(exc, SystemExit) else repr(exc)[:500],
        }
    )
    conn.close()


def _run(args: list[str], deadline: float, work: Path) -> dict:
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    stack = work / "stack.txt"
    p = ctx.Process(target=_child, args=(child, args, str(stack), deadline))
    p.start()
    child.close()
    t0 = time.perf_counter()
    got = parent.poll(deadline)
    res = parent.recv() if got else None
    p.join(5 if got else 0.1)
    if p.is_alive():
        p.kill()
        p.join()
    if res is None:
        where = stack.read_text()[-2500:] if stack.is_file() else ""
        return {"exit": None, "seconds": round(time.perf_counter() - t0, 1), "hang": True, "stack": where}
    return res


def run_mutant(m: Mutant, work: Path, build: bool) -> dict:
    folder = work / "theme"
    shutil.rmtree(folder, ignore_errors=True)
    theme = m.write(folder)
    out = work / "outputs"
    shutil.rmtree(out, ignore_errors=True)
    rec: dict[str, Any] = {"id": m.id, "class": m.cls, "family": m.family, "field": m.path}
    rec["expect"] = m.expect
    r = _run(["theme", "check", str(theme)], CHECK_DEADLINE_S, work)
    rec["check_seconds"] = r["seconds"]
    rec["check_cpu_seconds"] = r.get("cpu_seconds")
    if r.get("hang"):
        rec.update(outcome="hang", stack=r["stack"])
        return rec
    text = r["output"]
    if r["exception"] or "Traceback" in text:
        rec.update(outcome="traceback", detail=(r["exception"] or text)[-800:])
        return rec
    if r["exit"] == 2:
        clear = str(theme) in text and _names_field(text, m.path)
        lines = [ln for ln in text.splitlines() if ln.strip()]
        rec["message"] = lines[:3]
        if not clear:
            rec["outcome"] = "unclear_reject"
        elif r["cpu_seconds"] > CHECK_GOAL_S:  # CPU time: wall time on a shared machine is its load
            rec["outcome"] = "slow_reject"
        else:
            rec["outcome"] = "rejected"
        return rec
    if r["exit"] != 0:
        rec.update(outcome="traceback", detail=f"exit {r['exit']}: {text[-800:]}")
        return rec
    rec["outcome"] = "accepted"
    if build:
        rec.update(build_mutant(m, work))
    return rec


def build_mutant(m: Mutant, work: Path) -> dict:
    """Build an accepted mutant (the CLI, local orchestrator, the default workers: a memeye build
    refuses ``--workers``, rendering in one process): its build outcome."""
    folder = work / "theme"
    shutil.rmtree(folder, ignore_errors=True)
    theme = m.write(folder)
    out = work / "outputs"
    shutil.rmtree(out, ignore_errors=True)
    rec: dict[str, Any] = {}
    b = _run(
        ["build", str(theme), "--outputs", str(out), "--orchestrator", "local", "--json"],
        BUILD_DEADLINE_S,
        work,
    )
    rec["build_seconds"] = b["seconds"]
    if b.get("hang"):
        rec.update(outcome="build_hang", stack=b["stack"])
    elif b["exception"] or "Traceback" in b["output"]:
        rec.update(outcome="build_traceback", detail=(b["exception"] or b["output"])[-1500:])
    elif b["exit"] != 0:
        rec.update(outcome="build_failed", detail=b["output"][-800:])
    else:
        try:
            summary = json.loads(b["output"][b["output"].index("{") :])
            kept = summary["totals"]["kept"] if "totals" in summary else None
        except (ValueError, KeyError, TypeError):
            kept = None
        rec["kept"] = kept
        rec["outcome"] = "built" if kept else "built_empty"
    shutil.rmtree(out, ignore_errors=True)
    return rec


GOOD = {"rejected", "built"}


def at_goal(rec: dict) -> bool:
    """A reject-class mutant must be rejected; any other must be rejected or build (``accepted``
    counts as at goal only where builds were not asked for)."""
    if rec["expect"] == "reject":
        return rec["outcome"] == "rejected"
    return rec["outcome"] in GOOD or rec["outcome"] == "accepted"


def run_all(
    mutants: list[Mutant],
    bases: dict[str, dict],
    build: bool,
    progress: bool = True,
    build_limit: int | None = None,
) -> list[dict]:
    """Each mutant's record (``build_limit``: build at most this many accepted mutants)."""
    os.environ.setdefault("MNEMOFORGE_CACHE", tempfile.mkdtemp(prefix="mf-faults-cache-"))
    _warm(bases)

    rows = []
    built = 0
    with tempfile.TemporaryDirectory(prefix="mf-faults-") as tmp:
        for i, m in enumerate(mutants):
            may_build = build and (build_limit is None or built < build_limit)
            rec = run_mutant(m, Path(tmp), may_build)
            built += rec["outcome"].startswith("built") or rec["outcome"].startswith("build_")
            rec["at_goal"] = at_goal(rec)
            rows.append(rec)
            if progress:
                mark = "ok " if rec["at_goal"] else "BAD"
                print(f"[{i + 1}/{len(mutants)}] {mark} {rec['outcome']:<15} {m.id}", flush=True)
    return rows


def _warm(bases: dict[str, dict]) -> None:
    """Run ``theme check`` on each valid base theme once (every check, the families' dry runs
    included), so each fork starts with everything imported: a mutant's time is its own."""
    import yaml
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    with tempfile.TemporaryDirectory(prefix="mf-warm-") as tmp:
        for i, data in enumerate(bases.values()):
            path = Path(tmp) / f"base{i}.yaml"
            path.write_text(yaml.safe_dump(data, sort_keys=False))
            r = CliRunner().invoke(app, ["theme", "check", str(path)])
            if r.exit_code != 0:
                raise SystemExit(f"a base theme does not pass theme check: {r.output}")


def summarise(rows: list[dict]) -> dict:
    by_class: dict[str, Counter] = {}
    for r in rows:
        by_class.setdefault(r["class"], Counter())[r["outcome"]] += 1
    return {
        "mutants": len(rows),
        "at_goal": sum(r["at_goal"] for r in rows),
        "outcomes": dict(Counter(r["outcome"] for r in rows)),
        "by_class": {k: dict(v) for k, v in sorted(by_class.items())},
        "off_goal": [
            {k: r.get(k) for k in ("id", "expect", "outcome", "message", "detail", "stack")}
            for r in rows
            if not r["at_goal"]
        ],
    }


def select(mutants: list[Mutant], limit: int | None) -> list[Mutant]:
    """Every targeted mutant, then an evenly spaced subset of the rest (deterministic)."""
    if limit is None or len(mutants) <= limit:
        return mutants
    step = len(mutants) / limit
    return [mutants[int(i * step)] for i in range(limit)]


def mutants_for(themes: dict[str, dict]) -> list[Mutant]:
    out: list[Mutant] = []
    for fam, base in themes.items():
        out += all_mutants(fam, base)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", action="store_true", help="build every mutant theme check accepts")
    ap.add_argument("--limit", type=int, default=None, help="at most this many mutants")
    ap.add_argument("--theme", type=Path, action="append", help="a theme file (default: the starters)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/fault_themes.json")
    a = ap.parse_args()
    if a.theme:
        import yaml

        themes = {}
        for t in a.theme:
            data = _jsonable(yaml.safe_load(t.read_text()))
            themes[data.get("family", "icm") + ":" + t.stem] = data
        mutants = [m for fam, base in themes.items() for m in all_mutants(fam.split(":")[0], base)]
    else:
        themes = base_themes()
        mutants = mutants_for(themes)
    rows = run_all(select(mutants, a.limit), themes, a.build)
    s = summarise(rows)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(a.out, {"summary": s, "rows": rows}, indent=1, default=str)
    print(json.dumps({k: v for k, v in s.items() if k != "off_goal"}, indent=1))


if __name__ == "__main__":
    main()
