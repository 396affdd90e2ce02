"""Render speech: one synthesis per distinct (voice, text) take; the voice check analyses each take once."""

from __future__ import annotations

from pathlib import Path

from mnemoforge.backends.speech.espeak import EspeakBackend
from mnemoforge.backends.speech.protocol import SpeechResult, write_wav_atomic
from mnemoforge.generators.icm.render_speech import engine_fingerprint, speak, take_key
from mnemoforge.generators.icm.render_voice import once_per_take
from mnemoforge.schemas.theme import VoiceSpec


class CountingEspeak(EspeakBackend):
    def __init__(self) -> None:
        self.calls: list[str] = []

    def synthesize(self, text: str, voice: VoiceSpec, out_wav: Path) -> SpeechResult:
        self.calls.append(text)
        return super().synthesize(text, voice, out_wav)


class FreshTakes:
    """An engine whose takes are not a function of (voice, text) alone: never reused."""

    def __init__(self) -> None:
        self.n = 0

    def synthesize(self, text: str, voice: VoiceSpec, out_wav: Path) -> None:
        import numpy as np

        self.n += 1
        write_wav_atomic(out_wav, np.full(800, self.n, dtype=np.int16), 16000)


def test_same_voice_and_text_synthesized_once_same_bytes(tmp_path: Path) -> None:
    eng = CountingEspeak()
    a, b = VoiceSpec(variant="f3"), VoiceSpec(variant="m3")
    cache = tmp_path / "cache"
    speak({"espeak": eng}, a, "See you at the market.", tmp_path / "l1.wav", cache)
    speak({"espeak": eng}, a, "See you at the market.", tmp_path / "l2.wav", cache)
    speak({"espeak": eng}, b, "See you at the market.", tmp_path / "l3.wav", cache)
    assert eng.calls == ["See you at the market."] * 2  # the second voice is a new take
    fresh = EspeakBackend().synthesize("See you at the market.", a, tmp_path / "fresh.wav")
    assert (tmp_path / "l2.wav").read_bytes() == (tmp_path / "l1.wav").read_bytes() == fresh.path.read_bytes()
    assert (tmp_path / "l3.wav").read_bytes() != (tmp_path / "l1.wav").read_bytes()
    key = take_key(a, "See you at the market.", engine_fingerprint(CountingEspeak))
    assert (cache / f"{key}.wav").exists()


def test_a_take_kept_by_other_engine_code_or_versions_is_not_reused(tmp_path: Path) -> None:
    import numpy as np

    eng, v, cache = CountingEspeak(), VoiceSpec(variant="f3"), tmp_path / "cache"
    old_key = take_key(v, "Hello there.", "an older engine")
    stale = write_wav_atomic(cache / f"{old_key}.wav", np.zeros(800, np.int16), 22050)
    speak({"espeak": eng}, v, "Hello there.", tmp_path / "l.wav", cache)
    assert eng.calls == ["Hello there."]  # synthesized: the stale take has another fingerprint
    assert (tmp_path / "l.wav").read_bytes() != stale.read_bytes()

    class Upgraded(CountingEspeak):
        take_distributions = ("espeakng-loader", "numpy")

    assert engine_fingerprint(Upgraded) != engine_fingerprint(CountingEspeak)


def test_engines_without_deterministic_takes_always_synthesize(tmp_path: Path) -> None:
    eng = FreshTakes()
    v = VoiceSpec(engine="piper")
    for i in range(2):
        speak({"piper": eng}, v, "Hello.", tmp_path / f"l{i}.wav", tmp_path / "cache")
    assert eng.n == 2 and not (tmp_path / "cache").exists()


def test_voice_check_maps_each_distinct_file_once_in_input_order(tmp_path: Path) -> None:
    paths = []
    for name, body in [("a", b"1"), ("b", b"2"), ("c", b"1"), ("d", b"3"), ("e", b"2")]:
        p = tmp_path / name
        p.write_bytes(body)
        paths.append(p)
    seen: list[str] = []

    def mapper(f, xs):  # type: ignore[no-untyped-def]
        xs = list(xs)
        seen.extend(x.name for x in xs)
        return map(f, xs)

    got = list(once_per_take(mapper)(lambda p: p.read_bytes(), paths))
    assert seen == ["a", "b", "d"]
    assert got == [b"1", b"2", b"1", b"3", b"2"]
