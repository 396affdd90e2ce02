"""Freeze a multi-family build as one release (layout: ``multi_family.py``'s docstring)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from mnemoforge.exporters import release as release_mod
from mnemoforge.exporters.card import config_entry
from mnemoforge.exporters.tables import write_jsonl_and_parquet
from mnemoforge.exporters.views import AGENT_DIR, agent_row
from mnemoforge.generators.cross_items import CROSS, CrossResult, family_of
from mnemoforge.generators.questions import key_letters
from mnemoforge.hashing import canonical_json, content_hash, sha256_bytes, sha256_file, short
from mnemoforge.implementation import code_version
from mnemoforge.schemas.release import FileEntry, ReleaseManifest, VariantEntry
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.validators.release_audit import card_configs

FAMILIES_DIR = "families"
SOURCES = f"data/{CROSS}/fact_families.json"  # fact id -> family: what the one-family gate reads
HISTORIES = "histories.jsonl"
"""``agent/cross/histories.jsonl``: per cross item, the families whose agent views are its history."""


def freeze_multi(
    theme: Theme,
    theme_bytes: bytes,
    seed: int,
    world: World,
    contents: Mapping[str, release_mod.RunContents],
    cross: CrossResult,
    sources: Mapping[str, str],
    dest: Path,
    version: str,
) -> Path:
    """Write the release to ``dest`` atomically; an identical one there is kept."""
    if not cross.kept:
        raise release_mod.EmptyReleaseError(f"no cross item survived its gates ({cross.funnel})")
    tmp = staging(dest)
    try:
        _write(theme, theme_bytes, seed, world, contents, cross, sources, tmp, version)
        return replace_dir(tmp, dest, release_mod.MANIFEST)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def _write(
    theme: Theme, theme_bytes: bytes, seed: int, world: World,
    contents: Mapping[str, release_mod.RunContents],
    cross: CrossResult, sources: Mapping[str, str], root: Path, version: str,
) -> None:  # fmt: skip
    configs: dict[str, str] = {}
    counts: dict[str, int] = {}
    stats: dict = {"families": {}, "world": _world_counts(world)}
    variants: list[VariantEntry] = []  # each family's length variants (build --variants)
    for fam, rel in members(list(contents)).items():
        manifest = release_mod.write_contents(contents[fam], root / rel, version, shared_world=True)
        configs |= {name: f"{rel}/{files[0]}" for name, files in card_configs(root / rel).items() if files}
        counts |= {f"{fam}.{k}": n for k, n in manifest.counts.items()}
        stats["families"][fam] = {"questions": manifest.counts["questions"], "run_id": manifest.run_id}
        if manifest.variants:
            variants += manifest.variants
            stats["families"][fam]["variants"] = [v.name for v in manifest.variants]
    atomic.write_json(root / "data/world.json", world)
    kept = key_letters.spread(cross.kept, world.seed)
    rows = [q.model_dump(mode="json") for q in kept]
    data, agent = f"data/{CROSS}", f"{AGENT_DIR}/{CROSS}"
    write_jsonl_and_parquet(rows, root / f"{data}/questions.jsonl", root / f"{data}/questions.parquet")
    atomic.write_json(root / SOURCES, dict(sorted(sources.items())))
    agent_rows = [agent_row("questions", r, None) for r in rows]
    write_jsonl_and_parquet(
        agent_rows, root / f"{agent}/questions.jsonl", root / f"{agent}/questions.parquet"
    )
    atomic.write_jsonl(root / f"{agent}/{HISTORIES}", history_rows(rows))
    configs[f"{CROSS}_questions"] = f"{data}/questions.parquet"
    configs[f"{AGENT_DIR}_{CROSS}_questions"] = f"{agent}/questions.parquet"
    kept_ids = {q.id for q in kept}
    atomic.write_jsonl(
        root / f"gates/{CROSS}/verdicts.jsonl", [v.model_dump(mode="json") for v in cross.verdicts]
    )
    rejected = [q.model_dump(mode="json") for q in cross.candidates if q.id not in kept_ids]
    atomic.write_jsonl(root / f"gates/{CROSS}/rejected.jsonl", rejected)
    atomic.write_json(root / f"gates/{CROSS}/funnel.json", cross.funnel)
    atomic.write_bytes(root / "theme.yaml", theme_bytes)
    run_id = multi_run_id(theme.name, sha256_bytes(theme_bytes), seed)
    atomic.write_json(
        root / "config.resolved.json",
        {"families": list(contents), "seed": seed, "code_version": code_version(), "run_id": run_id,
         "release_version": version, "theme_name": theme.name},
    )  # fmt: skip
    by_pair: dict[str, int] = {}
    for q in kept:
        by_pair[q.labels["families"]] = by_pair.get(q.labels["families"], 0) + 1
    stats["questions"] = {"kept": len(kept), "candidates": len(cross.candidates), "by_families": by_pair}
    stats[CROSS] = {"funnel": cross.funnel}
    atomic.write_json(root / "dataset_statistics.json", stats)
    identity = (theme.name, version, run_id)
    atomic.write_text(root / "README.md", _card(theme, stats, configs, identity))
    counts["questions"] = len(kept)
    _manifest(root, theme, theme_bytes, seed, version, run_id, counts, list(contents), variants)


def history_rows(rows: Sequence[Mapping]) -> list[dict]:
    """One row per cross item: ``{"item", "families"}``, the families its evidence spans (sorted).
    A memory system answers the item from every agent-visible observation, caption and medium of
    those families (their whole timelines: a cross item has no cutoff), and from nothing else."""
    return [
        {"item": r["id"], "families": sorted({family_of(e) for e in r.get("evidence") or []})} for r in rows
    ]


def _world_counts(world: World) -> dict[str, int]:
    names = ("people", "events", "entities", "facts", "places", "objects")
    return {n: len(getattr(world, n)) for n in names}


def _card(theme: Theme, stats: dict, configs: dict[str, str], identity: tuple[str, str, str]) -> str:
    entries = [config_entry(n, p, CROSS, identity) for n, p in sorted(configs.items())]
    meta = {
        "license": theme.license, "pretty_name": theme.title, "language": ["en"],
        "task_categories": ["question-answering", "visual-question-answering"],
        "tags": ["synthetic", "long-term-memory", "multimodal", "benchmark", "mnemoforge", "cross-family"],
        "configs": entries,
    }  # fmt: skip
    fams = "\n".join(
        f"| `{f}` | `{FAMILIES_DIR}/{f}/` | {s['questions']} |" for f, s in stats["families"].items()
    )
    pairs = "\n".join(f"| {p} | {n} |" for p, n in sorted(stats["questions"]["by_families"].items()))
    varied = {f: s["variants"] for f, s in stats["families"].items() if s.get("variants")}
    lengths = (
        "\nLength variants (each family's own, over its items; see its card and `variants` in "
        "MANIFEST.json): " + "; ".join(f"`{f}`: {', '.join(v)}" for f, v in varied.items())
        + f". The `{CROSS}` items have none: they are asked over the full histories.\n"
        if varied else ""
    )  # fmt: skip
    w = stats["world"]
    return f"""---
{yaml.safe_dump(meta, sort_keys=True, allow_unicode=True).strip()}
---

