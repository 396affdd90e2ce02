"""Gemini image generation (``google-genai``: ``models.generate_content`` with IMAGE output).

``portrait`` draws a person's canonical face anchor from their appearance; ``scene`` sends the
shot prompt plus the face anchor of every person in the shot as reference images, in
left-to-right order, so identity is carried across shots. The wire request is
``POST {base_url}/v1beta/models/{model}:generateContent`` (key in ``x-goog-api-key``) with
``generationConfig.responseModalities = ["IMAGE"]`` and the seed; the image comes back as an
``inlineData`` part (base64 PNG/JPEG), which is cover-cropped to the album frame.
"""

from __future__ import annotations

import base64
import time
from typing import Any

from PIL import Image

from mnemoforge.backends.image.procedural import png_bytes
from mnemoforge.backends.image.protocol import SceneRequest
from mnemoforge.backends.image.scene_prompt import aspect_ratio, fit_frame, portrait_prompt, scene_prompt
from mnemoforge.backends.media_api import IDEMPOTENCY_HEADER, Attempt, MediaApi, api_key
from mnemoforge.backends.text.retry import Clock, Outcome, Sleep
from mnemoforge.backends.tls import genai_client_args
from mnemoforge.hashing import content_hash
from mnemoforge.schemas.render_api import ApiSpec, ImageApiSpec
from mnemoforge.schemas.theme import AppearanceSpec

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com"
KEY_ENVS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
DEFAULT_IMAGE_MODEL = "gemini-2.5-flash-image"


def genai_client(
    spec: ApiSpec,
    key: str,
    base_url: str,
    *,
    vertex: bool = False,
    api_version: str = "v1beta",
    project: str | None = None,
    location: str | None = None,
) -> tuple[Any, Any]:
    """A ``google.genai.Client`` on ``base_url`` (the SDK's own retries off) and its ``types`` module."""
    from google import genai
    from google.genai import types

    opts = types.HttpOptions(
        base_url=base_url, api_version=api_version, timeout=max(1, round(spec.timeout_s * 1000))
    )
    if vertex and project:  # Vertex with a project: credentials come from the environment (ADC)
        return genai.Client(vertexai=True, project=project, location=location, http_options=opts), types
    if not vertex:  # Vertex keeps the SDK's own context (it may carry a client certificate)
        opts = opts.model_copy(update=genai_client_args())
    return genai.Client(api_key=key, vertexai=vertex, http_options=opts), types


def inline_parts(resp: Any, prefix: str) -> list[tuple[bytes, str]]:
    """``(data, mime_type)`` of every inline part of the first candidate whose type starts with ``prefix``."""
    out = []
    for cand in (getattr(resp, "candidates", None) or [])[:1]:
        content = getattr(cand, "content", None)
        for part in getattr(content, "parts", None) or []:
            blob = getattr(part, "inline_data", None)
            if blob is not None and blob.data and (blob.mime_type or "").startswith(prefix):
                data = blob.data if isinstance(blob.data, bytes) else base64.b64decode(blob.data)
                out.append((data, blob.mime_type or ""))
    return out


def usage_of(resp: Any) -> dict[str, int]:
    meta = getattr(resp, "usage_metadata", None)
    return {
        "tokens_in": int(getattr(meta, "prompt_token_count", 0) or 0),
        "tokens_out": int(getattr(meta, "candidates_token_count", 0) or 0),
    }


def no_media_error(resp: Any, what: str) -> Outcome:
    """A reply without the asked-for media: blocked, or the model answered in text only."""
    fb = getattr(resp, "prompt_feedback", None)
    why = f"blocked: {fb.block_reason}" if fb is not None and getattr(fb, "block_reason", None) else ""
    if not why:
        cands = getattr(resp, "candidates", None) or []
        why = f"finishReason={getattr(cands[0], 'finish_reason', None)}" if cands else "no candidates"
    return Outcome(False, status=200, error=f"reply has no {what} ({why})")


class GeminiImageBackend(MediaApi):
    """Face anchors and shot stills from a Gemini image model."""

    provider = "gemini-image"

    def __init__(
        self,
        spec: ImageApiSpec | None = None,
        *,
        seed: int = 0,
        sleep: Sleep = time.sleep,
        clock: Clock = time.monotonic,
    ) -> None:
        spec = spec or ImageApiSpec()
        key = api_key(spec, KEY_ENVS, "Gemini")
        super().__init__(spec, DEFAULT_IMAGE_MODEL, GEMINI_BASE_URL, key, seed=seed, sleep=sleep, clock=clock)
        self.portrait_size = spec.portrait_size
        self._client, self._types = genai_client(spec, key, self.base_url)
        self._anchors: dict[str, bytes] = {}

    def _generate(self, kind: str, prompt: str, refs: list[bytes], seed: int, ratio: str) -> bytes:
        types = self._types
        parts = [types.Part(text=prompt)] + [
            types.Part.from_bytes(data=r, mime_type="image/png") for r in refs
        ]
        refs_hash = [content_hash(r.hex()) for r in refs]
        key = {"kind": kind, "prompt": prompt, "refs": refs_hash, "seed": seed, "ratio": ratio}
        config = types.GenerateContentConfig(
            response_modalities=["IMAGE"],
            seed=seed % 2**31,
            image_config=types.ImageConfig(aspect_ratio=ratio),
            http_options=types.HttpOptions(headers={IDEMPOTENCY_HEADER: self.request_key("image", key)}),
        )

        def attempt() -> Attempt:
            resp = self._client.models.generate_content(
                model=self.model, contents=[types.Content(role="user", parts=parts)], config=config
            )
            images = inline_parts(resp, "image/")
            if not images:
                return Attempt(no_media_error(resp, "image"), usage=usage_of(resp))
            return Attempt(Outcome(True, status=200), images[0][0], usage_of(resp) | {"images": 1})

        return self.call("image", key, attempt)

    def anchor_png(self, a: AppearanceSpec) -> bytes:
        """The person's face anchor as PNG bytes (generated once per appearance)."""
        k = a.model_dump_json()
        if k not in self._anchors:
            raw = self._generate("portrait", portrait_prompt(a), [], int(content_hash(k)[:8], 16), "1:1")
            img = fit_frame(raw, self.portrait_size, self.portrait_size)
            self._anchors[k] = png_bytes(img)
        return self._anchors[k]

    def portrait(self, appearance: AppearanceSpec, size: int = 256) -> Image.Image:
        """Canonical face anchor (``size`` x ``size``)."""
        from io import BytesIO

        img = Image.open(BytesIO(self.anchor_png(appearance))).convert("RGB")
        return img if img.size == (size, size) else img.resize((size, size), Image.Resampling.LANCZOS)

    def scene(self, req: SceneRequest) -> Image.Image:
        """One shot still, the face anchors of its people as reference images."""
        refs = [self.anchor_png(p.appearance) for p in req.people]
        raw = self._generate("scene", scene_prompt(req), refs, req.seed, aspect_ratio(req.width, req.height))
        return fit_frame(raw, req.width, req.height)
