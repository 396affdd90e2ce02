"""Tests of the ffmpeg video backend: streams, durations, camera moves, audio placement, determinism."""

from __future__ import annotations

import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from mnemoforge.backends.video import (
    AudioCue,
    ClipJob,
    RawFrame,
    ShotSpec,
    VideoEncodeError,
    encode_baseline,
    encode_clip,
    encode_clips,
    ffmpeg_exe,
    probe,
    shot_frames,
)

W, H, FPS = 320, 180, 12
SR = 16000  # rate the tests decode audio at


# ---------------------------------------------------------------- fixtures and helpers


def _textured_still(path: Path, hue: int) -> Path:
    """A busy 16:9 image (stripes, blocks, a disc) so camera motion changes many pixels."""
    rng = np.random.default_rng(hue)
    im = Image.new("RGB", (640, 360), (hue, 255 - hue, 128))
    d = ImageDraw.Draw(im)
    for x in range(0, 640, 32):
        d.rectangle([x, 0, x + 11, 359], fill=(255, 255, 255))
    for _ in range(30):
        x, y = (int(v) for v in rng.integers(0, [600, 330]))
        d.rectangle([x, y, x + 40, y + 30], fill=tuple(int(c) for c in rng.integers(0, 256, 3)))
    d.ellipse([250, 110, 390, 250], fill=(0, 0, 0))
    im.save(path)
    return path


def _dot_still(path: Path) -> Path:
    """White frame with one black disc in the middle: its position/size tracks the camera."""
    im = Image.new("RGB", (640, 360), (255, 255, 255))
    ImageDraw.Draw(im).ellipse([280, 140, 360, 220], fill=(0, 0, 0))
    im.save(path)
    return path


