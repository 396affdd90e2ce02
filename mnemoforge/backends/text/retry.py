"""Retries, a concurrency cap and a request-rate limit shared by the network text backends.

Retried: timeouts, connection errors, HTTP 408, 429 (waiting what ``Retry-After`` /
``retry-after-ms`` asks) and 5xx. Not retried: other 4xx and malformed 200 replies. Backoff is
exponential with jitter drawn from ``derive_rng(seed, request key, attempt)``, so the delays of a
request are the same in every run and on every executor; attempts and total time are bounded.
``sleep`` and ``clock`` are injectable so tests never wait.
"""

from __future__ import annotations

import email.utils
import functools
import importlib
import logging
import math
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from mnemoforge.backends.text.protocol import Raw
from mnemoforge.rng import derive_rng

log = logging.getLogger("mnemoforge.backends.text")

Sleep = Callable[[float], None]
Clock = Callable[[], float]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry one request.

    ``max_attempts`` counts the first try. The wait before attempt ``n+1`` is
    ``min(max_delay, base_delay * multiplier**(n-1)) * (1 + jitter * u)`` with ``u`` in [0, 1)
    from the seeded stream, or exactly the server's ``Retry-After`` when it sent one (given up
    when that exceeds ``max_retry_after``). No retry starts once ``max_total_s`` would be passed.
    """

    max_attempts: int = 4
    base_delay: float = 1.0
    multiplier: float = 2.0
    max_delay: float = 30.0
    jitter: float = 0.25
    max_total_s: float = 180.0
    max_retry_after: float = 120.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        if min(self.base_delay, self.max_delay, self.jitter, self.max_total_s) < 0:
            raise ValueError("delays, jitter and max_total_s must be >= 0")

    def backoff(self, attempt: int, key: str) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1-based) when the server gave no hint."""
        base = min(self.max_delay, self.base_delay * self.multiplier ** (attempt - 1))
        u = derive_rng(self.seed, "retry", key, attempt).random()
        return min(self.max_delay, base * (1.0 + self.jitter * u))


@dataclass(frozen=True)
class Outcome:
    """One attempt's result as a backend classified it."""

    ok: bool
    text: str = ""
    raw: Raw = ""
    error: str | None = None
    status: int | None = None
    retryable: bool = False
    retry_after: float | None = None
    usage: dict[str, int] = field(default_factory=dict)


def retryable_status(status: int) -> bool:
    """408, 429 and 5xx are worth another try; every other status is final."""
    return status in (408, 429) or 500 <= status <= 599


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms``, ``Retry-After`` seconds or HTTP date)."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000.0
            if math.isfinite(value):
                return max(0.0, value)
        except ValueError:
            pass
    ra = lower.get("retry-after")
    if ra is None:
        return None
    try:
        value = float(ra)
        return max(0.0, value) if math.isfinite(value) else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(ra)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    ref = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - ref)


class RateLimiter:
    """Spaces request starts at least ``1 / rps`` seconds apart across all threads."""

    def __init__(self, rps: float, *, clock: Clock = time.monotonic, sleep: Sleep = time.sleep) -> None:
        if rps <= 0:
            raise ValueError("requests_per_second must be > 0")
        self.interval = 1.0 / rps
        self._clock = clock
        self._sleep = sleep
        self._next = -math.inf
        self._lock = threading.Lock()

    def acquire(self) -> float:
        """Wait for the next free slot; returns the seconds waited."""
        with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self.interval
        wait = slot - now
        if wait > 0:
            self._sleep(wait)
        return max(0.0, wait)


class Retrier:
    """Runs attempts under the policy, a ``BoundedSemaphore(max_concurrency)`` and an optional rate limit.

    The semaphore is held only while an attempt is on the wire, not during backoff sleeps.
    """

    def __init__(
        self,
        policy: RetryPolicy | None = None,
        *,
        max_concurrency: int = 4,
        requests_per_second: float | None = None,
        sleep: Sleep = time.sleep,
        clock: Clock = time.monotonic,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be >= 1")
        self.policy = policy or RetryPolicy()
        self.max_concurrency = max_concurrency
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._rate = (
            RateLimiter(requests_per_second, clock=clock, sleep=sleep) if requests_per_second else None
        )
        self._sleep = sleep
        self._clock = clock

    def run(self, attempt_fn: Callable[[], Outcome], key: str) -> tuple[Outcome, int]:
        """Call ``attempt_fn`` until it succeeds, fails for good, or the budget is spent.

        Returns the last outcome and the number of attempts made. ``key`` identifies the request
        (it seeds the jitter). Errors are logged by the caller's already-redacted text only.
        """
        policy = self.policy
        start = self._clock()
        attempt = 0
        while True:
            attempt += 1
            if self._rate is not None:
                self._rate.acquire()
            with self._slots:
                out = attempt_fn()
            if out.ok or not out.retryable:
                return out, attempt
            if attempt >= policy.max_attempts:
                return replace(out, error=f"{out.error} (gave up after {attempt} attempts)"), attempt
            if out.retry_after is not None:
                if out.retry_after > policy.max_retry_after:
                    cap = policy.max_retry_after
                    msg = f"{out.error} (Retry-After {out.retry_after:g}s exceeds {cap:g}s)"
                    return replace(out, error=msg), attempt
                delay = out.retry_after
            else:
                delay = policy.backoff(attempt, key)
            if self._clock() - start + delay > policy.max_total_s:
                msg = f"{out.error} (retry budget of {policy.max_total_s:g}s spent after {attempt} attempts)"
                return replace(out, error=msg), attempt
            log.info("attempt %d failed: %s; retrying in %.2fs", attempt, out.error, delay)
            self._sleep(delay)


@functools.cache
def _transport_classes() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """Timeout and transport exception classes of whichever httpx flavours the SDKs use."""
    timeouts: list[type[BaseException]] = [TimeoutError]
    transport: list[type[BaseException]] = [ConnectionError]
    for name in ("httpx2", "httpx"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        timeouts.append(mod.TimeoutException)
        transport.append(mod.TransportError)
    return tuple(timeouts), tuple(transport)


def transport_outcome(exc: BaseException, timeout: float) -> Outcome | None:
    """A retryable ``Outcome`` for a timeout or connection failure, ``None`` for anything else."""
    timeouts, transport = _transport_classes()
    if isinstance(exc, timeouts):
        return Outcome(False, error=f"timed out after {timeout:g}s ({type(exc).__name__})", retryable=True)
    if isinstance(exc, transport):
        return connection_outcome(exc)
    return None


def connection_outcome(exc: BaseException) -> Outcome:
    """A failed connection, named with the whole cause chain (an SDK's own error may say only
    "Connection error."). A certificate the trust store does not vouch for is not retried: it
    fails the same way again."""
    chain, seen = [exc], {id(exc)}
    while (nxt := chain[-1].__cause__ or chain[-1].__context__) is not None and id(nxt) not in seen:
        chain.append(nxt)
        seen.add(id(nxt))
    text = "; ".join(dict.fromkeys(str(e) for e in chain if str(e))) or "no detail"
    cert = any(isinstance(e, ssl.SSLCertVerificationError) for e in chain)
    cert = cert or "CERTIFICATE_VERIFY_FAILED" in text
    error = f"connection error ({type(exc).__name__}): {text}"
    return Outcome(False, error=short_text(error), retryable=not cert)


MAX_ERROR_CHARS = 400


def short_text(text: str) -> str:
    """``text`` on one line, cut to ``MAX_ERROR_CHARS`` (an error message kept in results and logs)."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"
