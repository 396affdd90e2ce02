"""Speech backend protocol, result type and shared WAV / signal helpers."""

from __future__ import annotations

import os
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from mnemoforge.schemas.theme import VoiceSpec
from mnemoforge.store.atomic import mkstemp_beside


@dataclass(frozen=True)
class SpeechResult:
    """What a backend wrote: the WAV path, its length and the int16 mono samples."""

    path: Path
    duration_s: float
    sample_rate: int
    samples: np.ndarray  # int16, mono

    @property
    def rms(self) -> float:
        """Root-mean-square level on a 0..1 scale."""
        if self.samples.size == 0:
            return 0.0
        x = self.samples.astype(np.float64) / 32768.0
        return float(np.sqrt(np.mean(x * x)))


@runtime_checkable
class SpeechBackend(Protocol):
    """Turns a line of text into a mono 16-bit PCM WAV spoken in a fixed voice."""

    def synthesize(self, text: str, voice: VoiceSpec, out_wav: Path) -> SpeechResult:
        """Speak ``text`` with ``voice`` into ``out_wav`` (written atomically)."""
        ...


def write_wav_atomic(path: Path, samples: np.ndarray, sample_rate: int) -> Path:
    """Write int16 mono ``samples`` to ``path`` via a temp file in the same folder + ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = np.ascontiguousarray(samples, dtype="<i2")
    fd, tmp = mkstemp_beside(path, ".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            with wave.open(fh, "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(int(sample_rate))
                w.writeframes(data.tobytes())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def wav_duration(path: Path) -> float:
    """Seconds of a PCM WAV, from its header (what ``len(samples) / rate`` of :func:`read_wav` gives,
    without reading the samples)."""
    with wave.open(str(path), "rb") as w:
        return w.getnframes() / w.getframerate()


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """Read a PCM WAV as float64 mono in [-1, 1]; returns (samples, sample_rate)."""
    with wave.open(str(path), "rb") as w:
        sr = w.getframerate()
        nch = w.getnchannels()
        width = w.getsampwidth()
        raw = w.readframes(w.getnframes())
    if width == 1:
        x = (np.frombuffer(raw, dtype=np.uint8).astype(np.float64) - 128.0) / 128.0
    elif width == 2:
        x = np.frombuffer(raw, dtype="<i2").astype(np.float64) / 32768.0
    elif width == 3:
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        v = np.where(v >= 1 << 23, v - (1 << 24), v)
        x = v.astype(np.float64) / float(1 << 23)
    elif width == 4:
        x = np.frombuffer(raw, dtype="<i4").astype(np.float64) / float(1 << 31)
    else:
        raise ValueError(f"unsupported sample width {width} in {path}")
    if nch > 1:
        x = x.reshape(-1, nch).mean(axis=1)
    return x, sr


def resample_speed(x: np.ndarray, factor: float) -> np.ndarray:
    """Play ``x`` ``factor`` times faster (factor > 1: shorter, higher pitch and formants).

    Band-limited FFT resampling: the spectrum is truncated (ideal low-pass, no aliasing) or
    zero-padded to the new length. Deterministic; meant for clips with silent edges.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0 or abs(factor - 1.0) < 1e-9:
        return x.copy()
    n = x.size
    m = max(1, int(round(n / factor)))
    spec = np.fft.rfft(x)
    k = m // 2 + 1
    if k <= spec.size:
        spec = spec[:k]
    else:
        spec = np.concatenate([spec, np.zeros(k - spec.size, dtype=spec.dtype)])
    return np.fft.irfft(spec, m) * (m / n)


def to_int16(x: np.ndarray) -> np.ndarray:
    """Float [-1, 1] (or any float array) to clipped int16."""
    return np.clip(np.round(x * 32767.0), -32768, 32767).astype(np.int16)
