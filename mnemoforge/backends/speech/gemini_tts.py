"""Gemini TTS (``google-genai``): one fixed prebuilt voice per person, PCM reply written as WAV.

Wire: ``POST {base_url}/v1beta/models/{model}:generateContent`` with
``generationConfig.responseModalities = ["AUDIO"]`` and ``speechConfig.voiceConfig.
prebuiltVoiceConfig.voiceName``; the audio is an ``inlineData`` part of type
``audio/L16;codec=pcm;rate=24000`` (base64 little-endian int16 mono), or a WAV.
"""

from __future__ import annotations

import io
import re
import time
import wave
from pathlib import Path

import numpy as np

from mnemoforge.backends.image.gemini_image import (
    GEMINI_BASE_URL,
    KEY_ENVS,
    genai_client,
    inline_parts,
    no_media_error,
    usage_of,
)
from mnemoforge.backends.media_api import IDEMPOTENCY_HEADER, Attempt, MediaApi, api_key
from mnemoforge.backends.speech.protocol import SpeechResult, write_wav_atomic
from mnemoforge.backends.text.retry import Clock, Outcome, Sleep
from mnemoforge.hashing import content_hash
from mnemoforge.schemas.render_api import SpeechApiSpec
from mnemoforge.schemas.theme import VoiceSpec

DEFAULT_MODEL = "gemini-2.5-flash-preview-tts"
PREBUILT_VOICES = (
    "Zephyr",
    "Puck",
    "Charon",
    "Kore",
    "Fenrir",
    "Leda",
    "Orus",
    "Aoede",
    "Callirrhoe",
    "Autonoe",
    "Enceladus",
    "Iapetus",
    "Umbriel",
    "Algieba",
    "Despina",
    "Erinome",
    "Algenib",
    "Rasalgethi",
    "Laomedeia",
    "Achernar",
    "Alnilam",
    "Schedar",
    "Gacrux",
    "Pulcherrima",
    "Achird",
    "Zubenelgenubi",
    "Vindemiatrix",
    "Sadachbia",
    "Sadaltager",
    "Sulafat",
)
"""The API's prebuilt voice names (its vocabulary, not a theme's)."""


def gemini_voice(name: str) -> VoiceSpec:
    """The voice record of a Gemini prebuilt voice (``engine="gemini"``: set by ``render.speech``,
    never written in a cast, so the person and world schemas stay as they were)."""
    return VoiceSpec.model_construct(engine="gemini", voice=name)  # type: ignore[arg-type]


def assign_voices(person_ids: list[str], fixed: dict[str, str]) -> dict[str, str]:
    """One distinct prebuilt voice per person: ``fixed`` first, the rest in person-id order."""
    unknown = sorted(set(fixed) - set(person_ids))
    if unknown:
        raise ValueError(f"render.speech_api.voices: no such person {unknown}")
    out = dict(fixed)
    free = [v for v in PREBUILT_VOICES if v not in fixed.values()]
    for pid in sorted(person_ids):
        if pid not in out:
            if not free:
                raise ValueError(f"more people than the {len(PREBUILT_VOICES)} prebuilt voices")
            out[pid] = free.pop(0)
    return out


def pcm_samples(data: bytes, mime: str) -> tuple[np.ndarray, int]:
    """int16 mono samples and rate from an ``audio/L16;rate=N`` or ``audio/wav`` payload."""
    if "wav" in mime:
        with wave.open(io.BytesIO(data), "rb") as w:
            sr, nch, raw = w.getframerate(), w.getnchannels(), w.readframes(w.getnframes())
        x = np.frombuffer(raw, dtype="<i2")
        return (x.reshape(-1, nch).mean(axis=1).astype(np.int16) if nch > 1 else x.copy()), sr
    m = re.search(r"rate=(\d+)", mime)
    if len(data) % 2:
        raise ValueError(f"odd byte count {len(data)} for 16-bit PCM")
    return np.frombuffer(data, dtype="<i2").copy(), int(m.group(1)) if m else 24000


def wav_bytes(samples: np.ndarray, sr: int) -> bytes:
    """int16 mono samples as WAV file bytes (what the output cache keeps)."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(int(sr))
        w.writeframes(np.ascontiguousarray(samples, dtype="<i2").tobytes())
    return buf.getvalue()


class GeminiTTSBackend(MediaApi):
    """``SpeechBackend`` over Gemini TTS; ``voice.voice`` is the prebuilt voice name."""

    provider = "gemini-tts"

    def __init__(
        self,
        spec: SpeechApiSpec | None = None,
        *,
        seed: int = 0,
        sleep: Sleep = time.sleep,
        clock: Clock = time.monotonic,
    ) -> None:
        spec = spec or SpeechApiSpec()
        key = api_key(spec, KEY_ENVS, "Gemini")
        super().__init__(spec, DEFAULT_MODEL, GEMINI_BASE_URL, key, seed=seed, sleep=sleep, clock=clock)
        self._client, self._types = genai_client(spec, key, self.base_url)

    def audio(self, text: str, voice_name: str) -> tuple[np.ndarray, int]:
        types = self._types
        key = {"text": text, "voice": voice_name}
        config = types.GenerateContentConfig(
            seed=int(content_hash(key)[:8], 16) % 2**31,  # the same line in the same voice: the same take
            http_options=types.HttpOptions(headers={IDEMPOTENCY_HEADER: self.request_key("speech", key)}),
            response_modalities=["AUDIO"],
            speech_config=types.SpeechConfig(
                voice_config=types.VoiceConfig(
                    prebuilt_voice_config=types.PrebuiltVoiceConfig(voice_name=voice_name)
                )
            ),
        )

        def attempt() -> Attempt:
            resp = self._client.models.generate_content(model=self.model, contents=text, config=config)
            parts = inline_parts(resp, "audio/")
            if not parts:
                return Attempt(no_media_error(resp, "audio"), usage=usage_of(resp))
            try:
                samples, sr = pcm_samples(*parts[0])
            except (ValueError, wave.Error, EOFError) as e:
                return Attempt(
                    Outcome(False, status=200, error=f"unreadable audio: {e}"), usage=usage_of(resp)
                )
            secs = round(samples.size / sr, 3) if sr else 0.0
            return Attempt(
                Outcome(True, status=200), wav_bytes(samples, sr), usage_of(resp) | {"media_seconds": secs}
            )

        return pcm_samples(self.call("speech", key, attempt), "audio/wav")

    def synthesize(self, text: str, voice: VoiceSpec, out_wav: Path) -> SpeechResult:
        """Speak ``text`` in the prebuilt voice ``voice.voice`` into ``out_wav`` (atomic)."""
        if voice.voice not in PREBUILT_VOICES:
            raise ValueError(
                f"{voice.voice!r} is not a Gemini prebuilt voice ({', '.join(PREBUILT_VOICES[:4])}, …)"
            )
        samples, sr = self.audio(text, voice.voice)
        if samples.size == 0:
            raise ValueError(f"Gemini TTS returned no samples for {text[:40]!r}")
        path = write_wav_atomic(Path(out_wav), samples, sr)
        return SpeechResult(path, samples.size / sr, sr, samples)
