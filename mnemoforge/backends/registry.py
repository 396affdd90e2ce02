"""Backends by name, as a theme's ``render`` section and each voice's ``engine`` choose them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mnemoforge import registry
from mnemoforge.backends.image.protocol import ImageBackend
from mnemoforge.backends.speech.protocol import SpeechBackend
from mnemoforge.schemas.theme import RenderSpec, VoiceSpec

if TYPE_CHECKING:
    from mnemoforge.backends.video.veo import VeoBackend


def image_backend(spec: RenderSpec) -> ImageBackend:
    """The configured image backend (``render.image``), from the ``mnemoforge.image_backends``
    entry-point group; heavy ones are imported only when chosen."""
    factory = registry.load(registry.IMAGE_BACKENDS_GROUP, spec.image)
    return factory(spec)  # type: ignore[no-any-return]


# the built-in image backends, registered by name in the ``mnemoforge.image_backends`` group
def procedural_images(spec: RenderSpec) -> ImageBackend:
    from mnemoforge.backends.image.procedural import ProceduralImageBackend

    return ProceduralImageBackend()


def diffusers_images(spec: RenderSpec) -> ImageBackend:
    from mnemoforge.backends.image.diffusion import DiffusersImageBackend

    return DiffusersImageBackend(spec.image_model, steps=spec.image_steps, allow_network=spec.allow_network)


def gemini_images(spec: RenderSpec) -> ImageBackend:
    from mnemoforge.backends.image.gemini_image import GeminiImageBackend

    return GeminiImageBackend(spec.image_api)


def openai_images(spec: RenderSpec) -> ImageBackend:
    from mnemoforge.backends.image.openai_images import OpenAIImageBackend

    return OpenAIImageBackend(spec.image_api)


# the built-in video backends (``mnemoforge.video_backends``): a clip generator, or ``None`` for the
# ffmpeg camera moves over each still (the render needs no generator for those)
def ffmpeg_video(spec: RenderSpec) -> None:
    return None


def veo_video(spec: RenderSpec) -> VeoBackend:
    from mnemoforge.backends.video.veo import VeoBackend

    return VeoBackend(spec.video_api)


# the built-in speech engines (``mnemoforge.speech_backends``), a person's ``voice.engine``
def espeak_speech(spec: RenderSpec | None) -> SpeechBackend:
    from mnemoforge.backends.speech.espeak import EspeakBackend

    return EspeakBackend()


def piper_speech(spec: RenderSpec | None) -> SpeechBackend:
    from mnemoforge.backends.speech.piper import PiperBackend

    return PiperBackend()


def coqui_speech(spec: RenderSpec | None) -> SpeechBackend:
    from mnemoforge.backends.speech.coqui import CoquiBackend

    return CoquiBackend()


def media_models(spec: RenderSpec) -> dict[str, tuple[str, str]]:
    """``medium -> (backend, model)`` as ``render:`` selects them (the model ids the ledger and the
    price table use; offline backends are their own model)."""
    from mnemoforge.backends.image.gemini_image import DEFAULT_IMAGE_MODEL
    from mnemoforge.backends.image.openai_images import DEFAULT_MODEL as OPENAI_IMAGE_MODEL
    from mnemoforge.backends.speech.gemini_tts import DEFAULT_MODEL as TTS_MODEL
    from mnemoforge.backends.video.veo import DEFAULT_MODEL as VEO_MODEL

    api_image = {"gemini": DEFAULT_IMAGE_MODEL, "openai": OPENAI_IMAGE_MODEL}
    if spec.image in api_image:
        image = (spec.image, (spec.image_api.model if spec.image_api else None) or api_image[spec.image])
    else:
        image = (spec.image, spec.image_model or spec.image)
    video = ("veo", (spec.video_api.model if spec.video_api else None) or VEO_MODEL)
    speech = ("gemini", (spec.speech_api.model if spec.speech_api else None) or TTS_MODEL)
    return {
        "image": image,
        "video": video if spec.video == "veo" else (spec.video, spec.video),  # ffmpeg, or a plugin's
        "speech": speech if spec.speech == "gemini" else ("espeak", "espeak"),
    }


def video_backend(spec: RenderSpec) -> VeoBackend | None:
    """The clip generator ``render.video`` names, from the ``mnemoforge.video_backends`` group;
    ``None`` for the ffmpeg camera moves."""
    factory = registry.load(registry.VIDEO_BACKENDS_GROUP, spec.video)
    return factory(spec)  # type: ignore[no-any-return]


def person_voices(spec: RenderSpec, people: list[tuple[str, VoiceSpec]]) -> dict[str, VoiceSpec]:
    """The voice each person speaks with: their own, or a fixed Gemini prebuilt one each."""
    if spec.speech != "gemini":
        return {pid: v for pid, v in people}
    from mnemoforge.backends.speech.gemini_tts import assign_voices, gemini_voice

    fixed = dict(spec.speech_api.voices if spec.speech_api else {})
    names = assign_voices([pid for pid, _ in people], fixed)
    return {pid: gemini_voice(names[pid]) for pid, _ in people}


class SpeechBackends:
    """One backend instance per engine, created on first use."""

    def __init__(self, spec: RenderSpec | None = None) -> None:
        self._by_engine: dict[str, SpeechBackend] = {}
        self._spec = spec

    def __getitem__(self, engine: str) -> SpeechBackend:
        if engine not in self._by_engine:
            if engine == "gemini":
                from mnemoforge.backends.speech.gemini_tts import GeminiTTSBackend

                self._by_engine[engine] = GeminiTTSBackend(self._spec.speech_api if self._spec else None)
            else:  # a registered engine (``mnemoforge.speech_backends``)
                self._by_engine[engine] = registry.load(registry.SPEECH_BACKENDS_GROUP, engine)(self._spec)
        return self._by_engine[engine]
