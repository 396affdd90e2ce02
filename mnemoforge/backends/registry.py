"""Backends by name, as a theme's ``render`` section and each voice's ``engine`` choose them."""

from __future__ import annotations

from mnemoforge.backends.image.protocol import ImageBackend
from mnemoforge.backends.speech import get_backend
from mnemoforge.backends.speech.protocol import SpeechBackend
from mnemoforge.schemas.theme import RenderSpec


def image_backend(spec: RenderSpec) -> ImageBackend:
    """The configured image backend; heavy ones are imported only when chosen."""
    if spec.image == "procedural":
        from mnemoforge.backends.image.procedural import ProceduralImageBackend

        return ProceduralImageBackend()
    if spec.image == "diffusers":
        from mnemoforge.backends.image.diffusion import DiffusersImageBackend

        return DiffusersImageBackend(
            spec.image_model, steps=spec.image_steps, allow_network=spec.allow_network
        )
    raise ValueError(f"unknown image backend {spec.image!r}")


class SpeechBackends:
    """One backend instance per engine, created on first use."""

    def __init__(self) -> None:
        self._by_engine: dict[str, SpeechBackend] = {}

    def __getitem__(self, engine: str) -> SpeechBackend:
        if engine not in self._by_engine:
            self._by_engine[engine] = get_backend(engine)
        return self._by_engine[engine]
