"""Verify a frozen release: checksums, schemas, counts, evidence ids and re-derived answers.

The second pass (``validators/release_audit.py``) checks what users load: every table the card
exposes in each format (Parquet against JSONL row for row), embedded and indexed media against
the files, MANIFEST.json's counts and code version against the data, and question texts
re-realised from their programs. See that module for what no check can catch.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from mnemoforge.exporters.release import CHECKSUMS, MANIFEST
from mnemoforge.exporters.tables import TableReader
from mnemoforge.exporters.views import AGENT_DIR, forbidden_fields
from mnemoforge.generators.families import get_family
from mnemoforge.hashing import sha256_file
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.release import ReleaseManifest
from mnemoforge.schemas.world import World
from mnemoforge.validators import release_meaning as meaning
from mnemoforge.validators.agent_keys import check_agent_keys
from mnemoforge.validators.gates import EXACT_GATES, GateContext


def verify_release(root: Path, world: World | None = None) -> list[str]:
    """Every problem found, each naming its file; an empty list means the release is OK.
    ``world``: the World of a family release inside a multi-family one (which holds it once)."""
    mpath = root / MANIFEST
    if not mpath.exists():
        return [f"{MANIFEST}: missing (is {root} a release folder?)"]
    try:
        manifest = ReleaseManifest.model_validate_json(mpath.read_text())
    except ValidationError as e:
        return [f"{MANIFEST}: invalid: {e.errors()[0]['loc']}: {e.errors()[0]['msg']}"]
    problems = _check_files(root, manifest)
    if problems:
        return problems  # content checks on altered files would only repeat the same news
    if manifest.families:  # one World in several families (docs/cross-family.md)
        from mnemoforge.validators.multi_check import verify_multi

        return verify_multi(root, manifest, verify_release)
    problems = meaning.manifest_fields(root, manifest.model_dump())
    if not meaning.family_readable(root, manifest.family):
        return problems
    tables = TableReader()  # each table read once by all the checks below
    try:
        problems += _check_content(root, manifest, tables, world)
        problems += check_agent_view(root, manifest.family, tables)
        problems += check_agent_keys(root, manifest.family, tables)
        return problems + meaning.content(root, manifest.family, tables)
    except Exception as e:  # no edit may crash verify: say where it stopped
        return problems + [meaning.stopped(e)]


def _check_files(root: Path, manifest: ReleaseManifest) -> list[str]:
    problems = []
    for rel, entry in manifest.files.items():
        p = root / rel
        if not p.is_file():
            problems.append(f"{rel}: missing")
        elif p.stat().st_size != entry.bytes or sha256_file(p) != entry.sha256:
            problems.append(f"{rel}: checksum mismatch (file was altered)")
    listed = set(manifest.files) | {MANIFEST}
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.relative_to(root).as_posix() not in listed:
            problems.append(f"{p.relative_to(root).as_posix()}: not listed in {MANIFEST}")
    sums = root / CHECKSUMS
    if sums.is_file():
        for line in sums.read_text().splitlines():
            digest, _, rel = line.partition("  ")
            if rel in manifest.files and manifest.files[rel].sha256 != digest:
                problems.append(f"{CHECKSUMS}: {rel} disagrees with {MANIFEST}")
    return problems


def _load(
    tables: TableReader, root: Path, rel: str, model: type, problems: list[str], extra: tuple[str, ...] = ()
) -> list:
    """Validate each JSONL row against ``model``; ``extra`` names release-only columns (e.g. media paths)."""
    out = []
    for i, row in enumerate(tables.rows(root / rel)):
        try:
            out.append(model.model_validate({k: v for k, v in row.items() if k not in extra}))
        except ValidationError as e:
            err = e.errors()[0]
            problems.append(f"{rel}: line {i + 1}: {'.'.join(map(str, err['loc']))}: {err['msg']}")
    return out


def _check_content(
    root: Path, manifest: ReleaseManifest, tables: TableReader, world: World | None = None
) -> list[str]:
    problems: list[str] = []
    fam = manifest.family
    world = world or World.model_validate_json((root / "data/world.json").read_text())
    questions: list[Question] = _load(tables, root, f"data/{fam}/questions.jsonl", Question, problems)
    clips_file = f"data/{fam}/clips.jsonl"
    clips: list[Clip] = []
    if (root / clips_file).exists():
        clips = _load(tables, root, clips_file, Clip, problems, extra=("video",))
    obs: list[Observation] = _load(tables, root, f"data/{fam}/observations.jsonl", Observation, problems)
    stats = json.loads((root / "dataset_statistics.json").read_text())
    if stats["questions"]["kept"] != len(questions):
        problems.append(
            f"dataset_statistics.json: {stats['questions']['kept']} questions listed, "
            f"{len(questions)} in data/{fam}/questions.jsonl"
        )
    if "clips" in stats and stats["clips"]["count"] != len(clips):
        problems.append(
            f"dataset_statistics.json: {stats['clips']['count']} clips listed, {len(clips)} found"
        )
    ctx = GateContext(world, {o.id: o for o in obs}, questions)
    for q in questions:
        for gate in (*EXACT_GATES, *get_family(fam).gates()):
            v = gate.check(q, ctx)
            if not v.keep:
                problems.append(f"data/{fam}/questions.jsonl: {q.id}: {gate.name}: {v.reason}")
    from mnemoforge.validators.variant_check import check_variants

    problems += check_variants(root, manifest, world, questions, tables)
    return problems + _audit(root, manifest, stats, world, questions, tables)


def _audit(
    root: Path,
    manifest: ReleaseManifest,
    stats: dict,
    world: World,
    questions: list[Question],
    tables: TableReader,
) -> list[str]:
    """What users load, and MANIFEST.json's own claims (validators/release_audit.py)."""
    from mnemoforge.validators import release_audit as audit

    try:
        family_counts = get_family(manifest.family).counts(stats)
    except (KeyError, TypeError):
        family_counts = {}
    return (
        audit.card_tables(root, manifest, tables)
        + audit.embedded_media(root, manifest, tables)
        + audit.manifest_facts(root, manifest, family_counts, tables)
        + audit.question_texts(root, manifest.family, world, questions)
    )


