"""Network text (chat) backends, opt-in: never needed for an offline build.

- ``OpenAICompatBackend``: OpenAI chat completions and compatible servers (vLLM, llama.cpp, Ollama).
- ``GeminiBackend``: Gemini ``generateContent`` through ``google-genai``.
- ``make_text_backend({"provider": ..., ...})`` builds either from config.

The SDKs are imported only when a backend is constructed (``pip install openai google-genai``).
"""

from __future__ import annotations

from mnemoforge.backends.text.protocol import (
    ChatMessage,
    ChatRequest,
    ChatResult,
    ImagePart,
    TextBackend,
    TextPart,
    request,
    user,
)
from mnemoforge.backends.text.registry import make_text_backend
from mnemoforge.backends.text.retry import RateLimiter, Retrier, RetryPolicy

__all__ = [
    "ChatMessage",
    "ChatRequest",
    "ChatResult",
    "GeminiBackend",
    "ImagePart",
    "OpenAICompatBackend",
    "RateLimiter",
    "Retrier",
    "RetryPolicy",
    "TextBackend",
    "TextPart",
    "make_text_backend",
    "request",
    "user",
]


def __getattr__(name: str) -> object:
    if name == "OpenAICompatBackend":
        from mnemoforge.backends.text.openai_compat import OpenAICompatBackend

        return OpenAICompatBackend
    if name == "GeminiBackend":
        from mnemoforge.backends.text.gemini import GeminiBackend

        return GeminiBackend
    raise AttributeError(name)
