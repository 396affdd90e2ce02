"""The outside world audit (benchmarks/world_audit.py) finds each defect it counts, on a release
folder written by hand, and finds none on a clean one."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _audit_module():
    spec = importlib.util.spec_from_file_location("world_audit", ROOT / "benchmarks" / "world_audit.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def _release(tmp: Path, lines: list[dict], questions: list[dict], timelines: list[dict]) -> Path:
    (tmp / "data" / "smm").mkdir(parents=True)
    (tmp / "agent" / "smm").mkdir(parents=True)
    (tmp / "MANIFEST.json").write_text(json.dumps({"name": "t", "family": "smm"}))
    people = [
        {"id": "amara", "name": "Dr. Amara Okafor", "given": "Amara", "title": "Dr."},
        {"id": "tomas", "name": "Tomás Reyes", "given": "Tomás", "title": ""},
    ]
    world = {"start": "2027-02-01", "end": "2027-03-31", "people": people, "timelines": timelines,
             "calendar": {"country": "CH", "holidays": [{"date": "2027-03-01", "name": "Fasnacht"}]}}
    (tmp / "data" / "world.json").write_text(json.dumps(world))
    with (tmp / "agent" / "smm" / "observations.jsonl").open("w") as f:
        for row in lines:
            f.write(json.dumps(row) + "\n")
    with (tmp / "data" / "smm" / "questions.jsonl").open("w") as f:
        for q in questions:
            f.write(json.dumps(q) + "\n")
    return tmp


def test_each_rule_counts_its_defect(tmp_path: Path) -> None:
    wa = _audit_module()
    lines = [
        {"speaker": "Tomás Reyes", "text": "Dr., say hello to Amara for us."},  # bare title
        {"speaker": "Tomás Reyes", "text": "Tomás here: see you Friday 5 February 2027."},  # self, weekday ok
        {"speaker": "Dr. Amara Okafor", "text": "The drill is on Thursday 5 February 2027."},  # weekday
        {"speaker": "Dr. Amara Okafor", "text": "Closed for the Spring Festival."},  # foreign holiday
        {"speaker": "Dr. Amara Okafor", "text": "How many times did Tomás had a a drill?"},  # broken
    ]
    questions = [
        {"id": "q1", "program": {"args": {"person_a": "tomas", "person_b": "tomas"}}, "answer": "x"},
        {"id": "q2", "program": {"args": {}}, "answer": "2027-05-01", "options": ["2027-02-03"]},
    ]
    timelines = [{"subject": "dog", "attribute": "collar", "spans": [
        {"start": "2027-02-01T08:00:00", "end": "2027-02-01T10:00:00", "value": "red"},
        {"start": "2027-02-01T09:00:00", "end": None, "value": "teal"},
    ]}]  # fmt: skip
    r = wa.audit(_release(tmp_path, lines, questions, timelines))
    assert r["counts"] == {
        "two_states": 1, "bare_title": 1, "self_named": 1, "same_person": 1, "weekday_date": 1,
        "foreign_holiday": 1, "outside_span": 1, "broken_pattern": 2,
    }  # fmt: skip


def test_a_clean_release_has_no_finding(tmp_path: Path) -> None:
    wa = _audit_module()
    lines = [
        {"speaker": "Tomás Reyes", "text": "Dr. Okafor, the drill is on Friday 5 February 2027."},
        {"speaker": "Dr. Amara Okafor", "text": "Thanks, Tomás. Closed for Fasnacht on 2027-03-01."},
    ]
    questions = [{"id": "q1", "program": {"args": {"person_a": "tomas", "person_b": "amara"}},
                  "answer": "2027-02-03", "options": ["2027-02-03", "2027-02-04"]}]  # fmt: skip
    timelines = [{"subject": "dog", "attribute": "collar", "spans": [
        {"start": "2027-02-01T08:00:00", "end": "2027-02-01T10:00:00", "value": "red"},
        {"start": "2027-02-01T10:00:00", "end": None, "value": "teal"},
    ]}]  # fmt: skip
    r = wa.audit(_release(tmp_path, lines, questions, timelines))
    assert not any(r["counts"].values()), r["examples"]
