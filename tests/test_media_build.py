"""A build of the default icm theme, small, with all three API media backends on a loopback server."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
import yaml

from mnemoforge import yaml_io

from .conftest import ROOT
from .media_servers import MediaServer

FAST_RETRY = {"base_delay": 0.0, "jitter": 0.0}


@pytest.mark.slow
def test_default_theme_builds_and_verifies_with_api_media(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mnemoforge.backends.video.probe import probe
    from mnemoforge.pipeline import build
    from mnemoforge.store import ledger
    from mnemoforge.validators.release_check import verify_release

    monkeypatch.setenv("GEMINI_API_KEY", "loopback-key")
    data = yaml_io.safe_load((ROOT / "assets/themes/life_album.yaml").read_text())
    data["album"].update({"clips": 3, "width": 320, "height": 180, "min_face_px": 32})
    data["questions"]["total"] = 12
    with MediaServer() as srv:
        data["render"] = {
            "image": "gemini",
            "image_api": {"base_url": srv.url, "retry": FAST_RETRY},
            "video": "veo",
            "video_api": {"base_url": srv.url, "poll_interval_s": 0, "retry": FAST_RETRY},
            "speech": "gemini",
            "speech_api": {"base_url": srv.url, "retry": FAST_RETRY, "voices": {"li_ming": "Kore"}},
        }
        srv.fail("generateContent", 429)
        srv.fail("predictLongRunning", 500)
        srv.fail("fetchPredictOperation", 503)
        theme = tmp_path / "life_album_api.yaml"
        theme.write_text(yaml.safe_dump(data, sort_keys=False))
        res = build(theme, outputs=tmp_path / "outputs", workers=1)
        calls = Counter(r["path"].rsplit("/", 1)[-1].split(":")[-1] for r in srv.requests)
        tts = [json.loads(r["body"]) for r in srv.requests if "tts" in r["path"]]
        assert verify_release(res.release_dir) == []
        card = (res.release_dir / "README.md").read_text()
        first_ledger = ledger.read_ledger(res.run_dir)
        # a resumed render (media lost, release gone) in worker processes pays for nothing again
        n_requests = len(srv.requests)
        shutil.rmtree(res.run_dir / "media")
        shutil.rmtree(res.release_dir)
        (res.run_dir / "stages/render.json").unlink()
        again = build(theme, outputs=tmp_path / "outputs", workers=2)
        assert len(srv.requests) == n_requests
        assert verify_release(again.release_dir) == []
    run = res.run_dir
    clips = sorted((run / "media/clips").glob("*.mp4"))
    shots = sorted((run / "media/veo").glob("*.mp4"))
    assert clips and len(shots) == len(list((run / "media/shots").glob("*.png")))
    assert calls["predictLongRunning"] == len(shots) + 1  # one 500, retried
    assert calls["fetchPredictOperation"] == len(shots) + 1
    info = probe(clips[0])
    assert (info.width, info.height, info.fps, info.has_audio) == (320, 180, 12.0, True)
    # one fixed prebuilt voice per person, the theme's choice first
    assert any("Kore" in json.dumps(b) for b in tts)
    voices = {json.dumps(b["generationConfig"]["speechConfig"]) for b in tts}
    assert len(voices) > 1
    check = json.loads((run / "media/voice_check.json").read_text())
    assert check["accuracy"] is not None and check["accuracy"] >= 0.8
    # every attempt is in the ledger, failures included; the card carries the totals
    by = Counter((r["backend"], r["operation"], r["status"]) for r in first_ledger)
    assert by[("veo", "video", "error")] == 1 and by[("veo", "video", "ok")] == len(shots)
    assert by[("veo", "video_poll", "error")] == 1
    assert by[("gemini-image", "image", "error")] + by[("gemini-tts", "speech", "error")] == 1
    assert all(r["stage"] == "render" for r in first_ledger)
    veo_cost = sum(r["cost"] for r in first_ledger if r["operation"] == "video")
    assert veo_cost > 0  # priced per second of video from the price table
    assert "## Model calls" in card and "veo:veo-3.0-generate-001" in card
    cached = [r for r in ledger.read_ledger(res.run_dir)[len(first_ledger) :] if r["status"] == "cached"]
    assert {r["operation"] for r in cached} >= {"image", "video_clip", "speech"}
    assert all(r["stage"] == "render" for r in cached)
