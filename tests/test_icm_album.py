"""The default icm release a reviewer would accept, asserted from the release files: media match the
observations (render audit), close shots draw everyone, faces are legible, no speech is cut,
places are established before items rely on them, the world obeys its activity rules and no line
repeats past the cap. Plus unit checks of the rules, the audit and the theme check."""

from __future__ import annotations

import json
import random
import wave
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mnemoforge.backends.video import probe
from mnemoforge.generators.icm.check import check_icm_theme
from mnemoforge.generators.icm.dialogue import Dialogue, generic_lines
from mnemoforge.generators.icm.render import SpeechFitError, place_lines
from mnemoforge.generators.icm.render_audit import camera_safe, shot_problems
from mnemoforge.generators.icm.world import plan_world
from mnemoforge.generators.icm.world_rules import world_problems
from mnemoforge.schemas.icm_rules import LineBank
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import DEFAULT_THEME, load_theme


def _jsonl(p: Path) -> list[dict]:
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def rel(default_release: Path) -> dict:
    r = default_release
    drawn = {}
    for p in sorted((r / "data/icm/annotations/drawn").glob("*.json")):
        for s in json.loads(p.read_text())["shots"]:
            drawn[s["shot"]] = s
    return {
        "root": r,
        "stats": json.loads((r / "dataset_statistics.json").read_text()),
        "clips": _jsonl(r / "data/icm/clips.jsonl"),
        "obs": {o["id"]: o for o in _jsonl(r / "data/icm/observations.jsonl")},
        "questions": _jsonl(r / "data/icm/questions.jsonl"),
        "world": World.model_validate_json((r / "data/world.json").read_text()),
        "drawn": drawn,
    }


def test_media_the_agent_reads_hold_no_evaluator_keys(rel: dict) -> None:
    """Speaker-labelled transcripts, render records and the audit name people: they live under
    data/icm/annotations/, and media/ (what a memory system reads) has none of them."""
    root = rel["root"]
    media = {p.relative_to(root).as_posix() for p in (root / "media").rglob("*") if p.is_file()}
    assert not [m for m in media if m.endswith(".labelled.json") or "/drawn/" in m or "render_audit" in m]
    index = _jsonl(root / "media/index.jsonl")
    moved = [r for r in index if r["kind"] in ("transcript_labelled", "render_record", "render_audit")]
    assert moved and all(r["path"].startswith("data/icm/annotations/") for r in moved)
    assert all((root / r["path"]).is_file() for r in index)
    for p in (root / "media/transcripts").glob("*.speakerless.json"):
        doc = json.loads(p.read_text())
        assert all("speaker" not in line for line in doc["lines"]), p.name


def test_render_audit_is_clean_and_counted(rel: dict) -> None:
    audit = rel["stats"]["render_audit"]
    shots = sum(len(c["shots"]) for c in rel["clips"])
    assert audit["design"] == "fail" and audit["mismatches"] == 0 and audit["problems"] == []
    assert audit["shots_audited"] == shots == len(rel["drawn"]) and audit["shots_unaudited"] == 0
    assert audit["lines_checked"] == rel["stats"]["clips"]["lines"] and audit["lines_cut"] == 0
    assert audit["props_claimed"] > 0 and audit["signs_claimed"] > 0
    assert (rel["root"] / "data/icm/annotations/render_audit.json").is_file()


