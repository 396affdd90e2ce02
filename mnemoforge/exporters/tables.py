"""Rows → JSONL and Parquet, deterministically (sorted keys, nested values as JSON strings)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from mnemoforge.hashing import canonical_json
from mnemoforge.store import atomic


def flat_row(row: dict) -> dict:
    """Nested dicts become JSON strings so every Parquet row has the same columns and types."""
    return {k: (canonical_json(v) if isinstance(v, dict) else v) for k, v in sorted(row.items())}


def write_jsonl_and_parquet(rows: list[dict], jsonl: Path, parquet: Path) -> list[Path]:
    atomic.write_jsonl(jsonl, rows)
    flat = [flat_row(r) for r in rows]
    table = pa.Table.from_pylist(flat) if flat else pa.table({"id": pa.array([], pa.string())})
    with atomic.atomic_path(parquet) as tmp:
        pq.write_table(table, tmp, compression="zstd", use_dictionary=False, write_statistics=False)
    return [jsonl, parquet]


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
