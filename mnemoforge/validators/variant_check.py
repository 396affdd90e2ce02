"""``verify`` of a release's length variants (``MANIFEST.json``'s ``variants``, ``mnemoforge/variants.py``).

Each listed variant: its tables exist; its observations are rows of the release's own
observations, unchanged; its counts are MANIFEST's; it holds every kept item's evidence; and each
item, re-derived over the variant's history, still has its stored answer (the writer's gate,
``variant_history``, run again on what the release holds).
"""

from __future__ import annotations

from pathlib import Path

from mnemoforge.exporters.tables import TableReader
from mnemoforge.generators.families import Family, get_family
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.release import ReleaseManifest
from mnemoforge.schemas.world import World
from mnemoforge.variants import Selection, caption_index, problem


def _ablation(
    rel: str, name: str, family: Family, full: list[dict], got: list[Observation], caps: dict[str, dict]
) -> list[str]:
    try:
        want = [
            x for r in full if (x := family.ablate(name, Observation.model_validate(r), caps)) is not None
        ]
    except KeyError as e:
        return [f"{rel}: {e.args[0]}"]
    want.sort(key=lambda o: (o.order, o.id))
    if want != got:
        return [f"{rel}: not the release's observations as ablation {name!r} leaves them"]
    return []


def check_variants(
    root: Path, manifest: ReleaseManifest, world: World, questions: list[Question], tables: TableReader
) -> list[str]:
    """Every problem with the release's variants, each naming its file (empty: none, or all fine)."""
    if not manifest.variants:
        return []
    fam = manifest.family
    family = get_family(fam)
    full = {r["id"]: r for r in tables.rows(root / f"data/{fam}/observations.jsonl")}
    problems: list[str] = []
    for entry in manifest.variants:
        rel = f"data/{fam}/variants/{entry.name}/observations.jsonl"
        if not (root / rel).is_file():
            problems.append(f"{rel}: missing (MANIFEST.json lists variant {entry.name!r})")
            continue
        rows = tables.rows(root / rel)
        changed = [r.get("id") for r in rows if full.get(r.get("id")) != r]
        if changed and not entry.ablation:
            problems.append(
                f"{rel}: {len(changed)} row(s) not in data/{fam}/observations.jsonl, e.g. {changed[0]}"
            )
            continue
        obs = [Observation.model_validate(r) for r in rows]
        units = list(dict.fromkeys(family.variant_unit(o) for o in obs))
        if entry.ablation:  # each row as the ablation leaves the release's own, in the same order
            caps = caption_index(tables.rows(root / f"data/{fam}/captions.jsonl"))
            problems += _ablation(rel, entry.name, family, list(full.values()), obs, caps)
            sel = Selection(entry.name, None, units, obs, ablation=True)
            by_id = {o.id: o for o in obs}
            n = sum(problem(q, world, sel, by_id) is None for q in questions)
            if n != entry.answerable or len(obs) != entry.observations:
                problems.append(
                    f"MANIFEST.json: ablation {entry.name!r} lists {entry.observations} observations "
                    f"answering {entry.answerable} items; {rel} holds {len(obs)}, answering {n}"
                )
            continue
        if (len(units), len(obs), len(questions)) != (entry.size, entry.observations, entry.questions):
            problems.append(
                f"MANIFEST.json: variant {entry.name!r} lists {entry.size} {entry.unit}, "
                f"{entry.observations} observations, {entry.questions} questions; {rel} holds "
                f"{len(units)}, {len(obs)}, and the release {len(questions)}"
            )
        sel = Selection(entry.name, entry.target, units, obs)
        by_id = {o.id: o for o in obs}
        problems += [
            f"{rel}: {q.id}: {why}" for q in questions if (why := problem(q, world, sel, by_id)) is not None
        ]
    return problems
