"""The local review page of a run (``mnemoforge review RUN``): loopback only, no dependencies.

``GET /`` is the page (``review_page``: one HTML file, its script and style, no external assets);
``GET /api/data`` what it shows (``review_data``: shots, candidate items, anchors, the filters'
facets; read once per server) with the decisions so far; ``GET /api/decisions`` the decisions
alone; ``GET /media/...`` serves files under the run's ``media/`` folder only (byte ranges for
video); ``POST /api/decision`` validates one decision and stores it through the run's decisions
store (``human_review.record_decision``: one transaction under a file lock, on disk before the
reply), so any number of servers on one run lose nothing. A decision for a shot or item the run
does not have is refused (404). POSTs must be JSON from the page's own origin.
"""

from __future__ import annotations

import json
import mimetypes
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from mnemoforge.review_data import review_data
from mnemoforge.validators.human_review import Decision, first_error, load_decisions, record_decision

HOST = "127.0.0.1"
MAX_POST = 64 << 10
BACKLOG = 256  # pending connections the listening socket holds (a page or script may send many at once)
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class UnknownId(LookupError):
    """A decision about a shot or item that is not in the run."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = BACKLOG


class ReviewServer:
    """Serves one run's review page on ``127.0.0.1:port`` (0: a free port) in a background thread."""

    def __init__(self, run: Path, port: int = 0) -> None:
        self.run = Path(run).resolve()
        if not (self.run / "run.json").is_file():
            raise FileNotFoundError(f"{run}: not a run folder (no run.json)")
        self._data: dict[str, Any] | None = None
        self._data_lock = threading.Lock()
        self._httpd = _Server((HOST, port), _handler(self))
        self.port = self._httpd.server_address[1]
        self.url = f"http://{HOST}:{self.port}/"
        self._thread: threading.Thread | None = None

    def start(self) -> ReviewServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1})
        self._thread.daemon = True
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._httpd.serve_forever(poll_interval=0.2)

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def data(self) -> dict[str, Any]:
        """The run's shots and items (read once; the run's content does not change under review)."""
        with self._data_lock:
            if self._data is None:
                data = review_data(self.run)
                data["ids"] = {
                    "shot": {s["id"] for s in data["shots"]},
                    "item": {q["id"] for q in data["items"]},
                }
                self._data = data
            return self._data

    def payload(self) -> bytes:
        data = {k: v for k, v in self.data().items() if k != "ids"}
        data["decisions"] = self.decisions()
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()

    def decisions(self) -> dict[str, Any]:
        return {f"{k[0]}:{k[1]}": d.model_dump(mode="json") for k, d in load_decisions(self.run).items()}

    def decide(self, payload: Any) -> dict[str, Any]:
        """Validate and store one decision (on disk when this returns); returns the saved decision."""
        d = Decision.model_validate(payload)
        if d.id not in self.data()["ids"][d.kind]:
            raise UnknownId(f"no {d.kind} {d.id!r} in run {self.run.name}")
        return record_decision(self.run, d).model_dump(mode="json")


def _handler(server: ReviewServer) -> type[BaseHTTPRequestHandler]:
    from mnemoforge.review_page import asset

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(
            self,
            status: int,
            body: bytes,
            ctype: str = "application/json",
            headers: dict[str, str] | None = None,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Content-Type-Options", "nosniff")
            for k, v in ({"Cache-Control": "no-store"} | (headers or {})).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, status: int, obj: Any) -> None:
            self._send(status, json.dumps(obj, ensure_ascii=False).encode())

        def do_GET(self) -> None:
            path = unquote(urlsplit(self.path).path)
            if path in ("/", "/index.html", "/review.js", "/review.css"):
                name = "index.html" if path in ("/", "/index.html") else path.lstrip("/")
                body, ctype = asset(name)
                self._send(200, body, ctype)
            elif path == "/api/data":
                self._send(200, server.payload())
            elif path == "/api/decisions":
                self._json(200, server.decisions())
            elif path.startswith("/media/"):
                self._media(path)
            elif path == "/favicon.ico":
                self._send(204, b"", "image/x-icon")
            else:
                self._json(404, {"error": "not found"})

        do_HEAD = do_GET

        def _media(self, path: str) -> None:
            media = (server.run / "media").resolve()
            f = (server.run / path.lstrip("/")).resolve()
            if not f.is_relative_to(media) or not f.is_file():
                self._json(404, {"error": "not found"})
                return
            ctype = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
            data = f.read_bytes()
            cache = {"Cache-Control": "private, max-age=300", "Accept-Ranges": "bytes"}
            m = _RANGE.match(self.headers.get("Range") or "")
            if not m or not (m.group(1) or m.group(2)):
                self._send(200, data, ctype, cache)
                return
            size = len(data)
            if m.group(1):
                start, end = int(m.group(1)), int(m.group(2) or size - 1)
            else:  # a suffix: the last N bytes
                start, end = max(0, size - int(m.group(2))), size - 1
            if start >= size or end < start:
                self._send(416, b"", ctype, cache | {"Content-Range": f"bytes */{size}"})
                return
            end = min(end, size - 1)
            part = data[start : end + 1]
            self._send(206, part, ctype, cache | {"Content-Range": f"bytes {start}-{end}/{size}"})

        def do_POST(self) -> None:
            if urlsplit(self.path).path != "/api/decision":
                self._json(404, {"error": "not found"})
                return
            origin = self.headers.get("Origin")
            if origin and origin.rstrip("/") != server.url.rstrip("/"):
                self._json(403, {"error": f"cross-origin request from {origin}"})
                return
            if "application/json" not in (self.headers.get("Content-Type") or ""):
                self._json(415, {"error": "send application/json"})
                return
            n = int(self.headers.get("Content-Length") or 0)
            if n > MAX_POST:
                self.close_connection = True  # the body is left unread
                self._json(413, {"error": "too large"})
                return
            body = self.rfile.read(n) if n else b""
            try:
                saved = server.decide(json.loads(body or b"null"))
            except UnknownId as e:
                self._json(404, {"error": str(e)})
                return
            except ValueError as e:
                self._json(400, {"error": first_error(e)})
                return
            except OSError as e:  # the store could not be written: nothing was acknowledged
                self._json(503, {"error": f"decision not saved: {e.strerror or e}"})
                return
            self._json(200, {"ok": True, "decision": saved})

    return Handler
