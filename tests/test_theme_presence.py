"""benchmarks/theme_presence.py counts an item as about the theme when it names something the World
declares (a name part, a place without its article, an activity) or a cast member by their look,
and lists the others."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import theme_presence  # noqa: E402


def _release(tmp: Path, questions: list[str]) -> Path:
    rel = tmp / "vet" / "0.1.0"
    (rel / "data" / "icm").mkdir(parents=True)
    world = {
        "people": [{"name": "Dr. Sølvi Årdal", "given": "Sølvi", "family": "Årdal", "title": "Dr."}],
        "places": [{"name": "the Skåla pasture"}],
        "objects": [{"name": "hoof knife"}],
        "events": [{"noun": "farm call"}],
    }
    (rel / "data/world.json").write_text(json.dumps(world), encoding="utf-8")
    rows = "".join(json.dumps({"question": q}) + "\n" for q in questions)
    (rel / "data/icm/questions.jsonl").write_text(rows, encoding="utf-8")
    return rel


def test_presence_counts_declared_names_and_looks(tmp_path: Path) -> None:
    rel = _release(
        tmp_path,
        [
            "Who joined Sølvi at Skåla pasture in May?",  # a name part, a place without "the"
            "Who brought the hoof knife?",
            "How often was the bald man there?",  # a cast member by their look
            "What did the woman with a ponytail do most often?",
            "Which farm call came first?",  # an activity the theme declares
            "Which screen view does the picture show?",  # nothing the theme declares
            "What did Dr. say?",  # a bare title names nobody
        ],
    )
    got = theme_presence.presence(rel)["icm"]
    assert (got["items"], got["named"]) == (7, 5)
    assert got["missing"] == ["Which screen view does the picture show?", "What did Dr. say?"]
    assert theme_presence.main([str(rel), "--json", str(tmp_path / "p.json")]) == 0
    saved = json.loads((tmp_path / "p.json").read_text())
    assert saved["releases"]["vet@0.1.0"]["icm"]["share"] == round(5 / 7, 4) and saved["machine"]["cpu_count"]
