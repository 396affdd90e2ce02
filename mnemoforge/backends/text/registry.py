"""Text backends by name, from a config dict such as ``{"provider": "openai", "model": "gpt-4o-mini"}``.

A provider is any name registered in the ``mnemoforge.text_backends`` entry-point group (built-ins
``openai`` and ``gemini``): the entry point names a ``TextBackend`` class, built with the block's
other keys as its constructor arguments."""

from __future__ import annotations

import inspect
import os
from typing import Any

from mnemoforge import registry
from mnemoforge.backends.text.base import NetworkChatBackend
from mnemoforge.backends.text.protocol import TextBackend
from mnemoforge.backends.text.retry import RetryPolicy

PROVIDERS = tuple(registry.BUILTIN[registry.TEXT_BACKENDS_GROUP])  # the built-ins; see ``providers()``
_RETRY_FIELDS = set(inspect.signature(RetryPolicy).parameters)


def providers() -> list[str]:
    """Every registered text provider: the built-ins and any installed package's."""
    return registry.names(registry.TEXT_BACKENDS_GROUP)


def make_text_backend(spec: dict[str, Any]) -> TextBackend:
    """Build the backend ``spec["provider"]`` names; the other keys are its constructor arguments.

    ``api_key_env`` names an environment variable holding the key, so config files never need to
    contain one. ``retry`` may be a dict of ``RetryPolicy`` fields. Unknown keys raise ``ValueError``.
    """
    spec = dict(spec)
    provider = spec.pop("provider", None)
    known = providers()
    if provider not in known:
        raise ValueError(f"unknown text provider {provider!r}; expected one of {', '.join(known)}")
    cls = registry.load(registry.TEXT_BACKENDS_GROUP, provider)
    if isinstance(spec.get("retry"), dict):
        bad = set(spec["retry"]) - _RETRY_FIELDS
        if bad:
            raise ValueError(f"unknown retry settings: {', '.join(sorted(bad))}")
        spec["retry"] = RetryPolicy(**spec["retry"])
    params = inspect.signature(cls).parameters
    if "api_key_env" not in params and spec.get("api_key_env"):  # resolved here for a class that
        name = spec.pop("api_key_env")  # takes only the key itself (gemini)
        spec.setdefault("api_key", os.environ.get(name))
    allowed = {n for n, p in params.items() if p.kind is not p.VAR_KEYWORD}
    allowed |= set(inspect.signature(NetworkChatBackend.__init__).parameters) - {"self"}
    bad = set(spec) - allowed
    if bad:
        raise ValueError(f"unknown settings for {provider}: {', '.join(sorted(bad))}")
    if "model" not in spec:
        raise ValueError(f"{provider} backend needs a model")
    return cls(**spec)  # type: ignore[no-any-return]
