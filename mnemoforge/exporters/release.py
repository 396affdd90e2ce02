"""Freeze a run into an immutable release folder: data, media, config, gate log, card, manifest."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from mnemoforge import faults, progress
from mnemoforge.exporters import release_validator
from mnemoforge.exporters.agent_tables import write_agent_view
from mnemoforge.exporters.card import dataset_card
from mnemoforge.exporters.tables import write_jsonl_and_parquet
from mnemoforge.generators.families import ReleaseInput, get_family
from mnemoforge.generators.questions import key_letters
from mnemoforge.hashing import canonical_json, sha256_bytes, sha256_file
from mnemoforge.implementation import code_version
from mnemoforge.schemas import EXPORTED
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.release import FileEntry, ReleaseManifest
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.theme_io import theme_as_written
from mnemoforge.validators.shortcut_stats import shortcut_figures
from mnemoforge.variants import Requested, Selection

MANIFEST = "MANIFEST.json"
CHECKSUMS = "checksums/sha256.txt"
VALIDATOR = "scripts/validate_release.py"


class ReleaseExistsError(FileExistsError):
    """A different release already holds this name and version; releases are never overwritten."""


class EmptyReleaseError(ValueError):
    """No candidate survived the gates: an empty release is never frozen."""


@dataclass
class RunContents:
    theme: Theme
    theme_bytes: bytes
    run_id: str
    run_root: Path
    world: World
    observations: list[Observation]
    captions: list[dict]
    questions: list[Question]
    verdicts: list[Verdict]
    funnel: dict
    media: list[dict]
    variants: list[Requested] = field(default_factory=list)
    """Length variants to write (``build --variants``); empty: none (the release as ever)."""
    selections: list[Selection] | None = None
    """The variants' episodes, set by ``with_variants`` (which also adds their gate's verdicts)."""

    def family_input(self, kept: list[Question]) -> ReleaseInput:
        return ReleaseInput(self.theme, self.world, self.run_root, self.observations, kept, self.media)


def with_variants(c: RunContents) -> RunContents:
    """``c`` with its variants selected and the ``variant_history`` gate's verdicts and funnel
    stage added (an item a variant makes ambiguous leaves every variant); ``c`` without variants."""
    if not c.variants:
        return c
    from mnemoforge import variants

    kept_ids = {v.item for v in c.verdicts} - {v.item for v in c.verdicts if not v.keep}
    kept = [q for q in c.questions if q.id in kept_ids]
    out = variants.apply(get_family(c.theme.family), c.world, c.observations, kept, c.variants, c.captions)
    funnel = dict(c.funnel)
    funnel["stages"] = [*c.funnel.get("stages", []), out.stage]
    funnel["kept"] = out.stage["kept"]
    return replace(c, verdicts=[*c.verdicts, *out.verdicts], funnel=funnel, selections=out.selections)


def statistics(c: RunContents, kept: list[Question]) -> dict:
    by_cat: dict[str, int] = {}
    for q in kept:
        by_cat[q.category] = by_cat.get(q.category, 0) + 1
    stats: dict = {
        "world": {
            "people": len(c.world.people),
            "events": len(c.world.events),
            "facts": len(c.world.facts),
            "places": len(c.world.places),
            "objects": len(c.world.objects),
        },
        "observations": len(c.observations),
        "questions": {
            "candidates": len(c.questions),
            "kept": len(kept),
            "by_category": dict(sorted(by_cat.items())),
        },
        "media": {
            "files": len(c.media),
            "bytes": sum(m["bytes"] for m in c.media),
            "by_kind": _count(m["kind"] for m in c.media),
        },
    }
    fam = get_family(c.theme.family).statistics(c.family_input(kept))
    stats["questions"] |= fam.pop("questions", {})
    stats |= fam
    stats["shortcut_panel"] = shortcut_figures(kept, c.observations, world=c.world, captions=c.captions)
    return stats


def _count(items) -> dict[str, int]:  # type: ignore[no-untyped-def]
    out: dict[str, int] = {}
    for k in items:
        out[k] = out.get(k, 0) + 1
    return dict(sorted(out.items()))


EVALUATOR_MEDIA = frozenset(
    {"transcript_labelled", "render_record", "render_audit", "video_paths", "anchor_map"}
)
"""Media-index kinds that name people or facts (speaker-labelled transcripts, what each shot drew
and where, the render audit, whose face each face anchor is): evaluator keys, so a release keeps
them out of ``media/`` (which a memory system reads) under ``data/<family>/annotations/``."""


def release_media_path(family: str, row: dict) -> str:
    """Where a media-index row's file lives in the release."""
    path = str(row["path"])
    if row.get("kind") in EVALUATOR_MEDIA:
        return f"data/{family}/annotations/{path.removeprefix('media/')}"
    return path