def _skin_pixels(still: Image.Image, box: list[int], skin: str) -> int:
    arr = np.asarray(still.crop(tuple(box)).convert("RGB"), dtype=np.int16)
    target = np.array([int(skin[i : i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(arr - target).max(axis=2) <= 40).sum())


def test_close_shots_draw_everyone_they_claim(rel: dict) -> None:
    world: World = rel["world"]
    two_shots = 0
    for c in rel["clips"]:
        for shot in c["shots"]:
            if shot["composition"] != "close":
                continue
            obs, rec = rel["obs"][shot["id"]], rel["drawn"][shot["id"]]
            drawn = {p["id"]: p for p in rec["people"]}
            assert set(obs["people"]) == set(drawn), shot["id"]
            still = Image.open(rel["root"] / f"media/shots/{shot['id']}.png")
            light = 0.6 if shot["time_of_day"] in ("evening", "night") else 1.0
            for pid in obs["people"]:  # the face box really holds that person's skin
                if light == 1.0:
                    skin = world.person(pid).appearance.skin_tone
                    assert _skin_pixels(still, drawn[pid]["face"], skin) > 200, (shot["id"], pid)
            two_shots += len(obs["people"]) > 1
    assert two_shots >= 3  # the default album has close two-shots, and they show both people


def test_faces_meet_the_size_rule_and_stay_in_frame(rel: dict) -> None:
    for rec in rel["drawn"].values():
        safe = rec["camera"]["safe"]
        for p in rec["people"]:
            f = p["face"]
            assert safe[0] <= f[0] and f[2] <= safe[2] and safe[1] <= f[1] and f[3] <= safe[3], rec["shot"]
            if rec["composition"] in ("close", "medium"):
                assert p["face_h"] >= 48, rec["shot"]
    assert rel["stats"]["render_audit"]["min_face_px"]["medium"] >= 48


def test_no_speech_is_cut_and_transcripts_match_the_audio(rel: dict) -> None:
    root = rel["root"]
    for c in rel["clips"]:
        ends, t = {}, 0.0
        for shot in c["shots"]:
            t += shot["duration_s"]
            ends[shot["id"]] = t
        doc = json.loads((root / f"data/icm/annotations/transcripts/{c['id']}.labelled.json").read_text())
        lines = {ln["id"]: ln for s in c["shots"] for ln in s["dialogue"]}
        assert [x["line"] for x in doc["lines"]] == list(lines)
        for x in doc["lines"]:
            with wave.open(str(root / f"media/speech/{x['line']}.wav")) as w:
                dur = w.getnframes() / w.getframerate()
            assert x["end_s"] - x["start_s"] == pytest.approx(dur, abs=0.002), x["line"]
            assert x["end_s"] <= ends[x["shot"]] + 1e-6, x["line"]  # the line ends inside its shot
            assert x["text"] == lines[x["line"]]["text"]
        if doc["lines"]:
            assert probe(root / c["video"]).duration_s >= doc["lines"][-1]["end_s"] - 0.05
            audio = _clip_audio(root / c["video"])
            for x in doc["lines"]:  # the clip's sound track is louder where a line plays than the bed
                a, b = (int(t * AUDIO_SR) for t in (x["start_s"], x["end_s"]))
                speech = float(np.sqrt(np.mean(audio[a:b] ** 2)))
                assert speech > 0.02, (x["line"], speech)


AUDIO_SR = 16000


def _clip_audio(mp4: Path) -> np.ndarray:
    """The clip's audio as mono float samples at ``AUDIO_SR`` (decoded by ffmpeg)."""
    import subprocess

    from mnemoforge.backends.video.probe import ffmpeg_exe

    cmd = [ffmpeg_exe(), "-v", "error", "-i", str(mp4), "-f", "f32le", "-ac", "1", "-ar", str(AUDIO_SR), "-"]
    raw = subprocess.run(cmd, capture_output=True, check=True).stdout
    return np.frombuffer(raw, dtype=np.float32)


def test_places_are_established_before_items_rely_on_them(rel: dict) -> None:
    world: World = rel["world"]
    place_facts = {f.id: f.object for f in world.facts if f.kind == "at_place"}

    def establishes(o: dict, fact: str) -> bool:
        place = world.place(place_facts[fact])
        for e in o["expresses"]:
            if e["fact"] == fact:
                if e["channel"] == "speech" and place.name.lower() in o["content"].lower():
                    return True
                if e["channel"] == "pixel" and rel["drawn"][o["id"]]["sign"]["text"] == place.sign:
                    return True
        return False

    # every event clip establishes its place (sign drawn, or its name spoken) in its first shot
    for c in rel["clips"][1:]:
        fact = f"f_{c['event']}_place"
        first = c["shots"][0]
        obs = [rel["obs"][first["id"]]] + [rel["obs"][ln["id"]] for ln in first["dialogue"]]
        assert any(establishes(o, fact) for o in obs), c["id"]
    reading = [q for q in rel["questions"] if any(f in place_facts for f in q["facts_read"])]
    assert reading  # the default release has place-reading items
    for q in reading:
        for f in (f for f in q["facts_read"] if f in place_facts):
            assert any(establishes(rel["obs"][oid], f) for oid in q["evidence"]), (q["id"], f)


def test_no_line_names_a_person_at_a_place(rel: dict) -> None:
    """A place's establishing line names nobody, and small talk names no place: a text search over
    the transcripts must not learn who goes where (the Profile usual-place items read the media)."""
    world: World = rel["world"]
    places = [p.name.lower() for p in world.places]
    speech = [o for o in rel["obs"].values() if o["kind"] == "speech" and o["episode"] != "c0000"]
    told = [o for o in speech if any(e["fact"].endswith("_place") for e in o["expresses"])]
    assert told  # the sign-less places are named aloud
    for o in told:
        assert not any(e["fact"].startswith("f_name_") for e in o["expresses"]), o["content"]
        assert not any(p.name in o["content"] for p in world.people), o["content"]
    small = [
        o
        for o in speech
        if not o["expresses"] or all(e["fact"].startswith("f_name_") for e in o["expresses"])
    ]
    assert small and not [o["content"] for o in small if any(p in o["content"].lower() for p in places)]


def test_release_covers_binding_promises_plans_and_routines(rel: dict) -> None:
    qs = rel["questions"]
    by_fn = Counter(q["program"]["fn"] for q in qs)
    assert by_fn["who_brought"] >= 1, by_fn  # face-name binding survives the gates
    assert by_fn["promised_item"] + by_fn["promise_companions"] >= 1, by_fn
    assert by_fn["planned_place"] + by_fn["plan_companions"] >= 1, by_fn
    assert {"frequent_companion", "usual_place", "shared_activity", "choice_change"} & set(by_fn), by_fn
    for q in (q for q in qs if q["program"]["fn"] == "who_brought"):
        ev = [rel["obs"][e] for e in q["evidence"]]
        assert all(o["episode"] != "c0000" for o in ev)  # never the calibration clip
        holder = q["target_people"][0]
        named = [
            o["order"]
            for o in ev
            if o["kind"] == "speech" and any(e["fact"] == f"f_name_{holder}" for e in o["expresses"])
        ]
        seen = [o["order"] for o in ev if o["kind"] == "shot"]
        assert named and seen and min(named) < min(seen), q["id"]  # heard in a clip before the face is seen
    for q in (q for q in qs if q["program"]["fn"] in ("promised_item", "planned_place")):
        (line,) = [rel["obs"][e] for e in q["evidence"]]  # said aloud, by the person it is about
        assert line["kind"] == "speech" and line["people"] == [q["program"]["args"]["person"]], q["id"]
        assert q["answer"].lower().removeprefix("the ") in line["content"].lower(), (
            q["answer"],
            line["content"],
        )


def test_the_world_obeys_its_activity_rules(rel: dict) -> None:
    theme = load_theme(DEFAULT_THEME)
    assert world_problems(theme, rel["world"]) == []
    for seed in (1, 2, 3):  # and so do other seeds
        assert world_problems(theme, plan_world(theme, seed, 60)) == []
    # the rules bite: the manager only attends work meetings, and family dinners are in the evening
    for e in rel["world"].events:
        if "zhao_min" in e.participants:
            assert e.activity == "work_meeting"
        if e.activity == "family_dinner":
            assert 17 <= e.start.hour <= 19 and "li_ming" in e.participants


def test_no_line_text_more_than_three_times(rel: dict) -> None:
    texts = Counter(o["content"] for o in rel["obs"].values() if o["kind"] == "speech")
    assert max(texts.values()) <= 3, texts.most_common(3)
    assert len(texts) >= 0.8 * sum(texts.values())  # variety, not a loop


def test_props_are_drawn_as_their_kind(rel: dict) -> None:
    shapes = Counter((p["id"], p["shape"]) for r in rel["drawn"].values() for p in r["props"])
    assert shapes and all(shape != "cup" for (oid, shape) in shapes if oid == "tea_tin")
    assert any(oid == "tea_tin" and shape == "tin" for oid, shape in shapes)


# ------------------------------------------------------------------------------- units


def _theme(**edits: object) -> Theme:
    data = load_theme(DEFAULT_THEME).model_dump(mode="json", exclude_none=True)
    for path, value in edits.items():
        node = data
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k)] if k.isdigit() else node[k]
        node[keys[-1]] = value
    return Theme.model_validate(data)


