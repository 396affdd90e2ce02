"""Frame-wise acoustics of speech in numpy: F0 and voicing, MFCCs and spectral centroid.

- F0 per 10 ms frame (50-500 Hz) from a YIN-style normalised difference function
  (autocorrelation via FFT); a frame is *voiced* when it is clearly periodic and not
  near-silent.
- MFCCs per frame: Hamming-windowed power spectrum, triangular mel filterbank, log, DCT-II.
- Spectral centroid per frame.

``voicecheck`` builds its speaker-identification check on these features.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mnemoforge.backends.speech.protocol import read_wav

F0_MIN, F0_MAX = 50.0, 500.0
N_MELS, N_MFCC = 32, 13
FMIN_MEL = 60.0
FMAX_MEL = 7600.0
HOP_S, WIN_S, YIN_WIN_S = 0.010, 0.025, 0.025
YIN_THRESHOLD = 0.15
VOICING_THRESHOLD = 0.4  # max normalised difference at the chosen lag for a voiced frame
MIN_RUN = 3
OCTAVE_GUARD = 1.8
SILENCE_DB = 35.0


@dataclass(frozen=True)
class Frames:
    """Frame-wise acoustics of one clip (all arrays share the frame axis)."""

    f0: np.ndarray  # Hz, 0 for unvoiced frames
    voiced: np.ndarray  # bool
    mfcc: np.ndarray  # (n_frames, N_MFCC), c0 included
    centroid: np.ndarray  # Hz
    sample_rate: int

    def median_f0(self) -> float:
        """Median F0 of voiced frames (0.0 when nothing is voiced)."""
        v = self.f0[self.voiced]
        return float(np.median(v)) if v.size else 0.0

    def f0_iqr(self) -> float:
        """Inter-quartile range of voiced F0 in Hz."""
        v = self.f0[self.voiced]
        return float(np.subtract(*np.percentile(v, [75, 25]))) if v.size else 0.0


def _frame(x: np.ndarray, win: int, hop: int) -> np.ndarray:
    """(n_frames, win) view-copy of ``x`` centred on hop positions (zero-padded)."""
    pad = win // 2
    xp = np.pad(x, (pad, pad + win))
    n = max(1, 1 + (len(x) - 1) // hop)
    idx = np.arange(win)[None, :] + hop * np.arange(n)[:, None]
    return xp[idx]


def mel_filterbank(
    sr: int, n_fft: int, n_mels: int = N_MELS, fmin: float = FMIN_MEL, fmax: float = FMAX_MEL
) -> np.ndarray:
    """Triangular mel filters, shape (n_mels, n_fft // 2 + 1)."""
    fmax = min(fmax, sr / 2.0)

    def hz2mel(f: np.ndarray | float) -> np.ndarray:
        return 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)

    def mel2hz(m: np.ndarray) -> np.ndarray:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)

    edges = mel2hz(np.linspace(hz2mel(fmin), hz2mel(fmax), n_mels + 2))
    freqs = np.fft.rfftfreq(n_fft, 1.0 / sr)
    lo, mid, hi = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    up = (freqs[None, :] - lo) / np.maximum(mid - lo, 1e-9)
    down = (hi - freqs[None, :]) / np.maximum(hi - mid, 1e-9)
    return np.maximum(0.0, np.minimum(up, down))


def dct_matrix(n_in: int, n_out: int) -> np.ndarray:
    """Orthonormal DCT-II basis, shape (n_out, n_in)."""
    k = np.arange(n_out)[:, None]
    n = np.arange(n_in)[None, :]
    m = np.cos(np.pi * k * (2 * n + 1) / (2 * n_in)) * np.sqrt(2.0 / n_in)
    m[0] /= np.sqrt(2.0)
    return m


def _next_pow2(n: int) -> int:
    return 1 << int(np.ceil(np.log2(max(2, n))))


