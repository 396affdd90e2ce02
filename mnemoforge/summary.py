"""The end-of-build summary: what was asked for, produced and kept per category, and why short.

Read back from the release folder (and the run's candidates), so it says what the release holds,
whichever orchestrator built it. ``summary_table`` draws it with rich; ``--json`` prints the dict.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mnemoforge.registry import DEFAULT_FAMILY
from mnemoforge.schemas.theme import Theme


def requested_counts(theme: Theme) -> dict[str, int]:
    """Candidates the theme asks for per category, as its family reads the theme."""
    from mnemoforge.generators.families import get_family

    return get_family(theme.family).requested(theme)


def _jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _first_rejections(verdicts: list[dict], gate_order: list[str]) -> dict[str, str]:
    """Item id -> the first gate (in funnel order) that rejected it."""
    rank = {g: i for i, g in enumerate(gate_order)}
    out: dict[str, tuple[int, str]] = {}
    for v in verdicts:
        if v.get("keep"):
            continue
        r = rank.get(v["gate"], len(rank))
        if v["item"] not in out or r < out[v["item"]][0]:
            out[v["item"]] = (r, v["gate"])
    return {item: gate for item, (_, gate) in out.items()}


def _reason(requested: int, candidates: int, kept: int, rejected_by: Counter) -> str:
    if kept >= requested:
        return ""
    parts = []
    if candidates < requested:
        parts.append(f"the World yields {candidates} of {requested} candidates")
    if rejected_by:
        gates = ", ".join(f"{g} {n}" for g, n in sorted(rejected_by.items(), key=lambda kv: (-kv[1], kv[0])))
        parts.append(f"rejected by {gates}")
    return "; ".join(parts)


def build_summary(
    release: Path,
    run_dir: Path | None = None,
    theme: Theme | None = None,
    warnings: list[str] | None = None,
    stages: dict[str, dict] | None = None,
) -> dict[str, Any]:
    """The summary of a finished build as a JSON-able dict (see docs/quickstart.md)."""
    release = Path(release)
    manifest = json.loads((release / "MANIFEST.json").read_text())
    stats = json.loads((release / "dataset_statistics.json").read_text())
    family = manifest.get("family", DEFAULT_FAMILY)
    if theme is None:
        from mnemoforge.theme_io import load_theme

        theme = load_theme(release / "theme.yaml")
    kept_rows = _jsonl(release / "data" / family / "questions.jsonl")
    cand_rows = _jsonl(run_dir / "questions" / "candidates.jsonl") if run_dir else []
    funnel = json.loads((release / "gates" / "funnel.json").read_text())
    gate_order = [s["gate"] for s in funnel.get("stages", [])]
    first = _first_rejections(_jsonl(release / "gates" / "verdicts.jsonl"), gate_order)
    rejected_rows = _jsonl(release / "gates" / "rejected.jsonl")
    category_of = {q["id"]: q["category"] for q in [*kept_rows, *rejected_rows, *cand_rows]}
    candidates = Counter(category_of.values())  # kept + rejected = every candidate
    kept = Counter(q["category"] for q in kept_rows)
    rejected_by: dict[str, Counter] = {}
    for item, gate in first.items():
        rejected_by.setdefault(category_of.get(item, "?"), Counter())[gate] += 1
    requested = requested_counts(theme)
    cats = list(requested) + sorted((set(candidates) | set(kept)) - set(requested))
    rows = []
    for c in cats:
        req, cand, k = requested.get(c, 0), candidates.get(c, 0), kept.get(c, 0)
        rows.append(
            {
                "category": c,
                "requested": req,
                "candidates": cand,
                "kept": k,
                "shortfall": max(0, req - k),
                "reason": _reason(req, cand, k, rejected_by.get(c, Counter())),
            }
        )
    files = manifest.get("files", {})
    media = stats.get("media", {})
    short = [r for r in rows if r["shortfall"]]
    warn = list(warnings or [])
    warn += [
        f"{r['category']}: {r['kept']} kept of {r['requested']} requested ({r['reason']})" for r in short
    ]
    # lines the generators left out as incoherent, items no source could show (docs/world.md)
    for key, what in (
        ("lines", "lines left out as incoherent"),
        ("unrouted", "planned items no source can show"),
    ):
        block = funnel.get(key) or {}
        if block.get("reasons"):
            why = ", ".join(f"{k} {n}" for k, n in block["reasons"].items())
            warn.append(f"{block.get('rejected', block.get('items', 0))} {what} ({why})")
    return {
        "release": str(release),
        "name": manifest.get("name"),
        "version": manifest.get("version"),
        "family": family,
        "seed": manifest.get("seed"),
        "run": str(run_dir) if run_dir else manifest.get("run_id"),
        "categories": rows,
        "totals": {
            "requested": sum(r["requested"] for r in rows),
            "candidates": sum(r["candidates"] for r in rows),
            "kept": sum(r["kept"] for r in rows),
            "shortfall": sum(r["shortfall"] for r in rows),
        },
        "media": {
            "files": media.get("files", 0),
            "bytes": media.get("bytes", 0),
            "by_kind": media.get("by_kind", {}),
        },
        "release_files": len(files),
        "release_bytes": sum(int(f.get("bytes", 0)) for f in files.values()),
        "stages": stages or {},
        "coherence": {k: funnel[k] for k in ("lines", "unrouted") if k in funnel},
        "warnings": warn,
    }


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def summary_table(s: dict[str, Any]) -> Any:
    """A rich renderable: the per-category table, then media, stages, warnings and the release."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"{s['name']} {s['version']} ({s['family']}, seed {s['seed']})", title_justify="left")
    t.add_column("category", no_wrap=True)
    for col in ("requested", "candidates"):
        t.add_column(col, justify="right")
    t.add_column("kept", justify="right", style="bold")
    t.add_column("shortfall", justify="right")
    t.add_column("why short", overflow="fold", min_width=24)
    for r in s["categories"]:
        style = "yellow" if r["shortfall"] else None
        t.add_row(
            r["category"],
            str(r["requested"]),
            str(r["candidates"]),
            str(r["kept"]),
            str(r["shortfall"]) if r["shortfall"] else "-",
            r["reason"],
            style=style,
        )
    tot = s["totals"]
    t.add_section()
    t.add_row("total", *(str(tot[k]) for k in ("requested", "candidates", "kept", "shortfall")), "")
    m = s["media"]
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(m["by_kind"].items()))
    parts: list[Any] = [t, Text(f"media: {m['files']} files, {human_bytes(m['bytes'])} ({kinds})")]
    if s["stages"]:
        parts.append(
            Text(
                "stages: "
                + ", ".join(f"{k} {v['state']} {v['seconds']:.1f}s" for k, v in s["stages"].items())
            )
        )
    for w in s["warnings"]:
        parts.append(Text(f"warning: {w}", style="yellow"))
    parts.append(
        Text(f"release: {s['release']} ({s['release_files']} files, {human_bytes(s['release_bytes'])})")
    )
    return Group(*parts)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        line = record.getMessage().strip()
        if line and line not in self.lines:
            self.lines.append(line)


@contextmanager
def collecting_warnings(quiet_console: bool = True) -> Iterator[list[str]]:
    """Collect ``mnemoforge`` WARNING log lines during a build (for the summary) instead of letting
    them interleave with the progress bars; yields the list they are appended to."""
    logger = logging.getLogger("mnemoforge")
    handler = _Collect()
    logger.addHandler(handler)
    old = logger.propagate
    if quiet_console:
        logger.propagate = False
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)
        logger.propagate = old
