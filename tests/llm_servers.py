"""Loopback stand-ins for LLM HTTP APIs: OpenAI chat completions and Gemini generateContent.

``with LLMServer("openai") as srv:`` serves ``POST {srv.base_url}/chat/completions``;
``LLMServer("gemini")`` serves ``POST /v1beta/models/{model}:generateContent`` under ``srv.base_url``.
Replies are scripted per request with ``srv.script(Reply(...), ...)`` (a FIFO queue); once it is
empty each request gets a normal reply saying ``srv.default_text`` (or what
``responder(recorded_request)`` returns, when one is given and returns a string). Every request is recorded
(method, path, query, headers, body, parsed JSON). ``srv.max_in_flight`` is the most requests the
server held at once (counted from receipt until the reply starts, so a client's own concurrency
cap is never overstated). ``Reply(delay=...)`` sleeps before answering, which is how a test makes
a client time out. One response per connection (HTTP/1.0); all traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import ssl
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

Flavor = Literal["openai", "gemini"]
MAX_BODY = 32 << 20

_ROUTES = {
    "openai": re.compile(r"^/v1/chat/completions$"),
    "gemini": re.compile(r"^/(?P<version>v1|v1beta|v1alpha)/models/(?P<model>[^/:]+):generateContent$"),
}


@dataclass
class Reply:
    """One scripted answer. ``body`` may be a dict/list (sent as JSON), str or bytes (sent as is)."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    json: Any


def openai_completion(text: str, model: str = "stub-model", finish: str = "stop") -> dict[str, Any]:
    """A minimal, valid chat-completion object."""
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
    }


def gemini_response(text: str, finish: str = "STOP") -> dict[str, Any]:
    """A minimal, valid generateContent response."""
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": finish, "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": 3, "totalTokenCount": 10},
        "modelVersion": "stub-model",
    }


def error_body(flavor: Flavor, status: int, message: str) -> dict[str, Any]:
    """An error object in the provider's shape."""
    if flavor == "openai":
        return {"error": {"message": message, "type": "stub_error", "code": status}}
    return {"error": {"code": status, "message": message, "status": "STUB_ERROR"}}


class LLMServer:
    """A scriptable OpenAI- or Gemini-speaking HTTP server on a free loopback port."""

    def __init__(
        self,
        flavor: Flavor,
        default_text: str = "ok",
        default_delay: float = 0.0,
        responder: Callable[[Recorded], str | None] | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.flavor: Flavor = flavor
        self.responder = responder
        self.default_text = default_text
        self.default_delay = default_delay
        self.requests: list[Recorded] = []
        self.queue: deque[Reply] = deque()
        # optional per-request script: return a Reply for this request, or None for the usual one
        self.reply_for: Callable[[Recorded], Reply | None] | None = None
        # GET routes (path -> JSON body), e.g. llama.cpp's /props; every GET path is logged
        self.gets: dict[str, Any] = {}
        self.get_paths: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        if tls is not None:  # HTTPS: each accepted connection is wrapped, the handshake in its thread
            sock = self._httpd.socket
            self._httpd.socket = tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self._httpd.server_address[1]}"
        self.base_url = f"{self.url}/v1" if flavor == "openai" else self.url

    def __enter__(self) -> LLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Wake any sleeping handler and shut the server down."""
        self.stopping.set()
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next requests, in order."""
        with self.lock:
            self.queue.extend(replies)

    def _next_reply(self, rec: Recorded | None = None) -> Reply:
        if self.reply_for is not None and rec is not None:
            chosen = self.reply_for(rec)
            if chosen is not None:
                return chosen
        with self.lock:
            if self.queue:
                return self.queue.popleft()
        said = self.responder(rec) if (self.responder and rec is not None) else None
        text = self.default_text if said is None else said
        body = openai_completion(text) if self.flavor == "openai" else gemini_response(text)
        return Reply(200, body, delay=self.default_delay)


def _handler(server: LLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:  # silence the default stderr log
            pass

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            with server.lock:
                server.get_paths.append(path)
            if path in server.gets:
                self._send(Reply(200, server.gets[path]))
                return
            self._send(Reply(404, error_body(server.flavor, 404, "not found")))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._send(Reply(413, error_body(server.flavor, 413, "body too large")))
                return
            body = self.rfile.read(length) if length else b""
            try:
                parsed = json.loads(body) if body else None
            except ValueError:
                parsed = None
            url = urlsplit(self.path)
            rec = Recorded("POST", url.path, parse_qs(url.query), dict(self.headers.items()), body, parsed)
            if not _ROUTES[server.flavor].match(url.path):
                with server.lock:
                    server.requests.append(rec)
                self._send(Reply(404, error_body(server.flavor, 404, f"no route {url.path}")))
                return
            with server.lock:
                server.requests.append(rec)
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                reply = server._next_reply(rec)
                if reply.delay > 0:
                    server.stopping.wait(reply.delay)
            finally:
                with server.lock:
                    server.in_flight -= 1
            self._send(reply)

        def _send(self, reply: Reply) -> None:
            if isinstance(reply.body, bytes):
                data = reply.body
            elif isinstance(reply.body, str):
                data = reply.body.encode()
            else:
                data = json.dumps(reply.body if reply.body is not None else {}).encode()
            try:
                self.send_response(reply.status)
                headers = {"Content-Type": "application/json", **reply.headers}
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and hung up: expected in timeout tests

    return Handler


def model_spec(tmp_path: Path, srv: LLMServer, **extra: object) -> Path:
    """A model SPEC file (``mnemoforge evaluate --model``) for this server, plus ``extra`` fields."""
    import yaml

    path = tmp_path / f"model-{len(list(tmp_path.glob('model-*')))}.yaml"
    block = {
        "provider": "openai",
        "model": "loop",
        "base_url": srv.base_url,
        "api_key_env": None,
        "max_retries": 0,
    }
    path.write_text(yaml.safe_dump({"name": "loop", "text": {"backend": block}, **extra}))
    return path
