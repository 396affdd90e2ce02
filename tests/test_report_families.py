"""The report for the smm and memeye families: episodes, units, sources, scenarios, evidence."""

from __future__ import annotations

import json
import re
from collections import Counter
from html import escape
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from mnemoforge.exporters import report_families as fam
from mnemoforge.exporters.report import write_report
from mnemoforge.generators.smm.report import sources_per_question

COMMON = ["cast", "timeline", "sources", "funnel", "heatmap", "categories"]
FIGURES = {
    "smm": [*COMMON, "sources_people", "sources_per_question"],
    "memeye": [*COMMON, "scenario_cells", "scenario_images", "object_sheet"],
}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _release(
    tmp_path_factory: pytest.TempPathFactory, release: Path, run: Path
) -> tuple[SimpleNamespace, Path]:
    """The session's release of the shipped theme (tests/conftest.py) and its report."""
    site = write_report(release, tmp_path_factory.mktemp(release.parent.name) / "site").parent
    return SimpleNamespace(release_dir=release, run_dir=run), site


@pytest.fixture(scope="module")
def smm(smm_release, tmp_path_factory: pytest.TempPathFactory) -> tuple[SimpleNamespace, Path]:  # type: ignore[no-untyped-def]
    assert smm_release.root.parent.name == "office_launch"
    return _release(tmp_path_factory, smm_release.root, smm_release.run_dir)


@pytest.fixture(scope="module")
def memeye(memeye_build, tmp_path_factory: pytest.TempPathFactory) -> tuple[SimpleNamespace, Path]:  # type: ignore[no-untyped-def]
    assert memeye_build.release_dir.parent.name == "visual_diary"
    return _release(tmp_path_factory, memeye_build.release_dir, memeye_build.run_dir)


def _stats(html_text: str) -> dict[str, str]:
    """The header's summary counts: label -> value."""
    return {k: v for v, k in re.findall(r'<div class="stat"><b>([^<]*)</b><span>([^<]*)</span>', html_text)}


def _section(html_text: str, sid: str) -> str:
    return html_text.split(f'<section id="{sid}">')[1].split("</section>")[0]


def _cards(html_text: str) -> list[str]:
    return html_text.split('<div class="card">')[1:]


@pytest.mark.parametrize("family", ["smm", "memeye"])
def test_figures_exist_and_show_something(family: str, request: pytest.FixtureRequest) -> None:
    built, site = request.getfixturevalue(family)
    text = (site / "index.html").read_text(encoding="utf-8")
    assert json.loads((built.release_dir / "MANIFEST.json").read_text())["family"] == family
    for name in FIGURES[family]:
        path = site / "figures" / f"{name}.png"
        with Image.open(path) as img:
            assert img.format == "PNG" and img.width >= 400 and img.height >= 250, (name, img.size)
            pixels = np.asarray(img.convert("L"), dtype=float)
        assert pixels.std() > 8, f"{name} looks blank"
        assert f'id="fig-{name}"' in text, name
    for src in re.findall(r'<img[^>]* src="([^"]+)"', text):  # every image is a local file
        assert not re.match(r"^([a-z]+:|/|\\)", src) and (site / src).is_file(), src
    assert "clips" not in text and "clip " not in text, "the icm unit leaked into this family's page"


def test_smm_header_counts_sources_conversation_days_and_rounds(smm: tuple[SimpleNamespace, Path]) -> None:
    built, site = smm
    stats = _stats((site / "index.html").read_text(encoding="utf-8"))
    data = built.release_dir / "data" / "smm"
    observations = _jsonl(data / "observations.jsonl")
    days = {(o["episode"], o["timestamp"][:10]) for o in observations}
    assert stats["sources"] == str(len(_jsonl(data / "sources.jsonl")))
    assert stats["conversation days"] == str(len(days))
    assert stats["rounds"] == str(len(observations))
    assert stats["questions kept"].startswith(f"{len(_jsonl(data / 'questions.jsonl'))} / ")


def test_smm_sources_table_lists_every_source(smm: tuple[SimpleNamespace, Path]) -> None:
    built, site = smm
    section = _section((site / "index.html").read_text(encoding="utf-8"), "sources")
    rows = {
        cells[0]: cells
        for cells in (re.findall(r"<td[^>]*>([^<]*)</td>", r) for r in section.split("<tr>")[1:])
        if cells
    }
    sources = _jsonl(built.release_dir / "data" / "smm" / "sources.jsonl")
    questions = _jsonl(built.release_dir / "data" / "smm" / "questions.jsonl")
    cited = Counter(s for q in questions for s in set(q["evidence_sources"]))
    assert set(rows) == {s["id"] for s in sources}
    for s in sources:
        sid, title, kind, authority, _, rounds, units, asked = rows[s["id"]]
        assert (title, kind, authority) == (escape(s["title"]), s["kind"], str(s["authority"])), sid
        assert (int(rounds), int(units), int(asked)) == (s["rounds"], s["evidence_units"], cited[sid]), sid


def test_smm_sources_per_question_matches_the_statistics(smm: tuple[SimpleNamespace, Path]) -> None:
    built, _ = smm
    stats = json.loads((built.release_dir / "dataset_statistics.json").read_text())
    hist = sources_per_question(_jsonl(built.release_dir / "data" / "smm" / "questions.jsonl"))
    assert {str(k): v for k, v in hist.items()} == stats["smm"]["sources_per_question"]["histogram"]


