"""Peer-format exporters: each format round-trips a small release back to mnemoforge's terms."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from mnemoforge.exporters.peers import MARKER, ExportError, export_release, locomo, m3bench, readers
from mnemoforge.exporters.peers.common import effective_cutoff, load_release
from mnemoforge.generators.memeye import peer_album as memeye
from mnemoforge.schemas.theme import ICM_MIX

FORMATS = ("locomo", "m3bench", "memeye")


@pytest.fixture(scope="module")
def release(peer_release: Path) -> Path:
    """The session's five-clip starter release (tests/conftest.py)."""
    return peer_release


def expected(release_dir: Path) -> dict[str, tuple]:
    rel = load_release(release_dir)
    return {
        q.id: (
            q.question,
            q.answer,
            q.category,
            tuple(q.evidence),
            effective_cutoff(q.cutoff, rel.last_index),
        )
        for q in rel.questions
    }


def read_back(fmt: str, out: Path, release_dir: Path) -> dict[str, tuple]:
    items = readers()[fmt](out, release_dir)
    assert len({i.id for i in items}) == len(items)
    return {i.id: (i.question, i.answer, i.category, i.evidence, i.cutoff) for i in items}


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip(fmt: str, release: Path, tmp_path: Path) -> None:
    out = tmp_path / fmt
    files = export_release(release, fmt, out)
    assert all(p.is_file() for p in files) and out / MARKER in files
    want = expected(release)
    left_out = {e["id"] for e in json.loads((out / MARKER).read_text()).get("excluded", [])}
    assert want and read_back(fmt, out, release) == {k: v for k, v in want.items() if k not in left_out}
    first = {p: p.read_bytes() for p in files if p.suffix in (".json", ".jsonl")}
    export_release(release, fmt, out)  # a re-export into its own folder is allowed and identical
    assert {p: p.read_bytes() for p in first} == first


def test_memeye_format(release: Path, tmp_path: Path) -> None:
    rel = load_release(release)
    export_release(release, "memeye", tmp_path)
    task = memeye.task_name(rel.name)
    mcq_doc = json.loads((tmp_path / "dialog" / f"{task}.json").read_text())  # the mirrored MCQ items
    with_options = {
        q["id"] for q in map(json.loads, (release / "data/icm/questions.jsonl").open()) if q["options"]
    }
    assert {qa["question_id"] for qa in mcq_doc["human-annotated QAs"]} == with_options
    doc = json.loads((tmp_path / "dialog" / f"{task}_Open.json").read_text())
    assert set(doc) == {"character_profile", "multi_session_dialogues", "human-annotated QAs"}
    assert doc["character_profile"]["name"] == rel.protagonist
    assert [s["session_id"] for s in doc["multi_session_dialogues"]] == [f"D{c.index + 1}" for c in rel.clips]
    rounds = {}
    for session in doc["multi_session_dialogues"]:
        assert set(session) == {"session_id", "date", "dialogues"}
        dt.date.fromisoformat(session["date"])
        for d in session["dialogues"]:
            assert set(d) in (
                {"round", "user", "assistant"},
                {"round", "user", "assistant", *memeye_image_keys()},
            )
            assert re.fullmatch(rf"{session['session_id']}:\d+", d["round"])
            for image in d.get("input_image", []):
                assert image.startswith(f"{task}/") and (tmp_path / "image" / image).is_file()
            assert (
                len(d.get("input_image", [])) == len(d.get("image_id", [])) == len(d.get("image_caption", []))
            )
            rounds[d["round"]] = d
    for qa in doc["human-annotated QAs"]:
        assert set(qa) == {"question_id", "question", "answer", "point", "session_id", "clue"}
        assert all(c in rounds for c in qa["clue"])
        assert qa["session_id"] == list(dict.fromkeys(c.split(":")[0] for c in qa["clue"]))
        assert re.fullmatch(r"\[\['X\d'\], \['Y\d'\]\]", repr(qa["point"]))


def memeye_image_keys() -> set[str]:
    return {"input_image", "image_id", "image_caption"}