def test_check_theme_names_colliding_cues() -> None:
    assert check_icm_theme(load_theme(DEFAULT_THEME)) == []
    t = _theme(cast__4__appearance__accessories=["sunglasses"], cast__5__appearance__headwear_color="#d2508c")
    problems = check_icm_theme(t)
    assert any("zhao_min's sunglasses" in p and "li_ming's glasses" in p for p in problems), problems
    assert any("li_guo's hat and wang_lei's cap" in p for p in problems), problems
    small = _theme(album__width=320, album__height=180)
    assert any(p.startswith("album.height: faces in medium shots") for p in check_icm_theme(small))


def test_line_banks_type_their_slots() -> None:
    with pytest.raises(ValueError, match=r"choice\.drink\.0: slot\(s\) \['object'\] not allowed"):
        LineBank(choice={"drink": ["A {object} please"]})
    theme = load_theme(DEFAULT_THEME)
    talk = Dialogue(theme)
    act = theme.activities[0]
    # a drink only fills drink wordings; a template needing an unavailable slot is skipped
    rng = random.Random(1)
    for _ in range(5):
        got = talk.pick(act, "choice", {"value": "oat latte"}, rng, key="drink")
        assert got and "{other}" not in got[0] and got[0] in theme.album.dialogue.choice["drink"]
    counts: Counter[str] = Counter()
    for _ in range(40):
        got = talk.pick(act, "habit", {"name": "Li Ming", "habit": "cycles to work"}, rng)
        if got:
            counts[got[1]] += 1
    assert counts and max(counts.values()) <= theme.album.max_line_repeats


