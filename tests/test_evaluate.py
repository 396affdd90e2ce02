"""``mnemoforge evaluate`` against the loopback OpenAI-compatible server, on the shipped smm release
(session fixture) and a tiny icm album (module fixture, for cutoffs)."""

from __future__ import annotations

import json
import re
from importlib.util import find_spec
from pathlib import Path

import pytest
import yaml

from mnemoforge.evaluation.keys import load_keys
from mnemoforge.evaluation.runner import evaluate
from mnemoforge.exporters.views import load_agent_view

from .conftest import linked_copy
from .llm_servers import LLMServer, Recorded

# found, not imported: importing openai costs ~1 CPU-s at collection on every worker
pytestmark = pytest.mark.skipif(find_spec("openai") is None, reason="needs the openai package")


def spec(tmp_path: Path, srv: LLMServer, name: str = "loop") -> Path:
    path = tmp_path / f"{name}.yaml"
    block = {
        "provider": "openai",
        "model": name,
        "base_url": srv.base_url,
        "api_key_env": None,
        "max_retries": 0,
    }
    path.write_text(yaml.safe_dump({"name": name, "text": {"backend": block}}))
    return path


def prompt_of(rec: Recorded) -> str:
    """All text of a recorded chat request."""
    parts = []
    for m in rec.json["messages"]:
        c = m["content"]
        parts += [c] if isinstance(c, str) else [p.get("text", "") for p in c if p.get("type") == "text"]
    return "\n".join(parts)


def images_of(rec: Recorded) -> list[str]:
    return [
        p["image_url"]["url"]
        for m in rec.json["messages"]
        if not isinstance(m["content"], str)
        for p in m["content"]
        if p.get("type") == "image_url"
    ]


@pytest.fixture(scope="module")
def icm_release(tiny_build, tmp_path_factory: pytest.TempPathFactory) -> Path:  # type: ignore[no-untyped-def]
    """A tiny album whose items get cutoffs 1, 2, 3 (and one None) so later clips must stay unseen.

    The tiny theme's own cutoffs are all its last clip; the methods must honour whatever cutoff
    the release's question table says, so the copy's table is rewritten.
    """
    root = tmp_path_factory.mktemp("icm-eval")
    rel = linked_copy(tiny_build[2].release_dir, root / "release")  # the session's build (conftest)
    for view in ("data", "agent"):  # the evaluator keys and the agent view agree on cutoffs
        path = rel / view / "icm" / "questions.jsonl"
        rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        for n, r in enumerate(rows):
            r["cutoff"] = None if n == 0 else 1 + n % 3
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rel


