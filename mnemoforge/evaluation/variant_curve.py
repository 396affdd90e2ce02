"""``mnemoforge evaluate --variants``: one method × model over every length variant of a release,
side by side (the score against the haystack's size; docs/variants.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mnemoforge.evaluation.keys import EvaluationError
from mnemoforge.evaluation.tables import percent
from mnemoforge.store import atomic


def variant_names(release: Path, text: str) -> list[dict[str, Any]]:
    """The MANIFEST entries ``text`` names (``all``: every one, in MANIFEST order)."""
    manifest = json.loads((Path(release) / "MANIFEST.json").read_text(encoding="utf-8"))
    listed = manifest.get("variants") or []
    if not listed:
        raise EvaluationError(f"{release}: no length variants (build it with --variants oracle,s,m,l)")
    if text == "all":
        return listed
    by_name = {v["name"]: v for v in listed}
    wanted = [n.strip() for n in text.split(",")]
    unknown = [n for n in wanted if n not in by_name]
    if unknown:
        raise EvaluationError(f"--variants: {unknown} not in the release (it has {sorted(by_name)})")
    return [by_name[n] for n in wanted]


def evaluate_variants(
    release: Path, text: str, method: str, model: str, dest: Path, **kwargs: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Run ``evaluate`` once per variant into ``dest/<variant>/``; write ``dest/variants.json`` and
    ``dest/variants.md``; return (the curve's rows, each variant's result)."""
    from mnemoforge.evaluation.runner import evaluate

    rows, results = [], []
    for v in variant_names(release, text):
        res = evaluate(release, method, model, Path(dest) / v["name"], variant=v["name"], **kwargs)
        s = res["summary"]
        rows.append(
            {
                "variant": v["name"], "unit": v["unit"], "size": v["size"],
                "observations": v["observations"], "items": s["items"], "failed": s["failed"],
                "score": s.get("score"), "accuracy": s.get("accuracy"), "all_four": s.get("all_four"),
            }
        )  # fmt: skip
        results.append(res)
    _shared_scores(rows, results)
    record = {"release": str(release), "method": method, "model": results[0]["model"]["name"], "rows": rows}
    atomic.write_json(Path(dest) / "variants.json", record)
    atomic.write_text(Path(dest) / "variants.md", curve_markdown(record))
    return rows, results


def _shared_scores(rows: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
    """Each row's score over the items every variant holds (a length variant leaves out the items
    whose evidence is above its target, so the plain scores may be over different items)."""
    from mnemoforge.evaluation.scoring import aggregate

    ids = [{r["id"] for r in res["items"]} for res in results]
    common = set.intersection(*ids) if ids else set()
    for row, res in zip(rows, results, strict=True):
        s = aggregate([r for r in res["items"] if r["id"] in common]) if common else {}
        row["shared_items"] = len(common)
        row["shared_score"] = s.get("score")


def curve_markdown(record: dict[str, Any]) -> str:
    """The side-by-side table: one row per variant, smallest history first as built."""
    lines = [
        f"# {record['method']} × {record['model']} by length variant",
        "",
        "Sizes are per item's history (the mean); *shared* scores the items every variant holds.",
        "",
        "| variant | episodes | observations | items | score | MCQ per rotation | MCQ all four | shared |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in record["rows"]:
        shared = f"{percent(r.get('shared_score'))} of {r.get('shared_items', '–')}"
        lines.append(
            f"| `{r['variant']}` | {r['size']:g} {r['unit']} | {r['observations']:g} | {r['items']} | "
            f"{percent(r['score'])} | {percent(r['accuracy'])} | {percent(r['all_four'])} | {shared} |"
        )
    return "\n".join(lines) + "\n"


def settings_note(r: dict[str, Any], results: list[dict[str, Any]]) -> str:
    """The method settings in which run ``r`` differs from another run of the same method and
    model among ``results`` (", top_k 30"; empty when none), so two runs of one method at
    different settings stay apart in a table and a plot."""
    mine = r.get("config") or {}
    key = (r["method"], r["model"]["name"])
    others = [o.get("config") or {} for o in results if (o["method"], o["model"]["name"]) == key]
    return "".join(f", {k} {mine[k]}" for k in sorted(mine) if any(o.get(k) != mine[k] for o in others))


def run_label(r: dict[str, Any], results: list[dict[str, Any]]) -> str:
    """``method × model`` plus :func:`settings_note` ("retrieval × symbolic, top_k 30")."""
    return f"{r['method']} × {r['model']['name']}{settings_note(r, results)}"


def curve_svg(release: Path, results: list[dict[str, Any]]) -> str:
    """An inline SVG: score against the variant's observations, one line per method × model over
    the results of ``evaluate --variants`` (empty when there are none)."""
    from html import escape

    manifest = json.loads((Path(release) / "MANIFEST.json").read_text(encoding="utf-8"))
    size = {v["name"]: v["observations"] for v in manifest.get("variants") or []}
    lines: dict[str, list[tuple[float, float, str]]] = {}
    for r in results:
        name, score = r.get("variant"), r.get("summary", {}).get("score")
        if name in size and score is not None:
            lines.setdefault(run_label(r, results), []).append((size[name], score, name))
    if not lines:
        return ""
    w, h, pad = 560, 260, 48
    xs = [x for pts in lines.values() for x, _, _ in pts]
    lo, hi = min(xs), max(max(xs), min(xs) + 1)
    px = lambda x: pad + (x - lo) / (hi - lo) * (w - 2 * pad)  # noqa: E731
    py = lambda y: h - pad - y * (h - 2 * pad)  # noqa: E731
    colours = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" '
        f'aria-label="score by variant size">',
        f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#444"/>',
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#444"/>',
        f'<text x="{w / 2}" y="{h - 10}" text-anchor="middle" font-size="12">'
        "observations per item's history (mean)</text>",
        f'<text x="12" y="{h / 2}" font-size="12" transform="rotate(-90 12 {h / 2})" '
        'text-anchor="middle">score</text>',
    ]
    for x in sorted({lo, max(xs)}):
        parts.append(
            f'<text x="{px(x):.1f}" y="{h - pad + 14}" text-anchor="middle" font-size="10">{x:g}</text>'
        )
    for tick in (0.0, 0.5, 1.0):
        parts.append(f'<text x="{pad - 6}" y="{py(tick) + 4:.1f}" text-anchor="end" font-size="10">'
                     f"{int(tick * 100)}%</text>")  # fmt: skip
    for i, (label, pts) in enumerate(sorted(lines.items())):
        colour = colours[i % len(colours)]
        pts = sorted(pts)
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y, _ in pts)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        at: dict[tuple[float, float], list[str]] = {}
        for x, y, name in pts:  # variants of one size share a point and a label
            at.setdefault((x, y), []).append(name)
        for (x, y), names in at.items():
            parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"/>')
            point = escape(", ".join(names))
            parts.append(f'<text x="{px(x) + 4:.1f}" y="{py(y) - 6:.1f}" font-size="10">{point}</text>')
        parts.append(f'<text x="{w - pad}" y="{pad + 14 * i}" text-anchor="end" font-size="11" '
                     f'fill="{colour}">{escape(label)}</text>')  # fmt: skip
    return "".join(parts) + "</svg>"