def test_a_theme_without_line_banks_speaks_the_generic_wordings() -> None:
    generic, choice = generic_lines()  # assets/lexicon/line_banks.yaml, validated as a LineBank
    assert generic.habit and generic.place and generic.promise and generic.plan and len(choice) >= 2
    theme = load_theme(DEFAULT_THEME)
    bare = theme.model_copy(update={"album": theme.album.model_copy(update={"dialogue": LineBank()})})
    talk = Dialogue(bare)
    act = next(a for a in bare.activities if not a.bank().habit)
    assert talk.templates(act, "habit") == generic.habit  # nothing of the theme's own
    assert talk.templates(act, "choice", key="no_such_key") == list(choice)


def test_speech_is_placed_without_cutting() -> None:
    assert place_lines([2.0, 2.0], 6.0) == [0.3, 2.55]
    assert place_lines([3.9, 3.9], 8.0) == [0.1, 4.1]  # tightened, not cut
    with pytest.raises(SpeechFitError):
        place_lines([5.0, 4.0], 8.0)


def test_audit_names_the_shot_that_contradicts_its_observation() -> None:
    theme = load_theme(DEFAULT_THEME)
    world = plan_world(theme, theme.seed, 5)
    safe = list(camera_safe("pan_right", 640, 360))
    assert safe == [128, 36, 512, 324]
    at = world.events[0].start
    obs = Observation(id="c0003_s01", source="album", episode="c0003", kind="shot", timestamp=at,
                      order=3, content="", people=["li_ming", "chen_yu"], expresses=[], media=[])  # fmt: skip
    face = {"id": "li_ming", "box": [150, 60, 300, 360], "face": [180, 60, 260, 150], "face_h": 90}
    rec = {"shot": "c0003_s01", "composition": "close", "camera": {"move": "pan_right", "safe": safe},
           "people": [face], "props": [], "sign": None}  # fmt: skip
    problems = shot_problems(theme, world, obs, rec)
    assert problems == ["c0003_s01: chen_yu is claimed visible but not drawn"]
    rec["people"] = [face | {"face": [40, 60, 120, 150]}, face | {"id": "chen_yu", "face_h": 30}]
    problems = shot_problems(theme, world, obs, rec)
    assert any(
        "li_ming's face [40, 60, 120, 150] leaves the frame during the pan_right" in p for p in problems
    )
    assert any("chen_yu's face is 30 px high, under 48 px" in p for p in problems)
    # a claimed sign must be drawn with the place's text, uncropped and uncovered
    ev = next(e for e in world.events if world.place(e.place).sign)
    fact, sign = f"f_{ev.id}_place", world.place(ev.place).sign
    wide = obs.model_copy(
        update={"people": ["li_ming"], "expresses": [Expression(fact=fact, channel=Channel.pixel)]}
    )
    rec = rec | {"composition": "wide", "people": [face | {"box": [200, 40, 260, 300], "face_h": 40}]}
    assert shot_problems(theme, world, wide, rec | {"sign": None}) == [
        f"c0003_s01: the sign {sign!r} is claimed readable but not drawn"
    ]
    covered = shot_problems(theme, world, wide, rec | {"sign": {"text": sign, "box": [220, 40, 400, 80]}})
    assert covered == ["c0003_s01: the sign [220, 40, 400, 80] is covered by li_ming [200, 40, 260, 300]"]
    cropped = shot_problems(theme, world, wide, rec | {"sign": {"text": sign, "box": [400, 40, 600, 80]}})
    assert cropped == ["c0003_s01: the sign [400, 40, 600, 80] is cropped by the pan_right"]


