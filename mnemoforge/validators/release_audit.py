"""verify's second pass: what users load, checked against itself and against the data.

``release_check.verify_release`` first checks every file against MANIFEST.json and the
checksums file, then the JSONL content (schemas, evidence, re-derived answers). These checks
close the blind spots a tampering run found, each in its own function:

- ``card_tables``: every table the card's configs expose exists, is listed, and reads;
  each Parquet table agrees row for row with its JSONL twin (so an answer edited in
  ``questions.parquet`` alone is caught even with both checksum files rewritten).
- ``embedded_media``: images embedded in Parquet and the media index agree with the media files.
- ``manifest_facts``: MANIFEST.json's counts against the data and the statistics, and its
  code version, seed and theme hash against the run id, config.resolved.json and theme.yaml.
- ``question_texts``: each question re-realised from its template, program and arguments on the
  World (where the family exposes its text functions; paraphrased items are skipped).

What no check can catch: a consistent rewrite of the data and of every file derived from it
(tables, statistics, media index) plus both checksum files. Pin a release by the sha256 of its
MANIFEST.json (``manifest_sha256``, printed by ``mnemoforge verify``) to detect that.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from mnemoforge import yaml_io
from mnemoforge.exporters.tables import TableReader, flat_row
from mnemoforge.hashing import content_hash, sha256_bytes, sha256_file, short
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.release import ReleaseManifest
from mnemoforge.schemas.world import World

MANIFEST = "MANIFEST.json"


def manifest_sha256(root: Path) -> str:
    """The digest a user pins a release by (MANIFEST.json lists every other file's digest)."""
    return sha256_file(root / MANIFEST)


def card_meta(root: Path) -> dict:
    """The card's YAML front matter ({} when there is none or it does not read)."""
    card = root / "README.md"
    if not card.is_file():
        return {}
    text = card.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    head = text[4:].split("\n---", 1)[0]
    try:
        meta = yaml_io.safe_load(head) or {}
    except yaml.YAMLError:
        return {}
    return meta if isinstance(meta, dict) else {}


def card_configs(root: Path) -> dict[str, list[str]]:
    """config name -> data files, from the card's YAML front matter ({} when there is none)."""
    meta = card_meta(root)
    out: dict[str, list[str]] = {}
    for cfg in meta.get("configs", []) or []:
        files = cfg.get("data_files", [])
        out[str(cfg.get("config_name"))] = [f["path"] if isinstance(f, dict) else str(f) for f in files]
    return out


def _norm(v: Any) -> Any:
    """Parquet fills absent struct keys with nulls; JSON omits nothing. Compare without nulls."""
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items() if x is not None}
    if isinstance(v, list | tuple):
        return [_norm(x) for x in v]
    return v


def card_tables(root: Path, manifest: ReleaseManifest, tables: TableReader | None = None) -> list[str]:
    tables = tables or TableReader()
    problems: list[str] = []
    configs = card_configs(root)
    if not configs:
        return ["README.md: the card has no configs in its front matter (what users load is unknown)"]
    for name, files in sorted(configs.items()):
        for rel in files:
            if rel not in manifest.files:
                problems.append(f"README.md: config {name} loads {rel}, which {MANIFEST} does not list")
                continue
            try:
                rows = tables.rows(root / rel)
            except Exception as e:  # unreadable is exactly what a user would hit
                problems.append(f"{rel}: cannot be read ({type(e).__name__}: {e})")
                continue
            twin = rel[: -len(".parquet")] + ".jsonl"
            if rel.endswith(".parquet") and (root / twin).is_file():
                problems += _same_rows(rel, rows, twin, tables.rows(root / twin))
    return problems


def _same_rows(rel: str, prows: list[dict], twin: str, jrows: list[dict]) -> list[str]:
    if len(prows) != len(jrows):
        return [f"{rel}: {len(prows)} rows, but {twin} has {len(jrows)}"]
    out = []
    for i, (p, j) in enumerate(zip(prows, jrows, strict=True)):
        jf = flat_row(j)
        if p == jf or _norm(p) == _norm(jf):  # the same, column by column (null and absent alike)
            continue
        for col in sorted(set(p) | set(jf)):
            if _norm(p.get(col)) != _norm(jf.get(col)):
                rid = j.get("id", f"line {i + 1}")
                out.append(f"{rel}: row {i + 1} ({rid}) column {col!r} disagrees with {twin}")
                break
        if len(out) >= 5:
            out.append(f"{rel}: (further disagreeing rows not listed)")
            break
    return out


