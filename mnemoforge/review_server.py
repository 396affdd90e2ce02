"""The local review page of a run (``mnemoforge review RUN``): loopback only, no dependencies.

``GET /`` is the page (``review_page.PAGE``); ``GET /api/data`` the shots (still, clip, lines, the
shot plan), the candidate items (question, options, answer, evidence with media, the automatic
gates' verdict) and the decisions so far; ``GET /media/...`` serves files under the run's
``media/`` folder only; ``POST /api/decision`` validates one decision and rewrites
``review/decisions.jsonl`` atomically. POSTs must be JSON from the page's own origin.
"""

from __future__ import annotations

import json
import mimetypes
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from mnemoforge.validators.human_review import (
    REASON_TAGS,
    Decision,
    first_error,
    load_decisions,
    save_decisions,
)

HOST = "127.0.0.1"
MAX_POST = 64 << 10


def _jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def review_data(run: Path) -> dict[str, Any]:
    """Everything the page shows, read from the run folder."""
    world = json.loads((run / "world/world.json").read_text()) if (run / "world/world.json").is_file() else {}
    names = {p["id"]: p.get("name", p["id"]) for p in world.get("people", [])}
    places = {p["id"]: p.get("name", p["id"]) for p in world.get("places", [])}
    objects = {o["id"]: o.get("name", o["id"]) for o in world.get("objects", [])}
    obs = {o["id"]: o for o in _jsonl(run / "episodes/observations.jsonl")}
    shots = []
    for clip in _jsonl(run / "episodes/clips.jsonl"):
        t0 = 0.0
        for shot in clip.get("shots", []):
            sid = shot["id"]
            still = f"media/shots/{sid}.png"
            plan = {
                "place": places.get(shot.get("place"), shot.get("place")),
                "visible": [names.get(p, p) for p in shot.get("visible", [])],
                "props": [objects.get(o, o) for o in shot.get("props", [])],
                "composition": shot.get("composition"),
                "camera": shot.get("camera"),
                "time_of_day": shot.get("time_of_day"),
                "blocking": shot.get("blocking"),
                "outfits": shot.get("outfits", {}),
            }
            lines = [
                {"speaker": names.get(ln["speaker"], ln["speaker"]), "text": ln["text"]}
                for ln in shot.get("dialogue", [])
            ]
            generated = f"media/veo/{sid}.mp4"
            shots.append(
                {
                    "id": sid,
                    "clip": clip["id"],
                    "still": still if (run / still).is_file() else None,
                    "clip_media": f"media/clips/{clip['id']}.mp4"
                    if (run / f"media/clips/{clip['id']}.mp4").is_file()
                    else None,
                    "generated": generated if (run / generated).is_file() else None,
                    "start_s": round(t0, 3),
                    "duration_s": shot.get("duration_s"),
                    "lines": lines,
                    "plan": plan,
                }
            )
            t0 += float(shot.get("duration_s") or 0)
    verdicts: dict[str, list[str]] = {}
    for v in _jsonl(run / "gates/verdicts.jsonl"):
        if not v.get("keep", True):
            verdicts.setdefault(v["item"], []).append(f"{v['gate']}: {v['reason']}")
    items = []
    for q in _jsonl(run / "questions/candidates.jsonl"):
        evidence = [
            {
                "id": e,
                "kind": obs[e].get("kind"),
                "content": obs[e].get("content", ""),
                "media": [m for m in obs[e].get("media", []) if (run / m).is_file()],
            }
            for e in q.get("evidence", [])
            if e in obs
        ]
        items.append(
            {
                "id": q["id"],
                "category": q.get("category"),
                "question": q.get("question"),
                "options": q.get("options"),
                "answer": q.get("answer"),
                "evidence": evidence,
                "gates": verdicts.get(q["id"], []),
            }
        )
    decisions = {f"{k[0]}:{k[1]}": d.model_dump(mode="json") for k, d in load_decisions(run).items()}
    return {
        "run": run.name,
        "tags": list(REASON_TAGS),
        "shots": shots,
        "items": items,
        "decisions": decisions,
    }


class ReviewServer:
    """Serves one run's review page on ``127.0.0.1:port`` (0: a free port) in a background thread."""

    def __init__(self, run: Path, port: int = 0) -> None:
        self.run = Path(run).resolve()
        if not (self.run / "run.json").is_file():
            raise FileNotFoundError(f"{run}: not a run folder (no run.json)")
        self.lock = threading.Lock()
        self._httpd = ThreadingHTTPServer((HOST, port), _handler(self))
        self._httpd.daemon_threads = True
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

    def decide(self, payload: Any) -> dict[str, Any]:
        """Validate and store one decision; returns the saved decision."""
        d = Decision.model_validate(payload)
        with self.lock:  # read-modify-write under one lock; the file itself is replaced atomically
            decisions = load_decisions(self.run)
            decisions[(d.kind, d.id)] = d
            save_decisions(self.run, decisions)
        return d.model_dump(mode="json")


def _handler(server: ReviewServer) -> type[BaseHTTPRequestHandler]:
    from mnemoforge.review_page import PAGE

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, status: int, obj: Any) -> None:
            self._send(status, json.dumps(obj, ensure_ascii=False).encode())

        def do_GET(self) -> None:
            path = unquote(urlsplit(self.path).path)
            if path in ("/", "/index.html"):
                self._send(200, PAGE.encode(), "text/html; charset=utf-8")
            elif path == "/api/data":
                self._json(200, review_data(server.run))
            elif path.startswith("/media/"):
                media = (server.run / "media").resolve()
                f = (server.run / path.lstrip("/")).resolve()
                if not f.is_relative_to(media) or not f.is_file():
                    self._json(404, {"error": "not found"})
                    return
                ctype = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
                self._send(200, f.read_bytes(), ctype)
            else:
                self._json(404, {"error": "not found"})

        do_HEAD = do_GET

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
                self._json(413, {"error": "too large"})
                return
            try:
                saved = server.decide(json.loads(self.rfile.read(n) or b"null"))
            except ValueError as e:
                self._json(400, {"error": first_error(e)})
                return
            self._json(200, {"ok": True, "decision": saved})

    return Handler