def test_smm_examples_show_sources_and_structured_answers(smm: tuple[SimpleNamespace, Path]) -> None:
    built, site = smm
    text = (site / "index.html").read_text(encoding="utf-8")
    questions = _jsonl(built.release_dir / "data" / "smm" / "questions.jsonl")
    shown = [q for q in questions if escape(q["question"]) in text]
    assert {q["category"] for q in shown} == {q["category"] for q in questions}
    for q in shown:
        card = next(c for c in _cards(text) if escape(q["question"]) in c)
        assert "evidence sources: " in card and all(s in card for s in q["evidence_sources"]), q["id"]
        for oid in q["evidence"][:6]:
            assert oid in card, (q["id"], oid)
        if q["category"] == "function_calling":
            assert "<pre>" in card, q["id"]
            for step in q["structured_answer"]:
                for call in step["calls"]:
                    assert f"{call['name']}(" in card, q["id"]
                    for key, value in call["arguments"].items():
                        arg = f"{key}={escape(json.dumps(value, ensure_ascii=False))}"
                        assert arg in card, (q["id"], key)
    assert any("<img" in c for c in _cards(text)), "no evidence image (document, table, screenshot) shown"


def test_memeye_header_counts_scenarios_sessions_and_images(memeye: tuple[SimpleNamespace, Path]) -> None:
    built, site = memeye
    stats = _stats((site / "index.html").read_text(encoding="utf-8"))
    block = json.loads((built.release_dir / "dataset_statistics.json").read_text())["memeye"]
    assert stats["scenarios"] == str(len(block["scenarios"]))
    assert stats["sessions"] == str(block["sessions"])
    assert stats["rounds"] == str(block["rounds"])
    assert stats["images"] == str(block["images"])


def test_memeye_page_shows_all_twelve_cells_and_scenarios(memeye: tuple[SimpleNamespace, Path]) -> None:
    built, site = memeye
    text = (site / "index.html").read_text(encoding="utf-8")
    block = json.loads((built.release_dir / "dataset_statistics.json").read_text())["memeye"]
    cells = dict(re.findall(r'data-cell="(X\d_Y\d)">(\d+)</td>', text))
    assert len(cells) == 12
    assert cells == {f"{x}_{y}": str(n) for x, row in block["cells"].items() for y, n in row.items()}
    section = _section(text, "sources")
    for sid, s in block["scenarios"].items():
        row = next(r for r in section.split("<tr>") if f"<td>{sid}</td>" in r)
        numbers = [int(n) for n in re.findall(r'<td class="n">(\d+)</td>', row)]
        assert numbers == [s["sessions"], s["rounds"], s["images"], s["questions"]], sid


def test_memeye_examples_show_clue_rounds_and_their_images(memeye: tuple[SimpleNamespace, Path]) -> None:
    built, site = memeye
    text = (site / "index.html").read_text(encoding="utf-8")
    data = built.release_dir / "data" / "memeye"
    media = {o["id"]: o["media"] for o in _jsonl(data / "observations.jsonl")}
    shown = [q for q in _jsonl(data / "questions.jsonl") if escape(q["question"]) in text]
    assert len({q["category"] for q in shown}) == 12
    for q in shown:
        card = next(c for c in _cards(text) if escape(q["question"]) in c)
        assert f"clue rounds: {', '.join(q['evidence'])}" in card, q["id"]
        for oid in q["evidence"][:6]:
            for path in media[oid]:
                assert f'src="{path}"' in card, (q["id"], path)
                assert (site / path).read_bytes() == (built.release_dir / path).read_bytes()


def test_a_run_folder_reports_sources_too(smm: tuple[SimpleNamespace, Path], tmp_path: Path) -> None:
    built, site = smm
    text = write_report(built.run_dir, tmp_path / "run-site").read_text(encoding="utf-8")
    section = _section(text, "sources")
    for s in _jsonl(built.release_dir / "data" / "smm" / "sources.jsonl"):
        assert f"<td>{s['id']}</td>" in section, s["id"]
    assert _stats(text)["sources"] == _stats((site / "index.html").read_text(encoding="utf-8"))["sources"]


def test_episodes_split_a_multi_day_episode_by_day() -> None:
    obs = [
        {"id": "a", "episode": "chat", "source": "chat", "timestamp": "2026-01-01T09:00:00", "people": ["p"]},
        {"id": "b", "episode": "chat", "source": "chat", "timestamp": "2026-01-01T10:00:00", "people": ["q"]},
        {"id": "c", "episode": "chat", "source": "chat", "timestamp": "2026-01-03T09:00:00", "people": []},
        {"id": "d", "episode": "s01", "source": "room", "timestamp": "2026-01-02T09:00:00", "people": ["p"]},
    ]
    eps = fam.episodes(obs)
    assert [e["id"] for e in eps] == ["chat@2026-01-01", "s01", "chat@2026-01-03"]
    assert [e["index"] for e in eps] == [0, 1, 2]
    assert eps[0]["shots"][0]["visible"] == ["p", "q"] and eps[0]["observations"] == ["a", "b"]
    assert eps[1]["source"] == "room" and eps[2]["shots"][0]["visible"] == []
