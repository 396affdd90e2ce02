"""Veo image-to-video through ``google-genai`` (Vertex AI; an API key selects express mode).

One shot: its still and a prompt go to ``models.generate_videos`` (``POST {base_url}/v1/
publishers/google/models/{model}:predictLongRunning`` with ``instances[0].image`` as base64 and
``parameters.durationSeconds`` in 4/6/8), which returns a long-running operation; it is polled
with ``operations.get`` (``POST .../models/{model}:fetchPredictOperation``) every
``poll_interval_s`` until ``done``, at most ``max_wait_s``. The finished operation carries the
clip as ``response.videos[0].bytesBase64Encoded``. The clip is probed (it must hold video and
last at least as long as asked) and written under the run's media; the clip encoder then
re-encodes it to the release format (frame size, rate, H.264) and lays the speech over it.

Paid once: the request's idempotency key (``MediaApi.request_key``: image, prompt, seconds,
ratio, seed, audio) is sent as ``Idempotency-Key``, and the operation's name is journaled
(``store/operations.py``, fsync'd) before the first poll, so a build killed while polling resumes
by polling that operation; it never submits the same request twice. A finished clip is kept in the
run's model-output cache under the same key. ``generateAudio`` is off unless the theme turns it on:
the album lays its own speech and ambient bed over every shot, so Veo's audio would be paid for
and thrown away.

A refusal is classified: ``VeoFiltered`` (the safety filter: ``raiMediaFilteredReasons``, or an
error message saying so) and ``VeoFailed`` (a permanent error: the operation failed, the reply had
no video, the clip was unreadable) are permanent (``MediaApiError.permanent``) and journaled, so a
resume does not pay for the same refusal again; ``backends/video/fallback.py`` decides what the shot
does next.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mnemoforge.backends.image.gemini_image import KEY_ENVS, genai_client
from mnemoforge.backends.image.scene_prompt import aspect_ratio
from mnemoforge.backends.media_api import (
    IDEMPOTENCY_HEADER,
    Attempt,
    MediaApi,
    MediaApiError,
    api_key,
    cached,
)
from mnemoforge.backends.text.retry import Clock, Outcome, Sleep
from mnemoforge.backends.video.probe import MediaInfo, probe
from mnemoforge.hashing import content_hash
from mnemoforge.schemas.render_api import VideoApiSpec
from mnemoforge.store import atomic, operations

VERTEX_BASE_URL = "https://aiplatform.googleapis.com"
DEFAULT_MODEL = "veo-3.0-generate-001"
CAMERA_WORDS = {
    "static": "The camera holds still.",
    "pan_left": "The camera pans slowly to the left.",
    "pan_right": "The camera pans slowly to the right.",
    "zoom_in": "The camera pushes in slowly.",
    "zoom_out": "The camera pulls back slowly.",
}


SAFETY_WORDS = ("safety", "filtered", "responsible ai", "violat", "policy", "rai ")
"""Words of an operation's error message that mean a safety refusal rather than another failure."""


class VeoFiltered(MediaApiError):
    """Veo's safety filter refused the request (``reasons`` as the API gave them)."""

    permanent = True

    def __init__(self, message: str, reasons: list[str]) -> None:
        super().__init__(message)
        self.reasons = reasons


class VeoFailed(MediaApiError):
    """The operation failed for good (an error, no video in the reply, an unreadable clip)."""

    permanent = True


def _refusal(entry: dict) -> MediaApiError:
    """The error a journaled refusal stands for (raised again on resume, nothing paid)."""
    if entry.get("kind") == "filtered":
        return VeoFiltered(entry.get("detail", "filtered"), list(entry.get("reasons", [])))
    return VeoFailed(entry.get("detail", "failed"))


def veo_duration(shot_s: float, allowed: list[int]) -> int:
    """The shortest allowed clip length that covers the shot (the longest if none does)."""
    fits = [d for d in sorted(allowed) if d + 1e-6 >= shot_s]
    return fits[0] if fits else max(allowed)


def shot_prompt(description: str, camera: str) -> str:
    """Motion prompt: keep the still's people, place and objects, move as the shot plan says."""
    return (
        f"Animate this exact frame as a short, natural video shot. Keep every person's face, "
        f"clothes and every object unchanged. {CAMERA_WORDS.get(camera, '')} {description}"
    ).strip()


