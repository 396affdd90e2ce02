"""Write a release's agent view: ``agent/<family>/`` tables with no evaluator key in them.

Each agent table is projected from its ``data/<family>/`` twin through
:func:`mnemoforge.exporters.views.agent_row` (JSONL tables) or by dropping columns (Parquet-only
media tables such as icm shots, whose stills are embedded), so the two views never disagree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from mnemoforge.exporters.tables import read_jsonl, write_jsonl_and_parquet
from mnemoforge.exporters.views import AGENT_DIR, AGENT_FORBIDDEN, agent_row, agent_tables
from mnemoforge.store import atomic


def config_name(family: str, table: str) -> str:
    """The card config of an agent table: ``agent_icm_shots``, ``agent_smm_concentrated_questions``."""
    return f"{AGENT_DIR}_{family}_{table.replace('/', '_')}"


def _parquet_only(src: Path, dst: Path, columns: tuple[str, ...] | None) -> None:
    table = pq.read_table(src)
    keep = [c for c in table.column_names if (columns is None or c in columns) and c not in AGENT_FORBIDDEN]
    table = table.select(keep)
    meta = dict(table.schema.metadata or {})
    if b"huggingface" in meta:
        hf = json.loads(meta[b"huggingface"])
        feats = hf.get("info", {}).get("features", {})
        hf["info"]["features"] = {k: v for k, v in feats.items() if k in keep}
        meta[b"huggingface"] = json.dumps(hf, sort_keys=True).encode()
        table = table.replace_schema_metadata(meta)
    with atomic.atomic_path(dst) as tmp:
        pq.write_table(table, tmp, compression="zstd", use_dictionary=False, write_statistics=False)


def variant_tables(data: Path, family: str) -> dict[str, tuple[str, ...] | None]:
    """The agent-input tables of the length variants under ``data/<family>/variants/<name>/``
    (an ablation's observations and captions, projected like the release's own; a length variant's
    ``haystacks``, each item's history, which holds no key)."""
    own = agent_tables(family)
    base = data / "variants"
    names = sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
    tables = ("observations", "captions", "haystacks")  # haystacks: a length variant's item histories
    return {f"variants/{n}/{t}": own.get(t) for n in names for t in tables}


def write_agent_view(root: Path, family: str) -> dict[str, str]:
    """Project every agent-input table of ``family`` (and of its length variants); returns the
    card configs of its own tables (name → parquet; a variant's config is named by
    ``exporters/variant_tables.py``)."""
    data, agent = root / "data" / family, root / AGENT_DIR / family
    configs: dict[str, str] = {}
    for table, columns in (agent_tables(family) | variant_tables(data, family)).items():
        src_jsonl, src_parquet = data / f"{table}.jsonl", data / f"{table}.parquet"
        dst_parquet = agent / f"{table}.parquet"
        if src_jsonl.exists():
            rows = [agent_row(table, r, columns) for r in read_jsonl(src_jsonl)]
            write_jsonl_and_parquet(rows, agent / f"{table}.jsonl", dst_parquet)
        elif src_parquet.exists():
            dst_parquet.parent.mkdir(parents=True, exist_ok=True)
            _parquet_only(src_parquet, dst_parquet, columns)
        else:
            continue
        if table.startswith("variants/"):
            continue
        configs[config_name(family, table)] = dst_parquet.relative_to(root).as_posix()
    return configs
