"""Write a release's variants (``build --variants``, ``mnemoforge/variants.py``).

A length variant is one table, ``haystacks``: per item in it, its own history (the episodes and
the ids of the observations it may read), in both views: ``data/<family>/variants/<name>/`` and
``agent/<family>/variants/<name>/`` (projected by ``agent_tables.write_agent_view``; the table
holds no key). An ablation is its observations and captions as the ablation leaves them. The kept
questions, the release's observations and the media are shared. One card config per variant and
view (``agent_<family>_variant_<name>``, ``<family>_variant_<name>``), and one ``MANIFEST.json`` entry.
"""

from __future__ import annotations

from pathlib import Path

from mnemoforge.exporters.tables import write_jsonl_and_parquet
from mnemoforge.exporters.views import AGENT_DIR
from mnemoforge.generators.families import get_family
from mnemoforge.schemas.release import VariantEntry
from mnemoforge.variants import Selection, size_stats


def config_names(family: str, name: str) -> tuple[str, str]:
    """(agent config, evaluator config) of a variant."""
    return f"{AGENT_DIR}_{family}_variant_{name}", f"{family}_variant_{name}"


def variant_captions(captions: list[dict], sel: Selection) -> list[dict]:
    """The caption rows of an ablation's observations (smm: per observation) or episodes (icm: per clip)."""
    ids = {o.id for o in sel.observations}
    episodes = {o.episode for o in sel.observations}
    return [r for r in captions if r.get("observation") in ids or r.get("clip") in episodes]


def haystack_rows(sel: Selection) -> list[dict]:
    """A length variant's ``haystacks`` table: per item in it, its history's episodes (the family's
    unit: icm clip ids, smm ``source@day`` sessions) and the ids of the observations it may read."""
    return [
        {
            "item": h.item,
            "episodes": h.units,
            "observations": [o.id for o in h.observations],
            "size": len(h.units),
            "observation_count": len(h.observations),
        }
        for h in sel.haystacks.values()
    ]


def write_variants(
    root: Path, family: str, unit: str, selections: list[Selection], captions: list[dict], questions: int
) -> tuple[dict[str, str], list[VariantEntry]]:
    """Write every variant's evaluator tables (``agent_tables.write_agent_view`` projects them
    into the agent view after); return their card configs and manifest entries. A length variant
    is one table, ``haystacks``: each item's own history; an ablation its observations and captions."""
    configs: dict[str, str] = {}
    entries = []
    for sel in selections:
        data = root / "data" / family / "variants" / sel.name
        agent = root / AGENT_DIR / family / "variants" / sel.name
        table = "observations" if sel.ablation else "haystacks"
        if sel.ablation:
            rows = [o.model_dump(mode="json") for o in sel.observations]
            get_family(family).write_ablation_media(
                sel.name, root, [m for o in sel.observations for m in o.media]
            )
            sizes: dict = {"size": float(len(sel.units)), "observations": float(len(sel.observations))}
            count = questions
        else:
            rows = haystack_rows(sel)
            sizes = size_stats(sel)
            count = len(sel.haystacks)
            if sel.left_out:  # evaluator side only: why an item has no history in this variant
                out = [{"item": i, "reason": why} for i, why in sel.left_out.items()]
                write_jsonl_and_parquet(out, data / "left_out.jsonl", data / "left_out.parquet")
        write_jsonl_and_parquet(rows, data / f"{table}.jsonl", data / f"{table}.parquet")
        caps = variant_captions(captions, sel) if sel.ablation else []
        if caps:
            write_jsonl_and_parquet(caps, data / "captions.jsonl", data / "captions.parquet")
        agent_cfg, data_cfg = config_names(family, sel.name)
        configs[agent_cfg] = (agent / f"{table}.parquet").relative_to(root).as_posix()
        configs[data_cfg] = (data / f"{table}.parquet").relative_to(root).as_posix()
        entries.append(
            VariantEntry(
                name=sel.name,
                family=family,
                unit=unit,
                target=sel.target,
                share=sel.share,
                questions=count,
                left_out=len(sel.left_out),
                config=agent_cfg,
                ablation=sel.ablation,
                answerable=sel.answerable,
                **sizes,
            )
        )
    return configs, entries


def _target(e: VariantEntry) -> str:
    if e.ablation:
        return "ablation"
    if e.target is not None:
        return f"{e.target} per item"
    if e.share is None:
        return "evidence only"
    return "all of each item's history" if e.share == 1 else f"{e.share:.3g} of each item's history"


def card_section(entries: list[VariantEntry], total_units: int, funnel: dict) -> str:
    """The card's table of variant sizes, and how the variants were made."""
    if not entries:
        return ""
    stage = next((s for s in funnel.get("stages", []) if s["gate"] == "variant_history"), None)
    dropped = stage["rejected"] if stage else 0
    unit = entries[0].unit
    rows = "\n".join(
        f"| `{e.name}` | {e.size:g} | "
        f"{'' if e.ablation else f'{e.size_min}-{e.size_max}'} | {_target(e)} | {e.observations:g} | "
        f"{e.answerable if e.answerable is not None else e.questions} | {e.left_out} | `{e.config}` |"
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
    lengths = f"""In a length variant every item has **its own history** (the `haystacks` table: its
{unit} and the observations of them it may read, up to its cutoff), as in LongMemEval: `oracle` is
the {unit} holding the item's evidence (and any {unit} every history needs, such as a calibration
clip); each other length variant adds more {unit} of the same World that the item may read, drawn
in the item's own seeded order, up to the variant's target (so an item's histories nest: oracle ⊆
s ⊆ m ⊆ l). An item whose evidence alone spans more {unit} than a variant's target (e.g. one that
reads every event) is left out of that variant (column *left out*; why, per item, in
`data/*/variants/<name>/left_out.*`). Every item was re-derived on
its own history in every length variant (the exact gates and its program over everything that
history shows); {dropped} item(s) that a history made ambiguous or answered otherwise were dropped
from all variants (gate `variant_history`)."""
    head = f"""The same questions over several histories, all from this release's one World (of
{total_units} {unit}). Questions, observations and media are shared; a length variant says which of
them each item's history holds (`agent/*/variants/<name>/haystacks.*`), an ablation is its own
observations (`agent/*/variants/<name>/observations.*`); evaluator twins under `data/*/variants/`."""
    text = "\n\n".join(p for p in (head, lengths if len(ablations) < len(entries) else "", ablated) if p)
    return f"""
## Variants

{text}

| variant | {unit} per history (mean) | min-max | target | observations (mean) | items | left out | config |
|---|---|---|---|---|---|---|---|
{rows}
"""
