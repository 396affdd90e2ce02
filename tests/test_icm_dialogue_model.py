"""Opt-in model-written album dialogue through a text backend (loopback OpenAI server): a reworded
line is kept only if it still carries its facts, and the raw model I/O ships with the release."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from mnemoforge.generators.icm.album import plan_album
from mnemoforge.generators.icm.model_dialogue import check_line, must_keep
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.pipeline import build
from mnemoforge.theme_io import load_theme

from .conftest import small_theme_data


def test_must_keep_and_check_line() -> None:
    from mnemoforge.theme_io import DEFAULT_THEME

    theme = load_theme(DEFAULT_THEME)
    world = plan_world(theme, theme.seed, 8)
    keep = must_keep(world, "Li Guo, could you order me the longjing tea?", ["f_pref_li_ming_drink"])
    assert keep == ["Li Guo"]
    chose = next(f for f in world.facts if f.kind == "chose")
    keep = must_keep(world, f"I'll have the {chose.value}, please.", [chose.id])
    assert keep == [chose.value]
    assert check_line(world, "x", f"The {chose.value} for me.", keep) == ""
    assert check_line(world, "x", "Just water.", keep).startswith("dropped")
    assert check_line(world, "x", f"{chose.value}, Chen Yu?", keep) == "names someone new: ['Chen Yu']"
    world = plan_world(theme, theme.seed, 40)
    promise = next(f for f in world.facts if f.kind == "promised")
    noun, obj = (
        next(e.noun for e in world.events if e.activity == promise.value),
        world.object(promise.object).name,
    )
    keep = must_keep(world, f"I'll bring my {obj} to the next {noun}.", [promise.id])
    assert keep == [obj, noun]  # a rewording keeps what is promised and for which outing
    assert check_line(world, "x", f"My {obj} comes along next time.", keep).startswith("dropped")


def test_build_with_model_written_dialogue(tmp_path: Path) -> None:
    from tests.llm_servers import LLMServer, Reply, openai_completion

    data = small_theme_data(clips=4)
    with LLMServer("openai") as srv:
        data["text"] = {"backend": {"provider": "openai", "model": "talk", "base_url": srv.base_url,
                                    "api_key_env": None}}  # fmt: skip
        data["album"]["dialogue_model"] = True
        theme_path = tmp_path / "t.yaml"
        theme_path.write_text(yaml.safe_dump(data, sort_keys=False))
        theme = load_theme(theme_path)
        world = plan_world(theme, theme.seed, theme.album.clips - 1)
        clips, _ = plan_album(theme, world)
        planned = [ln for c in clips[1:] for s in c.shots for ln in s.dialogue]
        assert len(planned) >= 2
        # the model keeps every word of even-numbered lines and drops them from the others
        srv.script(*[
            Reply(body=openai_completion(f"Well, {ln.text}" if i % 2 == 0 else "What a lovely day it is."))
            for i, ln in enumerate(planned)
        ])  # fmt: skip
        res = build(theme_path, outputs=tmp_path / "out", workers=1)
        assert len(srv.requests) == len(planned)
    records = [
        json.loads(x) for x in (res.release_dir / "data/icm/dialogue_model.jsonl").read_text().splitlines()
    ]
    assert [r["line"] for r in records] == [ln.id for ln in planned]
    said = {
        o["id"]: o["content"]
        for o in map(json.loads, (res.release_dir / "data/icm/observations.jsonl").read_text().splitlines())
        if o["kind"] == "speech"
    }
    kept = 0
    for i, (r, ln) in enumerate(zip(records, planned, strict=True)):
        assert ln.text in r["input"] and r["planned"] == ln.text and "talk" in r["backend"]
        assert r["prompt"] == "dialogue" and len(r["prompt_sha256"]) == 64 and r["output"]
        kept += r["kept"]
        assert said[ln.id] == (r["output"] if r["kept"] else ln.text)  # else the planned line stays
        if i % 2 == 0:  # faithful: kept unless it no longer fits its shot or repeats too often
            assert r["kept"] or r["reason"] in ("too long to fit its shot", "repeats a line too often")
        elif r["keep"]:  # dropped the names and values the line must carry
            assert not r["kept"] and r["reason"].startswith("dropped")
    assert kept >= 1 and any(not r["kept"] for r in records)
    # the audio says what the observations say
    for clip in (res.release_dir / "data/icm/annotations/transcripts").glob("*.labelled.json"):
        for x in json.loads(clip.read_text())["lines"]:
            assert x["text"] == said.get(x["line"], x["text"])
    stats = json.loads((res.release_dir / "dataset_statistics.json").read_text())
    assert stats["render_audit"]["mismatches"] == 0
