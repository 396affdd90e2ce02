"""Are the cast's voices distinguishable? A small speaker-identification check in numpy.

Acoustics (numpy only, in ``voice_acoustics``): F0 and voicing per 10 ms frame (YIN-style),
MFCCs and the spectral centroid.

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

from mnemoforge.backends.speech.voice_acoustics import Frames, analyze_wav, frame_features, utterance_features
from mnemoforge.schemas.theme import VoiceSpec

UNVOICED = "<unvoiced>"  # prediction for a test clip with (almost) no voiced frames
MIN_TRAIN_FRAMES = 10
MIN_TEST_FRAMES = 3
SHRINK = 0.1
NN_KEEP = 0.8
MAX_NN_FRAMES = 3000
METHOD = "voiced frames [logF0, MFCC1-12, log centroid]; pooled-covariance Mahalanobis x VQ distance"


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
