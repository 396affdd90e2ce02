"""One registry for plugins: Python entry points, looked up by group and name.

An installed package adds a family (or another plugin kind) by declaring an entry point in its
``pyproject.toml``; nothing in this project is edited::

    [project.entry-points."mnemoforge.families"]
    diary = "my_package.family:FAMILY"

The groups (``GROUPS``) and what each entry point names:

- ``mnemoforge.families``: a ``mnemoforge.family.Family`` instance. The built-in families
  register here too (this project's own ``pyproject.toml``).
- ``mnemoforge.exporters``: a ``mnemoforge.exporters.peers.formats.PeerFormat`` (a peer
  benchmark's format for ``mnemoforge export --format NAME``).
- ``mnemoforge.methods``: an evaluation method, ``(MethodInput, AgentItem) -> Built``
  (``mnemoforge.evaluation.methods``; ``mnemoforge evaluate --method NAME``).
- ``mnemoforge.image_backends``: a factory ``(RenderSpec) -> ImageBackend``
  (``mnemoforge.backends.registry``; a theme's ``render.image: NAME``).
- ``mnemoforge.video_backends``: a factory ``(RenderSpec) -> clip generator | None``
  (``mnemoforge.backends.registry``; a theme's ``render.video: NAME``; ``None``: ffmpeg camera
  moves over the still, no generator).
- ``mnemoforge.speech_backends``: a factory ``(RenderSpec | None) -> SpeechBackend``
  (``mnemoforge.backends.registry``; a person's ``voice.engine: NAME``).
- ``mnemoforge.text_backends``: a ``TextBackend`` class whose constructor takes the settings of a
  ``text.backend`` / answerer block (``mnemoforge.backends.text.registry``; ``provider: NAME``).

Built-ins are also listed in ``BUILTIN`` so that a source checkout whose installed metadata is
stale (an editable install made before an entry point was added) still finds them; an installed
entry point of the same name wins.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import entry_points
from typing import Any

FAMILIES_GROUP = "mnemoforge.families"
EXPORTERS_GROUP = "mnemoforge.exporters"
METHODS_GROUP = "mnemoforge.methods"
IMAGE_BACKENDS_GROUP = "mnemoforge.image_backends"
VIDEO_BACKENDS_GROUP = "mnemoforge.video_backends"
SPEECH_BACKENDS_GROUP = "mnemoforge.speech_backends"
TEXT_BACKENDS_GROUP = "mnemoforge.text_backends"
GROUPS = (
    FAMILIES_GROUP, EXPORTERS_GROUP, METHODS_GROUP, IMAGE_BACKENDS_GROUP, VIDEO_BACKENDS_GROUP,
    SPEECH_BACKENDS_GROUP, TEXT_BACKENDS_GROUP,
)  # fmt: skip
_METHODS = (
    "question_only", "oracle_evidence", "full_context_text", "caption_memory", "asr_only", "retrieval",
    "full_context_multimodal", "retrieval_multimodal",
)  # fmt: skip

# the built-in registrations: group -> {name: "module:attribute"} (same as pyproject.toml's,
# ``tests/test_registry.py``). Kept as a table, not read from the installed metadata: the metadata
# sorts each group, and the JSON schemas list the built-ins in this order (every release ships
# them), so a wheel install and a checkout must agree. The family names here and in
# ``DEFAULT_FAMILY`` are the only ones in shared code (``tests/test_family_boundary.py``).
BUILTIN: dict[str, dict[str, str]] = {
    FAMILIES_GROUP: {
        "icm": "mnemoforge.generators.icm.family:FAMILY",
        "smm": "mnemoforge.generators.smm.family:FAMILY",
        "memeye": "mnemoforge.generators.memeye.family:FAMILY",
    },
    EXPORTERS_GROUP: {
        "locomo": "mnemoforge.exporters.peers.formats:LOCOMO",
        "m3bench": "mnemoforge.exporters.peers.formats:M3BENCH",
        "memeye": "mnemoforge.generators.memeye.peer_format:MEMEYE",
    },
    METHODS_GROUP: {m: f"mnemoforge.evaluation.methods:{m}" for m in _METHODS},
    IMAGE_BACKENDS_GROUP: {
        b: f"mnemoforge.backends.registry:{b}_images" for b in ("procedural", "diffusers", "gemini", "openai")
    },
    VIDEO_BACKENDS_GROUP: {b: f"mnemoforge.backends.registry:{b}_video" for b in ("ffmpeg", "veo")},
    SPEECH_BACKENDS_GROUP: {
        b: f"mnemoforge.backends.registry:{b}_speech" for b in ("espeak", "piper", "coqui")
    },
    TEXT_BACKENDS_GROUP: {
        "openai": "mnemoforge.backends.text.openai_compat:OpenAICompatBackend",
        "gemini": "mnemoforge.backends.text.gemini:GeminiBackend",
    },
}
DEFAULT_FAMILY = "icm"  # a theme without ``family:`` (and a manifest that predates families)


class UnknownPlugin(KeyError):
    """A name no installed package registers in the group."""

    def __str__(self) -> str:
        return str(self.args[0])


@cache
def targets(group: str) -> dict[str, str]:
    """Every registration of ``group``: name -> ``"module:attribute"`` (built-ins, then installed)."""
    out = dict(BUILTIN.get(group, {}))
    for ep in entry_points(group=group):
        out[ep.name] = ep.value
    return dict(sorted(out.items()))


def names(group: str) -> list[str]:
    """Every name registered in ``group``, sorted."""
    return list(targets(group))


def load(group: str, name: str) -> Any:
    """The object registered as ``name`` in ``group`` (its module is imported on first use)."""
    known = targets(group)
    if name not in known:
        raise UnknownPlugin(f"{name!r} is not registered in {group}; known: {sorted(known)}")
    module, _, attr = known[name].partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj
