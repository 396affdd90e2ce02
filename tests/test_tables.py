"""Release tables: JSONL as written, Parquet that always writes and reads back the same rows."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from mnemoforge.exporters.tables import read_jsonl, write_jsonl_and_parquet


def test_a_mapping_empty_in_every_row_still_writes(tmp_path: Path) -> None:
    # a two-clip album where no shot has a holder: pyarrow infers a struct with no fields
    rows = [
        {"id": "c1", "shots": [{"id": "s1", "holders": {}}]},
        {"id": "c2", "shots": [{"id": "s2", "holders": {}}, {"id": "s3", "holders": {}}]},
    ]
    jsonl, parquet = write_jsonl_and_parquet(rows, tmp_path / "t.jsonl", tmp_path / "t.parquet")
    assert read_jsonl(jsonl) == rows  # the JSONL keeps the empty mappings
    back = pq.read_table(parquet).to_pylist()
    assert [r["id"] for r in back] == ["c1", "c2"]
    assert back[1]["shots"] == [{"id": "s2", "holders": None}, {"id": "s3", "holders": None}]


def test_mappings_with_fields_keep_their_structs(tmp_path: Path) -> None:
    rows = [{"id": "c1", "shots": [{"id": "s1", "holders": {"o1": "p1"}}, {"id": "s2", "holders": {}}]}]
    _, parquet = write_jsonl_and_parquet(rows, tmp_path / "t.jsonl", tmp_path / "t.parquet")
    back = pq.read_table(parquet).to_pylist()
    assert back[0]["shots"][0]["holders"] == {"o1": "p1"}
    assert back[0]["shots"][1]["holders"] == {"o1": None}  # as before: the inferred struct's fields
    top = [{"id": "a", "meta": {"k": 1}}]  # top-level mappings are JSON strings
    _, p2 = write_jsonl_and_parquet(top, tmp_path / "u.jsonl", tmp_path / "u.parquet")
    assert pq.read_table(p2).to_pylist() == [{"id": "a", "meta": '{"k":1}'}]
