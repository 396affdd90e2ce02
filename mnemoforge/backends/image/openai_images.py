"""OpenAI images (``openai`` SDK): ``images.generate`` for face anchors and empty scenes,
``images.edit`` with the shot's face anchors as input images for scenes with people.

Wire: ``POST {base_url}/images/generations`` (JSON) and ``POST {base_url}/images/edits``
(multipart, one ``image[]`` part per anchor), ``Authorization: Bearer <key>``; the reply's
``data[0].b64_json`` is the image. The SDK's own retries are off (``max_retries=0``); ours apply.

The Images API takes no seed: the request's seed (the shot's, or its re-render take's) is part of
its cache key and idempotency key instead (sent as ``Idempotency-Key``), so a re-render asks afresh
rather than getting the cached still back.
"""

from __future__ import annotations

import base64
import io
import time
from typing import Any

from PIL import Image

from mnemoforge.backends.image.procedural import png_bytes
from mnemoforge.backends.image.protocol import SceneRequest
from mnemoforge.backends.image.scene_prompt import fit_frame, portrait_prompt, scene_prompt
from mnemoforge.backends.media_api import IDEMPOTENCY_HEADER, Attempt, MediaApi, api_key
from mnemoforge.backends.text.retry import Clock, Outcome, Sleep
from mnemoforge.backends.tls import openai_http_client
from mnemoforge.hashing import content_hash
from mnemoforge.schemas.render_api import ImageApiSpec
from mnemoforge.schemas.theme import AppearanceSpec

OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-image-1"


def api_size(width: int, height: int) -> str:
    """The gpt-image size closest to the frame's shape."""
    r = width / height
    return "1536x1024" if r > 1.2 else ("1024x1536" if r < 0.83 else "1024x1024")


def _usage(resp: Any) -> dict[str, int]:
    u = getattr(resp, "usage", None)
    return {
        "tokens_in": int(getattr(u, "input_tokens", 0) or 0),
        "tokens_out": int(getattr(u, "output_tokens", 0) or 0),
    }


class OpenAIImageBackend(MediaApi):
    """Face anchors and shot stills from an OpenAI image model."""

    provider = "openai-images"

    def __init__(
        self,
        spec: ImageApiSpec | None = None,
        *,
        seed: int = 0,
        sleep: Sleep = time.sleep,
        clock: Clock = time.monotonic,
    ) -> None:
        import openai

        spec = spec or ImageApiSpec()
        key = api_key(spec, ("OPENAI_API_KEY",), "OpenAI")
        super().__init__(spec, DEFAULT_MODEL, OPENAI_BASE_URL, key, seed=seed, sleep=sleep, clock=clock)
        self.portrait_size = spec.portrait_size
        self._client = openai.OpenAI(
            api_key=key,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=0,
            http_client=openai_http_client(),
        )
        self._anchors: dict[str, bytes] = {}

    def _image(self, kind: str, prompt: str, refs: list[bytes], size: str, seed: int) -> bytes:
        extra: dict[str, Any] = {"quality": self.spec.quality} if getattr(self.spec, "quality", None) else {}
        refs_hash = [content_hash(r.hex()) for r in refs]
        key = {"kind": kind, "prompt": prompt, "refs": refs_hash, "size": size, "seed": seed, **extra}
        headers = {IDEMPOTENCY_HEADER: self.request_key("image", key)}

        def attempt() -> Attempt:
            if refs:
                files = [(f"anchor{i}.png", r, "image/png") for i, r in enumerate(refs)]
                resp = self._client.images.edit(
                    model=self.model,
                    prompt=prompt,
                    image=files,
                    size=size,
                    n=1,
                    extra_headers=headers,
                    **extra,
                )  # type: ignore[arg-type]
            else:
                resp = self._client.images.generate(
                    model=self.model, prompt=prompt, size=size, n=1, extra_headers=headers, **extra
                )
            data = getattr(resp, "data", None) or []
            b64 = getattr(data[0], "b64_json", None) if data else None
            if not b64:
                return Attempt(
                    Outcome(False, status=200, error="reply has no data[0].b64_json"), usage=_usage(resp)
                )
            return Attempt(Outcome(True, status=200), base64.b64decode(b64), _usage(resp) | {"images": 1})

        return self.call("image", key, attempt)

    def anchor_png(self, a: AppearanceSpec) -> bytes:
        k = a.model_dump_json()
        if k not in self._anchors:
            raw = self._image("portrait", portrait_prompt(a), [], "1024x1024", int(content_hash(k)[:8], 16))
            self._anchors[k] = png_bytes(fit_frame(raw, self.portrait_size, self.portrait_size))
        return self._anchors[k]

    def portrait(self, appearance: AppearanceSpec, size: int = 256) -> Image.Image:
        img = Image.open(io.BytesIO(self.anchor_png(appearance))).convert("RGB")
        return img if img.size == (size, size) else img.resize((size, size), Image.Resampling.LANCZOS)

    def scene(self, req: SceneRequest) -> Image.Image:
        refs = [self.anchor_png(p.appearance) for p in req.people]
        size = self.spec.size if getattr(self.spec, "size", None) else api_size(req.width, req.height)
        op = "scene_edit" if refs else "scene"
        return fit_frame(self._image(op, scene_prompt(req), refs, str(size), req.seed), req.width, req.height)
