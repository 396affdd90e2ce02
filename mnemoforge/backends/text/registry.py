"""Text backends by name, from a config dict such as ``{"provider": "openai", "model": "gpt-4o-mini"}``."""

from __future__ import annotations

import inspect
import os
from typing import Any

from mnemoforge.backends.text.base import NetworkChatBackend
from mnemoforge.backends.text.protocol import TextBackend
from mnemoforge.backends.text.retry import RetryPolicy

PROVIDERS = ("openai", "gemini")
_RETRY_FIELDS = set(inspect.signature(RetryPolicy).parameters)


def make_text_backend(spec: dict[str, Any]) -> TextBackend:
    """Build the backend ``spec["provider"]`` names; the other keys are its constructor arguments.

    ``api_key_env`` names an environment variable holding the key, so config files never need to
    contain one. ``retry`` may be a dict of ``RetryPolicy`` fields. Unknown keys raise ``ValueError``.
    """
    spec = dict(spec)
    provider = spec.pop("provider", None)
    if provider not in PROVIDERS:
        raise ValueError(f"unknown text provider {provider!r}; expected one of {', '.join(PROVIDERS)}")
    if isinstance(spec.get("retry"), dict):
        bad = set(spec["retry"]) - _RETRY_FIELDS
        if bad:
            raise ValueError(f"unknown retry settings: {', '.join(sorted(bad))}")
        spec["retry"] = RetryPolicy(**spec["retry"])
    if provider == "gemini" and spec.get("api_key_env"):
        name = spec.pop("api_key_env")
        spec.setdefault("api_key", os.environ.get(name))
    if provider == "openai":
        from mnemoforge.backends.text.openai_compat import OpenAICompatBackend as cls
    else:
        from mnemoforge.backends.text.gemini import GeminiBackend as cls  # type: ignore[assignment]
    params = inspect.signature(cls).parameters
    allowed = {n for n, p in params.items() if p.kind is not p.VAR_KEYWORD}
    allowed |= set(inspect.signature(NetworkChatBackend.__init__).parameters) - {"self"}
    bad = set(spec) - allowed
    if bad:
        raise ValueError(f"unknown settings for {provider}: {', '.join(sorted(bad))}")
    if "model" not in spec:
        raise ValueError(f"{provider} backend needs a model")
    return cls(**spec)
