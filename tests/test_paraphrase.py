"""Model paraphrases are kept only when they still ask the same thing; raw I/O is recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from mnemoforge.generators.icm.album import plan_album
from mnemoforge.generators.icm.captions import album_captions
from mnemoforge.generators.icm.questions import generate_icm
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.generators.questions.common import overgenerate
from mnemoforge.generators.questions.paraphrase import check_paraphrase
from mnemoforge.pipeline import build
from mnemoforge.theme_io import DEFAULT_THEME, load_theme

from .conftest import small_theme_data


@pytest.fixture(scope="module")
def item():
    theme = load_theme(DEFAULT_THEME)
    world = plan_world(theme, 7, theme.album.clips - 1)
    clips, obs = plan_album(theme, world)
    qs = generate_icm(world, obs, theme.questions.counts(), len(clips) - 1, screen=False)
    return world, next(q for q in qs if q.program.fn == "meeting_place")


def test_check_paraphrase(item) -> None:
    world, q = item
    assert check_paraphrase(q, "Tell me where " + q.question[len("Where did ") :], world) == ""
    name = world.person(q.program.args["other"]).name
    assert check_paraphrase(q, q.question.replace(name, "a friend"), world).startswith("dropped")
    assert check_paraphrase(q, q.question.rstrip("?") + f" It was {q.answer}?", world) == "reveals the answer"
    assert check_paraphrase(q, "Sure! Here you go.", world) == "not a single question"


def test_build_with_model_paraphrases(tmp_path: Path) -> None:
    from tests.llm_servers import LLMServer, Reply, openai_completion

    data = small_theme_data(clips=4)
    with LLMServer("openai") as srv:
        data["text"] = {
            "backend": {"provider": "openai", "model": "para", "base_url": srv.base_url, "api_key_env": None},
            "paraphrase_questions": True,
        }
        theme_path = tmp_path / "t.yaml"
        theme_path.write_text(yaml.safe_dump(data, sort_keys=False))
        theme = load_theme(theme_path)
        world = plan_world(theme, theme.seed, theme.album.clips - 1)
        clips, obs = plan_album(theme, world)
        counts = {k: overgenerate(n) for k, n in theme.questions.counts().items()}  # as the family plans
        caps = album_captions(world, clips)  # as the episodes stage writes them for the planning
        expected = generate_icm(world, obs, counts, len(clips) - 1, captions=caps)
        # the model rewrites even-numbered questions faithfully and garbles the others
        srv.script(
            *[
                Reply(
                    body=openai_completion(
                        "Please tell me: " + q.question if i % 2 == 0 else "What happened then?"
                    )
                )
                for i, q in enumerate(expected)
            ]
        )
        res = build(theme_path, outputs=tmp_path / "out", workers=1)
    qs = [json.loads(x) for x in (res.run_dir / "questions/candidates.jsonl").read_text().splitlines()]
    assert [q["id"] for q in qs] == [q.id for q in expected]
    for i, q in enumerate(qs):
        record = q["lineage"]["text_model"]
        assert record["prompt"] == "paraphrase" and len(record["prompt_sha256"]) == 64
        assert record["input"] == expected[i].question and "para" in record["backend"]
        if i % 2 == 0:
            assert record["kept"] and q["question"] == "Please tell me: " + expected[i].question
        else:
            assert not record["kept"] and record["reason"].startswith("dropped")
            assert q["question"] == expected[i].question  # the original stays
    assert (res.release_dir / "MANIFEST.json").is_file()
