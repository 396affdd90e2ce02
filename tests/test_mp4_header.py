"""The render reads its clips back from the MP4 header: the same figures as ffmpeg's probe."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from mnemoforge.backends.speech.protocol import write_wav_atomic
from mnemoforge.backends.video import AudioCue, ShotSpec, encode_clip, probe
from mnemoforge.backends.video.mp4_header import mp4_info


def test_header_read_back_equals_probe(tmp_path: Path) -> None:
    still = tmp_path / "s.png"
    Image.new("RGB", (160, 90), (90, 140, 200)).save(still)
    wav = tmp_path / "a.wav"
    t = np.arange(8000) / 16000
    write_wav_atomic(wav, (8000 * np.sin(2 * np.pi * 220 * t)).astype(np.int16), 16000)
    for i, (durs, cam) in enumerate([((4.0,), "static"), ((1.3, 2.55), "zoom_in"), ((0.5,), "pan_left")]):
        out = tmp_path / f"c{i}.mp4"
        shots = [ShotSpec(still, d, cam, (AudioCue(wav, 0.1),) if d > 1 else (), "room") for d in durs]  # type: ignore[arg-type]
        got = encode_clip(shots, out, 160, 90, 12)
        assert got == probe(out) == mp4_info(out)


def test_not_an_mp4_falls_back_to_probe(tmp_path: Path) -> None:
    wav = tmp_path / "a.wav"
    write_wav_atomic(wav, np.zeros(1600, dtype=np.int16), 16000)
    assert mp4_info(wav) == probe(wav)
