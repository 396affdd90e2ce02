"""The render stage's speed-ups keep their results: the voice check over a process pool reports what
it reports in-process, and the one-process header probe reads what imageio-ffmpeg reads."""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest
from PIL import Image

from mnemoforge.backends.speech.espeak import EspeakBackend
from mnemoforge.backends.speech.voice_acoustics import estimate_f0
from mnemoforge.backends.speech.voicecheck import default_voices, voice_distinguishability
from mnemoforge.backends.video import AudioCue, ShotSpec, encode_clip, probe
from mnemoforge.generators.icm.render_voice import limit_blas_in_worker, single_thread_blas


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[Path]], list[tuple[str, Path]]]:
    d = tmp_path_factory.mktemp("voices")
    tts = EspeakBackend()
    voices = default_voices(3)
    texts = ["Good morning, how did you sleep?", "We should leave before the rain.", "Tea or coffee?"]
    train: dict[str, list[Path]] = {}
    test: list[tuple[str, Path]] = []
    for i, v in enumerate(voices):
        who = f"p{i}"
        cal = "Hello, my name is Sam and I like long walks."
        train[who] = [tts.synthesize(cal, v, d / f"{who}_cal.wav").path]
        test += [(who, tts.synthesize(t, v, d / f"{who}_{j}.wav").path) for j, t in enumerate(texts)]
    return train, test


def test_voice_check_over_a_pool_matches_in_process(lines) -> None:
    train, test = lines
    with single_thread_blas():
        local = voice_distinguishability(train, test).to_dict()
    with ProcessPoolExecutor(2, mp_context=mp.get_context("spawn"), initializer=limit_blas_in_worker) as pool:
        pooled = voice_distinguishability(train, test, lambda f, xs: pool.map(f, xs, chunksize=2)).to_dict()
    assert pooled == local
    assert local["n_test"] == 9 and local["accuracy"] >= 2 / 3


def test_f0_of_a_pure_tone() -> None:
    sr = 24000
    t = np.arange(sr) / sr
    f0, _ = estimate_f0(0.5 * np.sin(2 * np.pi * 150.0 * t), sr)
    voiced = f0[f0 > 0]
    assert len(voiced) > 0.8 * len(f0) and abs(float(np.median(voiced)) - 150.0) < 1.0


def test_probe_reads_what_imageio_reads(tmp_path: Path, lines) -> None:
    still = tmp_path / "s.png"
    Image.new("RGB", (160, 90), (200, 120, 40)).save(still)
    wav = lines[1][0][1]
    out = tmp_path / "c.mp4"
    info = encode_clip([ShotSpec(still, 2.0, "pan_left", (AudioCue(wav, 0.1),))], out, 160, 90, 12)
    frames = imageio_ffmpeg.read_frames(str(out))
    meta = next(frames)
    frames.close()
    assert info == probe(out)
    got = (info.duration_s, info.fps, (info.width, info.height))
    assert got == (meta["duration"], meta["fps"], meta["size"])
    assert info.has_video and info.has_audio
    audio = probe(wav)
    assert not audio.has_video and audio.has_audio and audio.duration_s > 0.5
