"""Locating ffmpeg and reading basic facts about a media file."""

from __future__ import annotations

import functools
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
    """Read duration, streams, size and frame rate of ``path`` (via moviepy's ffmpeg header parser).

    Raises ``FileNotFoundError`` when the file does not exist and ``OSError`` when ffmpeg
    cannot read it.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(path)
    from moviepy.video.io.ffmpeg_reader import ffmpeg_parse_infos

    infos = ffmpeg_parse_infos(str(path.absolute()), check_duration=True)  # absolute: no "x:" protocol mix-up
    has_video = bool(infos.get("video_found"))
    size = infos.get("video_size") or (0, 0)
    return MediaInfo(
        path=path,
        duration_s=float(infos.get("duration") or 0.0),
        has_video=has_video,
        has_audio=bool(infos.get("audio_found")),
        width=int(size[0]) if has_video else 0,
        height=int(size[1]) if has_video else 0,
        fps=float(infos.get("video_fps") or 0.0) if has_video else 0.0,
        bytes=path.stat().st_size,
    )
