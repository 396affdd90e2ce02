"""Loopback stand-ins for the media APIs, speaking their wire protocols (as the real SDKs send them).

``with MediaServer() as srv:`` serves on one free 127.0.0.1 port:

* Gemini ``POST /v1beta/models/{model}:generateContent``: ``responseModalities`` ``["IMAGE"]``
  answers an ``inlineData`` PNG — a portrait drawn in the skin and hair colours the prompt names,
  or, with reference images, a scene with every reference face pasted left to right on a
  background seeded by the prompt; ``["AUDIO"]`` answers ``audio/L16;codec=pcm;rate=22050``
  spoken by espeak-ng in a variant fixed per prebuilt voice name.
* Veo (Vertex) ``POST /v1/publishers/google/models/{model}:predictLongRunning`` starts an
  operation; ``POST /v1/{operation's model}:fetchPredictOperation`` reports it ``done`` after
  ``srv.polls_until_done`` polls, with an H.264 MP4 of the input image (slow push-in, 24 fps,
  ``durationSeconds`` long) in ``response.videos[0].bytesBase64Encoded``.
* OpenAI ``POST /v1/images/generations`` (JSON) and ``/v1/images/edits`` (multipart ``image[]``):
  ``data[0].b64_json``.

``srv.fail(route, status, times=1, retry_after=None)`` makes the next ``times`` requests of a route
(``"generateContent"``, ``"predictLongRunning"``, ``"fetchPredictOperation"``, ``"images"``) fail
with that status in the provider's error shape. Every request is recorded in ``srv.requests``.

Veo extras: ``srv.refuse(request_json)`` (a callable, default none) decides per started operation
whether it ends filtered (return ``{"filtered": [reasons]}``: no video, ``raiMediaFilteredReasons``,
as Veo answers a safety refusal) or failed (``{"error": {"code": 3, "message": ...}}``); a request
repeating an ``Idempotency-Key`` gets the operation that key started (as a provider honouring the
header would), and ``srv.submissions[key]`` counts the starts per key; ``srv.hold_polls = True``
holds every poll until ``srv.release`` is set (``srv.polls_held`` counts the polls waiting), which
is how a test kills a build in the middle of polling.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import subprocess
import tempfile
import threading
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

VOICE_VARIANTS = ("m1", "f1", "m3", "f2", "m5", "f3", "m7", "f4")
HEX = re.compile(r"#[0-9a-fA-F]{6}")


def _rgb(hex_color: str) -> tuple[int, int, int]:
    return tuple(int(hex_color[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def portrait_png(prompt: str, size: int = 512) -> bytes:
    """A face in the first two colours the prompt names (skin, then hair), on light grey."""
    colours = HEX.findall(prompt) + ["#c08060", "#302010"]
    skin, hair = _rgb(colours[0]), _rgb(colours[1])
    img = Image.new("RGB", (size, size), (205, 205, 205))
    d = ImageDraw.Draw(img)
    s = size
    top = _rgb(colours[-2]) if len(colours) >= 6 else hair  # the outfit's top colour (last but one)
    d.rectangle((int(s * 0.2), int(s * 0.75), int(s * 0.8), s), fill=top)
    d.ellipse((int(s * 0.28), int(s * 0.12), int(s * 0.72), int(s * 0.52)), fill=hair)
    d.ellipse((int(s * 0.3), int(s * 0.2), int(s * 0.7), int(s * 0.72)), fill=skin)
    for x in (0.42, 0.58):
        d.ellipse((int(s * (x - 0.03)), int(s * 0.4), int(s * (x + 0.03)), int(s * 0.45)), fill=(30, 30, 30))
    return _png(img)


def scene_png(prompt: str, refs: list[bytes], width: int = 1024, height: int = 576) -> bytes:
    """A background seeded by the prompt with each reference face pasted left to right."""
    h = hashlib.sha256(prompt.encode()).digest()
    img = Image.new("RGB", (width, height), (h[0], h[1], h[2]))
    d = ImageDraw.Draw(img)
    d.rectangle((0, int(height * 0.7), width, height), fill=(h[3], h[4], h[5]))
    n = max(1, len(refs))
    face = int(min(height * 0.45, width / n * 0.8))
    for i, r in enumerate(refs):
        ref = Image.open(io.BytesIO(r)).convert("RGB").resize((face, face))
        x = int((i + 0.5) * width / n - face / 2)
        img.paste(ref, (x, int(height * 0.2)))
    return _png(img)


def speech_pcm(text: str, voice_name: str) -> tuple[bytes, int]:
    """espeak-ng speech in a variant fixed per prebuilt voice name: (int16 LE bytes, rate)."""
    from mnemoforge.backends.speech.espeak import EspeakBackend
    from mnemoforge.backends.speech.gemini_tts import PREBUILT_VOICES
    from mnemoforge.schemas.theme import VoiceSpec

    i = PREBUILT_VOICES.index(voice_name) if voice_name in PREBUILT_VOICES else 0
    voice = VoiceSpec(variant=VOICE_VARIANTS[i % len(VOICE_VARIANTS)], pitch=20 + (i * 23) % 60)
    samples, sr = EspeakBackend().render(text, voice)
    return samples.astype("<i2").tobytes(), sr


def video_mp4(image: bytes, seconds: float, width: int = 320, height: int = 180, fps: int = 24) -> bytes:
    """An H.264 MP4 of ``image`` with a slow push-in, ``seconds`` long (what Veo returns, smaller)."""
    from imageio_ffmpeg import get_ffmpeg_exe

    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "in.png", Path(tmp) / "out.mp4"
        src.write_bytes(image)
        n = int(round(seconds * fps))
        vf = (
            f"scale={width * 2}:{height * 2}:force_original_aspect_ratio=increase,"
            f"crop={width * 2}:{height * 2},"
            f"zoompan=z='1+0.1*on/{n}':x='(iw-iw/zoom)/2':y='(ih-ih/zoom)/2':d={n}:s={width}x{height}:fps={fps}"
        )
        subprocess.run(
            [
                get_ffmpeg_exe(),
                "-nostdin",
                "-loglevel",
                "error",
                "-y",
                "-i",
                str(src),
                "-vf",
                vf,
                "-frames:v",
                str(n),
                "-c:v",
                "libx264",
                "-preset",
                "ultrafast",
                "-pix_fmt",
                "yuv420p",
                str(out),
            ],
            check=True,
        )
        return out.read_bytes()


def _b64(s: str) -> bytes:
    """Decode base64 as Google's APIs accept it (standard or URL-safe alphabet, padding optional)."""
    s = s.replace("-", "+").replace("_", "/")
    return base64.b64decode(s + "=" * (-len(s) % 4))


