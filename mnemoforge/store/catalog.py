"""DuckDB catalog of runs, questions, evidence, verdicts and media, for querying across runs.

Rows go in as Arrow tables (one ``INSERT … SELECT`` per table, not one statement per row), and a
catalog used as a context manager commits everything indexed inside it as **one transaction**:
re-indexing a run replaces its rows atomically, so a resumed or repeated build never duplicates
rows and a failed build leaves the previous rows intact. ``Catalog(path, read_only=True)``
(what ``mnemoforge catalog`` opens) takes no write lock and cannot change the file.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterable
from pathlib import Path

import duckdb
import pyarrow as pa

from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict

# table -> columns as (name, SQL type, Arrow type); the SQL schema and the Arrow batches agree
COLUMNS: dict[str, list[tuple[str, str, pa.DataType]]] = {
    "runs": [
        ("run_id", "VARCHAR PRIMARY KEY", pa.string()),
        ("theme", "VARCHAR", pa.string()),
        ("seed", "BIGINT", pa.int64()),
        ("code_version", "VARCHAR", pa.string()),
        ("theme_sha256", "VARCHAR", pa.string()),
        ("run_dir", "VARCHAR", pa.string()),
    ],
    "questions": [
        ("run_id", "VARCHAR", pa.string()),
        ("question_id", "VARCHAR", pa.string()),
        ("family", "VARCHAR", pa.string()),
        ("category", "VARCHAR", pa.string()),
        ("question", "VARCHAR", pa.string()),
        ("answer", "VARCHAR", pa.string()),
        ("cutoff", "INTEGER", pa.int32()),
        ("target_people", "VARCHAR[]", pa.list_(pa.string())),
        ("program", "VARCHAR", pa.string()),
        ("template", "VARCHAR", pa.string()),
        ("kept", "BOOLEAN", pa.bool_()),
    ],
    "evidence": [
        ("run_id", "VARCHAR", pa.string()),
        ("question_id", "VARCHAR", pa.string()),
        ("observation_id", "VARCHAR", pa.string()),
        ("clip_id", "VARCHAR", pa.string()),
    ],
    "verdicts": [
        ("run_id", "VARCHAR", pa.string()),
        ("question_id", "VARCHAR", pa.string()),
        ("gate", "VARCHAR", pa.string()),
        ("gate_version", "VARCHAR", pa.string()),
        ("keep", "BOOLEAN", pa.bool_()),
        ("reason", "VARCHAR", pa.string()),
        ("scores", "JSON", pa.string()),
    ],
    "media": [
        ("run_id", "VARCHAR", pa.string()),
        ("path", "VARCHAR", pa.string()),
        ("kind", "VARCHAR", pa.string()),
        ("bytes", "BIGINT", pa.int64()),
        ("sha256", "VARCHAR", pa.string()),
        ("duration_s", "DOUBLE", pa.float64()),
        ("has_video", "BOOLEAN", pa.bool_()),
        ("has_audio", "BOOLEAN", pa.bool_()),
    ],
    "releases": [
        ("run_id", "VARCHAR", pa.string()),
        ("name", "VARCHAR", pa.string()),
        ("version", "VARCHAR", pa.string()),
        ("path", "VARCHAR", pa.string()),
        ("manifest_sha256", "VARCHAR", pa.string()),
    ],
}
TABLES = tuple(COLUMNS)
SCHEMA = "\n".join(
    f"CREATE TABLE IF NOT EXISTS {t} ({', '.join(f'{n} {sql}' for n, sql, _ in cols)});"
    for t, cols in COLUMNS.items()
)


def arrow_table(table: str, rows: Iterable[tuple]) -> pa.Table:
    """Rows (tuples in column order) as an Arrow table with the catalog's column types."""
    cols = COLUMNS[table]
    columns = list(zip(*rows, strict=True)) or [() for _ in cols]
    return pa.table(
        {n: pa.array(list(vals), type=typ) for (n, _, typ), vals in zip(cols, columns, strict=True)}
    )


def _connect(
    path: Path, read_only: bool = False, attempts: int = 60, wait_s: float = 0.5
) -> duckdb.DuckDBPyConnection:
    """DuckDB allows one writing process at a time: builds on several workers share the catalog,
    so a locked file is retried (briefly held: each build opens it only to index)."""
    for i in range(attempts):
        try:
            if read_only:  # queries only: no COPY TO, no files read or written outside the catalog
                config = {"enable_external_access": False, "lock_configuration": True}
                return duckdb.connect(str(path), read_only=True, config=config)
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as e:
            if "lock" not in str(e).lower() or i == attempts - 1:
                raise
            time.sleep(wait_s)
    raise AssertionError("unreachable")


