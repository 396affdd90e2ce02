"""Caption-memory side outputs: one record per clip, descriptions instead of names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mnemoforge.generators.icm.album import plan_album
from mnemoforge.generators.icm.captions import CAPTION_KEYS, album_captions, clip_caption
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.hashing import canonical_json
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import DEFAULT_THEME, load_theme

SECOND = Path(__file__).resolve().parent.parent / "assets" / "themes" / "backstage_sao_paulo.yaml"


@pytest.fixture(scope="module", params=[DEFAULT_THEME, SECOND], ids=["default", "backstage"])
def theme(request: pytest.FixtureRequest) -> Theme:
    return load_theme(request.param)


@pytest.fixture(scope="module")
def built(theme: Theme) -> tuple[World, list[Clip], list[dict]]:
    world = plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, _ = plan_album(theme, world)
    return world, clips, album_captions(world, clips)


def _strings(value: object) -> list[str]:
    """Every string inside a JSON-like value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _names(world: World) -> list[str]:
    return [n for p in world.people for n in (p.name, *p.aliases)]


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", text) is not None


def test_one_record_per_clip_with_all_keys(theme: Theme, built) -> None:
    _, clips, recs = built
    assert len(recs) == len(clips) == theme.album.clips
    assert [r["clip"] for r in recs] == [c.id for c in clips]
    for r in recs:
        assert set(r) == set(CAPTION_KEYS)
        assert r["caption"].strip()
        assert set(r["time"]) == {"date", "day_of_week", "time_of_day", "season"}
        assert r["event"]


def test_names_only_in_speech_where_spoken(built) -> None:
    world, clips, recs = built
    names = _names(world)
    for clip, rec in zip(clips, recs, strict=True):
        if clip.calibration:
            continue
        spoken = [line.text for shot in clip.shots for line in shot.dialogue]
        assert rec["speech"] == spoken
        for key, value in rec.items():
            for text in _strings(value):
                for name in names:
                    if not _mentions(text, name):
                        continue
                    assert key == "speech", f"{clip.id}: {name!r} in {key}: {text!r}"
                    assert any(_mentions(line, name) for line in spoken)


def test_speech_has_no_speaker_labels(built) -> None:
    world, _, recs = built
    for rec in recs:
        for text in rec["speech"]:
            assert not any(text.startswith(f"{p.name}:") for p in world.people)


def test_calibration_record_binds_descriptions_to_spoken_names(built) -> None:
    world, clips, recs = built
    cal = recs[0]
    assert clips[0].calibration
    assert "introduces" in cal["caption"]
    assert len(cal["people"]) == len(world.people)
    for p, desc in zip(world.people, cal["people"], strict=True):
        assert desc.endswith(p.name) and desc.startswith(p.description())
        assert any(p.name in s for s in cal["speech"])


def test_people_are_one_description_per_visible_person(built) -> None:
    world, clips, recs = built
    for clip, rec in zip(clips, recs, strict=True):
        visible = {p for shot in clip.shots for p in shot.visible}
        assert len(rec["people"]) == len(visible)
        assert len(set(rec["people"])) == len(visible)
        for pid in visible:
            person = world.person(pid)
            outfit = next(s.outfits[pid] for s in clip.shots if pid in s.visible)
            label = person.appearance.outfit(outfit).label
            assert any(d.startswith(person.description()) and label in d for d in rec["people"])


def test_visual_details_show_outfits_signs_and_props(built) -> None:
    world, clips, recs = built
    saw_sign = False
    for clip, rec in zip(clips, recs, strict=True):
        details = " | ".join(rec["visual_details"])
        for shot in clip.shots:
            for pid, oid in shot.outfits.items():
                assert world.person(pid).appearance.outfit(oid).label in details
            for oid in shot.props:
                obj = world.object(oid)
                assert obj.name in details and obj.name in rec["objects"]
                if obj.label:
                    assert obj.label in details
            sign = world.place(shot.place).sign
            if sign and shot.composition == "wide":
                assert sign in details
                saw_sign = True
        assert world.place(clip.shots[0].place).name in rec["places"]
    assert saw_sign


def test_time_event_and_audio_follow_the_plan(built) -> None:
    world, clips, recs = built
    for clip, rec in zip(clips[1:], recs[1:], strict=True):
        ev = world.event(clip.event)
        assert rec["event"] == ev.noun
        assert rec["time"]["date"] == clip.start.date().isoformat()
        assert rec["time"]["day_of_week"] == clip.day_of_week
        assert rec["time"]["season"] == clip.season
        cues = {c for s in clip.shots for c in s.audio_cues}
        assert cues <= set(rec["audio_events"])


def test_captions_are_deterministic(built) -> None:
    world, clips, recs = built
    again = album_captions(world, clips)
    assert canonical_json(again) == canonical_json(recs)
    assert clip_caption(world, clips[3]) == recs[3]
