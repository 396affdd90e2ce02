"""Shared plumbing of the network chat backends: retries, limits, redaction and result assembly.

A subclass builds the provider payload (``_payload``), sends one attempt (``_send``) and parses
a 200 body (``_parse``); this class turns all of it into a ``ChatResult`` without ever raising.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mnemoforge.backends.text.protocol import ChatRequest, ChatResult, Raw, parse_body, redact
from mnemoforge.backends.text.retry import (
    Clock,
    Outcome,
    Retrier,
    RetryPolicy,
    Sleep,
    log,
    parse_retry_after,
    retryable_status,
    short_text,
    transport_outcome,
)
from mnemoforge.store import ledger


def safe_url(url: str) -> str:
    """``url`` without user info, query or fragment (where a key could hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def error_message(raw: Raw) -> str:
    """The human message inside a provider error body (OpenAI and Google both use ``{"error": ...}``)."""
    if isinstance(raw, dict):
        err = raw.get("error")
        if isinstance(err, dict) and err.get("message"):
            return short_text(str(err["message"]))
        if isinstance(err, str):
            return short_text(err)
        return short_text(str(raw))
    return short_text(str(raw))


def status_outcome(status: int, body: str, headers: Any = None) -> Outcome:
    """An ``Outcome`` for a non-2xx reply: retryable for 408/429/5xx, with any ``Retry-After``."""
    raw, _ = parse_body(body)
    retry = retryable_status(status)
    return Outcome(
        False,
        raw=raw,
        status=status,
        error=f"HTTP {status}: {error_message(raw) if body else 'empty body'}",
        retryable=retry,
        retry_after=parse_retry_after(dict(headers.items()) if headers is not None else None)
        if retry
        else None,
    )


def int_usage(pairs: dict[str, Any]) -> dict[str, int]:
    """Keep the integer-valued entries (token counts) of a usage mapping."""
    return {k: int(v) for k, v in pairs.items() if isinstance(v, int) and not isinstance(v, bool)}


class NetworkChatBackend:
    """Base of the HTTP chat backends. Subclasses set ``provider`` and implement the three hooks."""

    provider = "abstract"

    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str | None,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        max_concurrency: int = 4,
        requests_per_second: float | None = None,
        retry: RetryPolicy | None = None,
        seed: int = 0,
        sleep: Sleep = time.sleep,
        clock: Clock = time.monotonic,
        redact_key: bool = True,
    ) -> None:
        if not model:
            raise ValueError("model is required")
        if timeout <= 0:
            raise ValueError("timeout must be > 0")
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.timeout = float(timeout)
        self._secrets = [api_key] if (api_key and redact_key) else []
        policy = retry or RetryPolicy(max_attempts=max_retries + 1, seed=seed)
        self.retrier = Retrier(
            policy,
            max_concurrency=max_concurrency,
            requests_per_second=requests_per_second,
            sleep=sleep,
            clock=clock,
        )

    @property
    def id(self) -> str:
        """``provider:model@endpoint`` — no key, no query string."""
        return f"{self.provider}:{self.model}@{safe_url(self.base_url)}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id!r})"

    # hooks -------------------------------------------------------------------------------------
    def _payload(self, request: ChatRequest, model: str) -> Any:
        """Provider request built once per call (reads image files)."""
        raise NotImplementedError

    def _send(self, payload: Any, model: str) -> Outcome:
        """One attempt; may raise transport exceptions (classified by ``chat``)."""
        raise NotImplementedError

    # -------------------------------------------------------------------------------------------
    def _redact(self, value: Any) -> Any:
        return redact(value, self._secrets)

    def chat(self, request: ChatRequest) -> ChatResult:
        """Send ``request`` with retries; always a ``ChatResult``, secrets redacted.

        Inside a build every attempt is a row of the run's call ledger, and a successful reply is
        cached in the run folder by (endpoint, model, request digest, parameters, seed): the same
        request in a resumed or repeated build is answered from the cache (a ``cached`` row).
        """
        model = request.model or self.model
        try:
            payload = self._payload(request, model)
            key = request.key()
        except (OSError, ValueError, TypeError) as exc:
            msg = self._redact(f"could not build the request: {type(exc).__name__}: {exc}")
            return ChatResult(text="", raw="", ok=False, error=msg, attempts=0, model=model)
        if ledger.run_root() is None:
            return self._chat(payload, key, model)
        parts = {
            "backend": self.provider,
            "endpoint": safe_url(self.base_url),
            "model": model,
            "operation": "chat",
            "request": key,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "seed": request.seed,
        }
        stored = ledger.cached_call(
            parts, lambda: _result_dict(self._chat(payload, key, model)), keep=lambda d: d["ok"]
        )
        assert isinstance(stored, dict)
        return ChatResult(**stored)

    def _chat(self, payload: Any, key: str, model: str) -> ChatResult:
        def attempt() -> Outcome:
            t0 = time.perf_counter()
            try:
                out = self._send(payload, model)
            except Exception as exc:  # a backend must never raise to its caller
                out = transport_outcome(exc, self.timeout)
                out = out or Outcome(False, error=f"{type(exc).__name__}: {short_text(str(exc))}")
            ledger.record_call(
                "",
                self.provider,
                model,
                "chat",
                tokens_in=out.usage.get("prompt_tokens", 0),
                tokens_out=out.usage.get("completion_tokens", 0),
                latency_s=time.perf_counter() - t0,
                status="ok" if out.ok else "error",
                error=None if out.ok else self._redact(out.error),
            )
            return out

        out, attempts = self.retrier.run(lambda: self._redacted(attempt()), key)
        if not out.ok:
            log.warning("%s: request failed after %d attempt(s): %s", self.id, attempts, out.error)
        return ChatResult(
            text=out.text if out.ok else "",
            raw=out.raw,
            ok=out.ok,
            error=out.error,
            attempts=attempts,
            usage=dict(out.usage),
            model=model,
            status=out.status,
        )

    def _redacted(self, out: Outcome) -> Outcome:
        if not self._secrets:
            return out
        return Outcome(
            ok=out.ok,
            text=self._redact(out.text),
            raw=self._redact(out.raw),
            error=self._redact(out.error),
            status=out.status,
            retryable=out.retryable,
            retry_after=out.retry_after,
            usage=out.usage,
        )


def _result_dict(result: ChatResult) -> dict[str, Any]:
    """A ``ChatResult`` as the JSON mapping the model-output cache stores."""
    return {
        "text": result.text,
        "raw": result.raw,
        "ok": result.ok,
        "error": result.error,
        "attempts": result.attempts,
        "usage": dict(result.usage),
        "model": result.model,
        "status": result.status,
    }
