"""``mnemoforge report`` on a multi-family release (docs/cross-family.md).

``OUT/index.html`` has a section per family (its items, its gate funnel, a link to its full
report, ``OUT/<family>/index.html``, which the single-family report writes from
``families/<family>/`` over the one World) and a cross section: the cross items by family pair
and bridge kind, their gate funnel (table and chart), a few examples, and, when ``evaluate`` has
been run (``<release>-eval/``), the scores with a column per family and ``cross``.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from html import escape
from pathlib import Path
from typing import Any

from mnemoforge.backends.image.documents import render_bar_chart
from mnemoforge.exporters.report_html import CSS, _table
from mnemoforge.store.atomic import write_bytes, write_text

Rec = dict[str, Any]
EXAMPLES = 6


def _json(path: Path) -> Rec:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _jsonl(path: Path) -> list[Rec]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _funnel_rows(funnel: Rec) -> list[list[Any]]:
    return [
        [s["gate"], s["kept"], s["rejected"],
         "; ".join(f"{k}: {v}" for k, v in sorted(s.get("reasons", {}).items())) or "-"]
        for s in funnel.get("stages", [])
    ]  # fmt: skip


def _funnel_png(funnel: Rec, out_dir: Path) -> str:
    stages = funnel.get("stages", [])
    labels = ["candidates", *(s["gate"].replace("_", " ") for s in stages)]
    values = [int(funnel.get("candidates", 0)), *(s["kept"] for s in stages)]
    img = render_bar_chart("Cross items left after each gate", labels, values, height=400)
    buf = io.BytesIO()
    img.convert("RGB").save(buf, format="PNG")
    write_bytes(out_dir / "figures" / "cross_funnel.png", buf.getvalue())
    return (
        f'<figure><img src="figures/cross_funnel.png" width="{img.width}" height="{img.height}" '
        'alt="cross gate funnel"><figcaption>Cross items left after each gate</figcaption></figure>'
    )


def _family_section(root: Path, fam: str, rel: str, link: str) -> str:
    manifest = _json(root / rel / "MANIFEST.json")
    funnel = _json(root / rel / "gates" / "funnel.json")
    questions = _jsonl(root / rel / "data" / fam / "questions.jsonl")
    cats = Counter(q.get("category", "") for q in questions)
    stats = [
        ["questions kept", f"{len(questions)} of {funnel.get('candidates', len(questions))} candidates"],
        ["observations", len(_jsonl(root / rel / "data" / fam / "observations.jsonl"))],
        ["categories", ", ".join(f"{c} {n}" for c, n in sorted(cats.items())) or "-"],
        ["run", manifest.get("run_id", "?")],
    ]
    gates = _table(["gate", "kept", "rejected", "reject reasons"], _funnel_rows(funnel))
    return (
        _table(["", ""], stats)
        + f'<p><a href="{escape(link)}">The full report of {escape(fam)}</a> (cast, timeline, '
        f"sources, taxonomy, examples).</p>" + gates
    )


def _cross_section(root: Path, out_dir: Path) -> str:
    from mnemoforge.generators.cross_items import CROSS

    kept = _jsonl(root / "data" / CROSS / "questions.jsonl")
    funnel = _json(root / "gates" / CROSS / "funnel.json")
    pairs = sorted({q["labels"]["families"] for q in kept})
    bridges = sorted({q["category"].split(">", 1)[0] for q in kept})
    count = Counter((q["category"].split(">", 1)[0], q["labels"]["families"]) for q in kept)
    rows = [[b, *(count[(b, p)] for p in pairs), sum(count[(b, p)] for p in pairs)] for b in bridges]
    rows.append(["all", *(sum(count[(b, p)] for b in bridges) for p in pairs), len(kept)])
    by = _table(["bridge \\ evidence from", *pairs, "all"], rows)
    gates = _table(["gate", "kept", "rejected", "reject reasons"], _funnel_rows(funnel))
    lead = (
        f"{len(kept)} of {funnel.get('candidates', len(kept))} candidates kept after every gate. "
        "A cross item names a person (or a moment) by what one family shows and asks what another "
        "shows; a memory system answers it from the agent views of those families."
    )
    examples = "".join(
        '<div class="card">'
        f'<p class="q">{escape(q["question"])}</p><span class="ans">{escape(q["answer"])}</span>'
        f'<p class="meta">{escape(q["category"])} · evidence {escape(", ".join(q["evidence"]))}</p></div>'
        for q in _examples(kept)
    )
    return (
        f'<p class="lead">{escape(lead)}</p><h3>Kept items by bridge and family pair</h3>{by}'
        f'<h3>Gates</h3><div class="row">{_funnel_png(funnel, out_dir)}{gates}</div>'
        f'<h3>Examples</h3><div class="cards">{examples}</div>'
    )


def _examples(kept: list[Rec]) -> list[Rec]:
    """The first kept item of each bridge × family pair, up to :data:`EXAMPLES`."""
    seen: dict[tuple[str, str], Rec] = {}
    for q in sorted(kept, key=lambda q: q["id"]):
        seen.setdefault((q["category"].split(">", 1)[0], q["labels"]["families"]), q)
    return [seen[k] for k in sorted(seen)][:EXAMPLES]


def _evaluation(root: Path, parts: list[str]) -> str | None:
    """Score % per method × model, a column per family and cross (None: not evaluated)."""
    from mnemoforge.evaluation.report_section import find_results
    from mnemoforge.evaluation.tables import cell

    results = find_results(root)
    if not results:
        return None
    table: dict[tuple[str, str, str], dict[str, str]] = {}
    for r in results:
        s = r["summary"]
        text = cell(s) + (f" ({s['failed']} failed)" if s.get("failed") else "")
        key = (r["method"], r.get("variant") or "", r["model"]["name"])
        table.setdefault(key, {})[r.get("family", "?")] = text
    varied = any(v for _, v, _ in table)  # evaluate --variants: the family parts' runs per variant
    rows = [
        [m, *([v or "full"] if varied else []), n, *(cells.get(p, "–") for p in parts)]
        for (m, v, n), cells in sorted(table.items())
    ]
    return _table(["method", *(["variant"] if varied else []), "model", *parts], rows)


def write_any_report(source: Path, out_dir: Path) -> Path:
    """``mnemoforge report``: a multi-family release's page, else ``report.write_report``'s."""
    from mnemoforge.exporters.report import write_report

    if _json(Path(source) / "MANIFEST.json").get("families"):
        return write_multi_report(Path(source), Path(out_dir))
    return write_report(Path(source), Path(out_dir))


def write_multi_report(root: Path, out_dir: Path) -> Path:
    """Write ``out_dir/index.html`` for the multi-family release at ``root`` (and each family's
    full report under ``out_dir/<family>/``)."""
    from mnemoforge.exporters.multi_release import members
    from mnemoforge.exporters.report import write_report
    from mnemoforge.generators.cross_items import CROSS
    from mnemoforge.theme_io import load_theme

    root, out_dir = Path(root), Path(out_dir)
    manifest = _json(root / "MANIFEST.json")
    theme = load_theme(root / "theme.yaml")
    fams = members(manifest.get("families") or [])
    sections: list[tuple[str, str, str]] = []
    for fam, rel in fams.items():
        write_report(root / rel, out_dir / fam)
        sections.append((fam, f"Family {fam}", _family_section(root, fam, rel, f"{fam}/index.html")))
    sections.append((CROSS, "Cross items", _cross_section(root, out_dir)))
    if (ev := _evaluation(root, [*fams, CROSS])) is not None:
        lead = (
            "Scores found beside the release (evaluate writes a folder per family and cross). MCQ: "
            "per-rotation accuracy % (all four rotations %); open items: EM / judge %; calls: call EM %."
        )
        sections.append(("evaluation", "Evaluation", f'<p class="lead">{lead}</p>{ev}'))
    stats = _json(root / "dataset_statistics.json")
    pills = [
        *((s["questions"], f"{f} items") for f, s in stats.get("families", {}).items()),
        (stats.get("questions", {}).get("kept", 0), "cross items"),
        (stats.get("world", {}).get("people", 0), "people"),
    ]
    sub = f"release {manifest.get('name', '?')} {manifest.get('version', '?')} · families " + ", ".join(fams)
    page = [
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(theme.title)} — report</title><style>{CSS}</style></head><body><header>"
        f'<h1>{escape(theme.title)}</h1><p class="sub">{escape(sub)}</p>'
        f'<p class="desc">{escape(theme.description or "")}</p><div class="stats">'
        + "".join(
            f'<div class="stat"><b>{escape(str(v))}</b><span>{escape(k)}</span></div>' for v, k in pills
        )
        + "</div><nav>"
        + "".join(f'<a href="#{sid}">{escape(name)}</a>' for sid, name, _ in sections)
        + "</nav></header><main>"
    ]
    page += [f'<section id="{sid}"><h2>{escape(name)}</h2>{body}</section>' for sid, name, body in sections]
    foot = f"Written by mnemoforge report (code version {manifest.get('code_version', '?')})."
    page.append(f"</main><footer>{escape(foot)}</footer></body></html>\n")
    index = out_dir / "index.html"
    write_text(index, "".join(page))
    return index
