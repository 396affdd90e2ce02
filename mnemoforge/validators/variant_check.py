"""``verify`` of a release's length variants (``MANIFEST.json``'s ``variants``, ``mnemoforge/variants.py``).

Each listed variant: its tables exist. A length variant's ``haystacks`` hold, per item, the
history the writer draws for it from the release's own observations (its evidence, the pinned
episodes and its seeded filler up to the target, up to its cutoff), left out exactly the items
whose evidence is above the target, with MANIFEST's sizes; and each item, re-derived over its
history, still has its stored answer (the writer's gate, ``variant_history``, run again on what
the release holds). An ablation's rows are the release's own as the ablation leaves them, with
MANIFEST's count of items they still answer.
"""

from __future__ import annotations

from pathlib import Path

from mnemoforge.exporters.tables import TableReader, read_jsonl
from mnemoforge.generators.families import Family, get_family
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.release import ReleaseManifest, VariantEntry
from mnemoforge.schemas.world import World
from mnemoforge.variants import Requested, ablated, answerable, caption_index, problem, select, size_stats


def _ablation(
    root: Path,
    rel: str,
    entry: VariantEntry,
    family: Family,
    world: World,
    questions: list[Question],
    full: list[Observation],
    got: list[Observation],
    caps: dict[str, dict],
) -> list[str]:
    """An ablation's rows are the release's own as the ablation leaves them, the media they name
    are there (as the family makes them: icm's muted clips), and MANIFEST counts what they answer."""
    try:
        want, moved = ablated(family, entry.name, full, caps)
    except KeyError as e:
        return [f"{rel}: {e.args[0]}"]
    if want != got:
        return [f"{rel}: not the release's observations as ablation {entry.name!r} leaves them"]
    problems = family.check_ablation_media(entry.name, root, [m for o in got for m in o.media])
    n = answerable(world, entry.name, questions, got, moved)
    if n != entry.answerable or len(got) != entry.observations:
        problems.append(
            f"MANIFEST.json: ablation {entry.name!r} lists {entry.observations:g} observations "
            f"answering {entry.answerable} items; {rel} holds {len(got)}, answering {n}"
        )
    return problems


def _length(
    rel: str,
    entry: VariantEntry,
    family: Family,
    world: World,
    questions: list[Question],
    obs: list[Observation],
    rows: list[dict],
    spec: Requested,
    left: dict[str, str],
) -> list[str]:
    """A length variant's ``haystacks``: each row is the history the writer draws for its item
    (evidence, pinned episodes, its seeded filler up to the target), the items left out are those
    whose evidence is above the target, the sizes are MANIFEST's, and each item re-derives."""
    sel = select(family, world.seed, obs, questions, [spec])[0]
    by_id = {q.id: q for q in questions}
    problems = []
    got = {r.get("item"): r for r in rows}
    for qid, h in sel.haystacks.items():
        want = {"item": qid, "episodes": h.units, "observations": [o.id for o in h.observations]}
        row = got.get(qid)
        if row is None:
            problems.append(f"{rel}: {qid}: missing (its history fits {entry.name!r})")
        elif {k: row.get(k) for k in want} != want or row.get("size") != len(h.units):
            problems.append(f"{rel}: {qid}: not the history the seed draws for it in {entry.name!r}")
        elif why := problem(by_id[qid], world, entry.name, h.observations):
            problems.append(f"{rel}: {qid}: {why}")
    extra = sorted(set(got) - set(sel.haystacks))
    if extra:
        why = sel.left_out.get(extra[0], "not a kept item")
        problems.append(f"{rel}: {len(extra)} item(s) that {entry.name!r} leaves out, e.g. {extra[0]}: {why}")
    if left != sel.left_out:
        where = rel.replace("haystacks.jsonl", "left_out.jsonl")
        problems.append(f"{where}: not the items {entry.name!r} leaves out, with why")
    stats = size_stats(sel)
    listed = {k: getattr(entry, k) for k in stats}
    listed |= {"questions": entry.questions, "left_out": entry.left_out}
    real = stats | {"questions": len(sel.haystacks), "left_out": len(sel.left_out)}
    if listed != real:
        problems.append(f"MANIFEST.json: variant {entry.name!r} lists {listed}; {rel} holds {real}")
    return problems


def check_variants(
    root: Path, manifest: ReleaseManifest, world: World, questions: list[Question], tables: TableReader
) -> list[str]:
    """Every problem with the release's variants, each naming its file (empty: none, or all fine)."""
    if not manifest.variants:
        return []
    fam = manifest.family
    family = get_family(fam)
    full = {r["id"]: r for r in tables.rows(root / f"data/{fam}/observations.jsonl")}
    release_obs = [Observation.model_validate(r) for r in full.values()]
    problems: list[str] = []
    for entry in manifest.variants:
        table = "observations" if entry.ablation else "haystacks"
        rel = f"data/{fam}/variants/{entry.name}/{table}.jsonl"
        if not (root / rel).is_file():
            problems.append(f"{rel}: missing (MANIFEST.json lists variant {entry.name!r})")
            continue
        rows = tables.rows(root / rel)
        if not entry.ablation:
            spec = Requested(entry.name, entry.target, entry.share)
            out = root / f"data/{fam}/variants/{entry.name}/left_out.jsonl"
            left = {r["item"]: r["reason"] for r in read_jsonl(out)} if out.is_file() else {}
            problems += _length(rel, entry, family, world, questions, release_obs, rows, spec, left)
            continue
        obs = [Observation.model_validate(r) for r in rows]
        caps = caption_index(tables.rows(root / f"data/{fam}/captions.jsonl"))
        problems += _ablation(root, rel, entry, family, world, questions, release_obs, obs, caps)
    return problems