def test_always_a_scores_a_quarter_per_rotation_and_zero_on_all_four(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    with LLMServer("openai", default_text="A") as srv:
        res = evaluate(smm_release.root, "question_only", spec(tmp_path, srv), tmp_path / "out", limit=30)
    s = res["summary"]
    assert s["mcq"] > 0
    assert s["accuracy"] == 0.25
    assert s["all_four"] == 0.0
    assert s["invalid_rate"] == 0.0
    assert len(s["per_rotation"]) == 4
    # every item's row carries what the issue asks for
    row = next(r for r in res["items"] if r["kind"] == "mcq")
    rot = row["rotations"][0]
    assert {"prompt_hash", "raw", "parsed", "tokens", "latency_s"} <= set(rot)
    assert rot["tokens"]["total_tokens"] == 10
    assert row["method"] == "question_only" and row["model"] == "loop"
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "By task" in summary and "25.0 (0.0)" in summary


def test_unparseable_reply_is_invalid_never_a_guess(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    with LLMServer("openai", default_text="I think it is A or maybe B") as srv:
        res = evaluate(smm_release.root, "question_only", spec(tmp_path, srv), tmp_path / "out", limit=5)
    assert res["summary"]["invalid_rate"] == 1.0
    assert res["summary"]["accuracy"] == 0.0


def _gold_reader(release: Path):  # type: ignore[no-untyped-def]
    """A responder that answers right only when every gold evidence text is in the prompt (else "A")."""
    keys = load_keys(release)
    view = load_agent_view(release)
    content = {o["id"]: (o.get("content") or "").strip() for o in view.observations}
    by_question = {i.question: i for i in view.items}

    def respond(rec: Recorded) -> str | None:
        text = prompt_of(rec)
        q = re.search(r"^Question: (.*)$", text, re.M)
        item = by_question.get(q.group(1).strip()) if q else None
        if item is None or not item.choices:
            return None
        key = keys[item.id]
        ev = [content[e] for e in key.evidence if content.get(e)]
        if not ev or not all(e in text for e in ev):
            return "A"
        shown = re.findall(r"^([A-D])\. (.*)$", text, re.M)
        for letter, option in shown:
            if option == key.answer:
                return letter
        return "A"

    return respond


def test_oracle_evidence_beats_question_only_for_a_model_reading_the_evidence(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    rel = smm_release.root
    with LLMServer("openai", responder=_gold_reader(rel)) as srv:
        model = spec(tmp_path, srv)
        qo = evaluate(rel, "question_only", model, tmp_path / "qo", limit=20)
        orc = evaluate(rel, "oracle_evidence", model, tmp_path / "or", limit=20)
    assert orc["summary"]["accuracy"] > qo["summary"]["accuracy"]
    assert orc["summary"]["accuracy"] == 1.0 and qo["summary"]["accuracy"] == 0.25


def test_multimodal_method_sends_images(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    rel = smm_release.root
    with LLMServer("openai", default_text="A") as srv:
        res = evaluate(rel, "full_context_multimodal", spec(tmp_path, srv), tmp_path / "mm", limit=3)
        sent = list(srv.requests)
    assert res["items"][0]["context"]["images"] > 0
    urls = [u for r in sent for u in images_of(r)]
    assert urls and all(u.startswith("data:image/png;base64,") for u in urls)
    with LLMServer("openai", default_text="A") as srv:
        evaluate(rel, "full_context_text", spec(tmp_path, srv), tmp_path / "txt", limit=3)
        assert not any(images_of(r) for r in srv.requests)


def test_rerun_reuses_every_finished_call(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    rel = smm_release.root
    with LLMServer("openai", default_text="B") as srv:
        first = evaluate(rel, "retrieval", spec(tmp_path, srv), tmp_path / "out", limit=6, workers=3)
        n = len(srv.requests)
        again = evaluate(rel, "retrieval", spec(tmp_path, srv), tmp_path / "out", limit=6, workers=3)
        assert len(srv.requests) == n  # nothing sent the second time
    assert again["ledger"]["cached"] == again["ledger"]["calls"] == first["ledger"]["sent"]
    strip = ("cached", "latency_s")

    def scores(r: dict) -> list:
        return [
            (i["id"], i["score"], [{k: v for k, v in c.items() if k not in strip} for c in i["rotations"]])
            if i["kind"] == "mcq"
            else (i["id"], i["score"])
            for i in r["items"]
        ]

    assert scores(first) == scores(again)


def test_concentrated_twin_is_reported_beside_the_distributed_release(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    from mnemoforge.evaluation.matrix import run_matrix

    matrix = tmp_path / "m.yaml"
    matrix.write_text(
        yaml.safe_dump(
            {"methods": ["full_context_text", "concentrated"], "models": ["symbolic"], "limit": 10}
        )
    )
    results = run_matrix(smm_release.root, matrix, tmp_path / "mx")
    assert [r["concentrated"] for r in results] == [False, True]
    summary = (tmp_path / "mx" / "summary.md").read_text()
    assert "Distributed vs concentrated" in summary
    assert json.loads((tmp_path / "mx" / "matrix.json").read_text())["runs"][1]["method"] == "concentrated"


def test_symbolic_upper_bound_solves_every_item_from_its_oracle_evidence(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    res = evaluate(smm_release.root, "oracle_evidence", "symbolic", tmp_path / "sym")
    assert res["summary"]["score"] == 1.0
    assert res["summary"]["call_em"] == 1.0  # function calls scored with score_calls
    none = evaluate(smm_release.root, "question_only", "symbolic", tmp_path / "none")
    assert none["summary"]["score"] == 0.0


def test_judge_control_set_is_scored(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    keys = load_keys(smm_release.root)
    answers = {k.answer for k in keys.values()}

    def judge(rec: Recorded) -> str:
        text = prompt_of(rec)
        ref = re.search(r"^Reference answer: (.*)$", text, re.M).group(1)
        resp = re.search(r"^Response: (.*)$", text, re.M).group(1)
        assert ref in answers
        return "1" if ref in resp else "0"  # accepts rewordings, rejects other values

    with LLMServer("openai", default_text="A") as srv, LLMServer("openai", responder=judge) as jsrv:
        res = evaluate(
            smm_release.root,
            "question_only",
            spec(tmp_path, srv),
            tmp_path / "out",
            limit=20,
            judge=str(spec(tmp_path, jsrv, "judge")),
        )
        assert jsrv.requests
    cal = res["calibration"]
    assert cal["controls"] == cal["known_wrong"] + cal["known_right"] > 0
    assert cal["false_reject"] == 0.0
    assert cal["false_accept"] is not None and cal["false_accept"] < 0.2
    assert {"distractor", "rewording"} <= set(cal["by_kind"])
    assert res["judge"]["kind"] == "model"
    rows = [json.loads(x) for x in (tmp_path / "out" / "calibration.jsonl").read_text().splitlines()]
    assert len(rows) == cal["controls"]


def test_cutoffs_are_respected_in_every_request(icm_release, tmp_path):  # type: ignore[no-untyped-def]
    view = load_agent_view(icm_release)
    assert any(i.cutoff is not None for i in view.items)
    order = {o["id"]: o["order"] for o in view.observations}
    texts = {o["id"]: (o.get("content") or "").strip() for o in view.observations}
    cutoff_of = {i.question: i.cutoff for i in view.items}
    for method in ("full_context_text", "retrieval", "asr_only", "caption_memory", "full_context_multimodal"):
        with LLMServer("openai", default_text="A") as srv:
            res = evaluate(icm_release, method, spec(tmp_path, srv), tmp_path / method)
            sent = list(srv.requests)
        assert res["summary"]["items"] == len(view.items)
        checked = 0
        for rec in sent:
            text = prompt_of(rec)
            asked = re.search(r"^Question: (.*)$", text, re.M)
            if asked is None:  # the vision probe (one pixel, no memory): nothing to leak
                assert "one-pixel image" in text, text
                continue
            q = asked.group(1).strip()
            cut = cutoff_of[q]
            if cut is None:
                continue
            early = {texts[i] for i, o in order.items() if o <= cut}
            late = [i for i, o in order.items() if o > cut and len(texts[i]) > 12 and texts[i] not in early]
            leaked = [i for i in late if texts[i] in text]
            checked += bool(late)
            assert not leaked, f"{method}: {leaked[:3]} lie after cutoff {cut} but are in the prompt"
        assert checked > 0, f"{method}: no request had later observations to leak"
    # the ids a method used never lie after the cutoff
    from mnemoforge.evaluation.methods import METHODS, MethodConfig, MethodInput

    inp = MethodInput(view, MethodConfig(max_context_chars=10**6))
    for item in view.items:
        for name in ("full_context_text", "retrieval", "asr_only", "full_context_multimodal"):
            built = METHODS[name](inp, item)
            assert all(item.cutoff is None or order[i] <= item.cutoff for i in built.observation_ids), name


def test_bad_model_spec_is_one_clear_error(tmp_path, smm_release):  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    bad = tmp_path / "m.yaml"
    bad.write_text("name: x\n")
    r = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(smm_release.root),
            "--method",
            "question_only",
            "--model",
            str(bad),
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert r.exit_code == 2
    assert "m.yaml: field 'backend'" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(smm_release.root),
            "--method",
            "nope",
            "--model",
            "symbolic",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert r.exit_code == 2 and "unknown; known methods" in r.output


def test_report_shows_results_found_beside_the_release(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    from mnemoforge.evaluation.matrix import default_out
    from mnemoforge.evaluation.report_section import evaluation_section

    out = default_out(smm_release.root) / "oracle_evidence__symbolic"
    evaluate(smm_release.root, "oracle_evidence", "symbolic", out, limit=4)
    lead, html = evaluation_section(smm_release.root)
    assert "1 evaluation run" in lead
    assert "<td>oracle_evidence</td><td>symbolic</td>" in html and "100.0 (100.0)" in html


@pytest.mark.slow
def test_evaluate_flow_runs_a_matrix_under_prefect(smm_release, tmp_path):  # type: ignore[no-untyped-def]
    from mnemoforge.flows.evaluate import evaluate_flow

    matrix = tmp_path / "m.yaml"
    matrix.write_text(yaml.safe_dump({"methods": ["oracle_evidence"], "models": ["symbolic"], "limit": 3}))
    rows = evaluate_flow(smm_release.root, matrix, tmp_path / "flow")
    assert rows[0]["summary"]["score"] == 1.0
    assert (tmp_path / "flow" / "summary.md").is_file()
