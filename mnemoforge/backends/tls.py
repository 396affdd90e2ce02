"""One verifying TLS context per process for the model SDKs' HTTP clients.

By default every ``openai`` or ``google-genai`` client builds its own context and loads the CA
bundle again: about 45 ms of CPU a client, and a gate panel, a theme check or a test session makes
dozens of clients. The shared context is made as those SDKs make theirs: from ``SSL_CERT_FILE`` /
``SSL_CERT_DIR`` where set, else httpx2's default (the system store). It is read once, so a change
to those variables later in the process does not reach it. Vertex AI clients keep their own
context (the SDK adds a client certificate there)."""

from __future__ import annotations

import functools
import os
import ssl
from typing import Any


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The process's verifying client context (made on first use)."""
    cafile, capath = os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None
    if cafile or capath:
        return ssl.create_default_context(cafile=cafile, capath=capath)
    try:
        import httpx2
    except ImportError:  # an SDK on httpx 0.x: the certifi bundle, as httpx uses
        import certifi

        return ssl.create_default_context(cafile=certifi.where())
    return httpx2.create_ssl_context()


def openai_http_client() -> Any:
    """An ``openai.DefaultHttpxClient`` (the SDK's own defaults) on the shared context."""
    import openai

    return openai.DefaultHttpxClient(verify=tls_context())


def genai_client_args() -> dict[str, Any]:
    """``HttpOptions`` fields that give a google-genai client the shared context: ``verify`` for
    its httpx clients, ``ssl`` for its aiohttp session and websockets."""
    ctx = tls_context()
    return {"client_args": {"verify": ctx}, "async_client_args": {"verify": ctx, "ssl": ctx}}
