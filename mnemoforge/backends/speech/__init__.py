"""Speech backends: one fixed voice per person, written as mono 16-bit PCM WAV.

- ``EspeakBackend``: offline default (libespeak-ng from ``espeakng-loader``), deterministic.
- ``PiperBackend``: optional neural voice (extra ``tts``), imported lazily.
- ``voicecheck``: can a simple speaker-ID model tell the cast's voices apart?
"""

from __future__ import annotations

from mnemoforge.backends.speech.espeak import EspeakBackend, EspeakError, available_variants
from mnemoforge.backends.speech.piper import PiperBackend, PiperUnavailable, piper_available
from mnemoforge.backends.speech.protocol import SpeechBackend, SpeechResult, read_wav, write_wav_atomic
from mnemoforge.backends.speech.voicecheck import (
    VoiceCheckReport,
    default_voices,
    voice_distinguishability,
)

__all__ = [
    "EspeakBackend",
    "EspeakError",
    "PiperBackend",
    "PiperUnavailable",
    "SpeechBackend",
    "SpeechResult",
    "VoiceCheckReport",
    "available_variants",
    "default_voices",
    "get_backend",
    "piper_available",
    "read_wav",
    "voice_distinguishability",
    "write_wav_atomic",
]


def get_backend(engine: str) -> SpeechBackend:
    """A backend instance for a ``VoiceSpec.engine`` value: any name registered in the
    ``mnemoforge.speech_backends`` entry-point group (built-ins ``"espeak"``, ``"piper"``, ``"coqui"``)."""
    from mnemoforge import registry

    try:
        factory = registry.load(registry.SPEECH_BACKENDS_GROUP, engine)
    except registry.UnknownPlugin as e:
        raise ValueError(f"unknown speech engine {engine!r}; {e}") from None
    return factory(None)  # type: ignore[no-any-return]