def _link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def changelog(c: RunContents, stats: dict, version: str, notes: str | None) -> str:
    """This version's entry: what it was built from and what it holds (no dates: releases are
    reproducible byte for byte)."""
    cats = ", ".join(f"{n} {cat}" for cat, n in stats["questions"]["by_category"].items())
    theme_sha = sha256_bytes(c.theme_bytes)[:16]
    q = stats["questions"]
    lines = [
        "# Changelog",
        "",
        f"## {version}",
        "",
        f"- Built from theme `{c.theme.name}` (sha256 {theme_sha}…), seed {c.world.seed}, "
        f"mnemoforge {code_version()}.",
        f"- {get_family(c.theme.family).contents_line(stats)}, {stats['world']['people']} people.",
        f"- {q['kept']} questions kept of {q['candidates']} candidates: {cats}.",
    ]
    from mnemoforge.production import video_card

    lines += video_card.changelog_lines(c.run_root, c.media, lambda m: release_media_path(c.theme.family, m))
    lines += review_lines(c.funnel)
    if notes:
        lines.append(f"- {notes.strip()}")
    return "\n".join(lines) + "\n"


def review_lines(funnel: dict) -> list[str]:
    """The human review's changes: which items left the release and why, which took their places."""
    changes = (funnel.get("human_review") or {}).get("changes")
    if not changes or not (changes["left"] or changes["entered"]):
        return []
    left = ", ".join(f"`{x['id']}` ({x['category']}: {x['why']})" for x in changes["left"]) or "none"
    entered = ", ".join(f"`{x['id']}` ({x['category']})" for x in changes["entered"]) or "none"
    n, m = len(changes["left"]), len(changes["entered"])
    return [
        f"- Human review: {n} item{'s' * (n != 1)} left the release: {left}.",
        f"  - {m} took {'their places' if n != 1 else 'its place'} (the next survivors of the same "
        f"categories): {entered}.",
    ]


def write_contents(
    c: RunContents, root: Path, version: str, notes: str | None = None, shared_world: bool = False
) -> ReleaseManifest:
    """Write the release of ``c`` into the (empty) folder ``root``; ``shared_world``: a family of a
    multi-family release (``mnemoforge/multi_family.py``), whose one World the release's root holds."""
    fam = c.theme.family
    kept_ids = {v.item for v in c.verdicts} - {v.item for v in c.verdicts if not v.keep}
    kept = key_letters.spread([q for q in c.questions if q.id in kept_ids], c.world.seed)
    rejected = [q for q in c.questions if q.id not in kept_ids]
    q_rows = [q.model_dump(mode="json") for q in kept]
    write_jsonl_and_parquet(
        q_rows, root / f"data/{fam}/questions.jsonl", root / f"data/{fam}/questions.parquet"
    )
    obs_rows = [o.model_dump(mode="json") for o in c.observations]
    write_jsonl_and_parquet(
        obs_rows, root / f"data/{fam}/observations.jsonl", root / f"data/{fam}/observations.parquet"
    )
    write_jsonl_and_parquet(
        c.captions, root / f"data/{fam}/captions.jsonl", root / f"data/{fam}/captions.parquet"
    )
    if not shared_world:
        atomic.write_json(root / "data/world.json", c.world)
    atomic.write_jsonl(root / "gates/verdicts.jsonl", [v.model_dump(mode="json") for v in c.verdicts])
    atomic.write_jsonl(root / "gates/rejected.jsonl", [q.model_dump(mode="json") for q in rejected])
    atomic.write_json(root / "gates/funnel.json", c.funnel)
    for name, model in EXPORTED.items():
        atomic.write_json(root / f"schemas/{name}.schema.json", model.model_json_schema())
    atomic.write_bytes(root / "theme.yaml", c.theme_bytes)
    atomic.write_json(
        root / "config.resolved.json",
        {
            "theme": theme_as_written(c.theme_bytes).model_dump(mode="json"),  # paths as written
            "seed": c.world.seed,
            "code_version": code_version(),
            "run_id": c.run_id,
            "release_version": version,
        },
    )
    media = [m | {"path": release_media_path(fam, m)} for m in c.media]
    for m, dst in progress.track(list(zip(c.media, media, strict=True)), "freeze", detail="media"):
        _link_or_copy(c.run_root / m["path"], root / dst["path"])
    atomic.write_jsonl(root / "media/index.jsonl", media)
    family = get_family(fam)
    configs = {
        f"{fam}_questions": f"data/{fam}/questions.parquet",
        f"{fam}_observations": f"data/{fam}/observations.parquet",
        f"{fam}_captions": f"data/{fam}/captions.parquet",
    }
    configs |= family.release_tables(c.family_input(kept), root)
    entries = None
    if c.selections is not None:  # length variants: one config per variant and view
        from mnemoforge.exporters import variant_tables

        unit = family.variant_unit_name or "episodes"
        vconfigs, entries = variant_tables.write_variants(
            root, fam, unit, c.selections, c.captions, len(kept)
        )
        configs |= vconfigs
    configs |= write_agent_view(root, fam)  # after the variants' data tables: it projects them too
    atomic.write_bytes(root / VALIDATOR, Path(release_validator.__file__).read_bytes())
    stats = statistics(c, kept)
    if entries is not None:
        stats["variants"] = [e.model_dump(mode="json") for e in entries]
    atomic.write_json(root / "dataset_statistics.json", stats)
    card = dataset_card(
        c.theme,
        stats,
        configs,
        c.world.seed,
        code_version(),
        family.card_section(stats),
        family.contents_line(stats),
        c.funnel,
        identity=(c.theme.name, version, c.run_id),
    )
    from mnemoforge.production import video_card
    from mnemoforge.production.ledger_card import card_section

    if entries is not None:
        from mnemoforge.exporters.variant_tables import card_section as variants_section

        units = len({family.variant_unit(o) for o in c.observations})
        card += variants_section(entries, units, c.funnel)
    card += card_section(c.run_root)  # the call ledger's totals ("" for an offline build)
    where = lambda m: release_media_path(fam, m)  # noqa: E731
    card += video_card.card_section(c.run_root, c.media, where)  # fallback paths ("" without model video)
    atomic.write_text(root / "README.md", card)
    atomic.write_text(root / "CHANGELOG.md", changelog(c, stats, version, notes))
    files = sorted(p for p in root.rglob("*") if p.is_file())
    files_ = {
        p.relative_to(root).as_posix(): FileEntry(sha256=sha256_file(p), bytes=p.stat().st_size)
        for p in progress.track(files, "freeze", detail="checksums")
    }
    atomic.write_text(root / CHECKSUMS, "".join(f"{e.sha256}  {rel}\n" for rel, e in sorted(files_.items())))
    files_[CHECKSUMS] = FileEntry(
        sha256=sha256_file(root / CHECKSUMS), bytes=(root / CHECKSUMS).stat().st_size
    )
    manifest = ReleaseManifest(
        name=c.theme.name,
        version=version,
        family=fam,
        seed=c.world.seed,
        code_version=code_version(),
        theme_sha256=sha256_bytes(c.theme_bytes),
        run_id=c.run_id,
        counts={
            "questions": len(kept),
            "rejected": len(rejected),
            "observations": len(c.observations),
            "media_files": len(c.media),
        }
        | family.counts(stats),
        files=dict(sorted(files_.items())),
        variants=entries,
    )
    atomic.write_text(root / MANIFEST, canonical_json(manifest, indent=2) + "\n")
    return manifest


