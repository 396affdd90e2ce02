"""Length variants (``build --variants``): one World, several haystacks over the same kept items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge import yaml_io
from mnemoforge.cli import app
from mnemoforge.exporters.tables import TableReader, read_jsonl
from mnemoforge.generators.families import get_family
from mnemoforge.generators.questions.programs import PROGRAMS
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.release import ReleaseManifest
from mnemoforge.schemas.world import World
from mnemoforge.theme_checks import check_theme
from mnemoforge.theme_io import ThemeError, load_theme
from mnemoforge.validators.release_check import verify_release
from mnemoforge.validators.variant_check import check_variants
from mnemoforge.variants import VariantError, apply, parse_names, resolve

from .conftest import TEST_THEMES, small_theme_data

NAMES = ("oracle", "s", "m", "l")
# one xdist group: the module's two builds are made once, on one worker (tests/conftest.py)
pytestmark = pytest.mark.xdist_group("variants")


def _icm_theme(folder: Path, **top: object) -> Path:
    """14 clips, no profile items (their evidence is the whole album): the oracle is a part of it."""
    data = small_theme_data(clips=14)
    data["name"] = "tiny14"
    data["questions"] = {
        "total": 8, "identity_recall": 4, "cross_episode_retrieval": 4, "profile_inference": 0
    }  # fmt: skip
    data.update(top)
    path = folder / "tiny14.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def icm_variants(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mnemoforge.pipeline import build

    root = tmp_path_factory.mktemp("icm_variants")
    theme = _icm_theme(root, variants={"s": {"share": 0.25}})  # 1/8 of 14 clips holds no item's evidence
    res = build(theme, outputs=root / "outputs", workers=1, variants=NAMES)
    return res.release_dir


@pytest.fixture(scope="module")
def smm_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the plain release, the release with variants) of one smm theme, in one outputs folder: the
    second build finds every stage cached (the variants change the freeze only)."""
    from mnemoforge.pipeline import build

    out = tmp_path_factory.mktemp("smm_variants")
    plain = build(TEST_THEMES / "ferry_crew.yaml", outputs=out, workers=1)
    res = build(TEST_THEMES / "ferry_crew.yaml", outputs=out, workers=1, variants=NAMES)
    assert not any(res.ran.values())  # the same run, no stage ran again
    return plain.release_dir, res.release_dir


@pytest.fixture(scope="module")
def smm_variants(smm_builds: tuple[Path, Path]) -> Path:
    return smm_builds[1]


@pytest.fixture(params=["album", "mail"])  # not the family names: conftest would group them
def release(request: pytest.FixtureRequest) -> Path:
    return request.getfixturevalue({"album": "icm_variants", "mail": "smm_variants"}[request.param])


def _manifest(release: Path) -> dict:
    return json.loads((release / "MANIFEST.json").read_text())


def _haystacks(release: Path, fam: str, name: str) -> dict[str, dict]:
    return {r["item"]: r for r in read_jsonl(release / f"data/{fam}/variants/{name}/haystacks.jsonl")}


