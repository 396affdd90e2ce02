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


def _has_empty_struct(t: pa.DataType) -> bool:
    if pa.types.is_struct(t):
        return t.num_fields == 0 or any(_has_empty_struct(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _has_empty_struct(t.value_type)
    return False


def _empty_dicts_to_none(v: object) -> object:
    if isinstance(v, dict):
        return {k: _empty_dicts_to_none(x) for k, x in v.items()} if v else None
    if isinstance(v, list):
        return [_empty_dicts_to_none(x) for x in v]
    return v


def parquet_table(flat: list[dict]) -> pa.Table:
    """The Arrow table of flat rows. Parquet cannot store a struct with no fields, which pyarrow
    infers when a nested mapping is empty in every row (a tiny album where no shot has a holder):
    only then are such empty mappings stored as nulls."""
    if not flat:
        return pa.table({"id": pa.array([], pa.string())})
    table = pa.Table.from_pylist(flat)
    if any(_has_empty_struct(f.type) for f in table.schema):
        table = pa.Table.from_pylist([{k: _empty_dicts_to_none(v) for k, v in r.items()} for r in flat])
    return table


def write_jsonl_and_parquet(rows: list[dict], jsonl: Path, parquet: Path) -> list[Path]:
    atomic.write_jsonl(jsonl, rows)
    table = parquet_table([flat_row(r) for r in rows])
    with atomic.atomic_path(parquet) as tmp:
        pq.write_table(table, tmp, compression="zstd", use_dictionary=False, write_statistics=False)
    return [jsonl, parquet]


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class TableReader:
    """Rows of each JSONL or Parquet file, read once (a verify pass reads some tables four times).
    The rows are shared between callers, so none may change them."""

    def __init__(self) -> None:
        self._rows: dict[Path, list[dict]] = {}

    def rows(self, path: Path) -> list[dict]:
        if path not in self._rows:
            parquet = path.suffix == ".parquet"
            self._rows[path] = pq.read_table(path).to_pylist() if parquet else read_jsonl(path)
        return self._rows[path]
