"""``mnemoforge evaluate --variants``: one method × model over every length variant of a release,
side by side (the score against the haystack's size; docs/variants.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mnemoforge.evaluation.keys import EvaluationError
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
    record = {"release": str(release), "method": method, "model": results[0]["model"]["name"], "rows": rows}
    atomic.write_json(Path(dest) / "variants.json", record)
    atomic.write_text(Path(dest) / "variants.md", curve_markdown(record))
    return rows, results


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def curve_markdown(record: dict[str, Any]) -> str:
    """The side-by-side table: one row per variant, smallest history first as built."""
    lines = [
        f"# {record['method']} × {record['model']} by length variant",
        "",
        "| variant | episodes | observations | items | score | MCQ per rotation | MCQ all four |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in record["rows"]:
        lines.append(
            f"| `{r['variant']}` | {r['size']} {r['unit']} | {r['observations']} | {r['items']} | "
            f"{_pct(r['score'])} | {_pct(r['accuracy'])} | {_pct(r['all_four'])} |"
        )
    return "\n".join(lines) + "\n"
