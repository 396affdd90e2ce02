"""Locating ffmpeg and reading basic facts about a media file (from ffmpeg's header, no moviepy)."""

from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MediaInfo", "ffmpeg_exe", "probe"]


@dataclass(frozen=True)
class MediaInfo:
    """What a produced (or any) media file contains, as read back from the file."""

    path: Path
    duration_s: float
    has_video: bool
    has_audio: bool
    width: int
    height: int
    fps: float
    bytes: int


@functools.cache
def ffmpeg_exe() -> str:
    """Path of the ffmpeg binary (imageio-ffmpeg's bundled static build, or ``IMAGEIO_FFMPEG_EXE``)."""
    import imageio_ffmpeg

    return str(imageio_ffmpeg.get_ffmpeg_exe())


def probe(path: Path) -> MediaInfo:
    """Read duration, streams, size and frame rate of ``path`` from ffmpeg's header (one
    ``ffmpeg -i`` that reads the header and exits; nothing is decoded, no moviepy). The header is
    parsed by imageio-ffmpeg's own parser, so the figures are those ``imageio_ffmpeg.read_frames``
    reports.

    Raises ``FileNotFoundError`` when the file does not exist and ``OSError`` when ffmpeg
    cannot read it.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(path)
    header = _header(path)
    if not re.search(r"Stream #\S+.*: Video: ", header):
        return _probe_audio(path, header)
    from imageio_ffmpeg._parsing import parse_ffmpeg_header

    try:
        meta = parse_ffmpeg_header(header)
    except (IndexError, AttributeError, ValueError) as exc:
        raise OSError(f"{path}: cannot parse ffmpeg's header ({exc})") from exc
    width, height = meta.get("size") or (0, 0)
    return MediaInfo(
        path=path,
        duration_s=float(meta.get("duration") or 0.0),
        has_video=True,
        has_audio=bool(meta.get("audio_codec")),
        width=int(width),
        height=int(height),
        fps=float(meta.get("fps") or 0.0),
        bytes=path.stat().st_size,
    )


def _header(path: Path) -> str:
    """ffmpeg's description of ``path`` (stderr of ``ffmpeg -i path`` with no output)."""
    res = subprocess.run(
        [ffmpeg_exe(), "-nostdin", "-i", str(path.absolute())],  # absolute: no "x:" protocol mix-up
        capture_output=True,
        text=True,
        errors="replace",
        timeout=60,
    )
    return res.stderr


_DURATION = re.compile(r"Duration:\s*(\d+):(\d+):(\d+(?:\.\d+)?)")


def _probe_audio(path: Path, header: str) -> MediaInfo:
    """A file without a video stream (WAV, M4A): its duration and audio stream from the header."""
    m = _DURATION.search(header)
    has_audio = re.search(r"Stream #\S+.*: Audio:", header) is not None
    if m is None or not has_audio:
        raise OSError(f"{path}: ffmpeg cannot read it as media ({header.strip().splitlines()[-1:]})")
    h, mi, s = m.groups()
    seconds = int(h) * 3600 + int(mi) * 60 + float(s)
    return MediaInfo(path, seconds, False, True, 0, 0, 0.0, path.stat().st_size)
