"""Video backend: still images + speech WAVs -> H.264/AAC MP4 clips with camera moves (ffmpeg)."""

from mnemoforge.backends.video.clip_command import build_clip_command
from mnemoforge.backends.video.ffmpeg import VideoEncodeError, encode_baseline, encode_clip, encode_clips
from mnemoforge.backends.video.probe import MediaInfo, ffmpeg_exe, probe
from mnemoforge.backends.video.specs import (
    AMBIENTS,
    CAMERAS,
    Ambient,
    AudioCue,
    Camera,
    ClipJob,
    EncodeSettings,
    RawFrame,
    ShotSpec,
    pan_geometry,
    pan_offsets,
    shot_frames,
)

__all__ = [
    "AMBIENTS",
    "CAMERAS",
    "Ambient",
    "AudioCue",
    "Camera",
    "ClipJob",
    "EncodeSettings",
    "MediaInfo",
    "RawFrame",
    "ShotSpec",
    "VideoEncodeError",
    "build_clip_command",
    "encode_baseline",
    "encode_clip",
    "encode_clips",
    "ffmpeg_exe",
    "pan_geometry",
    "pan_offsets",
    "probe",
    "shot_frames",
]
