"""DuckDB catalog of runs, questions, evidence, verdicts and media, for querying across runs.

Re-indexing a run replaces its rows in one transaction, so a resumed or repeated build never
duplicates rows.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import duckdb

from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (run_id VARCHAR PRIMARY KEY, theme VARCHAR, seed BIGINT,
    code_version VARCHAR, theme_sha256 VARCHAR, run_dir VARCHAR);
CREATE TABLE IF NOT EXISTS questions (run_id VARCHAR, question_id VARCHAR, family VARCHAR,
    category VARCHAR, question VARCHAR, answer VARCHAR, cutoff INTEGER, target_people VARCHAR[],
    program VARCHAR, template VARCHAR, kept BOOLEAN);
CREATE TABLE IF NOT EXISTS evidence (run_id VARCHAR, question_id VARCHAR, observation_id VARCHAR,
    clip_id VARCHAR);
CREATE TABLE IF NOT EXISTS verdicts (run_id VARCHAR, question_id VARCHAR, gate VARCHAR,
    gate_version VARCHAR, keep BOOLEAN, reason VARCHAR, scores JSON);
CREATE TABLE IF NOT EXISTS media (run_id VARCHAR, path VARCHAR, kind VARCHAR, bytes BIGINT,
    sha256 VARCHAR, duration_s DOUBLE, has_video BOOLEAN, has_audio BOOLEAN);
CREATE TABLE IF NOT EXISTS releases (run_id VARCHAR, name VARCHAR, version VARCHAR, path VARCHAR,
    manifest_sha256 VARCHAR);
"""
TABLES = ("runs", "questions", "evidence", "verdicts", "media", "releases")


def _connect(path: Path, attempts: int = 60, wait_s: float = 0.5) -> duckdb.DuckDBPyConnection:
    """DuckDB allows one writing process at a time: builds on several workers share the catalog,
    so a locked file is retried (briefly held: each build opens it only to index)."""
    for i in range(attempts):
        try:
            return duckdb.connect(str(path))
        except duckdb.IOException as e:
            if "lock" not in str(e).lower() or i == attempts - 1:
                raise
            time.sleep(wait_s)
    raise AssertionError("unreachable")


class Catalog:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.con = _connect(path)
        self.con.execute(SCHEMA)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _replace(self, table: str, run_id: str, rows: list[tuple]) -> None:
        self.con.execute("BEGIN TRANSACTION")
        try:
            self.con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                self.con.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
            self.con.execute("COMMIT")
        except Exception:
            self.con.execute("ROLLBACK")
            raise

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
                    q.target_people,
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
        self.con.execute("BEGIN TRANSACTION")
        self.con.execute("DELETE FROM releases WHERE run_id = ? AND version = ?", [run_id, version])
        self.con.execute(
            "INSERT INTO releases VALUES (?, ?, ?, ?, ?)", [run_id, name, version, str(path), manifest_sha]
        )
        self.con.execute("COMMIT")

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        return self.con.execute(sql, params or []).fetchall()

    def counts(self, run_id: str) -> dict[str, int]:
        return {
            t: self.con.execute(f"SELECT count(*) FROM {t} WHERE run_id = ?", [run_id]).fetchone()[0]
            for t in TABLES
        }
