"""How much history a model can take: its context size, declared or probed, in characters.

A model SPEC declares it as ``context_tokens`` (the server's context window) or directly as
``max_context_chars``. Without either, the server is asked once (a GET with a short timeout):

* ``{root}/props`` (llama.cpp's ``llama-server``): ``default_generation_settings.n_ctx`` (or a
  top-level ``n_ctx``), the context the server was started with;
* ``{base_url}/models`` (OpenAI-compatible): the served model's ``max_model_len`` (vLLM) or
  ``context_length``/``context_window``; llama.cpp's ``meta.n_ctx_train`` only as a last resort
  (what the weights were trained for, which ``--ctx-size`` may cut).

``{root}`` is ``base_url`` without a trailing ``/v1``. Only OpenAI-compatible backends are asked
(Gemini's API describes no such limit). A server that answers neither leaves the
size unknown: the evaluation then assumes :data:`DEFAULT_CHARS` and says so.

Tokens become characters at :data:`CHARS_PER_TOKEN` (a conservative rate for English, so the
prompt fits a tokenizer that splits finer than usual), after :data:`RESERVE_TOKENS` for the system
prompt, the question, the options and the reply.
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from typing import Any

DEFAULT_CHARS = 60000
"""What a model of unknown context is given (the harness exports' budget too)."""
CHARS_PER_TOKEN = 3.0
RESERVE_TOKENS = 512
PROBE_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class ContextSize:
    """A model's history budget: ``chars`` for the memory lines, from ``tokens`` when known."""

    chars: int
    tokens: int | None
    source: str
    """``declared context_tokens``, ``declared max_context_chars``, ``probed <url>``, ``built-in``
    or ``unknown``."""

    @property
    def known(self) -> bool:
        return self.source != "unknown"

    def record(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "chars": self.chars, "source": self.source}


def chars_for(tokens: int, reply_tokens: int = 64) -> int:
    """The memory budget in characters of a ``tokens``-long context window."""
    return max(0, int((tokens - RESERVE_TOKENS - reply_tokens) * CHARS_PER_TOKEN))


def _get_json(url: str, api_key: str | None) -> Any:
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    if api_key:
        req.add_header("Authorization", f"Bearer {api_key}")
    with urllib.request.urlopen(req, timeout=PROBE_TIMEOUT_S) as resp:  # noqa: S310 - the model's own server
        return json.loads(resp.read().decode("utf-8"))


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def from_props(body: Any) -> int | None:
    """llama.cpp ``/props``: the running context size."""
    if not isinstance(body, dict):
        return None
    settings = body.get("default_generation_settings")
    if isinstance(settings, dict) and _positive(settings.get("n_ctx")):
        return int(settings["n_ctx"])
    return _positive(body.get("n_ctx"))


def from_models(body: Any, model: str) -> int | None:
    """OpenAI-compatible ``/models``: the served model's context length (the named one, else the
    only one)."""
    rows = body.get("data") if isinstance(body, dict) else None
    if not isinstance(rows, list):
        return None
    rows = [r for r in rows if isinstance(r, dict)]
    named = [r for r in rows if r.get("id") == model] or (rows if len(rows) == 1 else [])
    for r in named:
        for key in ("max_model_len", "context_length", "context_window"):
            if _positive(r.get(key)):
                return int(r[key])
        meta = r.get("meta")
        if isinstance(meta, dict) and _positive(meta.get("n_ctx_train")):
            return int(meta["n_ctx_train"])
    return None


def probe_context_tokens(base_url: str, model: str, api_key: str | None = None) -> tuple[int, str] | None:
    """``(tokens, url answered)`` from the server's own description, or None."""
    base = base_url.rstrip("/")
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    for url, read in ((f"{root}/props", from_props), (f"{base}/models", lambda b: from_models(b, model))):
        try:
            tokens = read(_get_json(url, api_key))
        except (OSError, ValueError):
            continue
        if tokens:
            return tokens, url
    return None


def resolve_context(spec: dict[str, Any], backend: Any, reply_tokens: int) -> ContextSize:
    """The budget a model SPEC declares, or its server reports, or :data:`DEFAULT_CHARS` (unknown)."""
    if spec.get("max_context_chars") is not None:
        return ContextSize(int(spec["max_context_chars"]), None, "declared max_context_chars")
    if spec.get("context_tokens") is not None:
        tokens = int(spec["context_tokens"])
        return ContextSize(chars_for(tokens, reply_tokens), tokens, "declared context_tokens")
    base_url = getattr(backend, "base_url", None)
    if getattr(backend, "provider", None) == "openai" and isinstance(base_url, str):
        key = (getattr(backend, "_secrets", None) or [None])[0]  # sent as the chat calls send it
        found = probe_context_tokens(base_url, str(getattr(backend, "model", "")), key)
        if found:
            tokens, url = found
            return ContextSize(chars_for(tokens, reply_tokens), tokens, f"probed {url}")
    return ContextSize(DEFAULT_CHARS, None, "unknown")
