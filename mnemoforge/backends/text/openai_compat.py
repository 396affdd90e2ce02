"""OpenAI chat completions, and every server that speaks them (vLLM, llama.cpp server, Ollama, ...).

Uses the ``openai`` SDK's ``OpenAI(base_url=...)`` client with ``max_retries=0`` (our retry
policy applies instead) and ``with_raw_response``, so the reply body is parsed here: a body the
SDK would reject still comes back as ``ok=False`` with the raw text. Images are sent as
``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}`` content parts.

The key comes from ``api_key`` or the ``api_key_env`` variable (``OPENAI_API_KEY``); it is sent
only as ``Authorization: Bearer``. Local servers usually need no key: then the placeholder
``"EMPTY"`` is sent (the vLLM convention). Note that a key in ``OPENAI_API_KEY`` is sent to any
``base_url``; pass ``api_key_env=None`` when pointing at a server you do not trust with it.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from mnemoforge.backends.text.base import NetworkChatBackend, error_message, int_usage, status_outcome
from mnemoforge.backends.text.protocol import ChatRequest, ImagePart, parse_body
from mnemoforge.backends.text.retry import Outcome, connection_outcome
from mnemoforge.backends.tls import openai_http_client

OPENAI_BASE_URL = "https://api.openai.com/v1"
NO_KEY = "EMPTY"


def _sdk() -> Any:
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("OpenAICompatBackend needs the `openai` package: pip install openai") from exc
    return openai


def openai_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """``request.messages`` in the chat-completions shape (plain strings stay strings)."""
    out: list[dict[str, Any]] = []
    for m in request.messages:
        if isinstance(m.content, str):
            out.append({"role": m.role, "content": m.content})
            continue
        parts: list[dict[str, Any]] = []
        for p in m.parts:
            if isinstance(p, ImagePart):
                parts.append({"type": "image_url", "image_url": {"url": p.data_url()}})
            else:
                parts.append({"type": "text", "text": p.text})
        out.append({"role": m.role, "content": parts})
    return out


def parse_completion(body: str, status: int = 200) -> Outcome:
    """A 2xx chat-completion body as an ``Outcome``; malformed or empty replies are ``ok=False``."""
    data, err = parse_body(body)
    if err or not isinstance(data, dict):
        return Outcome(False, raw=data, status=status, error=err)
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        extra = f": {error_message(data)}" if "error" in data else ""
        return Outcome(False, raw=data, status=status, error=f"reply has no choices{extra}")
    first = choices[0] if isinstance(choices[0], dict) else {}
    msg = first.get("message") if isinstance(first.get("message"), dict) else {}
    content = msg.get("content")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        finish = first.get("finish_reason")
        why = f"refusal: {msg['refusal']}" if msg.get("refusal") else f"finish_reason={finish}"
        return Outcome(False, raw=data, status=status, error=f"reply has empty content ({why})")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    keep = {k: usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
    return Outcome(True, text=content, raw=data, status=status, usage=int_usage(keep))


class OpenAICompatBackend(NetworkChatBackend):
    """Chat through ``POST {base_url}/chat/completions``.

    ``max_tokens_field`` names the length limit in the body: ``"max_tokens"`` (vLLM, llama.cpp,
    Ollama, older OpenAI models) or ``"max_completion_tokens"`` (newer OpenAI models).
    Other keyword arguments are those of ``NetworkChatBackend`` (retry policy, limits, seed, sleep).
    """

    provider = "openai"

    def __init__(
        self,
        model: str,
        base_url: str = OPENAI_BASE_URL,
        api_key: str | None = None,
        *,
        api_key_env: str | None = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 3,
        max_concurrency: int = 4,
        max_tokens_field: str = "max_tokens",
        extra_body: dict[str, Any] | None = None,
        **kw: Any,
    ) -> None:
        key = api_key or (os.environ.get(api_key_env) if api_key_env else None)
        if not key and urlsplit(base_url).hostname == urlsplit(OPENAI_BASE_URL).hostname:
            raise ValueError(f"no OpenAI API key: pass api_key or set {api_key_env or 'OPENAI_API_KEY'}")
        super().__init__(
            model,
            base_url,
            key,
            timeout=timeout,
            max_retries=max_retries,
            max_concurrency=max_concurrency,
            **kw,
        )
        if max_tokens_field not in ("max_tokens", "max_completion_tokens"):
            raise ValueError("max_tokens_field must be 'max_tokens' or 'max_completion_tokens'")
        self.max_tokens_field = max_tokens_field
        self.extra_body = dict(extra_body or {})
        openai = _sdk()
        self._errors = openai
        self._client = openai.OpenAI(
            api_key=key or NO_KEY,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=0,
            http_client=openai_http_client(),
        )

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def _payload(self, request: ChatRequest, model: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": model,
            "messages": openai_messages(request),
            "temperature": request.temperature,
            self.max_tokens_field: request.max_tokens,
        }
        if request.seed is not None:
            body["seed"] = request.seed
        if self.extra_body:
            body["extra_body"] = self.extra_body
        return body

    def _send(self, payload: dict[str, Any], model: str) -> Outcome:
        errors = self._errors
        try:
            resp = self._client.chat.completions.with_raw_response.create(**payload)
        except errors.APITimeoutError:
            return Outcome(False, error=f"timed out after {self.timeout:g}s", retryable=True)
        except errors.APIConnectionError as exc:
            return connection_outcome(exc)
        except errors.APIStatusError as exc:
            return status_outcome(exc.status_code, exc.response.text, exc.response.headers)
        return parse_completion(resp.text, resp.status_code)
