"""Veo image-to-video through ``google-genai`` (Vertex AI; an API key selects express mode).

One shot: its still and a prompt go to ``models.generate_videos`` (``POST {base_url}/v1/
publishers/google/models/{model}:predictLongRunning`` with ``instances[0].image`` as base64 and
``parameters.durationSeconds`` in 4/6/8), which returns a long-running operation; it is polled
with ``operations.get`` (``POST .../models/{model}:fetchPredictOperation``) every
``poll_interval_s`` until ``done``, at most ``max_wait_s``. The finished operation carries the
clip as ``response.videos[0].bytesBase64Encoded``. The clip is probed (it must hold video and
last at least as long as asked) and written under the run's media; the clip encoder then
re-encodes it to the release format (frame size, rate, H.264) and lays the speech over it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mnemoforge.backends.image.gemini_image import KEY_ENVS, genai_client
from mnemoforge.backends.image.scene_prompt import aspect_ratio
from mnemoforge.backends.media_api import Attempt, MediaApi, MediaApiError, api_key, cached
from mnemoforge.backends.text.retry import Clock, Outcome, Sleep
from mnemoforge.backends.video.probe import MediaInfo, probe
from mnemoforge.hashing import content_hash
from mnemoforge.schemas.render_api import VideoApiSpec
from mnemoforge.store import atomic

VERTEX_BASE_URL = "https://aiplatform.googleapis.com"
DEFAULT_MODEL = "veo-3.0-generate-001"
CAMERA_WORDS = {
    "static": "The camera holds still.",
    "pan_left": "The camera pans slowly to the left.",
    "pan_right": "The camera pans slowly to the right.",
    "zoom_in": "The camera pushes in slowly.",
    "zoom_out": "The camera pulls back slowly.",
}


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

    def _start(self, image: bytes, prompt: str, seconds: int, ratio: str, seed: int) -> Any:
        types = self._types
        config = types.GenerateVideosConfig(
            duration_seconds=seconds,
            aspect_ratio=ratio,
            seed=seed % 2**31,
            number_of_videos=1,
            generate_audio=self.vspec.generate_audio,
            resolution=self.vspec.resolution,
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

    def generate(self, image: bytes, prompt: str, seconds: int, ratio: str, seed: int) -> bytes:
        """Submit, poll until done, and return the clip's bytes (cached per request)."""
        key = {
            "image": content_hash(image.hex()),
            "prompt": prompt,
            "seconds": seconds,
            "ratio": ratio,
            "seed": seed,
        }

        def run() -> bytes:
            op = self.call("video", key, self._start(image, prompt, seconds, ratio, seed), cache=False)
            waited, t0 = 0.0, self._clock()
            while not op.done:
                if waited > self.vspec.max_wait_s:
                    raise MediaApiError(
                        f"{self.id}: operation {op.name} not done after {self.vspec.max_wait_s:g}s"
                    )
                self._sleep(self.vspec.poll_interval_s)
                waited = max(waited + self.vspec.poll_interval_s, self._clock() - t0)
                op = self.call("video_poll", key, self._poll(op), cache=False)
            if op.error:
                msg = op.error.get("message") if isinstance(op.error, dict) else op.error
                raise MediaApiError(f"{self.id}: operation {op.name} failed: {msg}")
            videos = getattr(op.result, "generated_videos", None) or []
            video = videos[0].video if videos else None
            if video is None or not video.video_bytes:
                filtered = getattr(op.result, "rai_media_filtered_reasons", None)
                raise MediaApiError(
                    f"{self.id}: operation {op.name} returned no video bytes"
                    + (f" (filtered: {filtered})" if filtered else "")
                )
            return bytes(video.video_bytes)

        return cached({"backend": self.provider, "model": self.model, "operation": "video_clip", **key}, run)

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
                raise MediaApiError(f"{self.id}: the returned clip is not a readable video: {e}") from None
            if not info.has_video or info.duration_s + 0.25 < min(seconds, shot_s):
                tmp.unlink(missing_ok=True)
                got = "no video" if not info.has_video else f"{info.duration_s:.2f}s"
                raise MediaApiError(f"{self.id}: the returned clip has {got}, {seconds}s were asked")
            tmp.unlink()
            atomic.write_bytes(out, data)
        return probe(out)
