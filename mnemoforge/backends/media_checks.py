"""Theme checks for the API media backends (``render.image: gemini|openai``, ``video: veo``,
``speech: gemini``): the SDK is installed, a key is set, the voices exist. One line per problem."""

from __future__ import annotations

import importlib.util
import os

from mnemoforge.schemas.render_api import ApiSpec
from mnemoforge.schemas.theme import Theme

GEMINI_KEYS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")


def _key_problem(field: str, spec: ApiSpec | None, defaults: tuple[str, ...]) -> list[tuple[str, str]]:
    envs = (spec.api_key_env,) if spec and spec.api_key_env else defaults
    if any(os.environ.get(e) for e in envs):
        return []
    return [(f"render.{field}.api_key_env", f"no API key: set {' or '.join(envs)}")]


def _sdk_problem(field: str, module: str, package: str) -> list[tuple[str, str]]:
    if importlib.util.find_spec(module.split(".")[0]) is None or importlib.util.find_spec(module) is None:
        return [(f"render.{field}", f"needs the `{package}` package: pip install 'mnemoforge[text]'")]
    return []


def media_api_problems(theme: Theme) -> list[tuple[str, str]]:
    """Problems of the API media backends a theme selects (none for the offline defaults)."""
    r = theme.render
    out: list[tuple[str, str]] = []
    if r.image == "gemini":
        out += _sdk_problem("image", "google.genai", "google-genai") or _key_problem(
            "image_api", r.image_api, GEMINI_KEYS
        )
    elif r.image == "openai":
        out += _sdk_problem("image", "openai", "openai") or _key_problem(
            "image_api", r.image_api, ("OPENAI_API_KEY",)
        )
    if r.video == "veo":
        vertex_project = r.video_api is not None and r.video_api.project
        out += _sdk_problem("video", "google.genai", "google-genai") or (
            [] if vertex_project else _key_problem("video_api", r.video_api, GEMINI_KEYS)
        )
    if r.speech == "gemini":
        out += _sdk_problem("speech", "google.genai", "google-genai") or _key_problem(
            "speech_api", r.speech_api, GEMINI_KEYS
        )
        from mnemoforge.backends.speech.gemini_tts import PREBUILT_VOICES

        people = {p.id for p in theme.cast}
        for pid, voice in sorted((r.speech_api.voices if r.speech_api else {}).items()):
            if pid not in people:
                out.append(
                    (f"render.speech_api.voices.{pid}", f"no such person (cast: {', '.join(sorted(people))})")
                )
            elif voice not in PREBUILT_VOICES:
                out.append((f"render.speech_api.voices.{pid}", f"{voice!r} is not a Gemini prebuilt voice"))
    return out
