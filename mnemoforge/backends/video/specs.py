"""What a clip is made of: shots, speech cues, camera moves, ambient beds and encoder settings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

__all__ = [
    "AMBIENTS",
    "CAMERAS",
    "Ambient",
    "AudioCue",
    "Camera",
    "ClipJob",
    "EncodeSettings",
    "RawFrame",
    "ShotSpec",
    "pan_geometry",
    "pan_offsets",
    "shot_frames",
]

Camera = Literal["static", "pan_left", "pan_right", "zoom_in", "zoom_out"]
Ambient = Literal["none", "room", "outdoor"]
CAMERAS: tuple[str, ...] = get_args(Camera)
AMBIENTS: tuple[str, ...] = get_args(Ambient)


@dataclass(frozen=True)
class AudioCue:
    """A speech line: ``wav`` starts ``start_s`` seconds after the start of its shot."""

    wav: Path
    start_s: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.start_s) and self.start_s >= 0):
            raise ValueError(f"cue start_s must be a finite number >= 0, got {self.start_s!r}")


@dataclass(frozen=True, eq=False)
class RawFrame:
    """A still's pixels in memory, 8-bit RGB rows top to bottom: the encoder reads them as they are
    instead of decoding the still's PNG again (the same pixels, so the same clip bytes)."""

    width: int
    height: int
    rgb: bytes

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0 or len(self.rgb) != self.width * self.height * 3:
            raise ValueError(f"{len(self.rgb)} bytes are not {self.width}x{self.height} RGB pixels")


@dataclass(frozen=True)
class ShotSpec:
    """One shot of a clip: a still shown for ``duration_s`` with a camera move and speech cues."""

    still: Path
    duration_s: float
    camera: Camera = "static"
    audio: tuple[AudioCue, ...] = ()
    ambient: Ambient = "room"
    video: Path | None = None  # a generated clip (e.g. Veo) shown instead of the still's camera move
    pixels: RawFrame | None = field(default=None, compare=False, repr=False)
    """The still's pixels, when the caller has them (just drawn): encoded from memory, not the PNG."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "audio", tuple(self.audio))
        if not (math.isfinite(self.duration_s) and self.duration_s > 0):
            raise ValueError(f"shot duration_s must be > 0, got {self.duration_s!r}")
        if self.camera not in CAMERAS:
            raise ValueError(f"unknown camera {self.camera!r}; expected one of {CAMERAS}")
        if self.ambient not in AMBIENTS:
            raise ValueError(f"unknown ambient {self.ambient!r}; expected one of {AMBIENTS}")
        for cue in self.audio:
            if cue.start_s >= self.duration_s:
                raise ValueError(f"cue at {cue.start_s}s starts after the {self.duration_s}s shot ends")


@dataclass(frozen=True)
class EncodeSettings:
    """Encoder knobs shared by :func:`encode_clip` and :func:`encode_baseline`."""

    preset: str = "veryfast"
    crf: int = 23
    tune: str | None = "stillimage"
    sample_rate: int = 24000
    audio_bitrate: str = "64k"
    aac_coder: str = "fast"  # ffmpeg's AAC coder: "fast" costs about half of "twoloop" at 64k mono speech
    move: float = 1.25  # window ratio for camera moves: zoom 1 -> move, pans travel (1 - 1/move) of the width
    supersample_max_width: int = 640  # zoompan reads a copy of the still up to this wide (sub-pixel motion)


def pan_geometry(width: int, height: int, move: float) -> tuple[int, int, int, int]:
    """How a pan is cut from its still: the still is scaled once by ``move`` to ``(sw, sh)``, its
    middle ``height`` rows (from ``top``) are kept, and a frame-sized window slides ``travel`` pixels
    across them (even steps, so the 4:2:0 chroma planes move with the luma). Returns
    ``(sw, sh, top, travel)``."""
    sw, sh = 2 * round(width * move / 2), round(height * move)
    return sw, sh, (sh - height) // 2, sw - width


def pan_offsets(travel: int, n: int, direction: Literal["pan_left", "pan_right"]) -> list[int]:
    """The window's left edge on each of a pan's ``n`` frames, in scaled pixels (what the crop
    expression of :mod:`~mnemoforge.backends.video.clip_command` evaluates): even, 0 -> ``travel``."""
    last, half = max(n - 1, 1), travel // 2
    if direction == "pan_right":  # the same arithmetic, in the same order, as the crop expression
        return [2 * math.floor(half * i / last + 0.5) for i in range(n)]
    return [2 * math.floor(half * (1 - i / last) + 0.5) for i in range(n)]


@dataclass(frozen=True)
class ClipJob:
    """Arguments of one :func:`encode_clip` call, for :func:`encode_clips`."""

    shots: tuple[ShotSpec, ...]
    out: Path
    width: int
    height: int
    fps: int
    seed: int = 0
    settings: EncodeSettings = field(default_factory=EncodeSettings)


def shot_frames(durations: Sequence[float], fps: int) -> list[int]:
    """Frames per shot: shot boundaries are the planned cumulative times rounded to the frame grid.

    So the clip length is the planned total to within half a frame, however many shots
    there are (every shot gets at least one frame).
    """
    counts: list[int] = []
    done, planned = 0, 0.0
    for d in durations:
        planned += d
        n = max(1, round(planned * fps) - done)
        counts.append(n)
        done += n
    return counts
