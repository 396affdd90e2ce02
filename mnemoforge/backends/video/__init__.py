"""Video backend: still images + speech WAVs -> H.264/AAC MP4 clips with camera moves (ffmpeg)."""

from mnemoforge.backends.video.ffmpeg import (
    AMBIENTS,
    CAMERAS,
    Ambient,
    AudioCue,
    Camera,
    ClipJob,
    EncodeSettings,
    ShotSpec,
    VideoEncodeError,
    build_clip_command,
    encode_baseline,
    encode_clip,
    encode_clips,
    shot_frames,
)
from mnemoforge.backends.video.probe import MediaInfo, ffmpeg_exe, probe

__all__ = [
    "AMBIENTS",
    "CAMERAS",
    "Ambient",
    "AudioCue",
    "Camera",
    "ClipJob",
    "EncodeSettings",
    "MediaInfo",
    "ShotSpec",
    "VideoEncodeError",
    "build_clip_command",
    "encode_baseline",
    "encode_clip",
    "encode_clips",
    "ffmpeg_exe",
    "probe",
    "shot_frames",
]
