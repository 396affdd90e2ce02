"""``summary.md``: each family's table as its seed publishes it, plus calibration and the ledger.

icm: by category (recall / retrieval / profile); smm: by task, and concentrated vs distributed
when both were run; memeye: by X, by Y and the X×Y grid. MCQ figures are the mean per-rotation
accuracy and, in brackets, all-four-rotations accuracy.
"""

from __future__ import annotations

from typing import Any


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def percent(x: float | None) -> str:
    """A share as a table's percentage ("62.9%"; "–" for none)."""
    return "–" if x is None else f"{100 * x:.1f}%"


def cell(agg: dict[str, Any] | None) -> str:
    """One table cell: ``acc (all-four)`` for MCQ, EM (judge) for open items, call EM for calls."""
    if not agg:
        return "–"
    parts = []
    if agg.get("mcq"):
        parts.append(f"{_pct(agg.get('accuracy'))} ({_pct(agg.get('all_four'))})")
    if agg.get("open"):
        j = agg.get("judge")
        parts.append(f"EM {_pct(agg.get('em'))}" + (f" / J {_pct(j)}" if j is not None else ""))
    if agg.get("calls"):
        parts.append(f"calls {_pct(agg.get('call_em'))}")
    return "; ".join(parts) or "–"


def _label(r: dict) -> str:
    return f"{r['method']} × {r['model']['name']}"


def _group_table(results: list[dict], key: str, title: str) -> list[str]:
    groups = sorted({g for r in results for g in r["tables"].get(key, {})})
    if not groups:
        return []
    lines = [
        f"### {title}",
        "",
        "| method × model | " + " | ".join(groups) + " | all |",
        "|---|" + "---|" * (len(groups) + 1),
    ]
    for r in results:
        t = r["tables"].get(key, {})
        lines.append(
            f"| {_label(r)} | " + " | ".join(cell(t.get(g)) for g in groups) + f" | {cell(r['summary'])} |"
        )
    return [*lines, ""]


def _titles(family: str) -> dict[str, str]:
    """The family's table keys and titles; a family no installed package registers: by category."""
    from mnemoforge.evaluation.cross_keys import eval_family

    try:
        return dict(eval_family(family).eval_titles)
    except KeyError:
        return {"category": "By category"}


def _grid(r: dict) -> list[str]:
    t = r["tables"].get("cell", {})
    xs = sorted({k.split("·")[0] for k in t})
    ys = sorted({k.split("·")[1] for k in t if "·" in k})
    if not xs or not ys:
        return []
    lines = [f"#### {_label(r)}: X × Y", "", "| | " + " | ".join(ys) + " |", "|---|" + "---|" * len(ys)]
    for x in xs:
        lines.append(f"| {x} | " + " | ".join(cell(t.get(f"{x}·{y}")) for y in ys) + " |")
    return [*lines, ""]


def _concentrated(results: list[dict]) -> list[str]:
    dist = {(r["base_method"], r["model"]["name"]): r for r in results if not r["concentrated"]}
    pairs = [(dist.get((r["base_method"], r["model"]["name"])), r) for r in results if r["concentrated"]]
    if not pairs:
        return []
    lines = [
        "### Distributed vs concentrated (smm)",
        "",
        "| method × model | distributed | concentrated | drop |",
        "|---|---|---|---|",
    ]
    for d, c in pairs:
        ds, cs = (d["summary"].get("score") if d else None), c["summary"].get("score")
        drop = "–" if ds is None or cs is None else f"{100 * (cs - ds):+.1f}"
        lines.append(
            f"| {c['base_method']} × {c['model']['name']} | {cell(d['summary']) if d else '–'} | "
            f"{cell(c['summary'])} | {drop} |"
        )
    return [*lines, ""]


def summary_markdown(results: list[dict]) -> str:
    """The summary page for one or more runs on the same release."""
    if not results:
        return "# Evaluation\n\nNo results.\n"
    fam = results[0]["family"]
    lines = [
        f"# Evaluation of `{results[0]['release']}` ({fam})",
        "",
        "MCQ cells: mean per-rotation accuracy % (all-four-rotations accuracy %). "
        "Open cells: normalised exact match % / judge %. Calls: exact match after argument normalisation. "
        "Failed items (no answer came back after the retries) are counted apart and never scored.",
        "",
        "## Overall",
        "",
        "| method | model | items | answered | failed | accuracy (all four) | per rotation | invalid % "
        "| open / calls | score |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        s = r["summary"]
        rot = " / ".join(_pct(x) for x in s.get("per_rotation", [])) or "–"
        rest = (
            "; ".join(
                p
                for p in [
                    f"EM {_pct(s.get('em'))}" if s.get("open") else "",
                    f"calls {_pct(s.get('call_em'))}" if s.get("calls") else "",
                ]
                if p
            )
            or "–"
        )
        acc = f"{_pct(s.get('accuracy'))} ({_pct(s.get('all_four'))})" if s.get("mcq") else "–"
        lines.append(
            f"| {r['method']} | {r['model']['name']} | {s['items']} | {s.get('answered', s['items'])} | "
            f"{s.get('failed', 0)} | {acc} | {rot} | "
            f"{_pct(s.get('invalid_rate'))} | {rest} | {_pct(s.get('score'))} |"
        )
    lines.append("")
    lines.append("## By the seed's table")
    lines.append("")
    for key, title in _titles(fam).items():  # the family's tables (Family.eval_titles)
        lines += _group_table(results, key, title)
    lines += _concentrated(results)  # runs on a concentrated twin (smm) beside the distributed ones
    for r in results:
        lines += _grid(r)  # an X × Y grid where items have cells (memeye)
    lines += [
        "## Judge calibration",
        "",
        "| method × model | judge | controls | false accept % | false reject % | invalid % |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        c = r["calibration"]
        lines.append(
            f"| {_label(r)} | {c['judge']['id']} | {c['controls']} | {_pct(c['false_accept'])} | "
            f"{_pct(c['false_reject'])} | {_pct(c['invalid'])} |"
        )
    lines += [
        "",
        "## Ledger",
        "",
        "| method × model | calls | sent | cached | failed | prompt tokens | completion tokens | cost |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        g = r["ledger"]
        t = g["tokens"]
        cost = "–" if g["cost"] is None else f"{g['cost']:.4f} {g['currency'] or ''}".strip()
        lines.append(
            f"| {_label(r)} | {g['calls']} | {g['sent']} | {g['cached']} | {g['failed']} | "
            f"{t.get('prompt_tokens', 0)} | {t.get('completion_tokens', 0)} | {cost} |"
        )
    return "\n".join(lines) + "\n"
