"""Catalog write benchmark: indexing an ICM-Bench-sized run, row by row (before) vs Arrow (after).

    python benchmarks/catalog.py [--clips 840] [--questions 1217] [--repeat 3] [--json out.json]

Plans the World, album and candidate questions of an ICM-Bench-sized album from the default
theme (840 clips, shots_per_clip (1, 3), 4 s shots: the shape ``render_scale.py`` uses), offline
and without rendering. The rows are those a build indexes: the questions and their evidence as
generated, one verdict per gate per candidate, and the media index the render stage would write
(one face anchor per person, a still per shot, a WAV per line, two transcripts and an MP4 per
clip; sizes and hashes are synthesised, paths and kinds are the real ones).

Two writers index the same rows into a fresh catalog file and then re-index them (what a resumed
or repeated build does, replacing the run's rows):

* ``before``: the previous ``store/catalog.py`` (``executemany`` of one INSERT per row, one
  transaction per table), kept here verbatim as :class:`RowByRowCatalog`;
* ``after``: ``mnemoforge.store.catalog.Catalog`` (an Arrow table per table, one
  ``INSERT ... SELECT`` each, the whole run in one transaction).

Each figure is the best of ``--repeat`` runs of the whole ``with Catalog(...)`` block: the time the
write lock on the catalog file is held. Prints a table; writes JSON (default
``benchmarks/results/catalog.json``). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

from mnemoforge import __version__
from mnemoforge.generators.icm import album, album_check
from mnemoforge.generators.icm import world as world_mod
from mnemoforge.generators.icm.captions import album_captions
from mnemoforge.generators.icm.questions import generate_icm
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.store.catalog import SCHEMA, Catalog
from mnemoforge.validators.gate_runner import gates_for

sys.path.insert(0, str(Path(__file__).resolve().parent))
from icm_coverage import scaled_theme  # noqa: E402
from machine import write_result  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
ICM_QUESTIONS = 1217  # ICM-Bench: 400 recall + 500 retrieval + 317 profile


class RowByRowCatalog:
    """The catalog writer before this change: rows inserted one statement each (``executemany``),
    each table committed in its own transaction."""

    def __init__(self, path: Path) -> None:
        self.con = duckdb.connect(str(path))
        self.con.execute(SCHEMA)

    def __enter__(self) -> RowByRowCatalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.con.close()

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

    def index_run(self, run_id: str, theme: str, seed: int, code: str, sha: str, run_dir: Path) -> None:
        self._replace("runs", run_id, [(run_id, theme, seed, code, sha, str(run_dir))])

    def index_questions(
        self, run_id: str, questions: list[Question], kept: set[str], episode_of: dict[str, str]
    ) -> None:
        rows = [
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
        ]
        self._replace("questions", run_id, rows)
        ev = [(run_id, q.id, e, episode_of.get(e)) for q in questions for e in q.evidence]
        self._replace("evidence", run_id, ev)

    def index_verdicts(self, run_id: str, verdicts: list[Verdict]) -> None:
        rows = [
            (run_id, v.item, v.gate, v.gate_version, v.keep, v.reason, json.dumps(v.scores, sort_keys=True))
            for v in verdicts
        ]
        self._replace("verdicts", run_id, rows)

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
        self.con.execute("BEGIN TRANSACTION")
        self.con.execute("DELETE FROM releases WHERE run_id = ? AND version = ?", [run_id, version])
        self.con.execute(
            "INSERT INTO releases VALUES (?, ?, ?, ?, ?)", [run_id, name, version, str(path), manifest_sha]
        )
        self.con.execute("COMMIT")


def _sha(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def run_rows(clips_n: int, questions_n: int) -> dict[str, Any]:
    """The rows one ICM-scale build indexes (see the module docstring)."""
    theme = scaled_theme(clips_n, questions_n)
    t0 = time.perf_counter()
    world = world_mod.plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, obs = album.plan_album(theme, world)
    album_check.validate_album(theme, world, clips)
    caps = album_captions(world, clips)
    qs = generate_icm(
        world, obs, theme.questions.counts(), last_order=max(c.index for c in clips), captions=caps
    )
    plan_s = time.perf_counter() - t0
    gates = gates_for("icm")
    verdicts = [
        Verdict(
            item=q.id,
            gate=g.name,
            gate_version=g.version,
            keep=(i + k) % 11 != 0,
            reason="kept" if (i + k) % 11 else "answerable without the evidence",
            scores={"panel_correct": float((i + k) % 4) / 4},
        )
        for i, q in enumerate(qs)
        for k, g in enumerate(gates)
    ]
    media: list[dict] = [
        {"path": f"media/anchors/{p.id}.png", "kind": "face_anchor", "bytes": 40_000, "sha256": _sha(p.id)}
        for p in world.people
    ]
    for c in clips:
        for s in c.shots:
            media.append(
                {
                    "path": f"media/shots/{s.id}.png",
                    "kind": "shot_still",
                    "bytes": 60_000,
                    "sha256": _sha(s.id),
                }
            )
            for line in s.dialogue:
                media.append(
                    {
                        "path": f"media/speech/{line.id}.wav",
                        "kind": "speech",
                        "bytes": 90_000,
                        "sha256": _sha(line.id),
                        "duration_s": 2.5,
                        "has_audio": True,
                    }
                )
        for name in ("labelled", "speakerless"):
            path = f"media/transcripts/{c.id}.{name}.txt"
            media.append(
                {"path": path, "kind": f"transcript_{name}", "bytes": 400, "sha256": _sha(c.id, name)}
            )
        media.append(
            {
                "path": f"media/clips/{c.id}.mp4",
                "kind": "clip",
                "bytes": 700_000,
                "sha256": _sha(c.id, "mp4"),
                "duration_s": float(sum(s.duration_s for s in c.shots)),
                "has_video": True,
                "has_audio": True,
            }
        )
    kept = {v.item for v in verdicts} - {v.item for v in verdicts if not v.keep}
    return {
        "theme": theme,
        "questions": qs,
        "kept": kept,
        "episode_of": {o.id: o.episode for o in obs},
        "verdicts": verdicts,
        "media": media,
        "plan_s": plan_s,
        "scale": {
            "clips": len(clips),
            "shots": sum(len(c.shots) for c in clips),
            "questions": len(qs),
            "evidence": sum(len(q.evidence) for q in qs),
            "verdicts": len(verdicts),
            "media": len(media),
        },
    }


def index(writer: type, path: Path, rows: dict[str, Any], run_id: str = "icm-scale") -> float:
    """Index one run the way ``pipeline.index_catalog`` does; seconds the catalog was held open."""
    t0 = time.perf_counter()
    with writer(path) as cat:
        cat.index_run(run_id, rows["theme"].name, rows["theme"].seed, __version__, "0" * 64, path.parent)
        cat.index_questions(run_id, rows["questions"], rows["kept"], rows["episode_of"])
        cat.index_verdicts(run_id, rows["verdicts"])
        cat.index_media(run_id, rows["media"])
        cat.index_release(run_id, rows["theme"].name, "0.1.0", path.parent, "0" * 64)
    return time.perf_counter() - t0


def measure(writer: type, rows: dict[str, Any], repeat: int) -> dict[str, float]:
    fresh, again = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="mnemoforge-catalog-") as tmp:
            path = Path(tmp) / "catalog.duckdb"
            fresh.append(index(writer, path, rows))
            again.append(index(writer, path, rows))  # replaces the run's rows
            con = duckdb.connect(str(path), read_only=True)
            n = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("questions", "media")}
            con.close()
            assert n == {"questions": len(rows["questions"]), "media": len(rows["media"])}, n
    return {"fresh_s": round(min(fresh), 4), "reindex_s": round(min(again), 4)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", type=int, default=840)
    ap.add_argument("--questions", type=int, default=ICM_QUESTIONS)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    rows = run_rows(args.clips, args.questions)
    before = measure(RowByRowCatalog, rows, args.repeat)
    after = measure(Catalog, rows, args.repeat)
    result = {
        "scale": rows["scale"],
        "plan_s": round(rows["plan_s"], 3),
        "repeat": args.repeat,
        "before_row_by_row": before,
        "after_arrow_one_transaction": after,
        "speedup": {k: round(before[k] / after[k], 1) for k in before},
        "duckdb": duckdb.__version__,
    }
    sc = rows["scale"]
    print(
        f"rows: {sc['questions']} questions, {sc['evidence']} evidence, {sc['verdicts']} verdicts, "
        f"{sc['media']} media ({sc['clips']} clips, {sc['shots']} shots)"
    )
    print(f"{'catalog write':<28}{'before (row by row)':>22}{'after (Arrow, 1 tx)':>22}{'speedup':>10}")
    for k, label in (("fresh_s", "fresh catalog"), ("reindex_s", "re-index (replace run)")):
        print(f"{label:<28}{before[k]:>21.3f}s{after[k]:>21.3f}s{result['speedup'][k]:>9.1f}x")
    out = args.json or RESULTS / ("catalog.json" if args.clips == 840 else f"catalog_c{args.clips}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    write_result(out, result)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
