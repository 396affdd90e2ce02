"""Optional Coqui TTS backend (extra ``coqui``): voice cloning from a per-person reference clip.

Coqui needs a CUDA-capable torch build and downloads its model on first use, so it never runs
in CI or on the offline default path; the adapter is exercised only where a user installs it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mnemoforge.backends.speech.protocol import SpeechResult, write_wav_atomic
from mnemoforge.schemas.theme import VoiceSpec

DEFAULT_MODEL = "tts_models/multilingual/multi-dataset/xtts_v2"


class CoquiUnavailable(ImportError):
    """Raised when the ``TTS`` package (Coqui) is not installed."""


class CoquiBackend:
    """Clones each person's voice from ``VoiceSpec.reference_wav`` with a Coqui model."""

    engine_name = "coqui"

    def __init__(self, model: str = DEFAULT_MODEL, language: str = "en", device: str = "cpu") -> None:
        try:
            from TTS.api import TTS  # type: ignore[import-not-found]
        except ImportError as e:
            raise CoquiUnavailable(
                f"the Coqui speech backend needs the 'coqui' extra: pip install 'mnemoforge[coqui]' ({e})"
            ) from None
        self.tts = TTS(model).to(device)
        self.language = language

    def synthesize(self, text: str, voice: VoiceSpec, out_wav: Path) -> SpeechResult:
        if voice.engine != "coqui":
            raise ValueError(f"CoquiBackend got a voice for engine {voice.engine!r}")
        if not voice.reference_wav or not Path(voice.reference_wav).is_file():
            raise FileNotFoundError(
                f"coqui voice needs an existing reference_wav, got {voice.reference_wav!r}"
            )
        audio = np.asarray(self.tts.tts(text=text, speaker_wav=voice.reference_wav, language=self.language))
        sr = int(self.tts.synthesizer.output_sample_rate)
        samples = np.clip(np.round(audio * 32767), -32768, 32767).astype(np.int16)
        path = write_wav_atomic(Path(out_wav), samples, sr)
        return SpeechResult(path=path, duration_s=samples.size / sr, sample_rate=sr, samples=samples)