def test_each_item_has_its_own_nested_history_in_each_variant(release: Path) -> None:
    """Per item (as LongMemEval): the oracle is its evidence episodes (and the pinned ones), each
    larger variant adds episodes of the same World it may read, up to the target, nested; sizes
    in MANIFEST are the means over the items' histories; L is >= 8x S where the share says so."""
    m = _manifest(release)
    fam = m["family"]
    family = get_family(fam)
    assert [v["name"] for v in m["variants"]] == list(NAMES)
    assert {v["family"] for v in m["variants"]} == {fam}
    assert {v["unit"] for v in m["variants"]} == {family.variant_unit_name}
    assert release.parent.name == f"{load_theme(release / 'theme.yaml').name}-oracle-s-m-l"
    full = [Observation.model_validate(r) for r in read_jsonl(release / f"data/{fam}/observations.jsonl")]
    unit_of = {o.id: family.variant_unit(o) for o in full}
    order = {o.id: o.order for o in full}
    qs = {r["id"]: Question.model_validate(r) for r in read_jsonl(release / f"data/{fam}/questions.jsonl")}
    hs = {v["name"]: _haystacks(release, fam, v["name"]) for v in m["variants"]}
    assert set(hs["oracle"]) == set(hs["l"]) == set(qs)  # every kept item in the oracle and in L
    for v in m["variants"]:
        rows = hs[v["name"]].values()
        assert v["questions"] == len(rows) == len(qs) - v["left_out"]
        sizes = [r["size"] for r in rows]
        assert v["size"] == round(sum(sizes) / len(sizes), 2)
        assert (v["size_min"], v["size_max"]) == (min(sizes), max(sizes))
        for r in rows:
            q = qs[r["item"]]
            assert set(q.evidence) <= set(r["observations"]), (v["name"], q.id)
            assert {unit_of[i] for i in r["observations"]} == set(r["episodes"])
            assert q.cutoff is None or all(order[i] <= q.cutoff for i in r["observations"])
    for v in m["variants"]:  # the items a variant leaves out: their evidence is above its target
        path = release / f"data/{fam}/variants/{v['name']}/left_out.jsonl"
        out = read_jsonl(path) if path.is_file() else []
        assert len(out) == v["left_out"] and not {r["item"] for r in out} & set(hs[v["name"]])
        assert all("its evidence spans" in r["reason"] for r in out)
    for qid in qs:  # nested, item by item
        chain = [set(hs[n][qid]["episodes"]) for n in NAMES if qid in hs[n]]
        assert all(a <= b for a, b in zip(chain, chain[1:], strict=False)), qid
        assert len(set(hs["oracle"][qid]["episodes"])) < len(set(unit_of.values()))
    share = m["variants"][1]["share"]  # s: each item's L is at least 1/share times its S
    assert share is not None and hs["s"]
    assert all(hs["l"][i]["size"] * share >= r["size"] for i, r in hs["s"].items())
    stats = json.loads((release / "dataset_statistics.json").read_text())
    assert [v["name"] for v in stats["variants"]] == list(NAMES)


def test_the_card_tables_the_sizes_and_verify_rederives(release: Path) -> None:
    card = (release / "README.md").read_text()
    m = _manifest(release)
    assert "## Variants" in card and "variant_history" in card and "its own history" in card
    for v in m["variants"]:
        assert f"| `{v['name']}` | {v['size']:g} | {v['size_min']}-{v['size_max']} |" in card
    funnel = json.loads((release / "gates/funnel.json").read_text())
    assert funnel["stages"][-1]["gate"] == "variant_history"
    assert funnel["kept"] == m["counts"]["questions"]
    assert verify_release(release) == []