def _inline(part: dict) -> dict | None:
    return part.get("inlineData") or part.get("inline_data")


class MediaServer:
    """A scriptable Gemini / Veo / OpenAI-images HTTP server on a free loopback port."""

    def __init__(self, polls_until_done: int = 1) -> None:
        self.requests: list[dict[str, Any]] = []
        self.failures: dict[str, list[tuple[int, str | None]]] = {}
        self.operations: dict[str, dict[str, Any]] = {}
        self.polls_until_done = polls_until_done
        self.refuse: Any = None
        self.submissions: dict[str, int] = {}
        self.by_key: dict[str, str] = {}
        self.hold_polls = False
        self.release = threading.Event()
        self.polls_held = 0
        self.lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> MediaServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._thread.join(timeout=5)
        self._httpd.server_close()

    def fail(self, route: str, status: int, times: int = 1, retry_after: str | None = None) -> None:
        with self.lock:
            self.failures.setdefault(route, []).extend([(status, retry_after)] * times)

    def count(self, route: str) -> int:
        return sum(1 for r in self.requests if route in r["path"])

    # ------------------------------------------------------------------------------------------
    def handle(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, dict, dict[str, str]]:
        route = next(
            (
                r
                for r in ("generateContent", "predictLongRunning", "fetchPredictOperation", "images")
                if r in path
            ),
            None,
        )
        with self.lock:
            self.requests.append({"path": path, "headers": headers, "body": body})
            queued = self.failures.get(route or "", [])
            failure = queued.pop(0) if queued else None
        if route is None:
            return 404, {"error": {"code": 404, "message": f"no route {path}", "status": "NOT_FOUND"}}, {}
        if failure:
            status, ra = failure
            extra = {"Retry-After": ra} if ra else {}
            if route == "images":
                return (
                    status,
                    {"error": {"message": "stub overload", "type": "server_error", "code": status}},
                    extra,
                )
            return (
                status,
                {"error": {"code": status, "message": "stub overload", "status": "UNAVAILABLE"}},
                extra,
            )
        if route == "images":
            return 200, self._openai(path, headers, body), {}
        data = json.loads(body)
        if route == "generateContent":
            return 200, self._generate(data), {}
        if route == "predictLongRunning":
            key = next((v for k, v in headers.items() if k.lower() == "idempotency-key"), "")
            return 200, self._start(path, data, key), {}
        return 200, self._poll(data), {}

    def _generate(self, data: dict) -> dict:
        parts = data["contents"][-1]["parts"]
        prompt = " ".join(p.get("text", "") for p in parts)
        modes = data.get("generationConfig", {}).get("responseModalities", ["TEXT"])
        if "AUDIO" in modes:
            cfg = data["generationConfig"]["speechConfig"]
            vc = cfg.get("voiceConfig") or cfg.get("voice_config")
            pv = vc.get("prebuiltVoiceConfig") or vc.get("prebuilt_voice_config")
            pcm, sr = speech_pcm(prompt, pv.get("voiceName") or pv.get("voice_name"))
            part = {
                "inlineData": {
                    "mimeType": f"audio/L16;codec=pcm;rate={sr}",
                    "data": base64.b64encode(pcm).decode(),
                }
            }
        else:
            refs = [_b64(_inline(p)["data"]) for p in parts if _inline(p)]
            png = scene_png(prompt, refs) if refs or "portrait" not in prompt else portrait_png(prompt)
            part = {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(png).decode()}}
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": len(prompt.split()), "candidatesTokenCount": 1290},
            "modelVersion": "stub",
        }

    def _start(self, path: str, data: dict, key: str = "") -> dict:
        model = path.split("/models/")[1].split(":")[0]
        with self.lock:
            if key:
                self.submissions[key] = self.submissions.get(key, 0) + 1
                if key in self.by_key:  # the provider honours the idempotency key: same operation
                    return {"name": self.by_key[key]}
            op_id = f"op{len(self.operations)}"
            name = f"projects/stub/locations/us-central1/publishers/google/models/{model}/operations/{op_id}"
            self.operations[name] = {"request": data, "polls": 0}
            if key:
                self.by_key[key] = name
        return {"name": name}

    def _poll(self, data: dict) -> dict:
        name = data["operationName"]
        if self.hold_polls:
            with self.lock:
                self.polls_held += 1
            self.release.wait(timeout=120)
        with self.lock:
            op = self.operations[name]
            op["polls"] += 1
            polls = op["polls"]
        if polls < self.polls_until_done:
            return {"name": name, "done": False, "metadata": {}}
        refusal = self.refuse(op["request"]) if self.refuse else None
        if refusal and "error" in refusal:
            return {"name": name, "done": True, "error": refusal["error"]}
        if refusal:
            return {
                "name": name,
                "done": True,
                "response": {
                    "@type": "type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse",
                    "raiMediaFilteredCount": 1,
                    "raiMediaFilteredReasons": refusal["filtered"],
                },
            }
        inst, params = op["request"]["instances"][0], op["request"]["parameters"]
        mp4 = video_mp4(_b64(inst["image"]["bytesBase64Encoded"]), float(params["durationSeconds"]))
        video = {"bytesBase64Encoded": base64.b64encode(mp4).decode(), "mimeType": "video/mp4"}
        return {
            "name": name,
            "done": True,
            "response": {
                "@type": "type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse",
                "raiMediaFilteredCount": 0,
                "videos": [video],
            },
        }

    def _openai(self, path: str, headers: dict[str, str], body: bytes) -> dict:
        if path.endswith("/images/edits"):
            ctype = next(v for k, v in headers.items() if k.lower() == "content-type")
            msg = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {ctype}\r\n\r\n".encode() + body)
            fields, refs = {}, []
            for part in msg.iter_parts():
                name = part.get_param("name", header="content-disposition")
                if name in ("image", "image[]"):
                    refs.append(part.get_payload(decode=True))
                else:
                    fields[name] = part.get_content()
            prompt = fields.get("prompt", "")
            png = scene_png(prompt, refs)
        else:
            prompt = json.loads(body)["prompt"]
            png = portrait_png(prompt) if "portrait" in prompt else scene_png(prompt, [])
        return {
            "created": 0,
            "data": [{"b64_json": base64.b64encode(png).decode()}],
            "usage": {"input_tokens": len(prompt.split()), "output_tokens": 1056, "total_tokens": 0},
        }


def _handler(server: MediaServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else b""
            status, out, extra = server.handle(self.path, dict(self.headers.items()), body)
            data = json.dumps(out).encode()
            try:
                self.send_response(status)
                for k, v in {"Content-Type": "application/json", **extra}.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client was killed meanwhile
                self.close_connection = True

        do_GET = do_POST

    return Handler
