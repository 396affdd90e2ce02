"""The "Evaluation" section of ``mnemoforge report``: results found beside the release.

``mnemoforge evaluate`` writes under ``<release>-eval/`` by default; every ``results.json`` there
(one per method × model) becomes a row of the section's table.
"""

from __future__ import annotations

import json
from pathlib import Path

from mnemoforge.evaluation.matrix import default_out
from mnemoforge.evaluation.tables import cell
from mnemoforge.evaluation.variant_curve import settings_note


def find_results(release: Path) -> list[dict]:
    """Every readable ``results.json`` under ``<release>-eval/`` (sorted by path)."""
    root = default_out(release)
    if not root.is_dir():
        return []
    out = []
    for path in sorted(root.rglob("results.json")):
        try:
            out.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return out


def evaluation_section(release: Path) -> tuple[str, str] | None:
    """``(lead, html)`` for the report, or None when no evaluation has been run."""
    from mnemoforge.exporters.report_html import _table

    results = find_results(release)
    if not results:
        return None
    rows = []
    varied = any(r.get("variant") for r in results)
    for r in results:
        c = r.get("calibration") or {}
        fa, fr = c.get("false_accept"), c.get("false_reject")
        rows.append(
            [
                r["method"] + settings_note(r, results),
                *([r.get("variant") or "–"] if varied else []),
                r["model"]["name"],
                r["summary"]["items"],
                cell(r["summary"]),
                "–" if fa is None else f"{100 * fa:.1f}",
                "–" if fr is None else f"{100 * fr:.1f}",
            ]
        )
    head = ["method", *(["variant"] if varied else []), "model", "items", "accuracy % (all four %)",
            "judge false accept %", "false reject %"]  # fmt: skip
    where = default_out(release).name
    lead = f"{len(results)} evaluation run(s) found in {where}/ (their summary.md files hold every table)."
    if not varied:
        return lead, _table(head, rows)
    from mnemoforge.evaluation.variant_curve import curve_svg

    lead += " Runs over the release's variants (evaluate --variants) are drawn as score against size."
    return lead, _table(head, rows) + f'<figure class="curve">{curve_svg(release, results)}</figure>'