def test_each_variant_config_loads_offline(
    release: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    datasets = pytest.importorskip("datasets", reason="needs the hub extra: pip install 'mnemoforge[hub]'")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    meta = yaml_io.safe_load((release / "README.md").read_text().split("---")[1])
    configs = {c["config_name"] for c in meta["configs"]}
    m = _manifest(release)
    fam = m["family"]
    for v in m["variants"]:
        for name in (v["config"], f"{fam}_variant_{v['name']}"):
            assert name in configs
            ds = datasets.load_dataset(str(release), name, split="test", cache_dir=str(tmp_path / "c"))
            assert len(ds) == v["questions"], name  # one row per item: its history
            assert {"item", "episodes", "observations"} <= set(ds.column_names)


def test_the_run_and_its_plain_release_are_unchanged(smm_builds: tuple[Path, Path]) -> None:
    """The variants come from the same run: a build without them is the release as ever (no
    ``variants`` in MANIFEST, no variant table), and the tables both hold are byte-identical."""
    plain, smm_variants = smm_builds
    assert plain.parent.name == "ferry_crew" and smm_variants.parent.name == "ferry_crew-oracle-s-m-l"
    m = _manifest(plain)
    assert "variants" not in m and not any("variants/" in f for f in m["files"])
    assert ReleaseManifest.model_validate(m).variants is None
    v = _manifest(smm_variants)
    assert v["run_id"] == m["run_id"]
    for rel in ("data/smm/questions.jsonl", "data/smm/observations.jsonl", "data/world.json"):
        assert v["files"][rel] == m["files"][rel], rel  # no item dropped: the same tables


def test_same_theme_and_seed_give_the_same_manifest(smm_variants: Path, tmp_path: Path) -> None:
    from mnemoforge.pipeline import build

    again = build(TEST_THEMES / "ferry_crew.yaml", outputs=tmp_path, workers=1, variants=NAMES).release_dir
    assert (again / "MANIFEST.json").read_bytes() == (smm_variants / "MANIFEST.json").read_bytes()


def test_an_item_a_longer_history_changes_leaves_every_variant(
    icm_variants: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program whose answer grows with what the history shows passes on its evidence and in the
    oracle, but not in L: it is dropped from all variants with the variant and the reason."""
    fam = get_family("icm")
    world = World.model_validate_json((icm_variants / "data/world.json").read_text())
    obs = [Observation.model_validate(r) for r in read_jsonl(icm_variants / "data/icm/observations.jsonl")]
    qs = [Question.model_validate(r) for r in read_jsonl(icm_variants / "data/icm/questions.jsonl")]
    by_id = {o.id: o for o in obs}

    def events_seen(view, args):  # type: ignore[no-untyped-def]
        facts = [f for fs in view.by_kind.values() for f in fs if f.event]
        view.mark(facts)
        return str(len({f.event for f in facts}))

    monkeypatch.setitem(PROGRAMS, "events_seen", events_seen)
    clip = by_id[qs[0].evidence[0]].episode
    ev = [o.id for o in obs if o.episode == clip and o.evidence_eligible]
    seen = len({f.event for o in ev for e in by_id[o].expresses if (f := _fact(world, e.fact)).event})
    odd = qs[0].model_copy(
        update={"id": "icm_probe", "program": qs[0].program.model_copy(update={"fn": "events_seen"}),
                "answer": str(seen), "evidence": ev, "cutoff": None}
    )  # fmt: skip
    asked = resolve(load_theme(icm_variants / "theme.yaml"), fam, list(NAMES))
    out = apply(fam, world, obs, [odd, *qs], asked)
    dropped = {v.item: v.reason for v in out.verdicts if not v.keep}
    assert list(dropped) == ["icm_probe"], dropped
    assert "history gives" in dropped["icm_probe"] and dropped["icm_probe"].split(":")[0] in NAMES
    assert out.stage == {"gate": "variant_history", "version": "1", "rejected": 1, "kept": len(qs),
                         "reasons": {dropped["icm_probe"].split(":")[0]: 1}}  # fmt: skip
    assert all("icm_probe" not in s.haystacks for s in out.selections)
    plain = apply(fam, world, obs, qs, asked)  # the other items' histories do not depend on the probe
    hs = [{i: h.units for i, h in s.haystacks.items()} for s in out.selections]
    assert hs == [{i: h.units for i, h in s.haystacks.items()} for s in plain.selections]
    m = _manifest(icm_variants)
    assert [len(s.haystacks) for s in plain.selections] == [v["questions"] for v in m["variants"]]


def _fact(world: World, fid: str):  # type: ignore[no-untyped-def]
    return next(f for f in world.facts if f.id == fid)


def test_verify_names_a_variant_whose_counts_or_evidence_disagree(icm_variants: Path) -> None:
    m = ReleaseManifest.model_validate(_manifest(icm_variants))
    world = World.model_validate_json((icm_variants / "data/world.json").read_text())
    qs = [Question.model_validate(r) for r in read_jsonl(icm_variants / "data/icm/questions.jsonl")]
    assert check_variants(icm_variants, m, world, qs, TableReader()) == []
    assert m.variants is not None
    wrong = m.model_copy(update={"variants": [m.variants[0].model_copy(update={"size": 99.0})]})
    problems = check_variants(icm_variants, wrong, world, qs, TableReader())
    assert len(problems) == 1 and "variant 'oracle' lists {'size': 99.0" in problems[0]
    changed = qs[0].model_copy(update={"answer": qs[0].answer + " (changed)"})
    problems = check_variants(icm_variants, m, world, [changed, *qs[1:]], TableReader())
    about = [p for p in problems if qs[0].id in p]
    assert about and all("the answer is" in p or "symbolic_rederive" in p for p in about), about


def test_verify_names_a_history_that_is_not_the_seeds(icm_variants: Path, tmp_path: Path) -> None:
    """A haystack row with a filler episode swapped (or an item added that the target leaves out)
    is not the history the seed draws: verify names the item and the file."""
    import shutil

    rel = tmp_path / "rel"
    shutil.copytree(icm_variants, rel)
    m = ReleaseManifest.model_validate(_manifest(rel))
    world = World.model_validate_json((rel / "data/world.json").read_text())
    qs = [Question.model_validate(r) for r in read_jsonl(rel / "data/icm/questions.jsonl")]
    path = rel / "data/icm/variants/m/haystacks.jsonl"
    rows = read_jsonl(path)
    rows[0]["episodes"] = rows[0]["episodes"][:-1]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    problems = check_variants(rel, m, world, qs, TableReader())
    assert any(f"{rows[0]['item']}: not the history the seed draws for it in 'm'" in p for p in problems)


def _theme_file(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize(
    ("variants", "field", "says"),
    [
        ({"oracle": {"size": 3}}, "variants.oracle", "evidence episodes only"),
        ({"xl": {}}, "variants.xl", "give a size"),
        ({"s": {"size": 2, "share": 0.5}}, "variants.s", "not both"),
        ({"Big": {"size": 2}}, "variants.Big", "pattern"),
        ({"s": {"size": 0}}, "variants.s.size", "greater than or equal to 1"),
        ({"l": {"size": 40}}, "variants.l.size", "more than the World's 14"),
    ],
)
def test_theme_check_names_the_variant_field(tmp_path: Path, variants: dict, field: str, says: str) -> None:
    path = _icm_theme(tmp_path, variants=variants)
    with pytest.raises(ThemeError) as e:
        check_theme(path)
    text = str(e.value)
    assert str(path) in text and field in text and says in text, text


def test_a_variants_section_checks_and_sizes_the_variants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _icm_theme(tmp_path, variants={"s": {"size": 3}, "xl": {"share": 1.0}})
    theme = check_theme(path)
    fam = get_family("icm")
    got = {r.name: r.target(14) for r in resolve(theme, fam, ["oracle", "s", "m", "l", "xl"])}
    assert got == {"oracle": None, "s": 3, "m": 4, "l": 14, "xl": 14}  # a share rounds down
    with pytest.raises(VariantError, match="unknown variant 'xxl'"):
        resolve(theme, fam, ["xxl"])
    with pytest.raises(VariantError, match="twice"):
        parse_names("s,s")
    memeye = load_theme(TEST_THEMES / "bakery_log.yaml")  # a family without length variants:
    monkeypatch.setattr(type(get_family("memeye")), "variant_unit_name", None)
    with pytest.raises(VariantError, match="family memeye has no length variants"):
        resolve(memeye, get_family("memeye"), ["s"])
    data = yaml_io.safe_load((TEST_THEMES / "bakery_log.yaml").read_text()) | {"variants": {"s": {"size": 2}}}
    with pytest.raises(ThemeError, match="family memeye has no length variants"):
        check_theme(_theme_file(tmp_path, data))


def test_build_refuses_an_unknown_variant_before_any_work(tmp_path: Path) -> None:
    path = _icm_theme(tmp_path)
    r = CliRunner().invoke(
        app, ["build", str(path), "--outputs", str(tmp_path / "o"), "--orchestrator", "local",
              "--variants", "oracle,xl"],
    )  # fmt: skip
    assert r.exit_code == 2 and "--variants: unknown variant 'xl'" in r.output, r.output
    assert not (tmp_path / "o" / "runs").exists()


def test_evaluate_scores_every_variant_side_by_side(smm_variants: Path, tmp_path: Path) -> None:
    """``evaluate --variants all``: one run per variant over its own history, and a table. The
    exact solver over BM25's top 10 answers fewer items as the haystack grows."""
    from mnemoforge.exporters.views import load_agent_view

    m = _manifest(smm_variants)
    view = load_agent_view(smm_variants, "oracle")
    assert view.haystacks is not None and len(view.haystacks) == len(view.items)
    one = view.items[0]
    mine = view.for_item(one.id).history(one.cutoff)
    assert {o["id"] for o in mine} == view.haystacks[one.id] and len(mine) < m["counts"]["observations"]
    with pytest.raises(FileNotFoundError, match="no length variant 'xl'"):
        load_agent_view(smm_variants, "xl")
    out = tmp_path / "eval"
    args = ["evaluate", str(smm_variants), "--method", "retrieval", "--model", "symbolic", "--top-k", "10"]
    r = CliRunner().invoke(app, [*args, "--out", str(out), "--variants", "all"])
    assert r.exit_code == 0, r.output
    curve = json.loads((out / "variants.json").read_text())
    rows = {row["variant"]: row for row in curve["rows"]}
    assert list(rows) == list(NAMES)
    for v in m["variants"]:
        res = json.loads((out / v["name"] / "results.json").read_text())
        assert res["variant"] == v["name"] and res["summary"]["items"] == v["questions"]
        hay = _haystacks(smm_variants, "smm", v["name"])
        assert all(r["context"]["haystack"] == hay[r["id"]]["observation_count"] for r in res["items"])
        assert all(r["context"]["pool"] <= r["context"]["haystack"] for r in res["items"])
        assert rows[v["name"]]["observations"] == v["observations"]
        assert f"| `{v['name']}` | {v['size']:g} sessions |" in (out / "variants.md").read_text()
    assert rows["oracle"]["score"] > rows["l"]["score"]  # more history, more for retrieval to miss
    from mnemoforge.evaluation.matrix import default_out
    from mnemoforge.evaluation.report_section import evaluation_section

    assert evaluation_section(smm_variants) is None
    r = CliRunner().invoke(
        app, [*args, "--out", str(default_out(smm_variants) / "bm25"), "--variants", "all"]
    )
    assert r.exit_code == 0, r.output
    found = evaluation_section(smm_variants)  # the report's section: a variant column and the curve
    assert found is not None and "<th>variant</th>" in found[1] and found[1].count("<svg") == 1
    assert found[1].count("<polyline") == 1 and all(n in found[1] for n in NAMES)
    assert "top_k" not in found[1]  # one run per method and model: no settings in its name
    base = [a for a in args if a not in ("--top-k", "10")]  # the same method at another top_k
    k2_out = str(default_out(smm_variants) / "k2")
    k2 = CliRunner().invoke(app, [*base, "--top-k", "2", "--out", k2_out, "--variants", "all"])
    assert k2.exit_code == 0, k2.output
    found = evaluation_section(smm_variants)  # two runs of one method × model: two lines, named apart
    assert found is not None and found[1].count("<polyline") == 2
    for k in (10, 2):  # the legend names each line by its setting
        assert f"retrieval × symbolic, top_k {k}</text>" in found[1]
    assert "<td>retrieval, top_k 2</td>" in found[1]
    bad = CliRunner().invoke(app, [*args, "--out", str(out), "--variants", "oracle,xx"])
    assert bad.exit_code == 2 and "['xx'] not in the release" in bad.output


ABLATIONS = {"icm": "transcript_only", "smm": "no_attachments"}


def test_a_modality_ablation_is_the_whole_history_without_a_modality(release: Path) -> None:
    """``--variants oracle,l,<ablation>`` on the same run: the ablation keeps every observation the
    family's ablation leaves (icm: spoken lines without media; smm: nothing with media), is not
    re-derived (no item leaves the release for it), and counts the items it still answers."""
    from mnemoforge.pipeline import build

    fam = _manifest(release)["family"]
    name = ABLATIONS[fam]
    outputs = release.parents[2]
    res = build(release / "theme.yaml", outputs=outputs, workers=1, variants=("oracle", "l", name))
    assert not any(res.ran.values())
    m = _manifest(res.release_dir)
    entry = m["variants"][-1]
    assert entry["name"] == name and entry["ablation"] and entry["target"] is None
    assert m["counts"]["questions"] == _manifest(release)["counts"]["questions"]  # nobody dropped
    rows = read_jsonl(res.release_dir / f"data/{fam}/variants/{name}/observations.jsonl")
    full = read_jsonl(res.release_dir / f"data/{fam}/observations.jsonl")
    assert len(rows) == entry["observations"] < len(full)
    assert all(not r["media"] for r in rows)
    if fam == "icm":
        assert {r["kind"] for r in rows} == {"speech"}
        assert len(rows) == sum(r["kind"] == "speech" for r in full)
    else:
        assert len(rows) == sum(not r["media"] for r in full)
    assert 0 <= entry["answerable"] < entry["questions"]
    assert (
        f"| `{name}` | {entry['size']:g} |  | ablation | {entry['observations']:g} | {entry['answerable']} |"
        in (res.release_dir / "README.md").read_text()
    )
    assert verify_release(res.release_dir) == []


def test_a_theme_variant_may_not_take_an_ablation_name(tmp_path: Path) -> None:
    path = _icm_theme(tmp_path, variants={"transcript_only": {"size": 3}})
    with pytest.raises(
        ThemeError, match="variants.transcript_only: 'transcript_only' is a modality ablation"
    ):
        check_theme(path)


def test_freeze_writes_variants_of_a_finished_run(icm_variants: Path) -> None:
    outputs = icm_variants.parents[2]
    run_id = json.loads((icm_variants / "config.resolved.json").read_text())["run_id"]
    args = ["freeze", str(outputs / "runs" / run_id), "--version", "0.2.0"]
    r = CliRunner().invoke(app, [*args, "--variants", "oracle,s"])
    assert r.exit_code == 0, r.output
    rel = Path(r.output.strip().splitlines()[-1])
    assert rel == outputs / "releases" / "tiny14-oracle-s" / "0.2.0"
    assert [v["name"] for v in _manifest(rel)["variants"]] == ["oracle", "s"]
    assert verify_release(rel) == []
    bad = CliRunner().invoke(app, [*args, "--variants", "oracle,,s"])
    assert bad.exit_code == 2 and "an empty name" in bad.output


def test_memeye_length_variants_and_captions_for_pictures(tmp_path: Path) -> None:
    """memeye: an episode is a chat session, so its items get per-item histories of sessions like
    the other families; and one ablation: each picture replaced by its caption, the caption's facts
    expressed instead of the picture's; verify re-derives both."""
    from mnemoforge.pipeline import build

    res = build(
        TEST_THEMES / "bakery_log.yaml", outputs=tmp_path, workers=1,
        variants=["oracle", "m", "l", "captions_for_pictures"],
    )  # fmt: skip
    m = _manifest(res.release_dir)
    by = {v["name"]: v for v in m["variants"]}
    assert by["l"]["unit"] == "sessions" and by["l"]["questions"] == m["counts"]["questions"]
    assert by["oracle"]["size"] < by["m"]["size"] < by["l"]["size"]
    hs = _haystacks(res.release_dir, "memeye", "oracle")
    qs = read_jsonl(res.release_dir / "data/memeye/questions.jsonl")
    assert all(set(q["evidence"]) <= set(hs[q["id"]]["observations"]) for q in qs)
    entry = by["captions_for_pictures"]
    assert entry["ablation"] and entry["observations"] == m["counts"]["observations"]
    assert 0 < entry["answerable"] < entry["questions"]
    rows = read_jsonl(res.release_dir / "agent/memeye/variants/captions_for_pictures/observations.jsonl")
    full = read_jsonl(res.release_dir / "data/memeye/observations.jsonl")
    pictured = {r["id"] for r in full if r["media"]}
    assert pictured and all(not r["media"] for r in rows)
    assert all("[picture: " in r["content"] for r in rows if r["id"] in pictured)
    assert verify_release(res.release_dir) == []


def test_icm_captions_only_and_video_without_audio(icm_variants: Path, tmp_path: Path) -> None:
    """``captions_only``: one observation per clip, its caption's text, the spoken facts it quotes;
    ``no_audio``: the shots with their clip muted (a copy without the audio stream) and no spoken
    lines. Both are checked by verify, which names a muted clip that is missing."""
    import shutil

    from mnemoforge.backends.video.probe import probe
    from mnemoforge.pipeline import build

    outputs = icm_variants.parents[2]
    res = build(
        icm_variants / "theme.yaml", outputs=outputs, workers=1, variants=("l", "captions_only", "no_audio")
    )
    assert not any(res.ran.values())
    rel = res.release_dir
    m = _manifest(rel)
    by = {v["name"]: v for v in m["variants"]}
    full = read_jsonl(rel / "data/icm/observations.jsonl")
    clips = list(dict.fromkeys(r["episode"] for r in full))
    caps = {r["clip"]: r for r in read_jsonl(rel / "data/icm/captions.jsonl")}
    rows = read_jsonl(rel / "data/icm/variants/captions_only/observations.jsonl")
    assert [r["id"] for r in rows] == [f"{c}_caption" for c in clips] and by["captions_only"][
        "observations"
    ] == len(clips)
    for r in rows:
        assert not r["media"] and caps[r["episode"]]["caption"] in r["content"]
        assert {e["channel"] for e in r["expresses"]} <= {"caption"}
    spoken = {e["fact"] for r in full if r["kind"] == "speech" for e in r["expresses"]}
    assert {e["fact"] for r in rows for e in r["expresses"]} <= spoken
    agent = read_jsonl(rel / "agent/icm/variants/captions_only/observations.jsonl")
    assert all("expresses" not in r and "people" not in r for r in agent)
    muted = read_jsonl(rel / "data/icm/variants/no_audio/observations.jsonl")
    assert {r["kind"] for r in muted} == {"shot"} and len(muted) == sum(r["kind"] == "shot" for r in full)
    paths = {p for r in muted for p in r["media"] if p.endswith(".mp4")}
    assert paths and all(p.startswith("media/clips_muted/") for p in paths)
    assert all(not p.endswith(".wav") for r in muted for p in r["media"])
    info = probe(rel / sorted(paths)[0])
    assert info.has_video and not info.has_audio
    assert 0 <= by["captions_only"]["answerable"] <= by["no_audio"]["questions"]
    assert verify_release(rel) == []
    copy = tmp_path / "rel"
    shutil.copytree(rel, copy)
    gone = sorted(paths)[0]
    (copy / gone).unlink()
    assert any(p.startswith(f"{gone}: missing") for p in verify_release(copy))