def estimate_f0(x: np.ndarray, sr: int, hop_s: float = HOP_S) -> tuple[np.ndarray, np.ndarray]:
    """Frame-wise F0 in Hz (0 where unvoiced) and periodicity in [0, 1], YIN-style.

    Per frame: difference function d(tau) via FFT cross-correlation and running energies,
    cumulative-mean normalisation, the first dip below ``YIN_THRESHOLD`` (else the global
    minimum) refined by parabolic interpolation. Frames near silence, weakly periodic frames,
    voiced runs shorter than 30 ms and octave outliers from the clip's median are unvoiced.
    """
    hop = max(1, int(round(hop_s * sr)))
    w = int(round(YIN_WIN_S * sr))
    tmax = min(int(np.ceil(sr / F0_MIN)), w)
    tmin = max(2, int(np.floor(sr / F0_MAX)))
    frames = _frame(x, w + tmax + 1, hop)
    frames = frames - frames.mean(axis=1, keepdims=True)
    # lags 0..tmax of head (w samples) against the frame (w + tmax + 1) never wrap around an FFT
    # of at least the frame's length, so no zero padding beyond it is needed
    n_fft = _next_pow2(w + tmax + 1)
    head = np.fft.rfft(frames[:, :w], n_fft)
    full = np.fft.rfft(frames, n_fft)
    r = np.fft.irfft(np.conj(head) * full, n_fft)[:, : tmax + 1]
    c = np.concatenate([np.zeros((len(frames), 1)), np.cumsum(frames**2, axis=1)], axis=1)
    taus = np.arange(tmax + 1)
    e_tau = c[:, taus + w] - c[:, taus]
    d = np.maximum(e_tau[:, :1] + e_tau - 2.0 * r, 0.0)
    cum = np.cumsum(d[:, 1:], axis=1)
    dn = np.ones_like(d)
    dn[:, 1:] = d[:, 1:] * np.arange(1, tmax + 1)[None, :] / np.maximum(cum, 1e-12)
    seg = dn[:, tmin:]
    below = seg < YIN_THRESHOLD
    first = np.where(below.any(axis=1), below.argmax(axis=1), seg.argmin(axis=1))
    first = _dip_bottom(seg, first)
    rows = np.arange(len(seg))
    i = np.clip(first + tmin, 1, tmax - 1)
    a, b, cc = dn[rows, i - 1], dn[rows, i], dn[rows, i + 1]
    denom = a - 2 * b + cc
    shift = np.where(np.abs(denom) > 1e-12, 0.5 * (a - cc) / np.where(denom == 0, 1.0, denom), 0.0)
    lag = (first + tmin) + np.clip(shift, -0.5, 0.5)
    periodicity = np.clip(1.0 - seg[rows, first], 0.0, 1.0)
    energy = np.sqrt(e_tau[:, 0] / w)
    loud = energy > max(float(energy.max()), 1e-10) * 10 ** (-SILENCE_DB / 20)
    voiced = loud & (periodicity >= 1.0 - VOICING_THRESHOLD)
    voiced = _drop_short_runs(voiced, MIN_RUN)
    f0 = np.where(voiced, sr / lag, 0.0)
    if voiced.any():
        med = float(np.median(f0[voiced]))
        f0 = np.where((f0 > med * OCTAVE_GUARD) | (f0 < med / OCTAVE_GUARD), 0.0, f0)
    return f0, np.where(loud, periodicity, 0.0)


def _dip_bottom(seg: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Per row, walk right from ``start`` while the next value is lower: the first column ``j >=
    start`` that is the last one or has ``seg[j + 1] >= seg[j]`` (one masked argmax, not a walk)."""
    last = seg.shape[1] - 1
    stops = np.ones(seg.shape, dtype=bool)  # the last column always stops the walk
    stops[:, :last] = ~(seg[:, 1:] < seg[:, :-1])
    stops &= np.arange(seg.shape[1])[None, :] >= start[:, None]
    return stops.argmax(axis=1)


def _drop_short_runs(mask: np.ndarray, min_len: int) -> np.ndarray:
    """Clear runs of True shorter than ``min_len`` frames."""
    out = mask.copy()
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(np.int8), [0]])))
    for start, stop in zip(edges[::2], edges[1::2], strict=True):
        if stop - start < min_len:
            out[start:stop] = False
    return out


def analyze(x: np.ndarray, sr: int) -> Frames:
    """Frame-wise F0, voicing, MFCC and spectral centroid of a float mono signal."""
    x = np.asarray(x, dtype=np.float64)
    if x.size < int(0.05 * sr):
        raise ValueError("clip too short to analyse (< 50 ms)")
    x = x - x.mean()
    f0, _ = estimate_f0(x, sr)
    hop = max(1, int(round(HOP_S * sr)))
    win = int(round(WIN_S * sr))
    n_fft = _next_pow2(win)
    y = np.append(x[0], x[1:] - 0.97 * x[:-1])  # pre-emphasis
    frames = _frame(y, win, hop)[: len(f0)]
    power = np.abs(np.fft.rfft(frames * np.hamming(win), n_fft)) ** 2
    mel = mel_filterbank(sr, n_fft) @ power.T
    logmel = np.log(np.maximum(mel, 1e-10)).T
    mfcc = logmel @ dct_matrix(N_MELS, N_MFCC).T
    freqs = np.fft.rfftfreq(n_fft, 1.0 / sr)
    band = freqs <= min(FMAX_MEL, sr / 2.0)
    centroid = (power[:, band] @ freqs[band]) / np.maximum(power[:, band].sum(axis=1), 1e-12)
    return Frames(f0=f0, voiced=f0 > 0, mfcc=mfcc, centroid=centroid, sample_rate=sr)


def analyze_wav(path: Path) -> Frames:
    """``analyze`` applied to a WAV file."""
    x, sr = read_wav(Path(path))
    return analyze(x, sr)


def frame_features(fr: Frames) -> np.ndarray:
    """Per voiced frame: [log F0, MFCC 1..N-1, log centroid]; shape (n_voiced, N_MFCC + 1)."""
    v = fr.voiced
    return np.column_stack([np.log(fr.f0[v]), fr.mfcc[v, 1:], np.log(np.maximum(fr.centroid[v], 1.0))])


def utterance_features(fr: Frames) -> dict[str, float]:
    """Summary statistics of one clip (for reports and debugging)."""
    v = fr.voiced
    out = {"median_f0": fr.median_f0(), "f0_iqr": fr.f0_iqr(), "voiced_fraction": float(v.mean())}
    if v.any():
        out["centroid_hz"] = float(np.median(fr.centroid[v]))
        for k in range(1, N_MFCC):
            out[f"mfcc{k}_mean"] = float(fr.mfcc[v, k].mean())
    return out