_names = itertools.count()


class Catalog:
    """The catalog file. As a context manager (writable), one transaction spans the block."""

    def __init__(self, path: Path, read_only: bool = False) -> None:
        self.path, self.read_only = Path(path), read_only
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.con = _connect(self.path, read_only)
        self._in_tx = False
        if not read_only:
            self.con.execute(SCHEMA)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Catalog:
        if not self.read_only:
            self.con.execute("BEGIN TRANSACTION")
            self._in_tx = True
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        try:
            if self._in_tx:
                self.con.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self._in_tx = False
            self.close()

    def _write(self, statements: list[tuple[str, list | None, pa.Table | None]]) -> None:
        """Run ``(sql, params, arrow)`` statements inside the open transaction, or in one of
        their own; ``arrow`` is registered as the view ``_rows`` for that statement."""
        own = not self._in_tx
        if own:
            self.con.execute("BEGIN TRANSACTION")
        try:
            for sql, params, table in statements:
                if table is None:
                    self.con.execute(sql, params or [])
                    continue
                view = f"_rows_{next(_names)}"
                self.con.register(view, table)
                try:
                    self.con.execute(sql.replace("_rows", view), params or [])
                finally:
                    self.con.unregister(view)
            if own:
                self.con.execute("COMMIT")
        except Exception:
            if own:
                self.con.execute("ROLLBACK")
            raise

    def _replace(self, table: str, run_id: str, rows: Iterable[tuple]) -> None:
        arrow = arrow_table(table, rows)
        stmts: list[tuple[str, list | None, pa.Table | None]] = [
            (f"DELETE FROM {table} WHERE run_id = ?", [run_id], None)
        ]
        if arrow.num_rows:
            stmts.append((f"INSERT INTO {table} SELECT * FROM _rows", None, arrow))
        self._write(stmts)

    def index_run(
        self, run_id: str, theme: str, seed: int, code_version: str, theme_sha: str, run_dir: Path
    ) -> None:
        self._replace("runs", run_id, [(run_id, theme, seed, code_version, theme_sha, str(run_dir))])

    def index_questions(
        self, run_id: str, questions: list[Question], kept: set[str], episode_of: dict[str, str]
    ) -> None:
        self._replace(
            "questions",
            run_id,
            [
                (
                    run_id,
                    q.id,
                    q.family,
                    q.category,
                    q.question,
                    q.answer,
                    q.cutoff,
                    list(q.target_people),
                    q.program.model_dump_json(),
                    q.lineage.template,
                    q.id in kept,
                )
                for q in questions
            ],
        )
        self._replace(
            "evidence", run_id, [(run_id, q.id, e, episode_of.get(e)) for q in questions for e in q.evidence]
        )

    def index_verdicts(self, run_id: str, verdicts: list[Verdict]) -> None:
        self._replace(
            "verdicts",
            run_id,
            [
                (
                    run_id,
                    v.item,
                    v.gate,
                    v.gate_version,
                    v.keep,
                    v.reason,
                    json.dumps(v.scores, sort_keys=True),
                )
                for v in verdicts
            ],
        )

    def index_media(self, run_id: str, rows: list[dict]) -> None:
        self._replace(
            "media",
            run_id,
            [
                (
                    run_id,
                    r["path"],
                    r["kind"],
                    r["bytes"],
                    r["sha256"],
                    r.get("duration_s"),
                    r.get("has_video"),
                    r.get("has_audio"),
                )
                for r in rows
            ],
        )

    def index_release(self, run_id: str, name: str, version: str, path: Path, manifest_sha: str) -> None:
        """One row per (run, version): a run may be frozen as several versions."""
        self._write(
            [
                ("DELETE FROM releases WHERE run_id = ? AND version = ?", [run_id, version], None),
                (
                    "INSERT INTO releases SELECT * FROM _rows",
                    None,
                    arrow_table("releases", [(run_id, name, version, str(path), manifest_sha)]),
                ),
            ]
        )

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        return self.con.execute(sql, params or []).fetchall()

    def counts(self, run_id: str) -> dict[str, int]:
        return {
            t: self.con.execute(f"SELECT count(*) FROM {t} WHERE run_id = ?", [run_id]).fetchone()[0]
            for t in TABLES
        }
