"""Human review: decisions file, the human_review gate, the review page (headless Chromium)."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.browser import CHROMIUM, CHROMIUM_FLAGS


@dataclass
class Built:
    run_dir: Path
    release_dir: Path


@pytest.fixture(scope="module")
def built(peer_release: Path) -> Built:
    """The session's small offline album build (``peer_release``); tests copy its outputs folder,
    so decisions never leak into it or between tests."""
    outputs = peer_release.parents[2]
    run_id = json.loads((peer_release / "config.resolved.json").read_text())["run_id"]
    return Built(outputs / "runs" / run_id, peer_release)


@pytest.fixture
def run_copy(built: Built, tmp_path: Path) -> Path:
    outputs = tmp_path / "outputs"
    shutil.copytree(built.run_dir.parent.parent, outputs, symlinks=True)
    return outputs / "runs" / built.run_dir.name


def _questions(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "questions/candidates.jsonl").read_text().splitlines() if x.strip()]


def _pick(run: Path) -> tuple[str, str, str]:
    """(a shot some item cites, an item citing it, another item citing no such shot)."""
    from mnemoforge.schemas.questions import Question
    from mnemoforge.validators.human_review import cited_shots, shot_index

    shot_of = shot_index(run)
    qs = [Question.model_validate(q) for q in _questions(run)]
    cited = {q.id: cited_shots(q, shot_of) for q in qs}
    q1 = next(q for q in qs if cited[q.id])
    shot = sorted(cited[q1.id])[0]
    other = next(q for q in qs if shot not in cited[q.id])
    return shot, q1.id, other.id


def _funnel_stage(funnel: dict, gate: str) -> dict:
    return next(s for s in funnel["stages"] if s["gate"] == gate)


def test_no_decisions_file_leaves_the_gates_alone(built: Built) -> None:
    from mnemoforge.validators.human_review import coverage, review_gates

    assert review_gates(built.run_dir) == []
    assert coverage(built.run_dir, []) is None
    funnel = json.loads((built.release_dir / "gates/funnel.json").read_text())
    assert "human_review" not in funnel and all(s["gate"] != "human_review" for s in funnel["stages"])


def test_decisions_apply_through_the_gate_and_freeze(run_copy: Path) -> None:
    from mnemoforge.pipeline import freeze_run
    from mnemoforge.validators.human_review import Decision, load_decisions, save_decisions
    from mnemoforge.validators.release_check import verify_release

    shot, q_cites, q_other = _pick(run_copy)
    save_decisions(
        run_copy,
        {
            ("shot", shot): Decision(
                kind="shot", id=shot, decision="exclude", reasons=["face_drift"], note="eyes"
            ),
            ("item", q_other): Decision(kind="item", id=q_other, decision="exclude", reasons=["wrong_key"]),
        },
    )
    assert set(load_decisions(run_copy)) == {("shot", shot), ("item", q_other)}
    release = freeze_run(run_copy, "0.1.1")
    assert verify_release(release) == []
    verdicts = [json.loads(x) for x in (release / "gates/verdicts.jsonl").read_text().splitlines()]
    hr = {v["item"]: v for v in verdicts if v["gate"] == "human_review"}
    assert not hr[q_cites]["keep"] and shot in hr[q_cites]["reason"] and "face_drift" in hr[q_cites]["reason"]
    assert not hr[q_other]["keep"] and hr[q_other]["reason"].startswith("item excluded (wrong_key)")
    funnel = json.loads((release / "gates/funnel.json").read_text())
    stage = _funnel_stage(funnel, "human_review")
    assert stage["reasons"].get("item excluded (wrong_key)") == 1
    assert funnel["human_review"]["shots"]["excluded"] == 1
    assert funnel["human_review"]["shots"]["reasons"] == {"face_drift": 1}
    assert funnel["human_review"]["items"]["reviewed"] == 1
    kept = {json.loads(x)["id"] for x in (release / "data/icm/questions.jsonl").read_text().splitlines()}
    assert q_cites not in kept and q_other not in kept
    card = (release / "README.md").read_text()
    assert "**Human review.**" in card and "1 excluded (face_drift 1)" in card


@pytest.mark.integration
def test_bad_decisions_are_clear_errors(run_copy: Path) -> None:
    from mnemoforge.review_server import ReviewServer
    from mnemoforge.validators.human_review import DecisionsError, decisions_path, load_decisions

    srv = ReviewServer(run_copy).start()
    try:
        assert srv.url.startswith("http://127.0.0.1:")

        def post(body: dict, origin: str | None = None) -> tuple[int, dict]:
            req = urllib.request.Request(srv.url + "api/decision", json.dumps(body).encode(), method="POST")
            req.add_header("Content-Type", "application/json")
            if origin:
                req.add_header("Origin", origin)
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())

        status, out = post({"kind": "shot", "id": "x", "decision": "exclude", "reasons": ["blurry"]})
        assert status == 400 and "blurry" in out["error"]
        assert post({"kind": "shot", "id": "x", "decision": "pass"}, origin="http://evil.example")[0] == 403
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(srv.url + "media/../run.json", timeout=10)
        assert e.value.code == 404
        assert not decisions_path(run_copy).exists()
    finally:
        srv.stop()
    decisions_path(run_copy).parent.mkdir(parents=True, exist_ok=True)
    decisions_path(run_copy).write_text('{"kind": "shot", "id": "a", "decision": "maybe"}\n')
    with pytest.raises(DecisionsError, match=r"decisions.jsonl:1"):
        load_decisions(run_copy)


def _browser():  # type: ignore[no-untyped-def]
    pw = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install '.[review]')"
    )
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium (apt-get install chromium)")
    return pw


@pytest.mark.integration
def test_review_page_keyboard_flow_round_trips_decisions_into_the_funnel(run_copy: Path) -> None:
    """The reviewer's keyboard: find, tag (1-9), note (e), reject (x), next unreviewed (n), approve
    (a), switch lists (t); filters; a reload shows the saved decisions; freezing applies them."""
    pw = _browser()
    from mnemoforge.pipeline import freeze_run
    from mnemoforge.review_server import ReviewServer
    from mnemoforge.validators.human_review import REASON_TAGS, load_decisions
    from mnemoforge.validators.release_check import verify_release

    shot, q_cites, q_other = _pick(run_copy)
    all_shots = [
        s
        for c in (json.loads(x) for x in (run_copy / "episodes/clips.jsonl").read_text().splitlines())
        for s in c["shots"]
    ]
    key = {t: str(n + 1) for n, t in enumerate(REASON_TAGS)}
    srv = ReviewServer(run_copy).start()
    try:
        with pw.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
            page = browser.new_context(viewport={"width": 1300, "height": 900}).new_page()
            page.goto(srv.url)
            page.wait_for_selector("body[data-ready='1']")
            assert page.locator(".card").count() < len(all_shots) or len(all_shots) <= 8  # virtualised
            # find the shot, tag it, write a note, reject it
            page.keyboard.press("/")
            page.keyboard.type(shot)
            page.keyboard.press("Escape")
            card = page.locator(".card.current")
            assert card.get_attribute("data-id") == shot
            want = next(s for s in all_shots if s["id"] == shot)
            assert card.locator("img.still").count() == 1 and card.locator("video").count() == 1
            assert card.locator(".anchors img").count() == len(want["visible"])  # face anchors beside it
            assert [li.inner_text() for li in card.locator(".lines li").all()][: len(want["dialogue"])] == [
                f"{_name(run_copy, ln['speaker'])}: {ln['text']}" + _at(li)
                for ln, li in zip(want["dialogue"], card.locator(".lines li").all(), strict=False)
            ]
            assert card.locator(".plan").first.inner_text().startswith("plan:")
            page.keyboard.press(key["face_drift"])
            page.keyboard.press("e")
            page.keyboard.type("face differs from the anchor")
            page.keyboard.press("Escape")
            page.keyboard.press("x")
            card.locator(".status", has_text="saved: exclude").wait_for()
            # back to all shots: next unreviewed, approve it
            page.fill("#f-text", "")
            page.dispatch_event("#f-text", "input")
            page.locator("#list").focus()
            page.keyboard.press("n")
            passed_shot = page.locator(".card.current").get_attribute("data-id")
            assert passed_shot and passed_shot != shot
            page.keyboard.press("a")
            page.locator(f".card[data-id='{passed_shot}'] .status", has_text="saved: pass").wait_for()
            if passed_shot != all_shots[-1]["id"]:  # a decision by key moves on to the next row
                page.wait_for_function(
                    f"document.querySelector('.card.current').dataset.id !== '{passed_shot}'"
                )
            # the items list: find one, two tags, reject
            page.keyboard.press("t")
            page.keyboard.press("/")
            page.keyboard.type(q_other)
            page.keyboard.press("Escape")
            item = page.locator(".card.current")
            assert item.get_attribute("data-id") == q_other
            want_q = next(q for q in _questions(run_copy) if q["id"] == q_other)
            assert item.locator(".question").inner_text() == want_q["question"]
            assert item.locator(".opts li").count() == len(want_q["options"] or [])
            assert item.locator(".answer").inner_text() == f"answer: {want_q['answer']}"
            page.keyboard.press(key["ambiguous"])
            page.keyboard.press(key["wrong_key"])
            page.keyboard.press("x")
            item.locator(".status", has_text="saved: exclude").wait_for()
            assert "reviewed 2 of" in page.locator("#summary").inner_text()
            assert "1 of" in page.locator("#summary").inner_text().split("shots,")[1]
            # filters: the excluded shot alone under status "excluded"
            page.keyboard.press("t")
            page.fill("#f-text", "")
            page.dispatch_event("#f-text", "input")
            page.select_option("#f-status", "exclude")
            assert [c.get_attribute("data-id") for c in page.locator(".card").all()] == [shot]
            person = want["visible"][0]
            page.select_option("#f-status", "")
            page.select_option("#f-person", person)
            shown = {c.get_attribute("data-id") for c in page.locator(".card").all()}
            assert shown and shown <= {s["id"] for s in all_shots if person in s["visible"]}
            page.reload()  # the decisions come back from the file
            page.wait_for_selector("body[data-ready='1']")
            page.fill("#f-text", shot)
            page.dispatch_event("#f-text", "input")
            again = page.locator(f".card[data-kind=shot][data-id='{shot}']")
            assert "exclude" in (again.get_attribute("class") or "").split()
            assert again.locator("input[data-tag=face_drift]").is_checked()
            assert again.locator("textarea.note").input_value() == "face differs from the anchor"
            browser.close()
    finally:
        srv.stop()
    d = load_decisions(run_copy)
    assert d[("shot", shot)].reasons == ["face_drift"] and d[("shot", passed_shot)].decision == "pass"
    assert d[("shot", shot)].note == "face differs from the anchor"
    assert d[("item", q_other)].reasons == ["ambiguous", "wrong_key"]
    release = freeze_run(run_copy, "0.2.0")
    assert verify_release(release) == []
    funnel = json.loads((release / "gates/funnel.json").read_text())
    stage = _funnel_stage(funnel, "human_review")
    assert stage["reasons"]["item excluded (ambiguous+wrong_key)"] == 1
    assert stage["reasons"]["unanswerable, cites an excluded shot"] >= 1
    assert funnel["human_review"]["shots"] | {"reasons": {}} == {
        "total": len(all_shots),
        "reviewed": 2,
        "passed": 1,
        "excluded": 1,
        "reasons": {},
    }


def _name(run: Path, pid: str) -> str:
    world = json.loads((run / "world/world.json").read_text())
    return next(p["name"] for p in world["people"] if p["id"] == pid)


def _at(li) -> str:  # type: ignore[no-untyped-def]
    """The ``[t s]`` a line ends with on the page (its start in the album clip), as shown."""
    text = li.inner_text()
    return text[text.rindex(" [") :] if text.endswith(" s]") else ""


def test_review_command_names_a_bad_run_folder(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    r = CliRunner().invoke(app, ["review", str(tmp_path / "nope"), "--port", "0"])
    assert r.exit_code == 2 and "not a run folder (no run.json)" in r.output


@pytest.mark.integration
def test_a_rerender_draws_the_shot_again_with_fresh_seeds(run_copy: Path) -> None:
    """A reviewer's ``rerender``: the next build draws that shot (and re-encodes its clip) with a
    take seed of its own; every other file is left as it was."""
    from mnemoforge.exporters.release import ReleaseExistsError
    from mnemoforge.pipeline import build, freeze_run
    from mnemoforge.store.retakes import load_retakes
    from mnemoforge.validators.human_review import Decision, record_decision
    from mnemoforge.validators.release_check import verify_release

    clips = [json.loads(x) for x in (run_copy / "episodes/clips.jsonl").read_text().splitlines()]
    clip = clips[2]
    shot = clip["shots"][0]["id"]
    media = run_copy / "media"
    before = {p: p.read_bytes() for p in (media / "shots").glob("*.png")}
    clip_files = {p: p.read_bytes() for p in (media / "clips").glob("*.mp4")}
    record_decision(run_copy, Decision(kind="shot", id=shot, decision="rerender", reasons=["face_drift"]))
    assert load_retakes(run_copy) == {shot: 1}
    with pytest.raises(ReleaseExistsError):  # new pixels: the release needs a new version
        build(run_copy / "theme.yaml", outputs=run_copy.parent.parent, workers=1)
    after = {p: p.read_bytes() for p in (media / "shots").glob("*.png")}
    changed = {p.stem for p in before if before[p] != after[p]}
    assert changed == {shot}
    redone = {p.stem for p in clip_files if clip_files[p] != p.read_bytes()}
    assert redone == {clip["id"]}
    drawn = json.loads((media / "drawn" / f"{clip['id']}.json").read_text())
    assert next(s for s in drawn["shots"] if s["shot"] == shot)["take"] == 1
    release = freeze_run(run_copy, "0.1.1")
    assert verify_release(release) == []
    funnel = json.loads((release / "gates/funnel.json").read_text())
    assert funnel["human_review"]["shots"]["rerender"] == 1


def test_an_exclusion_reruns_only_what_depends_on_it_and_the_changelog_says_what_replaced_it(
    run_copy: Path, built: Built
) -> None:
    """Excluding a kept item: its category's next survivor takes its slot, the other categories keep
    their items (no quota cascade), only the review and the family-level gates are recomputed (every
    panel verdict comes from the cache), and the changelog names what left and what replaced it."""
    from mnemoforge.pipeline import BuildContext, freeze_run, gate_run, load_run_meta
    from mnemoforge.validators.human_review import Decision, save_decisions

    verdicts = [json.loads(x) for x in (built.release_dir / "gates/verdicts.jsonl").read_text().splitlines()]
    kept = [json.loads(x) for x in (built.release_dir / "data/icm/questions.jsonl").read_text().splitlines()]
    cands = {q["id"]: q for q in _questions(run_copy)}
    only_quota = {
        v["item"]
        for v in verdicts
        if v["gate"] == "category_quota" and not v["keep"]
        and all(w["keep"] for w in verdicts if w["item"] == v["item"] and w["gate"] != "category_quota")
    }  # fmt: skip
    spare = {cands[i]["category"] for i in only_quota}
    victim = next((q for q in sorted(kept, key=lambda q: q["id"]) if q["category"] in spare), None)
    if victim is None:
        pytest.skip("this build has no category with surplus survivors")
    save_decisions(run_copy, {("item", victim["id"]): Decision(kind="item", id=victim["id"],
                   decision="exclude", reasons=["wrong_key"])})  # fmt: skip
    meta = load_run_meta(run_copy)
    result = gate_run(BuildContext(run_copy / "theme.yaml", run_copy.parent.parent, int(meta["seed"])))
    recomputed = {g for g, n in result.computed.items() if n}
    assert recomputed <= {"human_review", "answer_balance", "category_quota"}, result.computed
    release = freeze_run(run_copy, "0.3.0")
    now = [json.loads(x) for x in (release / "data/icm/questions.jsonl").read_text().splitlines()]
    before_ids, now_ids = {q["id"] for q in kept}, {q["id"] for q in now}
    assert before_ids - now_ids == {victim["id"]}
    [replaced] = now_ids - before_ids  # one survivor of the same category took the slot
    assert cands[replaced]["category"] == victim["category"]
    for cat in {q["category"] for q in kept} - {victim["category"]}:  # no cascade through the quotas
        same = {q["id"] for q in kept if q["category"] == cat}
        assert same == {q["id"] for q in now if q["category"] == cat}
    changelog = (release / "CHANGELOG.md").read_text()
    left = f"- Human review: 1 item left the release: `{victim['id']}` ({victim['category']}: item excluded"
    assert left in changelog
    assert f"1 took its place (the next survivors of the same categories): `{replaced}`" in changelog
    assert "took their places (listed in `CHANGELOG.md`)" in (release / "README.md").read_text()