def staging_glob(run_id: str) -> str:
    """Names of the release staging folders a run's freeze makes beside its release."""
    return f"{atomic.TMP_PREFIX}*.{run_id}.*"


def sweep_stale_staging(releases: Path, runs_root: Path) -> list[Path]:
    """Remove staging folders under ``releases`` (``.tmp-VERSION.RUN_ID.*``) whose run is not being
    built (its run lock is free: the freeze that made them was killed). Live builds keep theirs."""
    from mnemoforge.store.locks import is_held, run_lock_path

    removed = []
    for p in sorted(releases.glob(f"{atomic.TMP_PREFIX}*")):
        parts = p.name[len(atomic.TMP_PREFIX) :].rsplit(".", 2)
        if not p.is_dir() or len(parts) != 3 or is_held(run_lock_path(runs_root, parts[1])):
            continue
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
    return removed


def freeze(c: RunContents, dest: Path, version: str, notes: str | None = None) -> Path:
    """Write the release to ``dest`` atomically (build beside it, then rename).

    Re-freezing identical content is a no-op; different content under an existing version raises.
    An empty folder at ``dest`` (a copy that never happened) is replaced; any other folder without
    a MANIFEST.json is refused. Staging folders that killed freezes left beside it are swept.
    """
    c = with_variants(c)
    kept = {v.item for v in c.verdicts} - {v.item for v in c.verdicts if not v.keep}
    if not kept:
        raise EmptyReleaseError(
            f"no question survived the gates ({len(c.questions)} candidates; see "
            f"{c.run_root / 'gates' / 'funnel.json'}); nothing was frozen"
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    sweep_stale_staging(dest.parent, c.run_root.parent)
    # staging owned by this run and this call (mkdtemp): concurrent freezes never share one, and
    # the next build of the same run sweeps a killed one's (pipeline.prepare, staging_glob)
    tmp = Path(tempfile.mkdtemp(prefix=f"{atomic.TMP_PREFIX}{dest.name}.{c.run_id}.", dir=dest.parent))
    tmp.chmod(atomic.dir_mode())  # mkdtemp makes it 0700: a release is readable by all
    try:
        write_contents(c, tmp, version, notes)
        faults.checkpoint("freeze:staged")
        if dest.exists() and not (dest.is_dir() and not any(dest.iterdir())):
            if not (dest / MANIFEST).is_file():
                raise ReleaseExistsError(
                    f"{dest} exists but is not a release (no {MANIFEST}); move it away or bump the version"
                )
            if (dest / MANIFEST).read_bytes() == (tmp / MANIFEST).read_bytes():
                return dest
            raise ReleaseExistsError(f"{dest} already exists with different content; bump the version")
        os.replace(tmp, dest)  # an empty folder at dest is replaced
        return dest
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
