"""MemEye export of a visual-chat release (family memeye): native sessions, rounds, labels, MCQs."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.exporters.peers import MARKER, ExportError, export_release, readers
from mnemoforge.exporters.peers.common import effective_cutoff, load_release
from mnemoforge.generators.memeye import peer_album as memeye
from mnemoforge.generators.memeye.peer_native import load_visual_release, memeye_ids, session_task

QAS = memeye.QAS


@pytest.fixture(scope="module")
def release(memeye_release: Path) -> Path:
    return memeye_release  # the shipped visual-diary release, built once per session (tests/conftest.py)


@pytest.fixture(scope="module")
def export(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("memeye-export") / "memeye"
    export_release(release, "memeye", out)
    return out


def rows(release: Path, table: str) -> list[dict]:
    return [json.loads(line) for line in (release / "data" / "memeye" / f"{table}.jsonl").open()]


def dialogs(export: Path, suffix: str) -> dict[str, dict]:
    """Task -> dialog document, for the open-ended (``_Open``) or MCQ (``""``) files."""
    docs = {}
    for path in sorted((export / "dialog").glob("*.json")):
        if path.stem.endswith("_Open") == (suffix == "_Open"):
            docs[path.stem.removesuffix("_Open")] = json.loads(path.read_text())
    return docs


def test_sessions_and_rounds_are_the_release(release: Path, export: Path) -> None:
    rel = load_visual_release(release)
    docs = dialogs(export, "_Open")
    tasks = {session_task(s) for s in rows(release, "sessions")}
    assert set(docs) == tasks == {memeye.task_name(s["task"]) for s in rows(release, "sessions")}
    assert {"Home_Renovation", "Health_Care"} <= tasks  # MemEye's own task names
    assert set(dialogs(export, "")) == tasks  # every task has MCQ items here
    by_round = {r["round"]: r for r in rows(release, "rounds")}
    captions = {c["image"]: c["caption"] for c in rows(release, "captions")}
    ids = memeye_ids(rel)
    seen = []
    for task, doc in docs.items():
        assert set(doc) == {"character_profile", "multi_session_dialogues", QAS}
        assert doc["character_profile"] == rel.profile and doc["character_profile"]["name"] == "Mia Laurent"
        for session in doc["multi_session_dialogues"]:
            assert set(session) == {"session_id", "date", "dialogues"}
            assert re.fullmatch(r"D\d+", session["session_id"])
            for n, d in enumerate(session["dialogues"], start=1):
                assert d["round"] == f"{session['session_id']}:{n}"
                ours = next(r for r, (_, mid) in ids.items() if mid == d["round"])
                row = by_round[ours]
                seen.append(ours)
                assert (d["user"], d["assistant"]) == (row["user"], row["assistant"])
                assert set(d) == ({"round", "user", "assistant"} | memeye_image_keys(bool(row["images"])))
                assert len(d.get("input_image", [])) == len(row["images"])
                for image, src, cap in zip(
                    d.get("input_image", []), row["images"], d.get("image_caption", []), strict=True
                ):
                    assert image == f"{task}/{Path(src).name}"
                    assert os.path.samefile(export / "image" / image, release / src) or (
                        (export / "image" / image).read_bytes() == (release / src).read_bytes()
                    )
                    assert cap == captions[src]
    assert sorted(seen) == sorted(by_round) and len(seen) == len(set(seen))  # every round, once
    placed = {p.relative_to(export / "image").as_posix() for p in (export / "image").rglob("*.png")}
    assert len(placed) == sum(len(r["images"]) for r in by_round.values())


def memeye_image_keys(has_images: bool) -> set[str]:
    return {"input_image", "image_id", "image_caption"} if has_images else set()


def test_one_qa_per_question_with_point_and_clues(release: Path, export: Path) -> None:
    questions = {q["id"]: q for q in rows(release, "questions")}
    by_round = {r["round"]: r for r in rows(release, "rounds")}
    ids = memeye_ids(load_visual_release(release))
    got = Counter()
    for task, doc in dialogs(export, "_Open").items():
        rounds = {d["round"]: d for s in doc["multi_session_dialogues"] for d in s["dialogues"]}
        for qa in doc[QAS]:
            got[qa["question_id"]] += 1
            q = questions[qa["question_id"]]
            assert set(qa) == {"question_id", "question", "answer", "point", "session_id", "clue"}
            assert (qa["question"], qa["answer"]) == (q["question"], q["answer"])
            assert qa["point"] == [[q["labels"]["x"]], [q["labels"]["y"]]]
            assert qa["clue"] == [ids[e][1] for e in q["evidence"]]
            assert qa["session_id"] == list(dict.fromkeys(c.split(":")[0] for c in qa["clue"]))
            for clue, ev in zip(qa["clue"], q["evidence"], strict=True):
                assert clue in rounds  # the clue is a round of this task's dialogs
                shown = [f"{task}/{Path(m).name}" for m in by_round[ev]["images"]]
                assert shown and rounds[clue]["input_image"] == shown  # ... and shows the evidence
    assert got == Counter(list(questions))  # one QA per kept question, each exactly once


def test_mcq_has_four_rotations_with_the_answer_once_at_each_letter(release: Path, export: Path) -> None:
    questions = {q["id"]: q for q in rows(release, "questions")}
    open_qas = {qa["question_id"]: qa for doc in dialogs(export, "_Open").values() for qa in doc[QAS]}
    mcq = [qa for doc in dialogs(export, "").values() for qa in doc[QAS]]
    assert {qa["question_id"] for qa in mcq} == {i for i, q in questions.items() if q["options"]}
    for qa in mcq:
        q = questions[qa["question_id"]]
        open_qa = open_qas[qa["question_id"]]
        text = open_qa["answer"]
        assert {k: v for k, v in qa.items() if k != "options"} == {**open_qa, "answer": qa["answer"]}
        assert qa["answer"] == qa["options"][-1]["answer"]  # the letter MemEye's contains_gt compares
        assert len(qa["options"]) == 4
        assert sorted(r["answer"] for r in qa["options"]) == ["A", "B", "C", "D"]
        for rot, order in zip(qa["options"], q["rotations"], strict=True):
            assert set(rot) == {"A", "B", "C", "D", "answer"}
            assert [rot[k] for k in "ABCD"] == [q["options"][i] for i in order]
            assert [k for k in "ABCD" if rot[k] == text] == [rot["answer"]]


def test_marker_keeps_tasks_cutoffs_and_alternative_clues(release: Path, export: Path) -> None:
    questions = {q["id"]: q for q in rows(release, "questions")}
    ids = memeye_ids(load_visual_release(release))
    meta = json.loads((export / MARKER).read_text())
    assert meta["format"] == "memeye" and meta["complete"]
    assert meta["release"] == {"name": "visual_diary", "version": "0.1.0"}
    assert any(m["clue_alternatives"] for m in meta["items"])
    for m in meta["items"]:
        q = questions[m["id"]]
        assert m["question_id"] == m["id"] and m["cutoff"] == q["cutoff"]
        assert m["clue_alternatives"] == [ids[e][1] for e in q["evidence_alternatives"]]
        assert m["task"] == ids[q["evidence"][0]][0]
    assert sorted(meta["files"]) == sorted(
        p.relative_to(export).as_posix() for p in export.rglob("*") if p.is_file() and p.name != MARKER
    )


def test_reader_round_trips_ids(release: Path, export: Path, tmp_path: Path) -> None:
    questions = rows(release, "questions")
    last = max(r["order"] for r in rows(release, "rounds"))
    items = readers()["memeye"](export, release)
    assert [i.id for i in items] and len({i.id for i in items}) == len(items) == len(questions)
    got = {i.id: (i.question, i.answer, i.category, i.evidence, i.cutoff, i.choices) for i in items}
    assert got == {
        q["id"]: (
            q["question"],
            q["answer"],
            q["category"],
            tuple(q["evidence"]),
            effective_cutoff(q["cutoff"], last),
            tuple(tuple(q["options"][i] for i in r) for r in q["rotations"]) if q["options"] else None,
        )
        for q in questions
    }
    again = tmp_path / "again"
    shutil.copytree(export, again)
    export_release(release, "memeye", again)  # a re-export into its own folder is identical
    for p in export.rglob("*.json"):
        assert (again / p.relative_to(export)).read_bytes() == p.read_bytes()


def test_question_pictures_become_question_image(release: Path, tmp_path: Path) -> None:
    copy = tmp_path / "release"
    shutil.copytree(release, copy, copy_function=os.link)
    table = copy / "data" / "memeye" / "questions.jsonl"
    qs = [json.loads(line) for line in table.read_text().splitlines()]
    picture = rows(release, "rounds")[0]["images"][0]
    qs[0]["question_media"] = [picture]
    table.unlink()  # hard link: replace, never write through to the built release
    table.write_text("".join(json.dumps(q) + "\n" for q in qs))
    out = tmp_path / "memeye"
    export_release(copy, "memeye", out)
    (qa,) = [qa for d in dialogs(out, "_Open").values() for qa in d[QAS] if qa["question_id"] == qs[0]["id"]]
    task = memeye_ids(load_visual_release(copy))[qs[0]["evidence"][0]][0]
    assert qa["question_image"] == [f"{task}/{Path(picture).name}"]
    assert (out / "image" / qa["question_image"][0]).is_file()


def fake_release(root: Path, family: str) -> Path:
    root.mkdir()
    manifest = {"name": "office_launch", "version": "0.1.0", "family": family}
    (root / "MANIFEST.json").write_text(json.dumps(manifest))
    return root


def test_refusals_are_clear(release: Path, tmp_path: Path) -> None:
    smm = fake_release(tmp_path / "smm", "smm")
    with pytest.raises(ExportError, match=r"memeye exports take releases of family icm or memeye.*'smm'"):
        export_release(smm, "memeye", tmp_path / "a")
    with pytest.raises(ExportError, match=r"no peer format maps it: its tables under data/smm/"):
        export_release(smm, "locomo", tmp_path / "b")
    for fmt in ("locomo", "m3bench"):
        with pytest.raises(ExportError, match=rf"{fmt} exports take releases of family icm; .*'memeye'"):
            export_release(release, fmt, tmp_path / fmt)
        assert not (tmp_path / fmt).exists()  # refused before anything is written
    with pytest.raises(ExportError, match="--format memeye"):
        load_release(release)
    for fmt, rel in (("locomo", release), ("memeye", smm)):
        r = CliRunner().invoke(app, ["export", str(rel), "--format", fmt, "--out", str(tmp_path / "cli")])
        assert r.exit_code == 2 and "exports take releases of family" in r.output


def test_memeye_runner_scores_an_always_a_model_a_quarter_per_rotation(export: Path) -> None:
    """MemEye's MCQ loop (``peer_doubles.memeye_mcq``) over every task, whole and cut short:
    each question's answer sits once at each letter, so "A" is right exactly once in four."""
    from .peer_doubles import memeye_mcq

    files = sorted(p for p in (export / "dialog").glob("*.json") if not p.stem.endswith("_Open"))
    assert files
    for limit in (None, 1, 3):
        runs = [r for f in files for r in memeye_mcq(f, lambda qa, rot: "A", limit).values()]
        per_rotation = [ok for r in runs for ok in r["per_rotation"]]
        assert runs and sum(per_rotation) / len(per_rotation) == 0.25, limit
        assert not any(all(r["per_rotation"]) for r in runs)  # all-four: 0
    gold = [r for f in files for r in memeye_mcq(f, lambda qa, rot: rot["answer"]).values()]
    assert all(all(r["per_rotation"]) and r["contains_gt"] for r in gold)