class VeoBackend(MediaApi):
    """Shot clips from a Veo model; ``shot_clip`` writes and probes one."""

    provider = "veo"

    def __init__(
        self,
        spec: VideoApiSpec | None = None,
        *,
        seed: int = 0,
        sleep: Sleep = time.sleep,
        clock: Clock = time.monotonic,
    ) -> None:
        spec = spec or VideoApiSpec()
        key = "" if spec.project else api_key(spec, KEY_ENVS, "Veo")
        super().__init__(spec, DEFAULT_MODEL, VERTEX_BASE_URL, key, seed=seed, sleep=sleep, clock=clock)
        self.vspec = spec
        self._client, self._types = genai_client(
            spec,
            key,
            self.base_url,
            vertex=True,
            api_version="v1",
            project=spec.project,
            location=spec.location,
        )

    @property
    def generate_audio(self) -> bool:
        """Veo's own audio: off unless the theme asks (the album dubs speech and ambience)."""
        return bool(self.vspec.generate_audio)

    def _start(self, image: bytes, prompt: str, seconds: int, ratio: str, seed: int, key: str) -> Any:
        types = self._types
        config = types.GenerateVideosConfig(
            duration_seconds=seconds,
            aspect_ratio=ratio,
            seed=seed % 2**31,
            number_of_videos=1,
            generate_audio=self.generate_audio,
            resolution=self.vspec.resolution,
            http_options=types.HttpOptions(headers={IDEMPOTENCY_HEADER: key}),
        )
        source = types.GenerateVideosSource(
            prompt=prompt, image=types.Image(image_bytes=image, mime_type="image/png")
        )

        def attempt() -> Attempt:
            op = self._client.models.generate_videos(model=self.model, source=source, config=config)
            if not getattr(op, "name", None):
                return Attempt(Outcome(False, status=200, error="reply names no operation"))
            return Attempt(Outcome(True, status=200), op, {"media_seconds": float(seconds)})

        return attempt

    def _poll(self, op: Any) -> Any:
        def attempt() -> Attempt:
            return Attempt(Outcome(True, status=200), self._client.operations.get(op))

        return attempt

    def _request(self, image: bytes, prompt: str, seconds: int, ratio: str, seed: int) -> dict[str, Any]:
        """What the clip depends on (its idempotency key and cache entry are derived from this)."""
        parts: dict[str, Any] = {
            "image": content_hash(image.hex()),
            "prompt": prompt,
            "seconds": seconds,
            "ratio": ratio,
            "seed": seed,
        }
        if self.generate_audio:  # off (the default) leaves the keys of earlier builds as they were
            parts["audio"] = True
        return parts

    def _outcome(self, op: Any, key: str) -> bytes:
        """The clip of a finished operation, or the classified refusal (journaled)."""
        if op.error:
            msg = op.error.get("message") if isinstance(op.error, dict) else str(op.error)
            text = f"{self.id}: operation {op.name} failed: {msg}"
            if any(w in str(msg).lower() for w in SAFETY_WORDS):
                operations.save(key, state="failed", kind="filtered", detail=text, reasons=[str(msg)])
                raise VeoFiltered(text, [str(msg)])
            operations.save(key, state="failed", kind="failed", detail=text)
            raise VeoFailed(text)
        videos = getattr(op.result, "generated_videos", None) or []
        video = videos[0].video if videos else None
        if video is None or not video.video_bytes:
            reasons = [str(r) for r in getattr(op.result, "rai_media_filtered_reasons", None) or []]
            if reasons or (getattr(op.result, "rai_media_filtered_count", 0) or 0) > 0:
                text = f"{self.id}: operation {op.name} filtered: {'; '.join(reasons) or 'no reason given'}"
                operations.save(key, state="failed", kind="filtered", detail=text, reasons=reasons)
                raise VeoFiltered(text, reasons)
            text = f"{self.id}: operation {op.name} returned no video bytes"
            operations.save(key, state="failed", kind="failed", detail=text)
            raise VeoFailed(text)
        return bytes(video.video_bytes)

    def generate(self, image: bytes, prompt: str, seconds: int, ratio: str, seed: int) -> bytes:
        """Submit once (or resume the journaled operation), poll until done, return the clip's bytes
        (cached per request); a refusal raises ``VeoFiltered`` / ``VeoFailed``."""
        request = self._request(image, prompt, seconds, ratio, seed)
        key = self.request_key("video_clip", request)

        def run() -> bytes:
            entry = operations.load(key)
            if entry and entry.get("state") == "failed":
                raise _refusal(entry)  # refused before: the same request is not paid for again
            if entry and entry.get("name"):
                op = self._types.GenerateVideosOperation(name=entry["name"])
            else:
                start = self._start(image, prompt, seconds, ratio, seed, key)
                billed = "video_audio" if self.generate_audio else "video"  # priced per second of each
                op = self.call(billed, request, start, cache=False, key=key)
                operations.save(
                    key, state="submitted", name=op.name, backend=self.provider, model=self.model,
                    seconds=seconds,
                )  # fmt: skip
            waited, t0 = 0.0, self._clock()
            while not op.done:
                if waited > self.vspec.max_wait_s:
                    raise MediaApiError(
                        f"{self.id}: operation {op.name} not done after {self.vspec.max_wait_s:g}s"
                    )
                self._sleep(self.vspec.poll_interval_s)
                waited = max(waited + self.vspec.poll_interval_s, self._clock() - t0)
                op = self.call("video_poll", request, self._poll(op), cache=False, key=key)
            data = self._outcome(op, key)
            operations.save(key, state="done")
            return data

        return cached(self.cache_parts("video_clip", request), run)

    def shot_clip(
        self,
        still: Path,
        out: Path,
        shot_s: float,
        description: str,
        camera: str,
        seed: int,
        width: int,
        height: int,
    ) -> MediaInfo:
        """Generate (or reuse) the clip of one shot at ``out``; probe it."""
        if not out.exists():
            seconds = veo_duration(shot_s, self.vspec.durations)
            data = self.generate(
                Path(still).read_bytes(),
                shot_prompt(description, camera),
                seconds,
                aspect_ratio(width, height),
                seed,
            )
            tmp = out.with_name(f"{atomic.TMP_PREFIX}{out.name}.probe.mp4")
            tmp.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            try:
                info = probe(tmp)
            except OSError as e:
                tmp.unlink(missing_ok=True)
                raise VeoFailed(f"{self.id}: the returned clip is not a readable video: {e}") from None
            if not info.has_video or info.duration_s + 0.25 < min(seconds, shot_s):
                tmp.unlink(missing_ok=True)
                got = "no video" if not info.has_video else f"{info.duration_s:.2f}s"
                raise VeoFailed(f"{self.id}: the returned clip has {got}, {seconds}s were asked")
            tmp.unlink()
            atomic.write_bytes(out, data)
        return probe(out)
