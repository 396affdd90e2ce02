"""Do two agent views of a release, read side by side, point at the evidence?

A release may hold several agent views of the same observations (smm's source-concentrated twin
beside the distributed release). Whatever differs between two of them is something an agent can
compute. :func:`pair_leaks` diffs the rows of every pair of views observation by observation and
asks whether the evidence of the kept questions is denser among the rows that differ (or among
those that do not) than among all rows: a one-sided hypergeometric test, a leak when the density
is more than :data:`LIFT` times the base and chance alone would not give it (p below
:data:`P_VALUE`).
"""

from __future__ import annotations

import json
import math
from itertools import combinations
from pathlib import Path

LIFT = 1.25
P_VALUE = 0.01


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def views(root: Path, family: str) -> dict[str, dict[str, dict]]:
    """Every agent view of a release: folder (relative to ``agent/<family>``) -> observation id -> row."""
    base = root / "agent" / family
    return {
        (p.parent.relative_to(base).as_posix() or "."): {r["id"]: r for r in _rows(p)}
        for p in sorted(base.rglob("observations.jsonl"))
    }


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def hypergeom_tail(hits: int, drawn: int, marked: int, total: int) -> float:
    """P(X >= hits): ``drawn`` rows of ``total`` of which ``marked`` are evidence."""
    lo, hi = max(hits, 0), min(drawn, marked)
    if lo > hi:
        return 0.0
    denom = _log_comb(total, drawn)
    return min(1.0, sum(math.exp(_log_comb(marked, i) + _log_comb(total - marked, drawn - i) - denom)
                        for i in range(lo, hi + 1)))  # fmt: skip


def leak(subset: set[str], evidence: set[str], total: int) -> dict | None:
    """Figures of ``subset`` when the evidence is denser in it than in all ``total`` rows."""
    if not subset or not evidence or not total:
        return None
    hits = len(subset & evidence)
    base = len(evidence) / total
    density = hits / len(subset)
    p = hypergeom_tail(hits, len(subset), len(evidence), total)
    if density > LIFT * base and p < P_VALUE:
        return {
            "rows": len(subset),
            "evidence": hits,
            "density": round(density, 4),
            "base": round(base, 4),
            "p": p,
        }
    return None


def pair_leaks(root: Path, family: str, evidence: set[str]) -> list[str]:
    """One line per pair of views (and side: rows that differ, rows that do not) where the
    evidence is denser than in the whole release."""
    found = []
    for (a, ra), (b, rb) in combinations(sorted(views(root, family).items()), 2):
        ids = sorted(set(ra) & set(rb))
        if not ids:
            continue
        differ = {i for i in ids if ra[i] != rb[i]}
        for side, subset in (("differ", differ), ("are equal", set(ids) - differ)):
            got = leak(subset, evidence & set(ids), len(ids))
            if got:
                share = f"{got['density']:.0%} of them, {got['base']:.0%} overall"
                found.append(
                    f"agent/{family}/{a} vs agent/{family}/{b}: the {got['rows']} rows that {side} hold "
                    f"{got['evidence']} evidence rows ({share})"
                )
    return found