def test_renders_at_1280x720_and_passes_the_audit() -> None:
    from mnemoforge.backends.image.procedural import ProceduralImageBackend
    from mnemoforge.generators.icm.album import observations_for_clip, plan_album
    from mnemoforge.generators.icm.render import scene_request
    from mnemoforge.generators.icm.render_audit import drawn_record

    theme = _theme(album__width=1280, album__height=720, album__clips=8)
    world = plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, _ = plan_album(theme, world)
    backend = ProceduralImageBackend()
    checked = 0
    for clip in clips[1:4]:
        obs = {o.id: o for o in observations_for_clip(world, clip)}
        for shot in clip.shots:
            req = scene_request(theme, world, shot)
            img, layout = backend.scene_with_layout(req)
            assert img.size == (1280, 720)
            rec = drawn_record(shot.id, shot.composition, shot.camera, req, layout, shot.visible, shot.props)
            assert shot_problems(theme, world, obs[shot.id], rec) == []
            checked += 1
    assert checked >= 3


def test_shots_lengthen_or_lines_move_so_speech_fits() -> None:
    from mnemoforge.generators.icm.album import plan_album, speech_need
    from mnemoforge.generators.icm.album_check import album_problems

    theme = _theme(album__shot_durations=[4], album__clips=12)  # 4 s shots cannot hold most lines
    world = plan_world(theme, theme.seed, theme.album.clips - 1)
    clips, _ = plan_album(theme, world)
    assert album_problems(theme, world, clips) == []
    shots = [s for c in clips[1:] for s in c.shots]
    for s in shots:
        lines = [(ln.speaker, ln.text, [], []) for ln in s.dialogue]
        assert not lines or speech_need(world, lines) <= s.duration_s, s.id
        assert s.duration_s == 4 or s.dialogue  # only shots with speech lengthen
    assert any(s.duration_s > 4 for s in shots) and any(s.duration_s == 4 for s in shots)


def _cameras(theme: Theme) -> list[tuple[str, str, list[str]]]:
    from mnemoforge.generators.icm.album import plan_album

    clips, _ = plan_album(theme, plan_world(theme, theme.seed, theme.album.clips - 1))
    return [(s.id, s.camera, [line.text for line in s.dialogue]) for c in clips for s in c.shots]


def test_camera_moves_sets_the_share_of_moving_shots_and_nothing_else() -> None:
    """``album.camera_moves`` keeps a drawn pan or zoom with that chance, from a private draw: the
    shots, their order and every line stay the same; 0 gives static shots only, 1 every drawn move."""
    base = {"album__clips": 120, "album__shots_per_clip": [1, 3]}
    every, none, some = (_cameras(_theme(**base, album__camera_moves=p)) for p in (1.0, 0.0, 0.35))
    assert [(i, t) for i, _, t in every] == [(i, t) for i, _, t in none] == [(i, t) for i, _, t in some]
    assert {c for _, c, _ in none} == {"static"}
    moving = [i for i, c, _ in every if c != "static"]
    kept = [i for i, c, _ in some if c != "static"]
    assert set(kept) < set(moving)  # only drawn moves are kept, with the move drawn
    assert {i: c for i, c, _ in some if c != "static"} == {i: c for i, c, _ in every if i in kept}
    assert 0.25 < len(kept) / len(moving) < 0.45, (len(kept), len(moving))
    assert {c for _, c, _ in every} == {"static", "pan_left", "pan_right", "zoom_in", "zoom_out"}


def test_check_theme_warns_on_small_talk_the_album_never_speaks() -> None:
    """Small talk never gets ``{place}`` (a place is named by its sign or a `place` line), so a
    wording with it is never spoken: ``theme check`` names each one."""
    t = _theme(activities__0__lines=["Great day at {place}.", "Hello, {other}."])
    problems = check_icm_theme(t)
    assert [p for p in problems if "never spoken" in p] == [
        "activities.0.lines.0: small talk is never given {place}, so this line is never spoken; "
        "name a place with its sign or a `place` line"
    ]
    for path in sorted(Path("assets/themes").glob("*.yaml")):
        theme = load_theme(path)
        if theme.family == "icm":
            assert not [p for p in check_icm_theme(theme) if "never spoken" in p], path
