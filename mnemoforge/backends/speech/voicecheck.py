"""Are the cast's voices distinguishable? A small speaker-identification check in numpy.

Acoustics (numpy only):
- F0 per 10 ms frame (50-500 Hz) from a YIN-style normalised difference function
  (autocorrelation via FFT); a frame is *voiced* when it is clearly periodic and not
  near-silent.
- MFCCs per frame: Hamming-windowed power spectrum, triangular mel filterbank, log, DCT-II.
- Spectral centroid per frame.

Model (``VoiceModel``): features of *voiced* frames, [log F0, MFCC 1..12, log centroid],
standardised on the pooled calibration speech. Voiced frames carry the voice (pitch, vocal
tract formants); unvoiced consonants mostly don't. Each person is scored by a Mahalanobis
distance of mean frames under the pooled within-person covariance fused with a
nearest-calibration-frame (VQ) distance; see ``VoiceModel``. A sentence or two of
calibration speech per person is enough for well-separated voices.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from mnemoforge.backends.speech.protocol import read_wav
from mnemoforge.schemas.theme import VoiceSpec

UNVOICED = "<unvoiced>"  # prediction for a test clip with (almost) no voiced frames
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
MIN_TRAIN_FRAMES = 10
MIN_TEST_FRAMES = 3
SHRINK = 0.1
NN_KEEP = 0.8
MAX_NN_FRAMES = 3000
METHOD = "voiced frames [logF0, MFCC1-12, log centroid]; pooled-covariance Mahalanobis x VQ distance"


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
    # walk down to the bottom of the first dip
    for _ in range(seg.shape[1]):
        nxt = np.minimum(first + 1, seg.shape[1] - 1)
        step = seg[np.arange(len(seg)), nxt] < seg[np.arange(len(seg)), first]
        if not step.any():
            break
        first = np.where(step, nxt, first)
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


@dataclass
class VoiceModel:
    """Per-person voice models over standardised voiced-frame features.

    Two complementary scores per person, fused as ``log(lda) + log(nn)`` (lower is closer):
    - ``lda``: Mahalanobis distance between the clip's mean frame and the person's mean frame,
      under the pooled within-person frame covariance (shrunk); it discounts directions in
      which phonetic content varies, so it tracks pitch level and overall timbre.
    - ``nn``: mean squared distance from each clip frame to its nearest calibration frame of
      the person (worst 20 % trimmed), a vector-quantisation score that compares like sounds
      with like and so separates voices that differ in formants rather than pitch.
    """

    people: list[str]
    center: np.ndarray
    scale: np.ndarray
    means: np.ndarray  # (n_people, d), standardised
    precision: np.ndarray  # (d, d) inverse pooled within-person covariance
    frames: list[np.ndarray]  # standardised calibration frames per person

    @classmethod
    def fit(cls, feats: dict[str, list[np.ndarray]]) -> VoiceModel:
        """Fit from person -> list of (n_frames, d) feature matrices (one per clip)."""
        people = sorted(feats)
        per = {p: np.vstack(feats[p]) for p in people}
        for p, m in per.items():
            if len(m) < MIN_TRAIN_FRAMES:
                raise ValueError(f"too little voiced calibration speech for {p!r} ({len(m)} frames)")
        allf = np.vstack(list(per.values()))
        center, scale = allf.mean(axis=0), allf.std(axis=0) + 1e-9
        z = {p: (per[p] - center) / scale for p in people}
        means = np.array([z[p].mean(axis=0) for p in people])
        within = np.vstack([z[p] - means[i] for i, p in enumerate(people)])
        cov = np.cov(within.T)
        d = cov.shape[0]
        cov = (1 - SHRINK) * cov + SHRINK * np.eye(d) * np.trace(cov) / d
        frames = [z[p][:: max(1, len(z[p]) // MAX_NN_FRAMES + 1)] for p in people]
        return cls(people, center, scale, means, np.linalg.inv(cov), frames)

    def scores(self, feats: np.ndarray) -> dict[str, dict[str, float]]:
        """Per person: ``lda``, ``nn`` and fused ``score`` for a clip's voiced-frame features."""
        z = (feats - self.center) / self.scale
        zbar = z.mean(axis=0)
        out: dict[str, dict[str, float]] = {}
        for i, p in enumerate(self.people):
            diff = zbar - self.means[i]
            lda = float(diff @ self.precision @ diff)
            ref = self.frames[i]
            d2 = (z**2).sum(1)[:, None] + (ref**2).sum(1)[None, :] - 2.0 * z @ ref.T
            nearest = np.sort(np.maximum(d2.min(axis=1), 0.0))
            nn = float(nearest[: max(1, int(np.ceil(len(nearest) * NN_KEEP)))].mean())
            out[p] = {"lda": lda, "nn": nn, "score": float(np.log(lda + 1e-9) + np.log(nn + 1e-9))}
        return out

    def predict(self, feats: np.ndarray) -> str:
        """Most likely person for a clip's voiced-frame features."""
        sc = self.scores(feats)
        return min(sc, key=lambda p: sc[p]["score"])


@dataclass
class VoiceCheckReport:
    """Outcome of ``voice_distinguishability``; ``to_dict`` is JSON-serialisable."""

    accuracy: float
    n_test: int
    confusion: dict[str, dict[str, int]]
    per_person: dict[str, float]
    median_f0: dict[str, float] = field(default_factory=dict)
    errors: list[dict[str, str]] = field(default_factory=list)
    method: str = METHOD

    def passed(self, threshold: float = 0.95) -> bool:
        """Whether accuracy reaches ``threshold``."""
        return self.accuracy >= threshold

    def to_dict(self) -> dict:
        """Plain-data form (str/float/int/dict/list only)."""
        return json.loads(json.dumps(asdict(self)))


