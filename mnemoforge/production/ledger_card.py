"""The dataset card's "Model calls" section: the call ledger's totals (``store/ledger.py``)."""

from __future__ import annotations

from pathlib import Path

from mnemoforge.store import ledger


def card_section(run_root: Path) -> str:
    """Totals of the run's ``ledger.jsonl`` by stage; empty when no model was called (offline builds)."""
    rows = ledger.read_ledger(run_root)
    if not rows:
        return ""
    s = ledger.summarise(rows)
    currency = ledger.run_prices(Path(run_root)).currency
    # paid calls only: cache hits of a resumed or repeated build leave the card (and the manifest) as is
    cols = ("calls", "errors", "tokens_in", "tokens_out", "images", "media_seconds", "cost")
    head = "| stage | " + " | ".join(c.replace("_", " ") for c in cols) + " |"
    lines = [head, "|---" * (len(cols) + 1) + "|"]
    for name, t in [*s["by_stage"].items(), ("**total**", s["total"])]:
        cells = [f"{t[c]:.4f}" if c == "cost" else f"{t[c]:g}" for c in cols]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    models = ", ".join(f"`{m}` ({t['calls']} calls)" for m, t in s["by_model"].items())
    t = s["total"]
    return (
        "\n## Model calls\n\n"
        f"Built with model calls: {t['calls']} paid calls ({t['errors']} failed attempts), estimated cost "
        f"{t['cost']:.4f} {currency} (list prices from the build's price table). Models: {models}. "
        "Replies are cached in the run folder, so a resumed build pays (and counts) each call once; "
        "`mnemoforge ledger RUN` lists calls and cache hits per stage and model from the run's "
        "`ledger.jsonl`.\n\n" + "\n".join(lines) + "\n"
    )
