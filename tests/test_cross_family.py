"""One world, three families (issue 36 item 3; docs/cross-family.md): the glassworks_world test
theme builds an icm album, an smm set and a memeye log of one World into one release with a
``cross`` config; verify and ``datasets.load_dataset`` work for every config."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from mnemoforge.generators.coherence import IncoherentWorld
from mnemoforge.generators.world_merge import merge_worlds
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import Span, Timeline, World
from mnemoforge.theme_io import load_theme

THEME = Path(__file__).resolve().parent / "themes" / "glassworks_world.yaml"


@pytest.fixture(scope="module")
def multi(world_release):  # type: ignore[no-untyped-def]
    return world_release  # the session's build (conftest.py), shared with test_cross_family_eval


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_one_release_one_world_three_families_and_50_cross_items(multi) -> None:  # type: ignore[no-untyped-def]
    root = multi.release_dir
    manifest = json.loads((root / "MANIFEST.json").read_text())
    assert manifest["families"] == ["icm", "smm", "memeye"]
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("world.json")) == ["data/world.json"]
    for fam in manifest["families"]:
        assert _rows(root / f"families/{fam}/data/{fam}/questions.jsonl"), fam  # each family's items
    cross = _rows(root / "data/cross/questions.jsonl")
    assert len(cross) >= 50
    for q in cross:
        fams = {e.split(":", 1)[0] for e in q["evidence"]}
        assert len(fams) >= 2, q["id"]
    # a date bridge (not a person): the moment of an icm clip, the last memeye picture before it
    when = [q for q in cross if q["program"]["args"]["bridge"]["kind"] == "when_brought"]
    assert when and all(q["labels"]["families"] == "icm,memeye" for q in when)
    # a place bridge (a picture's sign or a record's room names a place; another family says what
    # is there) and a dated-record bridge (a due date read from smm picks a picture or a clip)
    kinds = {q["program"]["args"]["bridge"]["kind"] for q in cross}
    assert {"place_label", "place_room", "when_due"} <= kinds
    due = [q for q in cross if q["program"]["args"]["bridge"]["kind"] == "when_due"]
    assert {q["labels"]["families"] for q in due} == {"icm,smm", "memeye,smm"}
    # all three families take part in the cross items
    assert set().union(*(q["labels"]["families"].split(",") for q in cross)) == {"icm", "smm", "memeye"}
    world = World.model_validate_json((root / "data/world.json").read_text())
    assert {p.id for p in world.people} == {p.id for p in load_theme(THEME).cast}
    from mnemoforge.english import broken_patterns

    names = [x.name for x in (*world.people, *world.places, *world.entities)]
    assert [q["question"] for q in cross if broken_patterns(q["question"], names)] == []


def test_verify_and_every_family_release(multi) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.validators.release_check import verify_release

    assert verify_release(multi.release_dir) == []


def _failed(world: World, sources: dict, q: Question, obs: dict) -> set[str]:
    from mnemoforge.validators.cross_gates import cross_gates
    from mnemoforge.validators.gates import EXACT_GATES, GateContext

    ctx = GateContext(world, obs, [q])
    return {g.name for g in (*EXACT_GATES, *cross_gates(sources)) if not g.check(q, ctx).keep}


def test_the_cross_gates_reject_what_one_family_answers(multi) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.generators.cross_items import qualified
    from mnemoforge.schemas.observations import Observation

    root = multi.release_dir
    world = World.model_validate_json((root / "data/world.json").read_text())
    sources = json.loads((root / "data/cross/fact_families.json").read_text())
    obs = {}
    for fam in ("icm", "smm", "memeye"):
        for r in _rows(root / f"families/{fam}/data/{fam}/observations.jsonl"):
            o = qualified(fam, Observation.model_validate(r))
            obs[o.id] = o
    rows = _rows(root / "data/cross/questions.jsonl")
    when = next(r for r in rows if r["program"]["args"]["bridge"]["kind"] == "when_brought")
    kind = {r["program"]["args"]["bridge"]["kind"]: r for r in rows}
    for r in (rows[0], when, kind["place_label"], kind["when_due"]):  # person, date, place, due date
        assert _failed(world, sources, Question.model_validate(r), obs) == set(), r["id"]
    # a place item's sign claimed by the family of its property: that family alone answers it
    q = Question.model_validate(kind["place_label"])
    fam = sources[q.facts_read[-1]]
    assert "one_family_insufficient" in _failed(world, dict(sources) | {q.facts_read[0]: fam}, q, obs)
    # the picture log's place is carried in the args: args naming another place fail
    bridge = q.program.args["bridge"]
    elsewhere = next(p.id for p in world.places if p.id != bridge["place"])
    args = q.program.args | {"bridge": bridge | {"place": elsewhere}}
    moved = q.model_copy(update={"program": q.program.model_copy(update={"args": args})})
    assert "cross_rederive" in _failed(world, sources, moved, obs)
    from mnemoforge.generators.cross_bridges import args_disagree

    assert args_disagree(world, bridge) is None
    assert "not" in (args_disagree(world, args["bridge"]) or "")
    # the date bridge's clip claimed by memeye: memeye alone knows the moment and the picture
    q = Question.model_validate(when)
    assert "one_family_insufficient" in _failed(world, dict(sources) | {q.facts_read[0]: "memeye"}, q, obs)
    q = Question.model_validate(rows[0])
    # every fact read claimed by one family: that family alone answers it
    one = dict(sources) | dict.fromkeys(q.facts_read, "icm")
    assert "one_family_insufficient" in _failed(world, one, q, obs)
    # evidence of one family only: the other family's fact has no evidence (and the symbolic
    # answerer cannot re-derive the answer from what is left)
    first = q.evidence[0].split(":")[0]
    q2 = q.model_copy(update={"evidence": [e for e in q.evidence if e.startswith(first + ":")]})
    assert {"evidence_families", "symbolic_rederive"} <= _failed(world, sources, q2, obs)
    q3 = q.model_copy(update={"answer": "something else"})
    assert {"cross_rederive", "symbolic_rederive"} <= _failed(world, sources, q3, obs)


def test_verify_fails_on_an_edited_release(multi, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.validators.release_check import verify_release

    copy = Path(shutil.copytree(multi.release_dir, tmp_path / "r"))
    path = copy / "families/smm/data/smm/questions.jsonl"
    rows = _rows(path)
    rows[0]["answer"] = "x" + rows[0]["answer"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert any("checksum mismatch" in p for p in verify_release(copy))


def test_load_dataset_every_config(multi) -> None:  # type: ignore[no-untyped-def]
    datasets = pytest.importorskip("datasets")
    from mnemoforge.validators.release_audit import card_configs

    configs = card_configs(multi.release_dir)
    assert "cross_questions" in configs and "agent_cross_questions" in configs
    assert {"icm_questions", "smm_questions", "memeye_questions"} <= set(configs)
    for name, files in configs.items():
        ds = datasets.load_dataset(str(multi.release_dir), name, split="test")
        assert len(ds) > 0, name
        assert files
    cross = datasets.load_dataset(str(multi.release_dir), "agent_cross_questions", split="test")
    assert "answer" not in cross.column_names and "choices" in cross.column_names


# A second build of the same theme and seed: tests/test_cross_family_flow.py (CI's integration
# tests) builds glassworks_world again in another process, through the Prefect flow, and asserts
# the same MANIFEST bytes as this module's build (about 6 CPU-s each), so this one runs with -m slow
@pytest.mark.slow
def test_same_theme_and_seed_same_manifest(multi, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.multi_family import build_multi

    again = build_multi(THEME, outputs=tmp_path / "outputs", workers=1)
    assert (again.release_dir / "MANIFEST.json").read_bytes() == (
        multi.release_dir / "MANIFEST.json"
    ).read_bytes()


def _world(**kw) -> World:  # type: ignore[no-untyped-def]
    base = dict(
        theme="t", seed=1, start=dt.date(2027, 1, 1), end=dt.date(2027, 2, 1), protagonist="a",
        people=[], relations=[], places=[], objects=[], events=[], facts=[],
    )  # fmt: skip
    return World.model_validate(base | kw)


def test_merge_fails_on_one_person_in_two_places_at_once() -> None:
    t0 = dt.datetime(2027, 1, 5, 10)

    def at(place: str, start: dt.datetime) -> Timeline:
        span = Span(start=start, end=start + dt.timedelta(hours=2), value=place)
        return Timeline(subject="a", attribute="location", spans=[span])

    ok = merge_worlds(
        {
            "x": _world(timelines=[at("hall", t0)]),
            "y": _world(timelines=[at("shop", t0 + dt.timedelta(hours=3))]),
        }
    )
    assert [s.value for s in ok.timeline("a", "location").spans] == ["hall", "shop"]
    with pytest.raises(IncoherentWorld, match="overlaps"):
        merge_worlds(
            {
                "x": _world(timelines=[at("hall", t0)]),
                "y": _world(timelines=[at("shop", t0 + dt.timedelta(hours=1))]),
            }
        )
    from mnemoforge.schemas.world import Fact

    tea = Fact(id="p1", kind="preference", subject="a", object="tea", value="mint tea")
    prefers = Fact(id="p2", kind="prefers", subject="a", object="tea", value="masala chai")
    with pytest.raises(
        IncoherentWorld, match=r"preference a -> tea differs between families \(x: mint tea; y: masala chai\)"
    ):
        merge_worlds({"x": _world(facts=[tea]), "y": _world(facts=[prefers])})
    agree = prefers.model_copy(update={"value": "mint tea"})
    assert len(merge_worlds({"x": _world(facts=[tea]), "y": _world(facts=[agree])}).facts) == 2
    with pytest.raises(IncoherentWorld, match="seed"):
        merge_worlds({"x": _world(), "y": _world(seed=2)})


def test_theme_check_checks_the_families_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemoforge.generators.families import get_family
    from mnemoforge.theme_checks import check_theme
    from mnemoforge.theme_io import ThemeError

    text = THEME.read_text()
    for bad, said in (
        ("families: [icm, smm]", "memeye: section only allowed"),
        ("families: [icm, smm, memeye, icm]", "listed twice"),
        ("families: [icm, smm, memeye, nope]", "unknown family 'nope'"),
    ):
        path = tmp_path / "t.yaml"
        path.write_text(text.replace("families: [icm, smm, memeye]", bad))
        with pytest.raises(ThemeError, match=said):
            check_theme(path)
    # each family's own check runs on the theme's projection to it, named in the message
    fam = type(get_family("smm"))
    monkeypatch.setattr(
        fam, "check_theme", lambda self, theme: [f"smm.sources: family {theme.family} saw it"]
    )
    with pytest.raises(ThemeError, match=r"family smm saw it \(family smm, families.1\)"):
        check_theme(THEME)
