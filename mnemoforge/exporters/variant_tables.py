"""Write a release's length variants (``build --variants``, ``mnemoforge/variants.py``).

Each variant is its observations and captions, in both views: ``data/<family>/variants/<name>/``
(evaluator rows, with the facts each observation expresses) and ``agent/<family>/variants/<name>/``
(projected from them by ``agent_tables.write_agent_view``, like every other agent table). The kept
questions and the media are shared: a variant only says which episodes a memory system reads. One
card config per variant and view (``agent_<family>_variant_<name>``, ``<family>_variant_<name>``),
and one ``MANIFEST.json`` entry.
"""

from __future__ import annotations

from pathlib import Path

from mnemoforge.exporters.tables import write_jsonl_and_parquet
from mnemoforge.exporters.views import AGENT_DIR
from mnemoforge.schemas.release import VariantEntry
from mnemoforge.variants import Selection


def config_names(family: str, name: str) -> tuple[str, str]:
    """(agent config, evaluator config) of a variant."""
    return f"{AGENT_DIR}_{family}_variant_{name}", f"{family}_variant_{name}"


def variant_captions(captions: list[dict], sel: Selection) -> list[dict]:
    """The caption rows of a variant's observations (smm: per observation) or episodes (icm: per clip)."""
    ids = {o.id for o in sel.observations}
    episodes = {o.episode for o in sel.observations}
    return [r for r in captions if r.get("observation") in ids or r.get("clip") in episodes]


def write_variants(
    root: Path, family: str, unit: str, selections: list[Selection], captions: list[dict], questions: int
) -> tuple[dict[str, str], list[VariantEntry]]:
    """Write every variant's evaluator tables (``agent_tables.write_agent_view`` projects them
    into the agent view after); return their card configs and manifest entries."""
    configs: dict[str, str] = {}
    entries = []
    for sel in selections:
        data = root / "data" / family / "variants" / sel.name
        agent = root / AGENT_DIR / family / "variants" / sel.name
        rows = [o.model_dump(mode="json") for o in sel.observations]
        write_jsonl_and_parquet(rows, data / "observations.jsonl", data / "observations.parquet")
        caps = variant_captions(captions, sel)
        if caps:
            write_jsonl_and_parquet(caps, data / "captions.jsonl", data / "captions.parquet")
        agent_cfg, data_cfg = config_names(family, sel.name)
        configs[agent_cfg] = (agent / "observations.parquet").relative_to(root).as_posix()
        configs[data_cfg] = (data / "observations.parquet").relative_to(root).as_posix()
        entries.append(
            VariantEntry(
                name=sel.name,
                family=family,
                unit=unit,
                size=len(sel.units),
                target=sel.target,
                observations=len(sel.observations),
                questions=questions,
                config=agent_cfg,
                ablation=sel.ablation,
                answerable=sel.answerable,
            )
        )
    return configs, entries


def card_section(entries: list[VariantEntry], total_units: int, funnel: dict) -> str:
    """The card's table of variant sizes, and how the variants were made."""
    if not entries:
        return ""
    stage = next((s for s in funnel.get("stages", []) if s["gate"] == "variant_history"), None)
    dropped = stage["rejected"] if stage else 0
    unit = entries[0].unit
    rows = "\n".join(
        f"| `{e.name}` | {e.size} | "
        f"{'ablation' if e.ablation else 'evidence only' if e.target is None else e.target} | "
        f"{e.observations} | {e.answerable if e.answerable is not None else e.questions} | `{e.config}` |"
        for e in entries
    )
    ablations = [e.name for e in entries if e.ablation]
    ablated = (
        f"{', '.join(f'`{n}`' for n in ablations)}: modality ablations of the whole history "
        "(each observation as the ablation leaves it: left out, without its media, or with a caption "
        "instead of its picture). They are not re-derived, since taking a modality away may take an "
        "item's evidence with it; the table counts the items whose evidence all survives the ablation "
        "and still gives the answer (an item may still be answerable another way, e.g. from a line "
        "that repeats what a shot showed)."
        if ablations
        else ""
    )
    lengths = f"""Every kept item was re-derived in every length variant (the exact gates
and its program over everything the variant shows up to its cutoff); {dropped} item(s) that a
variant made ambiguous or answered otherwise were dropped from all variants (gate
`variant_history`). `oracle` holds only the {unit} with a kept item's evidence (and any {unit}
every variant needs, such as a calibration clip); each other length variant holds those plus more
{unit} of the same World, up to its target, drawn in one seeded order (each holds every smaller
one)."""
    head = f"""The same {entries[0].questions} questions over several histories, all from this release's one
World (of {total_units} {unit}). Questions and media are shared; a variant lists the observations
a memory system reads (`agent/*/variants/<name>/`; evaluator rows under `data/*/variants/<name>/`)."""
    text = "\n\n".join(p for p in (head, lengths if len(ablations) < len(entries) else "", ablated) if p)
    return f"""
## Variants

{text}

| variant | {unit} | target | observations | answerable items | config |
|---|---|---|---|---|---|
{rows}
"""
