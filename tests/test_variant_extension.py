"""Length variants over an album extended with more clips of the same World (issue 36): every item
kept is in every variant with L >= 8x S, histories nest, and an item a longer history changes is
dropped from all variants with the reason; ``build --extend`` renders it into the release."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemoforge import variants as V
from mnemoforge.cli import app
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators import coherence
from mnemoforge.generators.families import get_family
from mnemoforge.generators.icm import album
from mnemoforge.generators.icm.extension import plan_extension
from mnemoforge.schemas.theme import Theme
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.validators.release_check import verify_release
from mnemoforge.variant_extension import extend

from .conftest import TEST_THEMES, small_theme_data

NAMES = ("oracle", "s", "m", "l")


@pytest.fixture(scope="module")
def album14(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A 14-clip album planned (no render): theme, World, clips, observations, the items that hold
    on the base album, and a run folder holding its clips (what the extension reads)."""
    data = small_theme_data(clips=14)
    data["questions"]["total"] = 24
    theme = Theme.model_validate(data)
    fam = get_family("icm")
    world = fam.plan(theme, theme.seed)
    clips, obs = album.plan_album(theme, world)
    root = tmp_path_factory.mktemp("album14")
    atomic.write_jsonl(RunLayout(root).clips, clips)
    from mnemoforge.generators.icm import questions as icm

    qs = icm.generate_icm(world, obs, theme.questions.counts(), last_order=max(c.index for c in clips))
    kept = [q for q in qs if V.problem(q, world, "base", obs) is None]
    assert len(kept) >= 8
    return theme, world, clips, obs, kept, root


def test_extension_is_the_same_world_and_leaves_the_album_as_it_is(album14) -> None:  # type: ignore[no-untyped-def]
    theme, world, clips, obs, _, _ = album14
    ext = plan_extension(theme, world, clips, 3 * len(clips))
    again = plan_extension(theme, world, clips, 3 * len(clips))
    assert [c.model_dump_json() for c in ext.clips] == [c.model_dump_json() for c in again.clips]
    assert len(ext.clips) >= 2 * len(clips)  # most planned slots fit between the album's events
    base_ids = {e.id for e in world.events}
    assert base_ids <= {e.id for e in ext.world.events}
    assert {f.id for f in world.facts} <= {f.id for f in ext.world.facts}
    new = [e for e in ext.world.events if e.id not in base_ids]
    assert new and all(e.id.startswith("ev_x") for e in new)
    assert {p for e in new for p in e.participants} <= {p.id for p in world.people}  # the same people
    said = {f.event for f in ext.world.facts if f.kind in ("promised", "planned")}
    assert not said & {e.id for e in new}  # extension events make no promises or plans
    assert coherence.world_problems(ext.world, theme) == []  # nobody at two events at once
    assert coherence.observation_problems(ext.world, obs + ext.observations) == []
    assert not {o.id for o in ext.observations} & {o.id for o in obs}
    # each extension clip sits after the last album clip before it
    starts = {c.index: c.start for c in clips}
    for c in ext.clips:
        assert starts[c.index] <= c.start
        assert c.index == max(c.index for c in clips) or c.start <= starts[c.index + 1]


def test_every_kept_item_in_every_variant_with_l_eight_times_s(album14) -> None:  # type: ignore[no-untyped-def]
    theme, world, _, obs, kept, root = album14
    fam = get_family("icm")
    big = extend(fam, theme, world, obs, root, factor=8)
    assert len(big.added) >= 6 * 14
    asked = V.resolve(theme, fam, NAMES)
    out = V.apply(fam, big.world, big.observations, kept, asked)
    alive = {v.item for v in out.verdicts if v.keep}
    assert alive
    sel = {s.name: s for s in out.selections}
    for name in NAMES:
        assert set(sel[name].haystacks) == alive, name  # every kept item in every variant
        assert not sel[name].left_out
    added = set(big.added)
    for qid in alive:
        h = {n: set(sel[n].haystacks[qid].units) for n in NAMES}
        assert h["oracle"] <= h["s"] <= h["m"] <= h["l"]  # nested
        assert len(h["l"]) >= 8 * len(h["s"])
        assert not h["oracle"] & added  # the extension is filler, never evidence
    assert any(set(sel["l"].haystacks[q].units) & added for q in alive)


def test_an_item_the_extension_changes_is_dropped_everywhere_with_why(album14) -> None:  # type: ignore[no-untyped-def]
    theme, world, _, obs, kept, root = album14
    fam = get_family("icm")
    big = extend(fam, theme, world, obs, root, factor=8)
    out = V.apply(fam, big.world, big.observations, kept, V.resolve(theme, fam, NAMES))
    dropped = [v for v in out.verdicts if not v.keep]
    assert dropped, "eight times the clips of the same people change some count or habit"
    for v in dropped:
        assert v.gate == V.GATE
        assert v.reason.split(":")[0] in NAMES
        assert "history" in v.reason  # "... history gives X, the answer is Y" / "leaves it ambiguous"
        assert all(v.item not in s.haystacks and v.item not in s.left_out for s in out.selections)
    assert out.stage["rejected"] == len(dropped)