def _features_of(path: Path) -> tuple[np.ndarray, Frames]:
    fr = analyze_wav(path)
    return frame_features(fr), fr


def line_features(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """Voiced-frame features and voiced F0 of one WAV; None when it is too short to analyse.
    A module-level function, so a process pool can map it."""
    try:
        ff, fr = _features_of(path)
    except ValueError:
        return None
    return ff, fr.f0[fr.voiced]


Mapper = Callable[[Callable[[Path], "tuple[np.ndarray, np.ndarray] | None"], Iterable[Path]], Iterator]


def voice_distinguishability(
    train: dict[str, list[Path]], test: list[tuple[str, Path]], map_fn: Mapper = map
) -> VoiceCheckReport:
    """Fit one voice model per person on ``train`` clips; classify each ``(person, clip)`` in ``test``.

    ``map_fn`` extracts the features of every WAV (e.g. a process pool's ``map``); it must keep
    the order of its inputs.
    """
    if len(train) < 2:
        raise ValueError("need at least two people to check distinguishability")
    for person, paths in train.items():
        if not paths:
            raise ValueError(f"no calibration clips for {person!r}")
    train_paths = [(person, p) for person, paths in train.items() for p in paths]
    all_feats = list(map_fn(line_features, [p for _, p in train_paths] + [p for _, p in test]))
    feats: dict[str, list[np.ndarray]] = {}
    f0s: dict[str, list[np.ndarray]] = {}
    for (person, p), got in zip(train_paths, all_feats[: len(train_paths)], strict=True):
        if got is None:
            raise ValueError(f"calibration clip too short to analyse (< 50 ms): {p}")
        feats.setdefault(person, []).append(got[0])
        f0s.setdefault(person, []).append(got[1])
    model = VoiceModel.fit(feats)
    labels = sorted(set(model.people) | {t for t, _ in test})
    confusion = {a: {b: 0 for b in model.people} for a in labels}
    errors: list[dict[str, str]] = []
    for (truth, path), got in zip(test, all_feats[len(train_paths) :], strict=True):
        ff = got[0] if got is not None else np.zeros((0, 0))  # None: clip too short to analyse
        guess = model.predict(ff) if len(ff) >= MIN_TEST_FRAMES else UNVOICED
        confusion[truth][guess] = confusion[truth].get(guess, 0) + 1
        if guess != truth:
            errors.append({"path": str(path), "truth": truth, "predicted": guess})
    n = len(test)
    correct = sum(confusion[p].get(p, 0) for p in labels)
    per_person = {
        p: (confusion[p].get(p, 0) / sum(confusion[p].values())) for p in labels if sum(confusion[p].values())
    }
    med = {p: float(np.median(np.concatenate(v))) if sum(len(a) for a in v) else 0.0 for p, v in f0s.items()}
    return VoiceCheckReport(
        accuracy=correct / n if n else 0.0,
        n_test=n,
        confusion=confusion,
        per_person=per_person,
        median_f0=med,
        errors=errors,
    )


# Hand-picked, well-separated espeak voices, alternating female/male. The first six have
# median F0 about 205, 100, 260, 135, 170 and 80 Hz (>= 20 % apart) on distinct variants
# (formant sets); voices 7-10 add semitone shifts, which move the formants as well.
_CURATED: tuple[dict, ...] = (
    {"variant": "f3", "pitch": 50, "pitch_range": 60, "rate": 165},
    {"variant": "m3", "pitch": 45, "pitch_range": 50, "rate": 155},
    {"variant": "f1", "pitch": 80, "pitch_range": 65, "rate": 180, "semitones": 1.0},
    {"variant": "m7", "pitch": 75, "pitch_range": 55, "rate": 170},
    {"variant": "f2", "pitch": 35, "pitch_range": 45, "rate": 150},
    {"variant": "m1", "pitch": 30, "pitch_range": 45, "rate": 145},
    {"variant": "f5", "pitch": 70, "pitch_range": 75, "rate": 185, "semitones": -2.0},
    {"variant": "m2", "pitch": 50, "pitch_range": 40, "rate": 160, "semitones": 2.0},
    {"variant": "f4", "pitch": 20, "pitch_range": 55, "rate": 140, "semitones": 2.0},
    {"variant": "m4", "pitch": 25, "pitch_range": 60, "rate": 175, "semitones": 3.0},
)
_EXTRA_VARIANTS: tuple[str, ...] = ("f1", "m2", "f2", "m5", "f3", "m8", "f4", "m3", "f5", "m1")


def default_voices(n: int, language: str = "en-us") -> list[VoiceSpec]:
    """``n`` espeak voices chosen to be far apart (alternating female/male); deterministic."""
    if n < 0:
        raise ValueError("n must be >= 0")
    out: list[VoiceSpec] = []
    for i in range(n):
        if i < len(_CURATED):
            out.append(VoiceSpec(voice=language, **_CURATED[i]))
            continue
        j = i - len(_CURATED)
        # Golden-ratio walk over pitch and semitones keeps later voices spread out.
        g = (j * 0.6180339887) % 1.0
        out.append(
            VoiceSpec(
                voice=language,
                variant=_EXTRA_VARIANTS[j % len(_EXTRA_VARIANTS)],
                pitch=int(10 + 80 * g),
                pitch_range=40 + (j * 7) % 40,
                rate=140 + (j * 13) % 60,
                semitones=round(-4.0 + 8.0 * ((g * 2.618) % 1.0), 1),
            )
        )
    return out


def summarize(paths: Iterable[Path]) -> list[dict[str, float]]:
    """``utterance_features`` of several clips (handy when tuning a cast's voices)."""
    return [utterance_features(analyze_wav(p)) for p in paths]
