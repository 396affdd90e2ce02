"""Settings of the API media backends a theme's ``render:`` section may choose (all opt-in).

Keys never live in a theme: ``api_key_env`` names the environment variable that holds one.
Retries, the concurrency cap and the request-rate limit are those of the text backends
(``backends/text/retry.py``).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from mnemoforge.schemas.limits import MAX_CAST, MAX_NAME, MAX_PATH, MAX_SETTINGS, Name
from mnemoforge.schemas.strict import Strict

RENDER_API_FIELDS = ("image_api", "video", "video_api", "speech", "speech_api")
"""RenderSpec keys added for the API backends: left out of a dump while at their defaults, so
an offline theme's resolved config is byte-identical to what it was before they existed."""


_Strict = Strict  # unknown keys, inf/NaN and unbounded text are errors (schemas/strict.py)


class ApiSpec(_Strict):
    """Where and how to call one model API."""

    model: str | None = Field(
        default=None, max_length=MAX_NAME, description="model id (default: the backend's)"
    )
    base_url: str | None = Field(
        default=None, max_length=MAX_PATH, description="API endpoint (default: the provider's)"
    )
    api_key_env: str | None = Field(
        default=None, max_length=MAX_NAME, description="environment variable holding the key"
    )
    timeout_s: float = Field(default=120.0, gt=0, le=3600, description="seconds before a request times out")
    max_retries: int = Field(
        default=3,
        ge=0,
        le=20,
        description="retries of timeouts, connection errors, 408/429/5xx (seeded backoff)",
    )
    max_concurrency: int = Field(default=2, ge=1, le=64, description="requests in flight at once")
    requests_per_second: float | None = Field(
        default=None, gt=0, le=1000, description="request-rate limit (none: no limit)"
    )
    retry: dict[str, Any] = Field(
        default_factory=dict, max_length=MAX_SETTINGS, description="RetryPolicy fields (delays, budget)"
    )


class ImageApiSpec(ApiSpec):
    """Gemini or OpenAI image generation. ``size``/``quality`` are OpenAI's (the still is resized
    to the album's frame size either way)."""

    size: str | None = Field(
        default=None, pattern=r"^\d+x\d+$", description="openai: image size asked for, WxH"
    )
    quality: str | None = Field(default=None, description="openai: image quality asked for")
    portrait_size: int = Field(
        default=512, ge=64, le=2048, description="side of a generated face anchor, pixels"
    )


class VideoApiSpec(ApiSpec):
    """Veo image-to-video (Vertex AI ``predictLongRunning``, polled until done)."""

    durations: list[int] = Field(
        default_factory=lambda: [4, 6, 8],
        min_length=1,
        max_length=MAX_SETTINGS,
        description="clip lengths the model offers; the shortest covering the shot is asked for",
    )
    poll_interval_s: float = Field(
        default=10.0, ge=0, le=3600, description="seconds between polls of a running generation"
    )
    max_wait_s: float = Field(
        default=900.0, gt=0, le=86400, description="give up on a generation after this many seconds"
    )
    project: str | None = Field(default=None, description="Vertex project (omit with an API key)")
    location: str | None = Field(default=None, description="Vertex region, e.g. us-central1")
    generate_audio: bool | None = Field(
        default=None, description="ask the model for audio (default: the model's)"
    )
    resolution: str | None = Field(default=None, description="video resolution asked for, e.g. 720p")

    @field_validator("durations")
    @classmethod
    def _positive(cls, v: list[int]) -> list[int]:
        if any(not 0 < d <= 60 for d in v):
            raise ValueError("durations must be positive seconds, at most 60")
        return sorted(set(v))


class SpeechApiSpec(ApiSpec):
    """Gemini TTS: one fixed prebuilt voice per person (``voices`` maps a person id to a voice
    name; people not listed get distinct voices from the prebuilt list, in person-id order)."""

    voices: dict[Name, Name] = Field(
        default_factory=dict,
        max_length=MAX_CAST,
        description="person id -> prebuilt voice name; others get distinct voices",
    )