def embedded_media(root: Path, manifest: ReleaseManifest, tables: TableReader | None = None) -> list[str]:
    """Media files against the media index, and images embedded in Parquet against the files."""
    tables = tables or TableReader()
    problems: list[str] = []
    index = root / "media/index.jsonl"
    if index.is_file():
        for r in tables.rows(index):
            p = root / r["path"]
            if not p.is_file():
                problems.append(f"media/index.jsonl: {r['path']} is missing")
            elif p.stat().st_size != r.get("bytes") or sha256_file(p) != r.get("sha256"):
                problems.append(
                    f"{r['path']}: differs from its entry in media/index.jsonl (media was edited)"
                )
    for rel in sorted(manifest.files):
        if not rel.endswith(".parquet") or not (root / rel).is_file():
            continue
        try:
            rows = tables.rows(root / rel)
        except Exception:
            continue  # reported by card_tables when the card exposes it
        for r in rows:
            for v in r.values():
                if isinstance(v, dict) and isinstance(v.get("bytes"), bytes) and v.get("path"):
                    f = root / v["path"]
                    if f.is_file() and sha256_bytes(v["bytes"]) != sha256_file(f):
                        problems.append(
                            f"{v['path']}: differs from the copy embedded in {rel} (media was edited)"
                        )
    return problems


def manifest_facts(
    root: Path, manifest: ReleaseManifest, family_counts: dict[str, int], tables: TableReader | None = None
) -> list[str]:
    """MANIFEST.json's own claims: counts, code version, seed, theme hash, run id."""
    tables = tables or TableReader()
    problems: list[str] = []
    fam = manifest.family

    def rows(rel: str) -> int | None:
        return len(tables.rows(root / rel)) if (root / rel).is_file() else None

    actual: dict[str, int | None] = {
        "questions": rows(f"data/{fam}/questions.jsonl"),
        "rejected": rows("gates/rejected.jsonl"),
        "observations": rows(f"data/{fam}/observations.jsonl"),
        "media_files": rows("media/index.jsonl"),
    }
    if (root / f"data/{fam}/clips.jsonl").is_file():
        actual["clips"] = rows(f"data/{fam}/clips.jsonl")
    for key, n in sorted(manifest.counts.items()):
        want = actual.get(key, family_counts.get(key))
        where = "the data" if key in actual else "dataset_statistics.json"
        if want is None:
            problems.append(f"{MANIFEST}: counts.{key} = {n} cannot be checked (no such table or statistic)")
        elif want != n:
            problems.append(f"{MANIFEST}: counts.{key} = {n}, but {where} has {want}")
    for key in sorted(set(actual) - set(manifest.counts)):
        if actual[key] is not None:
            problems.append(f"{MANIFEST}: counts.{key} is missing (the data has {actual[key]})")
    theme = root / "theme.yaml"
    if theme.is_file() and sha256_file(theme) != manifest.theme_sha256:
        problems.append(f"{MANIFEST}: theme_sha256 does not match theme.yaml")
    expected_run = f"{manifest.run_id.rsplit('-s', 1)[0]}-s{manifest.seed}-" + short(
        content_hash(manifest.theme_sha256, manifest.seed, manifest.code_version), 10
    )
    if expected_run != manifest.run_id:
        problems.append(
            f"{MANIFEST}: run_id {manifest.run_id} is not the run of theme_sha256, seed {manifest.seed} "
            f"and code_version {manifest.code_version} (one of them was edited)"
        )
    cfg_path = root / "config.resolved.json"
    if cfg_path.is_file():
        cfg = json.loads(cfg_path.read_text())
        for key, mine in (
            ("code_version", manifest.code_version),
            ("seed", manifest.seed),
            ("run_id", manifest.run_id),
        ):
            if key in cfg and cfg[key] != mine:
                problems.append(f"{MANIFEST}: {key} {mine!r}, but config.resolved.json says {cfg[key]!r}")
        if "release_version" in cfg and cfg["release_version"] != manifest.version:
            said = cfg["release_version"]
            problems.append(f"{MANIFEST}: version {manifest.version!r}, config.resolved.json: {said!r}")
    return problems


def question_texts(root: Path, fam: str, world: World, questions: list[Question]) -> list[str]:
    """Each question's text against the text its template renders from its program's arguments."""
    from mnemoforge.validators.realise import realiser

    theme_file = root / "theme.yaml"
    realise = realiser(fam, theme_file.read_bytes() if theme_file.is_file() else b"", world)
    if realise is None:
        return []
    problems = []
    for q in questions:
        if q.lineage.text_model is not None:
            continue  # paraphrased by a model: its entities were checked when it was made
        want = realise(q)
        if want is not None and q.question not in want:
            problems.append(
                f"data/{fam}/questions.jsonl: {q.id}: question text does not match its program "
                f"({q.program.fn} {json.dumps(q.program.args, sort_keys=True)[:120]}): expected "
                + " or ".join(repr(w) for w in want)
            )
    return problems
