"""``mnemoforge evaluate`` on a multi-family release (docs/cross-family.md): one method × model
over every family's items (each over its own release, ``families/F/``) and over the cross items
(over the union of the agent views their evidence spans, ``evaluation/cross.py``), then one
table with a row per family and ``cross``.

Each part is an ordinary ``evaluate`` run written to ``OUT/<part>/`` (results.json, summary.md,
calls.jsonl: a rerun resends only what failed); ``OUT/families.json`` and ``OUT/families.md``
hold the table. A failed model call makes its item failed in its part, counted and never
scored, exactly as in a single-family evaluation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mnemoforge.evaluation.cross_keys import release_families
from mnemoforge.evaluation.tables import percent
from mnemoforge.store import atomic

ALL = "all"
"""The table's last row: every item of every part together."""


def parts(release: Path) -> dict[str, Path]:
    """Part name -> the folder ``evaluate`` reads it from: each family, then the cross items."""
    from mnemoforge.exporters.multi_release import members
    from mnemoforge.generators.cross_items import CROSS

    release = Path(release)
    return {fam: release / rel for fam, rel in members(release_families(release)).items()} | {CROSS: release}


def evaluate_multi(
    release: Path, method: str, model: str, dest: Path, **kwargs: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Run ``evaluate`` on every part into ``dest/<part>/``; write ``dest/families.json`` and
    ``dest/families.md``; return (the table's rows, each part's result). A method that does not
    apply to a part (``caption_memory`` on a family without clips) leaves that part's row
    ``not run`` with the reason; a method that applies to no part is an error."""
    from mnemoforge.evaluation.keys import EvaluationError
    from mnemoforge.evaluation.runner import evaluate
    from mnemoforge.evaluation.scoring import aggregate

    if kwargs.get("variant") is not None:
        raise EvaluationError("a multi-family release has no length variants (leave out --variants)")
    rows, results, skipped = [], [], []
    for name, folder in parts(release).items():
        try:
            res = evaluate(folder, method, model, Path(dest) / name, **kwargs)
        except EvaluationError as e:
            rows.append({"part": name, "not_run": str(e)})
            skipped.append(f"{name}: {e}")
            continue
        rows.append({"part": name, **_cells(res["summary"])})
        results.append(res)
    if not results:
        raise EvaluationError(f"{method} runs on no part of {release} ({'; '.join(skipped)})")
    rows.append({"part": ALL, **_cells(aggregate([i for r in results for i in r["items"]]))})
    record = {
        "release": str(release), "method": method, "model": results[0]["model"]["name"], "rows": rows,
    }  # fmt: skip
    atomic.write_json(Path(dest) / "families.json", record)
    atomic.write_text(Path(dest) / "families.md", families_markdown(record))
    return rows, results


def _cells(summary: dict[str, Any]) -> dict[str, Any]:
    keys = ("items", "answered", "failed", "score", "accuracy", "all_four")
    return {k: summary.get(k) for k in keys} | {"failed": summary.get("failed", 0)}


def families_markdown(record: dict[str, Any]) -> str:
    """One row per family, then ``cross``, then every item together."""
    lines = [
        f"# {record['method']} × {record['model']} by family",
        "",
        "Each family's items over its own release; the cross items over the agent views of the "
        "families their evidence spans. Failed items are counted apart and never scored.",
        "",
        "| part | items | answered | failed | score | MCQ per rotation | MCQ all four |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in record["rows"]:
        if "not_run" in r:
            lines.append(f"| `{r['part']}` | not run: {r['not_run']} | | | | | |")
            continue
        lines.append(
            f"| `{r['part']}` | {r['items']} | {r['answered']} | {r['failed']} | {percent(r['score'])} | "
            f"{percent(r['accuracy'])} | {percent(r['all_four'])} |"
        )
    return "\n".join(lines) + "\n"


def matrix_markdown(records: list[dict[str, Any]]) -> str:
    """``evaluate --matrix`` on a multi-family release: one row per method × model, one column per
    family, ``cross`` and all items (score %; ``not run`` where the method does not apply)."""
    names = [r["part"] for r in records[0]["rows"]] if records else []
    lines = [
        "# Evaluation by family",
        "",
        "Score % per part (each family's items over its own release, the cross items over the agent "
        "views of the families their evidence spans); failed items are counted apart, never scored. "
        "Each pair's folder holds every part's summary.md.",
        "",
        "| method × model | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for rec in records:
        by = {r["part"]: r for r in rec["rows"]}
        cells = [
            "not run"
            if "not_run" in by[n]
            else percent(by[n]["score"]) + (f" ({by[n]['failed']} failed)" if by[n]["failed"] else "")
            for n in names
        ]
        lines.append(f"| {rec['method']} × {rec['model']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def evaluate_multi_variants(
    release: Path, text: str, method: str, model: str, dest: Path, **kwargs: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``evaluate --variants`` on a multi-family release built with them: each family's curve
    (``variant_curve.evaluate_variants`` on ``families/F/``, into ``dest/F/``) and the cross items
    once over their full histories (``dest/cross/``; they have no length variants). Writes
    ``dest/variants.json`` and ``dest/variants.md``: a row per variant, a column per family and
    ``cross``; returns (those rows, every run's result)."""
    from mnemoforge.evaluation.runner import evaluate
    from mnemoforge.evaluation.variant_curve import evaluate_variants
    from mnemoforge.generators.cross_items import CROSS

    table: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    folders = parts(release)
    for name, folder in folders.items():
        if name == CROSS:
            res = evaluate(folder, method, model, Path(dest) / name, **kwargs)
            results.append(res)
            for row in table.values():
                row[CROSS] = res["summary"].get("score")
            continue
        curve, runs = evaluate_variants(folder, text, method, model, Path(dest) / name, **kwargs)
        results += runs
        for r in curve:
            table.setdefault(r["variant"], {})[name] = r["score"]
    rows = [{"variant": v, **cells} for v, cells in table.items()]
    names = list(folders)
    record = {"release": str(release), "method": method, "model": results[0]["model"]["name"], "rows": rows}
    lines = [
        f"# {method} × {record['model']} by length variant and family",
        "",
        f"Score % of each family's items over its variant's histories; `{CROSS}`: the cross items over "
        "their full histories (they have no length variants), the same in every row.",
        "",
        "| variant | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|" + "---|" * len(names),
        *(f"| `{r['variant']}` | " + " | ".join(percent(r.get(n)) for n in names) + " |" for r in rows),
    ]
    atomic.write_json(Path(dest) / "variants.json", record)
    atomic.write_text(Path(dest) / "variants.md", "\n".join(lines) + "\n")
    return rows, results
