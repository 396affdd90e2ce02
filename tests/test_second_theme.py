"""The second theme (ICM's 'Backstage in Sao Paulo' pilot) loads and plans without code changes."""

from __future__ import annotations

from pathlib import Path

from mnemoforge import yaml_io
from mnemoforge.generators.icm.album import plan_album
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.theme_io import load_theme

PATH = Path(__file__).resolve().parent.parent / "assets" / "themes" / "backstage_sao_paulo.yaml"


def test_theme_shape() -> None:
    theme = load_theme(PATH)
    assert len(theme.cast) == 6
    assert 28 <= (theme.end - theme.start).days <= 31
    assert len(theme.places) >= 5
    place_ids = {p.id for p in theme.places}
    assert all(pl in place_ids for a in theme.activities for pl in a.places)
    assert {"Renata", "Carlos"} <= {p.name.split()[0] for p in theme.cast}
    assert all(p.name.isascii() for p in theme.cast)
    assert all((p.sign or "").isascii() for p in theme.places)


def test_cast_is_distinct() -> None:
    theme = load_theme(PATH)
    looks = {(p.appearance.hair_style, p.gender, tuple(p.appearance.accessories[:1])) for p in theme.cast}
    assert len(looks) == 6
    assert len({p.appearance.signature_outfit.top_color for p in theme.cast}) == 6
    voices = {(p.voice.voice, p.voice.variant) for p in theme.cast}
    assert len(voices) == 6
    assert all(
        p.voice.variant in {*(f"m{i}" for i in range(1, 9)), *(f"f{i}" for i in range(1, 6))}
        for p in theme.cast
    )


def test_plans_thirty_clips() -> None:
    theme = load_theme(PATH)
    world = plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, obs = plan_album(theme, world)
    assert len(clips) == theme.album.clips == 30
    assert clips[0].calibration
    assert all(theme.start <= c.start.date() < theme.end for c in clips)
    starts = [c.start for c in clips]
    assert starts == sorted(starts), "clips must be in time order (same-day events included)"
    assert {p for c in clips for s in c.shots for p in s.visible} == {p.id for p in theme.cast}
    assert obs


def test_second_theme_builds_and_verifies_with_no_code_change(tmp_path: Path) -> None:
    """A shortened copy (same cast, places, activities) goes through every stage, media included."""
    import yaml

    from mnemoforge.pipeline import build
    from mnemoforge.validators.release_check import verify_release

    data = yaml_io.safe_load(PATH.read_text())
    data["album"]["clips"] = 3  # the calibration clip and two episodes: the fewest that hold a question
    data["album"].update(width=320, height=180, min_face_px=32)  # small frames keep the suite fast
    data["questions"] = {"total": 12}
    short = tmp_path / "bsp.yaml"
    short.write_text(yaml.safe_dump(data, sort_keys=False))
    res = build(short, outputs=tmp_path / "out", workers=1)  # in-process (tiny_build covers the pool)
    assert verify_release(res.release_dir) == []
    stats = __import__("json").loads((res.release_dir / "dataset_statistics.json").read_text())
    assert stats["clips"]["count"] == 3 and stats["world"]["people"] == 6
    assert stats["voice_distinguishability"]["accuracy"] >= 0.95