def test_extend_factor_one_is_the_run_itself(album14) -> None:  # type: ignore[no-untyped-def]
    theme, world, _, obs, _, root = album14
    same = extend(get_family("icm"), theme, world, obs, root, factor=1)
    assert same.world is world and same.observations == obs and same.added == []
    with pytest.raises(V.VariantError):
        extend(get_family("icm"), theme, world, obs, root, factor=0)
    with pytest.raises(V.VariantError):
        extend(get_family("smm"), theme, world, obs, Path(root), factor=2)


def _theme_file(folder: Path, clips: int = 8) -> Path:
    data = small_theme_data(clips=clips)
    data["name"] = f"tiny{clips}"
    data["questions"] = {
        "total": 8, "identity_recall": 4, "cross_episode_retrieval": 4, "profile_inference": 0
    }  # fmt: skip
    path = folder / f"tiny{clips}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def extended_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(the plain release, its MANIFEST bytes before the extended build, the release with
    ``--variants oracle,s,m,l --extend 8``) of one 8-clip album in one outputs folder."""
    from mnemoforge.pipeline import build

    root = tmp_path_factory.mktemp("extended")
    theme = _theme_file(root)
    plain = build(theme, outputs=root / "o", workers=1).release_dir
    before = (plain / "MANIFEST.json").read_bytes()
    ext = build(theme, outputs=root / "o", workers=2, variants=NAMES, extend=8).release_dir
    return plain, before, ext


def _rows(rel: Path, name: str) -> dict[str, dict]:
    return {r["item"]: r for r in read_jsonl(rel / f"data/icm/variants/{name}/haystacks.jsonl")}


# integration: builds an album and extends it 8x (about 8 CPU-s)
@pytest.mark.integration
def test_build_extend_renders_the_extension_and_keeps_every_item_in_every_variant(extended_builds) -> None:  # type: ignore[no-untyped-def]
    plain, before, rel = extended_builds
    assert rel.parent.name == "tiny8-oracle-s-m-l-x8"
    m = json.loads((rel / "MANIFEST.json").read_text())
    assert m["counts"]["clips"] >= 6 * 8  # the album's 8 and most of the 56 planned
    n = m["counts"]["questions"]
    assert n > 0 and all(v["questions"] == n and v["left_out"] == 0 for v in m["variants"])
    rows = {name: _rows(rel, name) for name in NAMES}
    for item in rows["l"]:
        h = {name: set(rows[name][item]["episodes"]) for name in NAMES}
        assert h["oracle"] <= h["s"] <= h["m"] <= h["l"]
        assert rows["l"][item]["size"] >= 8 * rows["s"][item]["size"]
    clips = read_jsonl(rel / "data/icm/clips.jsonl")
    extension = {c["id"] for c in clips if (c["event"] or "").startswith("ev_x")}
    assert extension and all((rel / f"media/clips/{c}.mp4").is_file() for c in extension)
    assert not any(set(r["episodes"]) & extension for r in rows["oracle"].values())  # never evidence
    assert verify_release(rel) == []
    # the run and its plain release are as they were
    assert (plain / "MANIFEST.json").read_bytes() == before
    assert json.loads(before)["counts"]["clips"] == 8


# integration: builds an album and extends it 8x (about 8 CPU-s)
@pytest.mark.integration
def test_build_extend_is_deterministic(extended_builds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.pipeline import build

    _, _, rel = extended_builds
    again = build(_theme_file(tmp_path), outputs=tmp_path / "o", workers=1, variants=NAMES, extend=8)
    assert (again.release_dir / "MANIFEST.json").read_bytes() == (rel / "MANIFEST.json").read_bytes()


def test_build_refuses_extend_without_length_variants_or_extension(tmp_path: Path) -> None:
    theme = _theme_file(tmp_path)
    for args, says in (
        (["--extend", "4"], "--extend: needs length variants"),
        (["--variants", "no_audio", "--extend", "4"], "--extend: needs length variants"),
        (["--variants", "oracle,l", "--extend", "0"], "--extend"),
    ):
        r = CliRunner().invoke(
            app, ["build", str(theme), "--outputs", str(tmp_path / "o"), "--orchestrator", "local", *args]
        )
        assert r.exit_code == 2 and says in r.output, r.output
    smm = tmp_path / "ferry.yaml"
    smm.write_bytes((TEST_THEMES / "ferry_crew.yaml").read_bytes())
    r = CliRunner().invoke(
        app, ["build", str(smm), "--outputs", str(tmp_path / "o"), "--orchestrator", "local",
              "--variants", "oracle,l", "--extend", "4"],
    )  # fmt: skip
    assert r.exit_code == 2 and "has no extension" in r.output, r.output
    assert not (tmp_path / "o" / "runs").exists()
