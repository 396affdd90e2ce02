"""Pans are cut from a once-scaled still: every frame is the crop ``pan_offsets`` names, and the
render audit's camera windows are those crops mapped back to the still."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from mnemoforge.backends.video import (
    EncodeSettings,
    ShotSpec,
    encode_clip,
    ffmpeg_exe,
    pan_geometry,
    pan_offsets,
)
from mnemoforge.generators.icm.render_audit import camera_windows

W, H, FPS = 320, 180, 12


def _still(path: Path) -> Path:
    """Vertical bars of distinct greys plus a few blocks: any horizontal offset is unambiguous."""
    rng = np.random.default_rng(3)
    im = Image.new("RGB", (W, H), (128, 128, 128))
    d = ImageDraw.Draw(im)
    for x in range(0, W, 8):
        g = int(rng.integers(0, 256))
        d.rectangle([x, 0, x + 7, H - 1], fill=(g, g, g))
    for _ in range(12):
        x, y = (int(v) for v in rng.integers(0, [W - 20, H - 20]))
        d.rectangle([x, y, x + 18, y + 14], fill=(255, 255, 255))
    im.save(path)
    return path


def _frames(path: Path) -> np.ndarray:
    cmd = [ffmpeg_exe(), "-v", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "gray", "-"]
    raw = subprocess.run(cmd, capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, H, W).astype(float)


def test_pan_geometry_matches_the_audited_windows() -> None:
    for w, h in ((320, 180), (640, 360), (1280, 720)):
        sw, sh, top, travel = pan_geometry(w, h, 1.25)
        assert sw % 2 == 0 and travel % 2 == 0 and sw == w + travel and top + h <= sh
        left, right = camera_windows("pan_right", w, h)
        assert left == (0, round(top * h / sh), round(w * w / sw), round((top + h) * h / sh))
        assert right[0] == round(travel * w / sw) and right[2] == w
        assert camera_windows("pan_left", w, h) == (right, left)
    # the default size is exact: a 512x288 window of the still travelling 128 px
    assert camera_windows("pan_right", 640, 360) == ((0, 36, 512, 324), (128, 36, 640, 324))


def test_pan_offsets_are_even_and_span_the_travel() -> None:
    xs = pan_offsets(160, 48, "pan_right")
    assert xs[0] == 0 and xs[-1] == 160 and all(x % 2 == 0 for x in xs)
    assert all(0 <= b - a <= 4 for a, b in zip(xs, xs[1:], strict=False))
    assert pan_offsets(160, 48, "pan_left") == xs[::-1]


@pytest.mark.parametrize("camera", ["pan_right", "pan_left"])
def test_pan_frames_are_the_expected_crops(camera: str, tmp_path: Path) -> None:
    still = _still(tmp_path / "bars.png")
    out = tmp_path / f"{camera}.mp4"
    encode_clip([ShotSpec(still, 4.0, camera, (), "none")], out, W, H, FPS)  # type: ignore[arg-type]
    frames = _frames(out)
    sw, sh, top, travel = pan_geometry(W, H, EncodeSettings().move)
    big = np.asarray(Image.open(still).convert("L").resize((sw, sh), Image.Resampling.BICUBIC), float)
    rows = big[top : top + H]
    xs = pan_offsets(travel, len(frames), camera)  # type: ignore[arg-type]
    assert len(frames) == 48
    for i in (0, len(frames) // 3, len(frames) - 1):
        # the named crop matches (up to scaler and H.264 error); its neighbours 4 px away do not
        err = {dx: np.abs(frames[i] - rows[:, xs[i] + dx : xs[i] + dx + W]).mean() for dx in (-4, 0, 4)
               if 0 <= xs[i] + dx <= travel}  # fmt: skip
        assert err[0] < 4.0, (i, err)
        assert all(err[0] * 2 < e for dx, e in err.items() if dx), (i, err)
    assert (xs[0], xs[-1]) == ((0, travel) if camera == "pan_right" else (travel, 0))
