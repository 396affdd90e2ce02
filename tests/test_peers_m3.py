"""M3-Bench export: an M3-Agent checkout's ``data/`` layout, 30 s segments, M3's ``before_clip``,
types and ids, files readable by all, the folders and the keyless api config M3-Agent's scripts
need; read and run by doubles of M3-Agent's memorization and control loaders from the checkout
root, with no manual step."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from mnemoforge.backends.video.probe import probe
from mnemoforge.exporters.peers import MARKER, ExportError, export_release, m3bench
from mnemoforge.exporters.peers.common import effective_cutoff, load_release, unit_index
from mnemoforge.exporters.peers.m3_setup import API_FIELDS, API_MODELS

from .peer_doubles import m3_control, m3_memorization

M3_TYPES = {
    "Person Understanding",
    "Multi-Hop Reasoning",
    "Multi-Detail Reasoning",
    "Cross-Modal Reasoning",
    "General Knowledge Extraction",
}
QA_KEYS = ["question", "answer", "question_id", "reasoning", "timestamp", "type", "before_clip"]


def fake_checkout(root: Path) -> Path:
    """The parts of an M3-Agent checkout its scripts need beside ``data/`` (their own folders)."""
    for d in ("m3_agent", "mmagent", "configs", "data/annotations"):
        (root / d).mkdir(parents=True, exist_ok=True)
    robot = {"living_room_06": {"video_path": "data/videos/robot/living_room_06.mp4", "qa_list": []}}
    (root / "data/annotations/robot.json").write_text(json.dumps(robot))
    stock = {m: {"base_url": "", "api_key": ""} for m in API_MODELS}  # the checkout's own, blank
    (root / "configs/api_config.json").write_text(json.dumps(stock, indent=4))
    return root


@pytest.fixture(scope="module")
def checkout(peer_release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = fake_checkout(tmp_path_factory.mktemp("m3-agent"))
    export_release(peer_release, "m3bench", root)
    return root


def test_memorization_finds_every_clip_from_the_checkout_root(checkout: Path, peer_release: Path) -> None:
    rel = load_release(peer_release)
    (run,) = m3_memorization(checkout)
    sample = run["sample"]
    assert list(sample) == [
        "id",
        "video_path",
        "clip_path",
        "mem_path",
        "intermediate_path",
        "intermediate_outputs",
    ]
    assert (
        sample["intermediate_path"]
        == sample["intermediate_outputs"]
        == f"data/intermediate_outputs/{rel.name}/{rel.name}"
    )
    assert sample["video_path"] == f"data/videos/{rel.name}/{rel.name}.mp4" and run["video_exists"]
    assert sample["mem_path"] == f"data/memory_graphs/{rel.name}/{rel.name}.pkl"
    video = probe(checkout / sample["video_path"])
    assert video.has_video and video.has_audio and video.duration_s % 30 == pytest.approx(0, abs=0.1)
    ids = [i for i, _ in run["clips"]]
    assert ids == list(range(round(video.duration_s / 30))) and len(ids) >= len(rel.clips)
    for _, path in run["clips"]:
        info = probe(checkout / path)
        assert info.has_video and info.duration_s == pytest.approx(30, abs=0.1)  # M3's 30 s segments
    assert "living_room_06" in (checkout / "data/annotations/robot.json").read_text()  # the checkout's stay


def test_files_are_readable_by_all(checkout: Path) -> None:
    meta = json.loads((checkout / MARKER).read_text())
    for rel_path in [*meta["files"], MARKER]:
        mode = stat.S_IMODE((checkout / rel_path).stat().st_mode)
        assert mode == 0o644, (rel_path, oct(mode))


def test_qa_ids_types_and_before_clip_the_m3_way(checkout: Path, peer_release: Path) -> None:
    rel = load_release(peer_release)
    ann = json.loads((checkout / f"data/annotations/{rel.name}.json").read_text())
    assert list(ann) == [rel.name] and list(ann[rel.name]) == ["video_path", "mem_path", "qa_list"]
    meta = json.loads((checkout / MARKER).read_text())
    grid = {g["clip"]: g for g in meta["grid"]}
    ours = {m["question_id"]: m["id"] for m in meta["items"]}
    by_id = {q.id: q for q in rel.questions}
    where = unit_index(rel.clips)
    qa_list = ann[rel.name]["qa_list"]
    assert [qa["question_id"] for qa in qa_list] == [
        f"{rel.name}_Q{n:02d}" for n in range(1, len(qa_list) + 1)
    ]
    assert sorted(ours.values()) == sorted(by_id)
    for qa in qa_list:
        assert list(qa) == QA_KEYS and set(qa["type"]) <= M3_TYPES and qa["type"][0] == "Person Understanding"
        minutes, seconds = map(int, qa["timestamp"].split(":"))
        t = 60 * minutes + seconds
        assert qa["before_clip"] == t // 30 - 1  # M3-Bench's rule, as in its robot.json
        q = by_id[ours[qa["question_id"]]]
        cutoff = effective_cutoff(q.cutoff, rel.last_index)
        assert t == grid[cutoff]["end_s"]  # asked right after the cutoff clip ...
        nxt = grid.get(cutoff + 1)
        assert nxt is None or nxt["first_segment"] == qa["before_clip"] + 1  # ... and before the next one
        for oid in q.evidence:  # every evidence segment is already seen
            clip, _ = where[oid]
            assert grid[clip.index]["first_segment"] <= qa["before_clip"]
            assert grid[clip.index]["end_s"] <= 30 * (qa["before_clip"] + 1)
    loaded = m3_control(checkout, f"data/annotations/{rel.name}.json")
    assert [d["id"] for d in loaded] == [qa["question_id"] for qa in qa_list]
    assert all(d["mem_path"] == ann[rel.name]["mem_path"] and "before_clip" in d for d in loaded)


def test_reader_joins_back_from_a_checkout(checkout: Path, peer_release: Path) -> None:
    rel = load_release(peer_release)
    got = {
        i.id: (i.question, i.answer, i.category, i.evidence, i.cutoff)
        for i in m3bench.read_m3bench(checkout, peer_release)
    }
    assert got == {
        q.id: (
            q.question,
            q.answer,
            q.category,
            tuple(q.evidence),
            effective_cutoff(q.cutoff, rel.last_index),
        )
        for q in rel.questions
    }


def test_a_checkout_holding_this_release_is_refused(peer_release: Path, tmp_path: Path) -> None:
    root = fake_checkout(tmp_path / "m3")
    name = load_release(peer_release).name
    (root / f"data/annotations/{name}.json").write_text("{}")
    with pytest.raises(ExportError, match=f"already has data/annotations/{name}.json"):
        export_release(peer_release, "m3bench", root)
    assert not (root / MARKER).exists()


def test_grid_helpers() -> None:
    from mnemoforge.exporters.peers.m3_video import grid_duration

    assert [grid_duration(s) for s in (8, 30, 31, 36, 60, 61)] == [30, 30, 60, 60, 60, 90]
    assert m3bench.before_clip(43) == 0 and m3bench.before_clip(970) == 31  # robot.json's living_room_06
    assert m3bench.timestamp(970) == "16:10"


def test_m3_agent_runs_with_no_manual_step(checkout: Path, peer_release: Path) -> None:
    """The memorization double pickles the graph to ``mem_path`` and the control double reads the
    api config at import and writes ``data/results/<name>.jsonl``: neither creates a folder."""
    name = load_release(peer_release).name
    (run,) = m3_memorization(checkout)
    assert (checkout / run["mem_path"]).is_file() and all((checkout / p).is_file() for p in run["saves"])
    loaded = m3_control(checkout, f"data/annotations/{name}.json")
    results = (checkout / f"data/results/{name}.jsonl").read_text().splitlines()
    assert [json.loads(x)["id"] for x in results] == [d["id"] for d in loaded]
    config = json.loads((checkout / "configs/api_config.json").read_text())
    for model in API_MODELS:  # the checkout's blank template completed, its own fields kept, no key
        assert config[model] == {"base_url": "", "api_key": "", "azure_endpoint": "", "api_version": ""}
    meta = json.loads((checkout / MARKER).read_text())
    assert meta["api_config"] == {"path": "configs/api_config.json", "complete": True, "filled": False}
    assert "warning" not in meta
    assert "configs/api_config.json" not in meta["files"]  # the user's to fill: never removed
    assert {f"data/memory_graphs/{name}", "data/results", "logs"} <= set(meta["folders"])


def test_an_empty_folder_export_gets_the_template_and_folders(peer_release: Path, tmp_path: Path) -> None:
    out = tmp_path / "m3"
    export_release(peer_release, "m3bench", out)
    config = json.loads((out / "configs/api_config.json").read_text())
    assert config == {m: dict.fromkeys(API_FIELDS, "") for m in API_MODELS}
    assert stat.S_IMODE((out / "configs/api_config.json").stat().st_mode) == 0o644
    name = load_release(peer_release).name
    for folder in (f"data/memory_graphs/{name}", f"data/intermediate_outputs/{name}/{name}", "data/results"):
        assert (out / folder).is_dir()
    config["gpt-4o-2024-11-20"]["api_key"] = "sk-mine"  # the user fills it in; a re-export keeps it
    (out / "configs/api_config.json").write_text(json.dumps(config))
    export_release(peer_release, "m3bench", out)
    assert json.loads((out / "configs/api_config.json").read_text()) == config
    assert json.loads((out / MARKER).read_text())["api_config"]["filled"] is True


def test_a_filled_config_missing_fields_is_kept_with_one_warning(peer_release: Path, tmp_path: Path) -> None:
    root = fake_checkout(tmp_path / "m3")
    mine = {m: {"base_url": "https://example.invalid", "api_key": "sk-mine"} for m in API_MODELS}
    (root / "configs/api_config.json").write_text(json.dumps(mine))
    warnings: list[str] = []
    export_release(peer_release, "m3bench", root, warn=warnings.append)
    assert json.loads((root / "configs/api_config.json").read_text()) == mine  # never rewritten
    assert len(warnings) == 1 and "azure_endpoint" in warnings[0] and "api_config.json" in warnings[0]
    assert json.loads((root / MARKER).read_text())["api_config"]["complete"] is False