def check_agent_view(root: Path, family: str, tables: TableReader | None = None) -> list[str]:
    """The agent view exists, holds the kept questions, and no agent-input table (JSONL rows at any
    depth, Parquet columns and their struct fields) has an evaluator-key field."""
    import pyarrow.parquet as pq

    agent = root / AGENT_DIR / family
    if not (agent / "questions.jsonl").is_file():
        return [f"{AGENT_DIR}/{family}/questions.jsonl: missing (the release has no agent view)"]
    tables = tables or TableReader()
    problems = []
    agent_ids = [r["id"] for r in tables.rows(agent / "questions.jsonl")]
    data_ids = [r["id"] for r in tables.rows(root / f"data/{family}/questions.jsonl")]
    if agent_ids != data_ids:
        problems.append(f"{AGENT_DIR}/{family}/questions.jsonl: question ids differ from data/{family}")
    for path in sorted(agent.rglob("*")):
        if path.suffix == ".jsonl":
            bad = sorted({f for row in tables.rows(path) for f in forbidden_fields(row)})
        elif path.suffix == ".parquet":
            bad = _parquet_forbidden(pq.read_schema(path))
        else:
            continue
        if bad:
            rel = path.relative_to(root).as_posix()
            problems.append(f"{rel}: evaluator key field(s) {bad} in an agent-input table")
    return problems


def _parquet_forbidden(schema) -> list[str]:  # type: ignore[no-untyped-def]
    import pyarrow as pa

    from mnemoforge.exporters.views import AGENT_FORBIDDEN

    found: list[str] = []

    def walk(t, path: str) -> None:  # type: ignore[no-untyped-def]
        if pa.types.is_struct(t):
            for f in t:
                if f.name in AGENT_FORBIDDEN:
                    found.append(f"{path}.{f.name}")
                walk(f.type, f"{path}.{f.name}")
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            walk(t.value_type, path)

    for f in schema:
        if f.name in AGENT_FORBIDDEN:
            found.append(f.name)
        walk(f.type, f.name)
    return sorted(set(found))
