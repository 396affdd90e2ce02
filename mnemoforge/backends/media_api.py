"""Plumbing shared by the API media backends (Gemini / OpenAI images, Veo, Gemini TTS).

Each backend sends attempts through the text backends' ``Retrier`` (retries on timeouts,
connection errors, 408/429/5xx honouring ``Retry-After``; a concurrency cap; a request-rate
limit), appends every attempt to the run's call ledger (``store/ledger.py``), and caches
successful outputs by request so that a resumed build never pays twice. Every request has an
idempotency key derived from its inputs (``request_key``): it is recorded on each ledger row, sent
as the ``Idempotency-Key`` header (providers that honour it bill a repeated request once), and
names the request's cached output and, for long-running operations, its journal entry
(``store/operations.py``). A call that fails for good raises ``MediaApiError`` naming the backend,
the operation and the last error.
"""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mnemoforge.backends.text.base import error_message, safe_url, status_outcome
from mnemoforge.backends.text.protocol import redact
from mnemoforge.backends.text.retry import Clock, Outcome, Retrier, RetryPolicy, Sleep, transport_outcome
from mnemoforge.hashing import content_hash
from mnemoforge.schemas.render_api import ApiSpec
from mnemoforge.store import ledger

_RETRY_FIELDS = set(inspect.signature(RetryPolicy).parameters)


IDEMPOTENCY_HEADER = "Idempotency-Key"


class MediaApiError(RuntimeError):
    """An API media call that failed for good (after its retries)."""

    permanent = False
    """True when asking again cannot help (a 4xx other than 408/429, a refused or failed operation)."""


def record(stage: str, backend: str, model: str, operation: str, **fields: Any) -> None:
    """Append one call to the run's ledger (nothing outside a build)."""
    ledger.record_call(stage, backend, model, operation, **fields)


def cached(key_parts: dict[str, Any], fn: Callable[[], bytes]) -> bytes:
    """``fn()`` through the run's model-output cache (plainly outside a build)."""
    out = ledger.cached_call(key_parts, fn)
    assert isinstance(out, bytes)
    return out


def api_key(spec: ApiSpec, default_envs: tuple[str, ...], provider: str) -> str:
    """The key from ``spec.api_key_env`` or the provider's usual variables; a clear error if none."""
    envs = (spec.api_key_env,) if spec.api_key_env else default_envs
    key = next((os.environ[e] for e in envs if os.environ.get(e)), None)
    if not key:
        raise ValueError(f"no {provider} API key: set {' or '.join(envs)} (render.*_api.api_key_env)")
    return key


def retrier_for(spec: ApiSpec, seed: int, sleep: Sleep, clock: Clock) -> Retrier:
    bad = set(spec.retry) - _RETRY_FIELDS
    if bad:
        raise ValueError(f"unknown retry settings: {', '.join(sorted(bad))}")
    policy = RetryPolicy(**{"max_attempts": spec.max_retries + 1, "seed": seed, **spec.retry})
    return Retrier(
        policy,
        max_concurrency=spec.max_concurrency,
        requests_per_second=spec.requests_per_second,
        sleep=sleep,
        clock=clock,
    )


@dataclass
class Attempt:
    """What one attempt produced: the classified outcome and, when it succeeded, the payload."""

    outcome: Outcome
    value: Any = None
    usage: dict[str, Any] | None = None


def sdk_error_outcome(exc: BaseException, timeout: float) -> Outcome:
    """Classify an SDK exception (google-genai ``APIError``, openai ``APIStatusError``, transport)."""
    code = getattr(exc, "code", None) if not hasattr(exc, "status_code") else exc.status_code
    response = getattr(exc, "response", None)
    if isinstance(code, int) and code >= 400:
        text = getattr(response, "text", None)
        if not isinstance(text, str) or not text:
            text = str(exc)
        return status_outcome(code, text, getattr(response, "headers", None))
    out = transport_outcome(exc, timeout)
    return out or Outcome(False, error=f"{type(exc).__name__}: {error_message(str(exc))}")


class MediaApi:
    """One configured API endpoint: retries, limits, ledger and cache around each request."""

    provider = "abstract"

    def __init__(
        self,
        spec: ApiSpec,
        default_model: str,
        base_url: str,
        key: str,
        *,
        stage: str = "",
        seed: int = 0,
        sleep: Sleep = time.sleep,
        clock: Clock = time.monotonic,
    ) -> None:
        self.spec = spec
        self.model = spec.model or default_model
        self.base_url = (spec.base_url or base_url).rstrip("/")
        self.timeout = float(spec.timeout_s)
        self.stage = stage
        self._key = key
        self.retrier = retrier_for(spec, seed, sleep, clock)
        self._sleep, self._clock = sleep, clock

    @property
    def id(self) -> str:
        return f"{self.provider}:{self.model}@{safe_url(self.base_url)}"

    def cache_parts(self, operation: str, key_parts: dict[str, Any]) -> dict[str, Any]:
        """What a request's output is cached under: this backend, model, operation and the request."""
        return {"backend": self.provider, "model": self.model, "operation": operation, **key_parts}

    def request_key(self, operation: str, key_parts: dict[str, Any]) -> str:
        """The request's idempotency key (see ``ledger.request_key``)."""
        return ledger.request_key(self.cache_parts(operation, key_parts))

    def call(
        self,
        operation: str,
        key_parts: dict[str, Any],
        attempt: Callable[[], Attempt],
        *,
        cache: bool = True,
        key: str | None = None,
    ) -> Any:
        """Run ``attempt`` under the retry policy, ledgering each try with the request's idempotency
        ``key`` (default: ``request_key(operation, key_parts)``); the value on success (cached by
        request unless ``cache`` is false, as for polls of a running operation)."""
        key = key or self.request_key(operation, key_parts)

        def fresh() -> Any:
            holder: dict[str, Attempt] = {}

            def one() -> Outcome:
                t0 = time.monotonic()
                try:
                    res = attempt()
                except Exception as exc:  # an adapter never raises mid-retry: classify it
                    res = Attempt(sdk_error_outcome(exc, self.timeout))
                out = res.outcome
                if not out.ok and out.error:
                    out = Outcome(
                        False,
                        error=redact(out.error, [self._key]),
                        status=out.status,
                        retryable=out.retryable,
                        retry_after=out.retry_after,
                    )
                    res = Attempt(out)
                holder["last"] = res
                usage = res.usage or {}
                record(
                    self.stage,
                    self.provider,
                    self.model,
                    operation,
                    latency_s=round(time.monotonic() - t0, 4),
                    status="ok" if out.ok else "error",
                    error=None if out.ok else out.error,
                    key=key,
                    **usage,
                )
                return out

            out, attempts = self.retrier.run(one, content_hash(key_parts))
            if not out.ok:
                err = MediaApiError(f"{self.id} {operation}: {out.error} ({attempts} attempt(s))")
                err.permanent = not out.retryable and out.status is not None and out.status < 500
                raise err
            return holder["last"].value

        if not cache:
            return fresh()
        return cached(self.cache_parts(operation, key_parts), fresh)
