"""The API media backends against loopback servers speaking each API's wire protocol."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from mnemoforge import yaml_io
from mnemoforge.backends.image.protocol import PersonPlacement, PropPlacement, SceneRequest
from mnemoforge.backends.media_api import MediaApiError
from mnemoforge.backends.video.probe import probe
from mnemoforge.schemas.render_api import ImageApiSpec, SpeechApiSpec, VideoApiSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.theme_starter import starter_theme

from .media_servers import MediaServer, _b64

pytestmark = pytest.mark.integration  # a loopback HTTP server per test

NO_WAIT = {"base_delay": 0.0, "jitter": 0.0}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GEMINI_API_KEY", "test-gemini-key")
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")
    with MediaServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def people():  # type: ignore[no-untyped-def]
    theme = Theme.model_validate(yaml_io.safe_load(starter_theme("tiny")))
    return theme.cast[:2]


def _scene(people, width: int = 320, height: int = 180) -> SceneRequest:  # type: ignore[no-untyped-def]
    placed = tuple(PersonPlacement(p.appearance, p.appearance.signature_outfit.id) for p in people)
    return SceneRequest(
        width=width,
        height=height,
        place_name="Harbour Café",
        place_kind="cafe",
        indoor=True,
        sign="OPEN",
        people=placed,
        props=(PropPlacement("mug", "#aa2200", "TEA", 0),),
        composition="medium",
        seed=11,
    )


def _near(px: tuple[int, ...], hex_color: str, tol: int = 12) -> bool:
    want = [int(hex_color[i : i + 2], 16) for i in (1, 3, 5)]
    return all(abs(a - b) <= tol for a, b in zip(px, want, strict=True))


def test_gemini_image_anchor_is_the_reference_of_every_scene(server: MediaServer, people) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.backends.image.gemini_image import GeminiImageBackend

    backend = GeminiImageBackend(ImageApiSpec(base_url=server.url, retry=NO_WAIT))
    server.fail("generateContent", 429, retry_after="0")
    anchor = backend.portrait(people[0].appearance, 256)
    assert anchor.size == (256, 256)
    assert _near(anchor.getpixel((128, 140)), people[0].appearance.skin_tone)
    img = backend.scene(_scene(people))
    assert img.size == (320, 180) and img.mode == "RGB"
    gen = [r for r in server.requests if "generateContent" in r["path"]]
    # 429 then the retry, then the second person's anchor, then the scene
    assert len(gen) == 4 and gen[0]["body"] == gen[1]["body"]
    assert gen[0]["headers"]["x-goog-api-key"] == "test-gemini-key"
    assert gen[0]["path"] == "/v1beta/models/gemini-2.5-flash-image:generateContent"
    scene = json.loads(gen[-1]["body"])
    assert scene["generationConfig"]["responseModalities"] == ["IMAGE"]
    assert scene["generationConfig"]["seed"] == 11
    refs = [p["inlineData"]["data"] for p in scene["contents"][0]["parts"] if "inlineData" in p]
    anchors = [json.loads(gen[i]["body"]) for i in (1, 2)]
    # each scene reference is the face anchor the backend drew for that person, in blocking order
    assert len(refs) == 2
    from mnemoforge.backends.image.procedural import png_bytes

    assert _b64(refs[0]) == backend.anchor_png(people[0].appearance)
    assert _b64(refs[1]) == backend.anchor_png(people[1].appearance)
    assert people[0].appearance.skin_tone in anchors[0]["contents"][0]["parts"][0]["text"]
    assert (
        "Harbour Café" in scene["contents"][0]["parts"][0]["text"]
        and '"OPEN"' in scene["contents"][0]["parts"][0]["text"]
    )
    # the anchor's face shows up in the scene (the server pastes references left to right)
    arr = np.asarray(img).reshape(-1, 3)
    skin = np.array([int(people[0].appearance.skin_tone[i : i + 2], 16) for i in (1, 3, 5)])
    assert (np.abs(arr - skin).max(axis=1) < 14).mean() > 0.01
    assert png_bytes(anchor)  # encodable


def test_gemini_image_gives_up_on_a_4xx_and_after_its_retries(
    server: MediaServer,
    people,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    from mnemoforge.backends.image.gemini_image import GeminiImageBackend
    from mnemoforge.store import ledger

    backend = GeminiImageBackend(ImageApiSpec(base_url=server.url, max_retries=2, retry=NO_WAIT))
    with ledger.current_run(tmp_path), ledger.current_stage("render"):
        server.fail("generateContent", 400)
        with pytest.raises(MediaApiError, match="HTTP 400"):
            backend.portrait(people[0].appearance)
        assert server.count("generateContent") == 1  # not retried
        server.fail("generateContent", 503, times=3)
        with pytest.raises(MediaApiError, match="gave up after 3 attempts"):
            backend.portrait(people[0].appearance)
        assert server.count("generateContent") == 4
        backend.portrait(people[0].appearance)  # the next call succeeds and is cached
        GeminiImageBackend(ImageApiSpec(base_url=server.url)).portrait(people[0].appearance)
    assert server.count("generateContent") == 5
    rows = ledger.read_ledger(tmp_path)
    assert [(r["status"], r["operation"], r["stage"]) for r in rows] == (
        [("error", "image", "render")] * 4 + [("ok", "image", "render"), ("cached", "image", "render")]
    )
    assert rows[0]["error"].startswith("HTTP 400") and rows[-2]["images"] == 1 and rows[-2]["cost"] > 0
    assert "test-gemini-key" not in (tmp_path / "ledger.jsonl").read_text()


def test_openai_images_generate_then_edit_with_anchors(server: MediaServer, people) -> None:  # type: ignore[no-untyped-def]
    from mnemoforge.backends.image.openai_images import OpenAIImageBackend

    backend = OpenAIImageBackend(ImageApiSpec(base_url=server.url + "/v1", retry=NO_WAIT))
    server.fail("images", 500)
    img = backend.scene(_scene(people))
    assert img.size == (320, 180)
    paths = [r["path"] for r in server.requests]
    assert paths == ["/v1/images/generations"] * 3 + ["/v1/images/edits"]
    first = json.loads(server.requests[0]["body"])
    assert first["model"] == "gpt-image-1" and first["size"] == "1024x1024" and "portrait" in first["prompt"]
    edit = server.requests[-1]
    assert {k.lower(): v for k, v in edit["headers"].items()}["authorization"] == "Bearer test-openai-key"
    assert edit["body"].count(b'name="image[]"') == 2 and b'name="size"\r\n\r\n1536x1024' in edit["body"]
    assert backend.anchor_png(people[0].appearance) in edit["body"]


def test_gemini_tts_fixed_voice_pcm_to_wav(server: MediaServer, tmp_path: Path) -> None:
    from mnemoforge.backends.speech.gemini_tts import GeminiTTSBackend, assign_voices, gemini_voice
    from mnemoforge.backends.speech.protocol import read_wav

    tts = GeminiTTSBackend(SpeechApiSpec(base_url=server.url, retry=NO_WAIT))
    server.fail("generateContent", 500)
    res = tts.synthesize("The ferry leaves at nine.", gemini_voice("Kore"), tmp_path / "a.wav")
    x, sr = read_wav(res.path)
    assert (
        sr == res.sample_rate and 0.8 < res.duration_s < 5 and res.rms > 0.01 and len(x) == res.samples.size
    )
    body = json.loads(server.requests[-1]["body"])
    assert body["generationConfig"]["responseModalities"] == ["AUDIO"]
    assert "Kore" in json.dumps(body["generationConfig"]["speechConfig"])
    assert server.count("generateContent") == 2
    with pytest.raises(ValueError, match="prebuilt"):
        tts.synthesize("hi", gemini_voice("en-us"), tmp_path / "b.wav")
    voices = assign_voices(["zoe", "amir", "bo"], {"bo": "Puck"})
    assert voices == {"bo": "Puck", "amir": "Zephyr", "zoe": "Charon"}
    with pytest.raises(ValueError, match="no such person"):
        assign_voices(["a"], {"b": "Puck"})


def test_veo_image_to_video_polls_and_probes(server: MediaServer, tmp_path: Path) -> None:
    from mnemoforge.backends.video.veo import VeoBackend, veo_duration

    server.polls_until_done = 3
    slept: list[float] = []
    veo = VeoBackend(VideoApiSpec(base_url=server.url, poll_interval_s=5, retry=NO_WAIT), sleep=slept.append)
    still = tmp_path / "s.png"
    Image.new("RGB", (320, 180), (40, 90, 160)).save(still)
    server.fail("predictLongRunning", 429)
    server.fail("fetchPredictOperation", 503)
    info = veo.shot_clip(still, tmp_path / "veo" / "s.mp4", 5.0, "Two friends talk.", "zoom_in", 3, 320, 180)
    assert info.has_video and 5.9 < info.duration_s < 6.2
    start = [r for r in server.requests if "predictLongRunning" in r["path"]]
    assert (
        len(start) == 2
        and start[0]["path"] == "/v1/publishers/google/models/veo-3.0-generate-001:predictLongRunning"
    )
    req = json.loads(start[-1]["body"])
    assert req["parameters"]["durationSeconds"] == 6 and req["parameters"]["aspectRatio"] == "16:9"
    assert _b64(req["instances"][0]["image"]["bytesBase64Encoded"]) == still.read_bytes()
    assert server.count("fetchPredictOperation") == 4  # one 503 retried, then 3 polls until done
    assert slept.count(5) == 3  # the poll interval, between polls
    assert [veo_duration(s, [4, 6, 8]) for s in (2.0, 4.0, 4.5, 7.9, 12.0)] == [4, 4, 6, 8, 8]
    # the clip encoder re-encodes it to the release format and lays speech over it
    from mnemoforge.backends.video import ShotSpec, encode_clip

    out = encode_clip(
        [ShotSpec(still, 5.0, "zoom_in", (), "room", tmp_path / "veo" / "s.mp4")],
        tmp_path / "clip.mp4",
        320,
        180,
        12,
    )
    p = probe(out.path)
    assert (p.width, p.height, p.fps) == (320, 180, 12) and abs(p.duration_s - 5.0) < 0.15 and p.has_audio


def test_veo_operation_error_is_reported(
    server: MediaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mnemoforge.backends.video.veo import VeoBackend

    veo = VeoBackend(VideoApiSpec(base_url=server.url, poll_interval_s=0, retry=NO_WAIT))
    monkeypatch.setattr(
        server,
        "_poll",
        lambda data: {
            "name": data["operationName"],
            "done": True,
            "error": {"code": 3, "message": "prompt rejected"},
        },
    )
    still = tmp_path / "s.png"
    Image.new("RGB", (64, 36)).save(still)
    with pytest.raises(MediaApiError, match="prompt rejected"):
        veo.shot_clip(still, tmp_path / "x.mp4", 4.0, "", "static", 1, 64, 36)
    assert not (tmp_path / "x.mp4").exists()


def test_missing_key_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemoforge.backends.image.gemini_image import GeminiImageBackend

    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(ValueError, match="MY_KEY"):
        GeminiImageBackend(ImageApiSpec(api_key_env="MY_KEY"))


def test_theme_check_names_the_missing_key_and_bad_voice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mnemoforge.theme_checks import check_theme
    from mnemoforge.theme_io import ThemeError

    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    data = yaml_io.safe_load(starter_theme("tiny"))
    pid = data["cast"][0]["id"]
    data["render"] = {
        "image": "gemini",
        "video": "veo",
        "speech": "gemini",
        "speech_api": {"voices": {pid: "Nobody", "ghost": "Kore"}},
    }
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ThemeError) as e:
        check_theme(path)
    msg = str(e.value)
    assert "render.image_api.api_key_env: no API key: set GEMINI_API_KEY or GOOGLE_API_KEY" in msg
    assert "render.video_api.api_key_env" in msg and "render.speech_api.api_key_env" in msg
    assert f"render.speech_api.voices.{pid}: 'Nobody' is not a Gemini prebuilt voice" in msg
    assert "render.speech_api.voices.ghost: no such person" in msg
    monkeypatch.setenv("GEMINI_API_KEY", "x")
    data["render"] = {"image": "gemini", "video": "veo", "speech": "gemini"}
    path.write_text(yaml.safe_dump(data))
    assert check_theme(path).render.video == "veo"


def test_preflight_prices_the_api_media_backends(tmp_path: Path) -> None:
    from mnemoforge.production.preflight import render_backends

    data = yaml_io.safe_load(starter_theme("tiny"))
    data["render"] = {
        "image": "openai",
        "video": "veo",
        "video_api": {"model": "veo-3.0-fast-generate-001"},
        "speech": "gemini",
    }
    theme = Theme.model_validate(data)
    assert render_backends(theme) == {
        "image": ("openai", "gpt-image-1"),
        "video": ("veo", "veo-3.0-fast-generate-001"),
        "speech": ("gemini", "gemini-2.5-flash-preview-tts"),
    }
    assert render_backends(Theme.model_validate(yaml_io.safe_load(starter_theme("tiny"))))["video"] == (
        "ffmpeg",
        "ffmpeg",
    )


def test_veo_is_paid_once_and_resumes_a_journaled_operation(
    server: MediaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The operation's name is journaled before polling: a call that gave up while the operation was
    still running is resumed by polling it, never by submitting again. generateAudio is off."""
    from mnemoforge.backends.video.veo import VeoBackend
    from mnemoforge.store import ledger, operations

    run = tmp_path / "run"
    still = tmp_path / "s.png"
    Image.new("RGB", (320, 180), (40, 90, 160)).save(still)
    server.polls_until_done = 50
    spec = VideoApiSpec(base_url=server.url, poll_interval_s=1, max_wait_s=2, retry=NO_WAIT)
    with ledger.current_run(run), ledger.current_stage("render"):
        veo = VeoBackend(spec, sleep=lambda s: None)
        with pytest.raises(MediaApiError, match="not done after"):
            veo.shot_clip(still, tmp_path / "a.mp4", 4.0, "A calm room.", "static", 5, 320, 180)
        [entry] = operations.entries(run)
        assert entry["state"] == "submitted" and entry["name"].endswith("/operations/op0")
        server.polls_until_done = 5  # it finishes meanwhile; the resumed call polls the same operation
        veo = VeoBackend(spec, sleep=lambda s: None)
        info = veo.shot_clip(still, tmp_path / "a.mp4", 4.0, "A calm room.", "static", 5, 320, 180)
    assert info.has_video
    assert server.count("predictLongRunning") == 1 and server.submissions == {entry["key"]: 1}
    start = json.loads(next(r for r in server.requests if "predictLongRunning" in r["path"])["body"])
    assert start["parameters"]["generateAudio"] is False  # the album dubs its own speech
    assert start["parameters"]["seed"] == 5
    assert next(r for r in server.requests if "predictLongRunning" in r["path"])["headers"][
        "Idempotency-Key"
    ] == entry["key"]
    rows = ledger.read_ledger(run)
    paid = [r for r in rows if r["operation"] == "video" and r["status"] == "ok"]
    assert [r["key"] for r in paid] == [entry["key"]]  # paid once, under the request's key
    assert all(r["key"] == entry["key"] for r in rows if r["operation"] == "video_poll")
    assert operations.entries(run)[0]["state"] == "done"


