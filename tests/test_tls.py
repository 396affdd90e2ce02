"""The model SDKs' clients share one verifying TLS context (backends/tls.py), and it verifies:
a backend reaches an HTTPS loopback server whose certificate the trust store (SSL_CERT_FILE)
vouches for, and is refused by one it does not."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from mnemoforge.backends.text import request
from mnemoforge.backends.text.gemini import GeminiBackend
from mnemoforge.backends.text.openai_compat import OpenAICompatBackend
from mnemoforge.backends.tls import tls_context
from tests.llm_servers import LLMServer

if TYPE_CHECKING:
    import trustme

KEY = "sk-test-tls-0c1d"


@pytest.fixture
def trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[trustme.CA]:
    """A fresh CA that SSL_CERT_FILE names (so the shared context trusts it), the context rebuilt."""
    import trustme  # imported here: cryptography is not a cost of collecting the suite

    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)
    tls_context.cache_clear()
    yield ca
    tls_context.cache_clear()  # the next test reads the real environment again


def _server_context(ca: trustme.CA) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(ctx)
    return ctx


def _backend(flavor: str, server: LLMServer, sleeps: list[float] | None = None) -> Any:
    waits = sleeps if sleeps is not None else []
    kw: dict[str, Any] = {"api_key": KEY, "max_retries": 2, "sleep": waits.append}
    if flavor == "openai":
        return OpenAICompatBackend("stub-model", base_url=server.base_url, **kw)
    return GeminiBackend("gemini-stub", base_url=server.base_url, **kw)


def _contexts(backend: Any) -> list[ssl.SSLContext]:
    """The TLS contexts the SDK client holds (its sync httpx pool; for google-genai also the async
    client's arguments and the websocket context)."""
    client = backend._client
    if isinstance(backend, OpenAICompatBackend):
        return [client._client._transport._pool._ssl_context]
    api = client._api_client
    sync = api._httpx_client._transport._pool._ssl_context
    return [sync, api._async_httpx_client_args["verify"], api._websocket_ssl_ctx["ssl"]]


def test_the_context_verifies_and_is_made_once(trusted: trustme.CA) -> None:
    ctx = tls_context()
    assert ctx is tls_context()
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
    assert ctx.cert_store_stats()["x509_ca"] == 1  # exactly the bundle SSL_CERT_FILE names


@pytest.mark.parametrize("flavor", ["openai", "gemini"])
def test_backends_share_the_context_and_reach_a_trusted_server(flavor: str, trusted: trustme.CA) -> None:
    with LLMServer(flavor, default_text="over tls", tls=_server_context(trusted)) as server:
        assert server.base_url.startswith("https://127.0.0.1:")
        first, second = _backend(flavor, server), _backend(flavor, server)
        assert all(c is tls_context() for c in _contexts(first) + _contexts(second))
        res = first.chat(request("hello"))
        assert res.ok and res.text == "over tls", res.error
        assert len(server.requests) == 1 and server.requests[0].json is not None
        first.close(), second.close()


@pytest.mark.parametrize("flavor", ["openai", "gemini"])
def test_an_unvouched_certificate_is_refused_and_named(flavor: str, trusted: trustme.CA) -> None:
    stranger = type(trusted)()  # another CA signs the server certificate; SSL_CERT_FILE: `trusted` only
    with LLMServer(flavor, default_text="must not arrive", tls=_server_context(stranger)) as server:
        sleeps: list[float] = []
        backend = _backend(flavor, server, sleeps)
        res = backend.chat(request("hello"))
        assert not res.ok and res.text != "must not arrive"
        assert "certificate verify failed" in (res.error or "").lower(), res.error
        assert res.attempts == 1 and sleeps == []  # not retried: it would fail the same way
        assert server.requests == []  # the handshake failed before any request was read
        backend.close()
