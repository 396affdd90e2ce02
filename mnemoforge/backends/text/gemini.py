"""Gemini through the ``google-genai`` SDK: ``models.generate_content`` with inline image parts.

The client is ``genai.Client(api_key=..., vertexai=False, http_options=HttpOptions(base_url=...,
api_version="v1beta", timeout=ms))``; the SDK's own retries stay off (its default), ours apply.
It posts ``{base_url}/v1beta/models/{model}:generateContent`` with the key in the
``x-goog-api-key`` header, so pointing ``base_url`` at a loopback server works without patching.
``should_return_http_response=True`` hands us the raw body, which is parsed here so that a
malformed reply becomes ``ok=False`` with the raw text instead of an SDK exception.
Automatic function calling is disabled (no tools are ever sent).
"""

from __future__ import annotations

import json
import os
from typing import Any

from mnemoforge.backends.text.base import NetworkChatBackend, error_message, status_outcome
from mnemoforge.backends.text.protocol import ChatRequest, ImagePart, parse_body
from mnemoforge.backends.text.retry import Outcome
from mnemoforge.backends.tls import genai_client_args

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com"
KEY_ENVS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")


def _sdk() -> tuple[Any, Any, Any]:
    try:
        from google import genai
        from google.genai import errors, types
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("GeminiBackend needs the `google-genai` package: pip install google-genai") from exc
    return genai, types, errors


def parse_generate_content(body: str, status: int = 200) -> Outcome:
    """A 2xx generateContent body as an ``Outcome``; malformed, blocked or empty replies are ``ok=False``."""
    data, err = parse_body(body)
    if err or not isinstance(data, dict):
        return Outcome(False, raw=data, status=status, error=err)
    cands = data.get("candidates")
    if not isinstance(cands, list) or not cands:
        fb = data.get("promptFeedback")
        why = f" (blocked: {fb.get('blockReason')})" if isinstance(fb, dict) and fb.get("blockReason") else ""
        if "error" in data:
            why = f": {error_message(data)}"
        return Outcome(False, raw=data, status=status, error=f"reply has no candidates{why}")
    first = cands[0] if isinstance(cands[0], dict) else {}
    content = first.get("content") if isinstance(first.get("content"), dict) else {}
    parts = content.get("parts") if isinstance(content.get("parts"), list) else []
    texts = [p for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    text = "".join(p["text"] for p in texts if not p.get("thought"))
    if not text.strip():
        why = f"finishReason={first.get('finishReason')}"
        return Outcome(False, raw=data, status=status, error=f"reply has empty content ({why})")
    meta = data.get("usageMetadata") if isinstance(data.get("usageMetadata"), dict) else {}
    names = {
        "promptTokenCount": "prompt_tokens",
        "candidatesTokenCount": "completion_tokens",
        "totalTokenCount": "total_tokens",
    }
    usage = {new: int(meta[old]) for old, new in names.items() if isinstance(meta.get(old), int)}
    return Outcome(True, text=text, raw=data, status=status, usage=usage)


class GeminiBackend(NetworkChatBackend):
    """Chat with a Gemini model; ``system`` turns become ``system_instruction``, ``assistant`` is ``model``.

    The key is ``api_key`` or the first of ``GEMINI_API_KEY`` / ``GOOGLE_API_KEY`` that is set.
    Other keyword arguments are those of ``NetworkChatBackend`` (retry policy, limits, seed, sleep).
    """

    provider = "gemini"

    def __init__(
        self,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        api_version: str = "v1beta",
        timeout: float = 60.0,
        max_retries: int = 3,
        max_concurrency: int = 4,
        **kw: Any,
    ) -> None:
        key = api_key or next((os.environ[e] for e in KEY_ENVS if os.environ.get(e)), None)
        if not key:
            raise ValueError("no Gemini API key: pass api_key or set GEMINI_API_KEY / GOOGLE_API_KEY")
        super().__init__(
            model,
            base_url or GEMINI_BASE_URL,
            key,
            timeout=timeout,
            max_retries=max_retries,
            max_concurrency=max_concurrency,
            **kw,
        )
        self.api_version = api_version
        genai, self._types, self._errors = _sdk()
        self._client = genai.Client(
            api_key=key,
            vertexai=False,
            http_options=self._types.HttpOptions(
                base_url=self.base_url,
                api_version=api_version,
                timeout=max(1, round(self.timeout * 1000)),
                **genai_client_args(),
            ),
        )

    @property
    def id(self) -> str:
        """``gemini:model@endpoint`` — no key, no query string."""
        return f"{super().id}/{self.api_version}"

    def close(self) -> None:
        """Close the SDK's HTTP client where the SDK offers that."""
        close = getattr(self._client, "close", None)
        if callable(close):
            close()

    def _payload(self, request: ChatRequest, model: str) -> dict[str, Any]:
        types = self._types
        system: list[str] = []
        contents: list[Any] = []
        for m in request.messages:
            if m.role == "system":
                system.append(m.text())
                continue
            parts: list[Any] = []
            for p in m.parts:
                if isinstance(p, ImagePart):
                    data, mime = p.read()
                    parts.append(types.Part.from_bytes(data=data, mime_type=mime))
                else:
                    parts.append(types.Part(text=p.text))
            contents.append(types.Content(role="model" if m.role == "assistant" else "user", parts=parts))
        if not contents:
            raise ValueError("a Gemini request needs at least one user or assistant message")
        config = types.GenerateContentConfig(
            temperature=request.temperature,
            max_output_tokens=request.max_tokens,
            seed=request.seed,
            system_instruction="\n\n".join(system) if system else None,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            should_return_http_response=True,
        )
        return {"contents": contents, "config": config}

    def _send(self, payload: dict[str, Any], model: str) -> Outcome:
        try:
            resp = self._client.models.generate_content(model=model, **payload)
        except self._errors.APIError as exc:
            response = getattr(exc, "response", None)
            text = getattr(response, "text", None)
            if not isinstance(text, str):
                text = json.dumps(getattr(exc, "details", None) or {"error": {"message": str(exc)}})
            return status_outcome(int(exc.code or 0), text, getattr(response, "headers", None))
        http = getattr(resp, "sdk_http_response", None)
        body = getattr(http, "body", None)
        if body is None:
            return Outcome(False, raw="", status=200, error="reply has no body")
        return parse_generate_content(body, 200)
