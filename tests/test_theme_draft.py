"""``mnemoforge theme draft`` against a loopback OpenAI server: broken draft, errors sent back, fixed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge import yaml_io
from mnemoforge.cli import app
from tests.conftest import small_theme_data
from tests.llm_servers import LLMServer, Reply, openai_completion

DESCRIPTION = "Three neighbours on a quiet street over one summer: picnics and baking."


def _fixed() -> dict:
    data = small_theme_data(clips=4)
    data["name"] = "street_summer"
    data["questions"]["total"] = 8
    return data


def _broken() -> dict:
    data = _fixed()
    data["activities"][0]["places"] = ["beach"]  # no such place
    data["album"]["colour"] = "blue"  # no such field
    return data


def _reply(data: dict | str) -> Reply:
    text = data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False)
    return Reply(200, openai_completion(f"Here is the theme:\n```yaml\n{text}```\n"))


def _draft(srv: LLMServer, dest: Path, *extra: str) -> object:
    args = ["theme", "draft", DESCRIPTION, "--model", "stub", "--base-url", srv.base_url, "--dest", str(dest)]
    return CliRunner().invoke(app, [*args, *extra])


def test_draft_sends_the_check_errors_back_and_writes_a_theme_that_passes(tmp_path: Path) -> None:
    dest = tmp_path / "street.yaml"
    with LLMServer("openai") as srv:
        srv.script(_reply(_broken()), _reply(_fixed()))
        r = _draft(srv, dest)
    assert r.exit_code == 0, r.output
    assert r.output.strip().splitlines()[-1] == str(dest)
    assert len(srv.requests) == 2
    first, second = (req.json["messages"] for req in srv.requests)
    assert DESCRIPTION in first[0]["content"] and "family `icm`" in first[0]["content"]
    # the second request carries the model's draft and the problems `theme check` found in it
    assert second[1]["role"] == "assistant" and "beach" in second[1]["content"]
    fix = second[2]["content"]
    assert "- album.colour: unknown field" in fix, fix
    check = CliRunner().invoke(app, ["theme", "check", str(dest)])
    assert check.exit_code == 0 and "OK" in check.output
    assert yaml_io.safe_load(dest.read_text())["name"] == "street_summer"
    assert dest.read_text().startswith("# Drafted by `mnemoforge theme draft`")


def test_draft_fails_with_the_reasons_after_the_attempts(tmp_path: Path) -> None:
    dest = tmp_path / "street.yaml"
    with LLMServer("openai") as srv:
        srv.script(_reply(_broken()), _reply("name: [unclosed"), _reply(_broken()))
        r = _draft(srv, dest, "--attempts", "3")
    assert r.exit_code == 2
    assert len(srv.requests) == 3
    assert "no valid theme after 3 attempts" in r.output and "album.colour: unknown field" in r.output
    assert "Traceback" not in r.output and not dest.exists()
    # the unparsable draft was answered with a YAML error, not a crash
    assert "yaml: not valid YAML" in srv.requests[2].json["messages"][-1]["content"]


def test_draft_rejects_a_theme_of_another_family_and_a_failed_call(tmp_path: Path) -> None:
    from mnemoforge.production.draft import check_draft

    text = yaml.safe_dump(_fixed())
    assert check_draft(text, "icm") == []
    assert check_draft(text, "smm")[0].startswith("family: must be 'smm'")
    with LLMServer("openai") as srv:
        srv.script(Reply(400, {"error": {"message": "bad request"}}))
        r = _draft(srv, tmp_path / "x.yaml")
    assert r.exit_code == 2 and "the model call failed: HTTP 400: bad request" in r.output


def test_a_truncated_answer_is_continued_not_sent_back_as_schema_errors(tmp_path: Path) -> None:
    """OpenAI ``finish_reason: length``: the model is asked to continue and the parts are joined."""
    dest = tmp_path / "street.yaml"
    text = yaml.safe_dump(_fixed(), sort_keys=False)
    cut = text.index("\n", len(text) // 2) + 1  # the reply stops at a line break half way
    with LLMServer("openai") as srv:
        srv.script(
            Reply(200, openai_completion(f"Here is the theme:\n```yaml\n{text[:cut]}", finish="length")),
            Reply(200, openai_completion(f"```yaml\n{text[cut:]}```\n")),
        )
        r = _draft(srv, dest)
    assert r.exit_code == 0, r.output
    assert len(srv.requests) == 2
    second = srv.requests[1].json["messages"]
    assert second[-2]["role"] == "assistant" and second[-1]["content"].startswith("Your answer was cut off")
    assert "problem(s) sent back" not in r.output and "continued it 1 time(s)" in r.output
    assert yaml_io.safe_load(dest.read_text())["name"] == "street_summer"


def test_an_answer_still_cut_is_reported_as_truncation(tmp_path: Path) -> None:
    """Gemini ``MAX_TOKENS`` every time: one error naming the length limit, no schema errors."""
    from mnemoforge.backends.text.gemini import GeminiBackend
    from mnemoforge.production.draft import DraftError, draft_theme
    from tests.llm_servers import gemini_response

    text = yaml.safe_dump(_fixed(), sort_keys=False)
    with LLMServer("gemini") as srv:
        srv.script(*[Reply(200, gemini_response(text[:200], finish="MAX_TOKENS")) for _ in range(3)])
        backend = GeminiBackend("stub", api_key="k", base_url=srv.base_url, max_retries=0)
        with pytest.raises(DraftError) as e:
            draft_theme(DESCRIPTION, "icm", backend, max_tokens=300, continuations=2)
    assert len(srv.requests) == 3
    assert "cut at the length limit (max_tokens=300) after 2 continuations" in str(e.value)
    assert e.value.problems == [
        "model: the answer was still cut at the length limit (max_tokens=300) after 2 continuations"
    ]


@pytest.mark.slow
def test_a_drafted_theme_builds(tmp_path: Path) -> None:
    """The drafted theme builds into a release that verifies (small: 4 clips, 8 questions)."""
    from mnemoforge.pipeline import build
    from mnemoforge.validators.release_check import verify_release

    dest = tmp_path / "street.yaml"
    with LLMServer("openai") as srv:
        srv.script(_reply(_broken()), _reply(_fixed()))
        assert _draft(srv, dest).exit_code == 0
    res = build(dest, outputs=tmp_path / "out", workers=1)
    assert verify_release(res.release_dir) == []
    assert "street_summer" in res.release_dir.as_posix()