# {theme.title}

{theme.description}

One World (`data/world.json`: {w["people"]} people, {w["places"]} places, {w["objects"]} objects,
{w["events"]} events, {w["entities"]} entities, {w["facts"]} facts) built by mnemoforge from the
theme `{theme.name}` as several benchmark families. Each family's release lies under
`{FAMILIES_DIR}/<family>/` as its own build writes it (its card, agent view and gates), less its
World, which is the one at the root. The `{CROSS}` config adds items whose evidence spans at least two
families: a person named by what one family shows, asked about what another shows. Their gates
(`gates/{CROSS}/`) re-derive each answer, require evidence from two families, and run each item's
program on every family's facts alone, which must fail.

| family | folder | questions |
|---|---|---|
{fams}
| `{CROSS}` | `data/{CROSS}/` | {stats["questions"]["kept"]} |

| evidence from | cross items |
|---|---|
{pairs}

A memory system reads the agent views (`agent/` of every family folder and `agent/{CROSS}/`) and
the media of every family folder; everything under `data/` and `gates/` is evaluator keys. A cross
item is answered from the whole agent view (observations, captions, media) of the families that
`agent/{CROSS}/{HISTORIES}` lists for it: those its evidence spans. Cross
evidence ids are `FAMILY:OBSERVATION` (an observation of `{FAMILIES_DIR}/FAMILY/data/FAMILY/`).
`mnemoforge verify` re-checks every family release against the one World and every cross item.
{lengths}"""


def _manifest(
    root: Path, theme: Theme, theme_bytes: bytes, seed: int, version: str, run_id: str,
    counts: dict[str, int], families: list[str], variants: list[VariantEntry],
) -> None:  # fmt: skip
    files = sorted(p for p in root.rglob("*") if p.is_file())
    entries = {
        p.relative_to(root).as_posix(): FileEntry(sha256=sha256_file(p), bytes=p.stat().st_size)
        for p in files
    }
    sums = root / release_mod.CHECKSUMS
    atomic.write_text(sums, "".join(f"{e.sha256}  {rel}\n" for rel, e in sorted(entries.items())))
    entries[release_mod.CHECKSUMS] = FileEntry(sha256=sha256_file(sums), bytes=sums.stat().st_size)
    manifest = ReleaseManifest(
        name=theme.name, version=version, family=CROSS, seed=seed, code_version=code_version(),
        theme_sha256=sha256_bytes(theme_bytes), run_id=run_id, counts=dict(sorted(counts.items())),
        files=dict(sorted(entries.items())), families=families, variants=variants or None,
    )  # fmt: skip
    atomic.write_text(root / release_mod.MANIFEST, canonical_json(manifest, indent=2) + "\n")


def multi_run_id(theme_name: str, theme_sha: str, seed: int) -> str:
    """The run id a multi-family release records (its MANIFEST's ``run_id``), as a run's is made."""
    return f"{theme_name}-s{seed}-{short(content_hash(theme_sha, seed, code_version()), 10)}"


def replace_dir(tmp: Path, dest: Path, manifest_name: str) -> Path:
    """Move the staged release ``tmp`` to ``dest``; an identical release there is kept, another one
    is an error (releases are never overwritten)."""
    if dest.exists() and not (dest.is_dir() and not any(dest.iterdir())):
        same = (dest / manifest_name).is_file() and (dest / manifest_name).read_bytes() == (
            tmp / manifest_name
        ).read_bytes()
        shutil.rmtree(tmp)
        if same:
            return dest
        raise release_mod.ReleaseExistsError(f"{dest} already exists with other content; bump the version")
    os.replace(tmp, dest)
    return dest


def staging(dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{atomic.TMP_PREFIX}{dest.name}.multi.", dir=dest.parent))
    tmp.chmod(atomic.dir_mode())
    return tmp


def members(families: Sequence[str]) -> dict[str, str]:
    """family -> its release folder, relative to the multi-family release's root."""
    return {f: f"{FAMILIES_DIR}/{f}" for f in families}


def world_digest(world: World) -> str:
    return sha256_bytes(canonical_json(world).encode())
