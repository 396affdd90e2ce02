"""Image backends: a Protocol plus the offline procedural (Pillow) implementation."""

from mnemoforge.backends.image.procedural import ProceduralImageBackend, png_bytes
from mnemoforge.backends.image.protocol import (
    ImageBackend,
    PersonPlacement,
    PropPlacement,
    SceneLayout,
    SceneRequest,
)

__all__ = [
    "ImageBackend",
    "PersonPlacement",
    "ProceduralImageBackend",
    "PropPlacement",
    "SceneLayout",
    "SceneRequest",
    "png_bytes",
]