def _sine_wav(path: Path, seconds: float, freq: float = 440.0, rate: int = 22050) -> Path:
    t = np.arange(int(rate * seconds)) / rate
    pcm = (0.5 * np.sin(2 * np.pi * freq * t) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return path


def _frame(path: Path, t: float) -> np.ndarray:
    """Grey frame at time ``t`` (``ffmpeg -ss t -frames:v 1``), as float array HxW."""
    raw = subprocess.run(
        [ffmpeg_exe(), "-v", "error", "-ss", f"{t:.3f}", "-i", str(path), "-frames:v", "1",
         "-f", "rawvideo", "-pix_fmt", "gray", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(H, W).astype(float)


def _frames(path: Path) -> np.ndarray:
    cmd = [ffmpeg_exe(), "-v", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "gray", "-"]
    raw = subprocess.run(cmd, capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, H, W).astype(float)


def _pcm(path: Path) -> np.ndarray:
    """The audio track decoded to mono float samples at ``SR``."""
    cmd = [ffmpeg_exe(), "-v", "error", "-i", str(path), "-map", "0:a", "-ac", "1", "-ar", str(SR),
           "-f", "s16le", "-"]
    raw = subprocess.run(cmd, capture_output=True, check=True).stdout
    return np.frombuffer(raw, "<i2").astype(float) / 32768.0


def _rms(pcm: np.ndarray, t0: float, t1: float) -> float:
    seg = pcm[int(t0 * SR):int(t1 * SR)]
    return float(np.sqrt(np.mean(seg**2)))


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("media")
    return {
        "a": _textured_still(d / "a.png", 40),
        "b": _textured_still(d / "b.png", 140),
        "c": _textured_still(d / "c.png", 220),
        "dot": _dot_still(d / "dot.png"),
        "line": _sine_wav(d / "line.wav", 1.5),
    }


def _three_shots(m: dict[str, Path]) -> list[ShotSpec]:
    # 4 s pan with a line at 1.0 s; 6 s static, silent; 8 s zoom with a line at 2.0 s (clip time 12.0 s)
    return [
        ShotSpec(m["a"], 4.0, "pan_right", (AudioCue(m["line"], 1.0),)),
        ShotSpec(m["b"], 6.0, "static", (), "none"),
        ShotSpec(m["c"], 8.0, "zoom_in", (AudioCue(m["line"], 2.0),), "outdoor"),
    ]


@pytest.fixture(scope="module")
def clip(media: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("clip") / "clip.mp4"
    encode_clip(_three_shots(media), out, W, H, FPS, seed=7)
    return out


# ---------------------------------------------------------------- streams and durations


def test_clip_has_streams_duration_and_size(clip: Path) -> None:
    info = probe(clip)
    assert info.has_video and info.has_audio
    assert (info.width, info.height) == (W, H)
    assert info.fps == pytest.approx(FPS)
    assert abs(info.duration_s - 18.0) <= max(0.1, 1 / FPS)
    assert info.bytes == clip.stat().st_size > 0
    assert len(_frames(clip)) == 18 * FPS  # every planned frame is there, no dup/drop
    assert abs(len(_pcm(clip)) / SR - 18.0) <= 0.1
    data = clip.read_bytes()
    assert data.find(b"moov") < data.find(b"mdat")  # +faststart: index first, streamable


def test_encode_clip_returns_probe_of_output(media: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "sub" / "two.mp4"  # parent folders are created
    info = encode_clip(_three_shots(media)[:2], out, 256, 144, 10)
    assert info == probe(out)
    assert (info.width, info.height, info.fps) == (256, 144, 10.0)
    assert abs(info.duration_s - 10.0) <= 0.1


def test_off_grid_durations_do_not_drift(media: dict[str, Path], tmp_path: Path) -> None:
    assert shot_frames([4.0, 6.0, 8.0], 12) == [48, 72, 96]
    assert sum(shot_frames([4.04] * 10, 12)) == round(40.4 * 12)  # no per-shot rounding drift
    assert shot_frames([0.01, 4.0], 12) == [1, 47]
    out = tmp_path / "offgrid.mp4"
    shots = [ShotSpec(media["a"], 4.04, "pan_left"), ShotSpec(media["b"], 4.04, "zoom_out", (), "none"),
             ShotSpec(media["c"], 4.04, "static", (AudioCue(media["line"], 3.0),))]
    info = encode_clip(shots, out, W, H, FPS)
    assert abs(info.duration_s - 12.12) <= 0.5 / FPS + 0.01
    assert len(_frames(out)) == round(12.12 * FPS)


# ---------------------------------------------------------------- camera moves


def test_pan_moves_and_static_does_not(clip: Path) -> None:
    pan_diff = np.abs(_frame(clip, 0.1) - _frame(clip, 3.8)).mean()
    static_diff = np.abs(_frame(clip, 4.2) - _frame(clip, 9.7)).mean()
    zoom_diff = np.abs(_frame(clip, 10.1) - _frame(clip, 17.8)).mean()
    assert pan_diff > 10.0
    assert zoom_diff > 10.0
    assert static_diff < 1.0


@pytest.mark.parametrize("camera", ["static", "pan_left", "pan_right", "zoom_in", "zoom_out"])
def test_camera_direction(camera: str, media: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / f"{camera}.mp4"
    encode_clip([ShotSpec(media["dot"], 4.0, camera, (), "none")], out, W, H, FPS)  # type: ignore[arg-type]
    frames = _frames(out)
    dark = (255.0 - frames) / 255.0
    area = dark.sum(axis=(1, 2))
    cx = (dark.sum(axis=1) * np.arange(W)).sum(axis=1) / area
    shift, growth = cx[-1] - cx[0], area[-1] / area[0]
    if camera == "static":
        assert abs(shift) < 0.5 and abs(growth - 1) < 0.02
    elif camera == "pan_left":  # camera turns left: the scene slides right in the frame
        assert shift > 20 and abs(growth - 1) < 0.1
    elif camera == "pan_right":
        assert shift < -20 and abs(growth - 1) < 0.1
    elif camera == "zoom_in":
        assert growth > 1.3 and abs(shift) < 2
    else:
        assert growth < 1 / 1.3 and abs(shift) < 2
    if camera != "static":  # motion is spread over the shot, not a jump
        step = np.abs(np.diff(cx if camera.startswith("pan") else np.sqrt(area)))
        assert step.max() < 4 * max(step.mean(), 0.05)


# ---------------------------------------------------------------- audio


def test_cues_land_where_placed(clip: Path) -> None:
    pcm = _pcm(clip)
    cue1 = _rms(pcm, 1.05, 2.45)  # shot 0 starts at 0, cue at 1.0 s for 1.5 s
    cue2 = _rms(pcm, 12.05, 13.45)  # shot 2 starts at 10 s, cue at 2.0 s
    assert cue1 > 0.2 and cue2 > 0.2
    for t0, t1 in [(0.0, 0.95), (2.6, 4.0), (4.0, 10.0), (10.0, 11.95), (13.6, 18.0)]:
        quiet = _rms(pcm, t0, t1)
        assert quiet * 10 < min(cue1, cue2), (t0, t1, quiet)


def test_ambient_beds(media: dict[str, Path], tmp_path: Path) -> None:
    levels = {}
    for amb in ("none", "room", "outdoor"):
        out = tmp_path / f"{amb}.mp4"
        encode_clip([ShotSpec(media["a"], 4.0, "static", (), amb)], out, W, H, FPS)  # type: ignore[arg-type]
        levels[amb] = _rms(_pcm(out), 0.2, 3.8)
    assert levels["none"] < 1e-4
    assert 1e-4 < levels["room"] < 0.01  # audible room tone, well below speech
    assert levels["room"] < levels["outdoor"] < 0.05


# ---------------------------------------------------------------- determinism and failures


def test_encoding_is_byte_deterministic(media: dict[str, Path], clip: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.mp4"
    encode_clip(_three_shots(media), again, W, H, FPS, seed=7)
    assert again.read_bytes() == clip.read_bytes()
    other_seed = tmp_path / "seed8.mp4"
    encode_clip(_three_shots(media), other_seed, W, H, FPS, seed=8)
    assert other_seed.read_bytes() != clip.read_bytes()  # the seed drives the ambient noise


def test_pixels_in_memory_encode_the_same_bytes_as_the_png(
    media: dict[str, Path], clip: Path, tmp_path: Path
) -> None:
    """Shots handed their still's pixels skip the PNG decode and give the very same clip; the raw
    files ffmpeg read are gone afterwards, also when the encode fails."""

    def pixels(png: Path) -> RawFrame:
        im = Image.open(png).convert("RGB")
        return RawFrame(im.width, im.height, im.tobytes())

    shots = [ShotSpec(s.still, s.duration_s, s.camera, s.audio, s.ambient, pixels=pixels(s.still))
             for s in _three_shots(media)]  # fmt: skip
    out_dir = tmp_path / "out"
    got = encode_clip(shots, out_dir / "raw.mp4", W, H, FPS, seed=7)
    assert got.path.read_bytes() == clip.read_bytes()
    assert sorted(p.name for p in out_dir.iterdir()) == ["raw.mp4"]
    bogus = tmp_path / "bogus.wav"
    bogus.write_text("not audio")
    failing = [ShotSpec(media["a"], 4.0, "static", (AudioCue(bogus, 0.5),), pixels=pixels(media["a"]))]
    with pytest.raises(VideoEncodeError):
        encode_clip(failing, out_dir / "bad.mp4", W, H, FPS)
    assert sorted(p.name for p in out_dir.iterdir()) == ["raw.mp4"]
    with pytest.raises(ValueError, match="not 2x2 RGB"):
        RawFrame(2, 2, bytes(11))


def test_awkward_file_names(media: dict[str, Path], tmp_path: Path) -> None:
    d = tmp_path / "dir: with 'odd' chars"
    d.mkdir()
    still = d / "-shot:1 %d.png"
    still.write_bytes(media["a"].read_bytes())
    wav = d / "line %03d:x.wav"
    wav.write_bytes(media["line"].read_bytes())
    info = encode_clip([ShotSpec(still, 4.0, "zoom_in", (AudioCue(wav, 0.5),))], d / "out:%d.mp4", W, H, FPS)
    assert info.path.exists() and abs(info.duration_s - 4.0) <= 0.1
    assert _rms(_pcm(info.path), 0.6, 1.9) > 0.2
    base = encode_baseline([still], [wav], d / "-base %d.mp4", durations=[4.0], width=W, height=H, fps=FPS)
    assert abs(base.duration_s - 4.0) <= 0.1


def test_missing_still_raises_and_leaves_nothing(media: dict[str, Path], tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    shots = [ShotSpec(tmp_path / "nope.png", 4.0), ShotSpec(media["a"], 4.0)]
    with pytest.raises(VideoEncodeError, match="nope.png"):
        encode_clip(shots, out_dir / "x.mp4", W, H, FPS)
    assert list(out_dir.iterdir()) == []


def test_ffmpeg_failure_reports_stderr_and_cleans_up(media: dict[str, Path], tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.png"
    bogus.write_text("not an image")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    old = out_dir / "x.mp4"
    old.write_bytes(b"previous version")
    with pytest.raises(VideoEncodeError) as err:
        encode_clip([ShotSpec(bogus, 4.0)], old, W, H, FPS)
    assert err.value.returncode not in (None, 0)
    assert err.value.stderr_tail.strip() and err.value.stderr_tail in str(err.value)
    assert sorted(p.name for p in out_dir.iterdir()) == ["x.mp4"]  # no temp file left
    assert old.read_bytes() == b"previous version"  # the old file was not clobbered


def test_spec_validation(media: dict[str, Path]) -> None:
    with pytest.raises(ValueError):
        ShotSpec(media["a"], 0.0)
    with pytest.raises(ValueError):
        ShotSpec(media["a"], 4.0, "dolly")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ShotSpec(media["a"], 4.0, "static", (AudioCue(media["line"], 4.0),))
    with pytest.raises(ValueError):
        AudioCue(media["line"], -1.0)
    with pytest.raises(ValueError):
        encode_clip([ShotSpec(media["a"], 4.0)], Path("unused.mp4"), 321, 180, FPS)


# ---------------------------------------------------------------- parallel and baseline


def test_encode_clips_parallel_in_order(media: dict[str, Path], tmp_path: Path) -> None:
    jobs = [ClipJob((ShotSpec(media["a"], 4.0, "pan_left"),), tmp_path / "p.mp4", W, H, FPS),
            ClipJob((ShotSpec(media["b"], 6.0, "zoom_out"),), tmp_path / "q.mp4", W, H, FPS)]
    infos = encode_clips(jobs, workers=2)
    assert [i.path.name for i in infos] == ["p.mp4", "q.mp4"]
    assert [round(i.duration_s) for i in infos] == [4, 6]


def test_baseline_encodes_same_length(media: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "base.mp4"
    info = encode_baseline([media["a"], media["b"], media["c"]], [media["line"], media["line"]], out,
                           durations=[4.0, 6.0, 8.0], width=W, height=H, fps=FPS)
    assert info.has_video and info.has_audio
    assert (info.width, info.height) == (W, H)
    assert abs(info.duration_s - 18.0) <= max(0.1, 1 / FPS)
    assert len(_frames(out)) == 18 * FPS
    pcm = _pcm(out)
    assert _rms(pcm, 0.1, 1.4) > 0.2 and _rms(pcm, 3.1, 17.9) < 1e-3  # two 1.5 s lines, then silence