def test_video_fallback_chain_rewrites_then_falls_back_to_the_still(
    server: MediaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Filtered: asked again without the refused parts; refused again or unavailable: the still."""
    from mnemoforge.backends.video import fallback
    from mnemoforge.backends.video.fallback import OUTAGE, VideoUnavailable, rewrite, shot_video, summary
    from mnemoforge.backends.video.veo import VeoBackend
    from mnemoforge.store import ledger

    still = tmp_path / "s.png"
    Image.new("RGB", (320, 180), (40, 90, 160)).save(still)
    parts = [
        ("setting", "A photorealistic wide shot at Harbour Café."),
        ("sign", 'A clearly readable sign says "OPEN".'),
        ("person", "Person 1 (left to right): round face; their face exactly matches reference image 1."),
        ("prop", "A red mug (mug), clearly visible."),
    ]

    def refuse(req: dict) -> dict | None:
        prompt = req["instances"][0]["prompt"]
        if "Harbour" in prompt and "Person 1" in prompt:
            return {"filtered": ["Veo could not generate videos: the prompt describes a person's likeness."]}
        if "Quay" in prompt:
            return {"filtered": ["blocked by the safety filter"]}
        return None

    server.refuse = refuse
    monkeypatch.setitem(fallback._IN_A_ROW, "unavailable", 0)
    run = tmp_path / "run"
    veo_spec = VideoApiSpec(base_url=server.url, poll_interval_s=0, retry=NO_WAIT, max_retries=1)
    with ledger.current_run(run), ledger.current_stage("render"):
        veo = VeoBackend(veo_spec)
        ok = shot_video(veo, "s1", still, tmp_path / "veo/s1.mp4", 4.0, parts, "static", 1, 320, 180)
        assert ok.clip == tmp_path / "veo/s1.mp4" and ok.record["path"] == "veo_rewritten"
        assert ok.record["refused"]["kind"] == "filtered" and ok.record["rewrite"]["dropped"] == ["person"]
        rewritten = ok.record["rewrite"]["prompt"]
        assert "Person 1" not in rewritten and "Harbour" in rewritten
        quay = [("setting", "A wide shot at Quay Street."), *parts[1:]]
        gone = shot_video(veo, "s2", still, tmp_path / "veo/s2.mp4", 4.0, quay, "pan_left", 2, 320, 180)
        assert gone.clip is None and gone.record["path"] == "still" and "refused_again" in gone.record
        server.fail("predictLongRunning", 503, times=2)  # unavailable after its retries: no rewrite
        down = shot_video(veo, "s3", still, tmp_path / "veo/s3.mp4", 4.0, parts[:2], "static", 3, 320, 180)
        assert down.clip is None and down.record == {
            "shot": "s3", "path": "still", "reason": "unavailable",
            "refused": {"kind": "unavailable", "reasons": down.record["refused"]["reasons"]},
        }  # fmt: skip
        n = len(server.requests)
        again = shot_video(veo, "s1", still, tmp_path / "veo/s1.mp4", 4.0, parts, "static", 1, 320, 180)
        assert again.record == ok.record and len(server.requests) == n  # read back, nothing asked
        s3 = tmp_path / "veo/s3.mp4"
        back = shot_video(veo, "s3", still, s3, 4.0, parts[:2], "static", 3, 320, 180)
        assert back.record["path"] == "veo" and back.redo_clip  # unavailable before: asked again
        # an outage: OUTAGE shots in a row unavailable stop the build (resumable), not one shot
        server.fail("predictLongRunning", 503, times=2 * OUTAGE)
        for k in range(OUTAGE - 1):
            out = tmp_path / f"veo/o{k}.mp4"
            got = shot_video(veo, f"o{k}", still, out, 4.0, parts[:1], "static", 10 + k, 320, 180)
            assert got.record["reason"] == "unavailable"
        with pytest.raises(VideoUnavailable, match=f"unavailable for {OUTAGE} shots in a row"):
            shot_video(veo, "o9", still, tmp_path / "veo/o9.mp4", 4.0, parts[:1], "static", 19, 320, 180)
    paths = summary([ok.record, gone.record, down.record])
    assert paths["counts"] == {"veo": 0, "veo_rewritten": 1, "still": 2}
    assert rewrite(parts, ["logo on a sign"])[1] == ["prop", "sign"]
    assert rewrite(parts, ["something else"])[1] == ["person", "prop", "sign"]  # the default drop
