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

The built-ins are read into ``BUILTIN`` from this project's own ``pyproject.toml`` in a source
checkout (so an editable install whose metadata is stale, made before an entry point was added,
still finds them), else from the installed distribution's metadata; no Python module lists them.
An installed entry point of the same name wins.
"""

from __future__ import annotations

import importlib
import tomllib
from functools import cache
from importlib.metadata import PackageNotFoundError, distribution, entry_points
from pathlib import Path
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
_PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _own_registrations(pyproject: Path = _PYPROJECT) -> dict[str, dict[str, str]]:
    """mnemoforge's own registrations, group -> {name: "module:attribute"}: read from the source
    checkout's ``pyproject.toml`` when there is one (so an editable install whose metadata predates
    an entry point still finds it), else from the installed distribution's metadata."""
    if pyproject.is_file():
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == "mnemoforge":
            eps = project.get("entry-points", {})
            return {g: dict(eps.get(g, {})) for g in GROUPS}
    try:
        found = distribution("mnemoforge").entry_points
    except PackageNotFoundError:  # neither a checkout nor installed: nothing built in
        found = []
    return {g: {ep.name: ep.value for ep in found if ep.group == g} for g in GROUPS}


# the built-in registrations: group -> {name: "module:attribute"}, exactly pyproject.toml's (the
# one place that names them)
BUILTIN: dict[str, dict[str, str]] = _own_registrations()
# the one built-in default a registration cannot express: the family of a theme without ``family:``
# (and of a release manifest that predates families); the only family name in shared code
DEFAULT_FAMILY = "icm"


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
