"""The icm report's render-audit table: what the media were checked against, and the verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mnemoforge.exporters.report_html import _table


def render_audit_of(root: Path, stats: dict[str, Any]) -> dict[str, Any] | None:
    """The audit from a release's statistics, or a run's ``media/render_audit.json``."""
    if "render_audit" in stats:
        return stats["render_audit"]
    p = root / "media" / "render_audit.json"
    return json.loads(p.read_text()) if p.exists() else None


def render_audit_table(audit: dict[str, Any] | None) -> str:
    """A table of the render audit (empty when the source has none)."""
    if not audit:
        return ""
    faces = audit.get("min_face_px") or {}
    rows = [
        ["shots audited against their observations", audit["shots_audited"]],
        ["people claimed visible (drawn, face in frame for the whole move)", audit["people_claimed"]],
        ["props claimed (each drawn as its kind, in frame)", audit["props_claimed"]],
        ["place signs claimed readable (text drawn, not cropped by a pan)", audit["signs_claimed"]],
        ["spoken lines checked (none cut by the end of its shot)", audit["lines_checked"]],
        ["smallest face, close / medium / wide (px)",
         " / ".join(str(faces.get(k, "-")) for k in ("close", "medium", "wide"))],
        ["mismatches (a mismatch fails the render stage)", audit["mismatches"]],
    ]  # fmt: skip
    return '<div class="row"><div><h3>Render audit</h3>' + _table(["check", "count"], rows) + "</div></div>"