def test_memeye_mcq_rotations(release: Path, tmp_path: Path) -> None:
    """A hand-made question with 4 options and 4 rotations lands in the MCQ file and reads back."""
    copy = tmp_path / "release"
    shutil.copytree(release, copy, copy_function=os.link)
    questions = copy / "data" / "icm" / "questions.jsonl"
    rows = [json.loads(line) for line in questions.read_text().splitlines()]
    options = [rows[0]["answer"], "Nobody", "A stranger", "Someone else"]
    rotations = [[1, 2, 3, 0], [0, 1, 2, 3], [3, 0, 1, 2], [2, 3, 0, 1]]
    mcq = {**rows[0], "id": "icm_mcq_handmade", "question": rows[0]["question"] + " (choose one)"}
    mcq.update(options=options, rotations=rotations, category="profile_inference", cutoff=None)
    questions.unlink()  # hard link: replace, never write through to the built release
    questions.write_text("".join(json.dumps(r) + "\n" for r in [*rows, mcq]))
    out = tmp_path / "memeye"
    export_release(copy, "memeye", out)
    task = memeye.task_name(load_release(copy).name)
    doc = json.loads((out / "dialog" / f"{task}.json").read_text())
    (qa,) = [qa for qa in doc["human-annotated QAs"] if qa["question_id"] == "icm_mcq_handmade"]
    assert qa["point"] == [["X3"], ["Y3"]]
    assert [r["answer"] for r in qa["options"]] == ["D", "A", "B", "C"]
    assert qa["answer"] == "C"  # MemEye's contains_gt compares the last rotation's choice to a letter
    open_doc = json.loads((out / "dialog" / f"{task}_Open.json").read_text())
    (open_qa,) = [q for q in open_doc["human-annotated QAs"] if q["question_id"] == "icm_mcq_handmade"]
    assert open_qa["answer"] == options[0]
    assert all(
        set(r) == {"A", "B", "C", "D", "answer"} and r[r["answer"]] == options[0] for r in qa["options"]
    )
    items = {i.id: i for i in memeye.read_memeye_album(out, copy)}
    got = items["icm_mcq_handmade"]
    assert got.choices == tuple(tuple(options[i] for i in rot) for rot in rotations)
    assert got.category == "profile_inference" and got.cutoff == load_release(copy).last_index
    for row in rows:  # every other item reads back with its own options in rotation order
        expect = (
            None
            if not row["options"]
            else tuple(tuple(row["options"][i] for i in r) for r in row["rotations"])
        )
        assert items[row["id"]].choices == expect
    assert len(items) == len(rows) + 1


def test_out_dir_rules(release: Path, tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(ExportError, match="not empty"):
        export_release(release, "locomo", foreign)
    out = tmp_path / "out"
    export_release(release, "locomo", out)
    with pytest.raises(ExportError, match="'locomo' export"):
        export_release(release, "memeye", out)
    with pytest.raises(ExportError, match="unknown format"):
        export_release(release, "nope", tmp_path / "x")
    with pytest.raises(ExportError, match="inside the release"):
        export_release(release, "locomo", release / "exports")
    marker = json.loads((out / MARKER).read_text())  # a file only a previous export wrote is removed
    (out / "media" / "old.png").write_bytes(b"x")
    marker["files"].append("media/old.png")
    (out / MARKER).write_text(json.dumps(marker))
    export_release(release, "locomo", out)
    assert not (out / "media" / "old.png").exists() and (out / "locomo.json").is_file()


def test_category_maps_are_one_to_one() -> None:
    assert locomo.CATEGORY_MAP == {"identity_recall": 4, "cross_episode_retrieval": 1, "profile_inference": 3}
    for mapping in (locomo.CATEGORY_MAP, m3bench.TYPE_MAP, memeye.POINT_MAP):
        assert set(mapping) == set(ICM_MIX)
        assert len({repr(sorted(v) if isinstance(v, list) else v) for v in mapping.values()}) == len(mapping)
    assert (
        set(locomo.CATEGORY_FROM_LOCOMO.values()) == set(m3bench.CATEGORY_FROM_TYPE.values()) == set(ICM_MIX)
    )
    assert set(memeye.CATEGORY_FROM_POINT.values()) == set(ICM_MIX)


def test_locomo_datetime_style() -> None:
    assert locomo.locomo_datetime(dt.datetime(2023, 5, 8, 13, 56)) == "1:56 pm on 8 May, 2023"
    assert locomo.locomo_datetime(dt.datetime(2025, 1, 1, 0, 5)) == "12:05 am on 1 January, 2025"
    assert locomo.locomo_datetime(dt.datetime(2025, 7, 30, 12, 0)) == "12:00 pm on 30 July, 2025"


def test_export_command_writes_each_format(release: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    for fmt in ("locomo", "m3bench", "memeye"):
        r = CliRunner().invoke(app, ["export", str(release), "--format", fmt, "--out", str(tmp_path / fmt)])
        assert r.exit_code == 0, r.output
        assert (tmp_path / fmt / "mnemoforge_export.json").is_file()
    bad = CliRunner().invoke(app, ["export", str(release), "--format", "csv", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "locomo" in bad.output
