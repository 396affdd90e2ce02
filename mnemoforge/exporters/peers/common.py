"""What every peer exporter shares: the release read back, the album walked in order, file helpers.

A clip is walked as a list of *units*, one per observation: each shot, then the dialogue lines
spoken in it, in plan order. Peer formats number their turns/rounds by this walk (LoCoMo's
``D{session}:{turn}``, MemEye's ``{TASK}_S{session}:R{round}``), and the readers invert it, so a
peer evidence id maps back to exactly one observation id.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple, TypeVar

from pydantic import BaseModel

from mnemoforge import registry
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.exporters.views import load_agent_view
from mnemoforge.registry import DEFAULT_FAMILY
from mnemoforge.schemas.episodes import Clip, DialogueLine, Shot
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.store.atomic import atomic_path, file_mode

# the album family (clips, shots, speech) every built-in peer format reads: the default family,
# so this module names no family (a theme without ``family:`` is an album)
ALBUM = DEFAULT_FAMILY

MARKER = "mnemoforge_export.json"
M = TypeVar("M", bound=BaseModel)


class ExportError(RuntimeError):
    """The export cannot be written (unmapped category, bad output folder, broken reference)."""


class PeerItem(NamedTuple):
    """One question as read back from a peer export, in mnemoforge's terms."""

    id: str
    question: str
    answer: str
    category: str | None
    evidence: tuple[str, ...]
    cutoff: int
    choices: tuple[tuple[str, ...], ...] | None = None  # MCQ: option texts per rotation, letter order


class Unit(NamedTuple):
    """One observation of a clip in walk order: a shot, or a line spoken in it."""

    kind: Literal["shot", "line"]
    obs_id: str
    shot: Shot
    line: DialogueLine | None


@dataclass(frozen=True)
class ReleaseData:
    """A frozen release read back from disk (records validated by their schemas)."""

    root: Path
    name: str
    version: str
    family: str
    world: World
    clips: list[Clip]
    observations: dict[str, Observation]
    captions: dict[str, dict]  # clip id -> caption row, from the agent view
    questions: list[Question]
    videos: dict[str, str]  # clip id -> release-relative video path
    texts: dict[str, str] | None = None  # observation id -> content, from the agent view

    def text(self, obs_id: str) -> str:
        """What the agent reads of an observation (a spoken line's words), from the agent view."""
        if self.texts is None or obs_id not in self.texts:
            raise ExportError(f"{self.root}: observation {obs_id} is not in the release's agent view")
        return self.texts[obs_id]

    @property
    def last_index(self) -> int:
        """Index of the last clip: the cutoff that stands for the full timeline."""
        return max(c.index for c in self.clips)

    def name_of(self, person: str) -> str:
        return self.world.person(person).name

    @property
    def protagonist(self) -> str:
        return self.name_of(self.world.protagonist)

    def still(self, shot_id: str) -> str:
        """Release-relative path of a shot's still image."""
        obs = self.observations.get(shot_id)
        for m in obs.media if obs else []:
            if m.startswith("media/shots/"):
                return m
        return f"media/shots/{shot_id}.png"

    def caption(self, clip: Clip, shot: Shot) -> str:
        """A short, name-free caption for a shot: the clip's caption plus this shot's framing."""
        cap = self.captions.get(clip.id, {})
        text = str(cap.get("caption", "")).strip() or f"A photo taken at {clip.occasion}."
        prefix = f"shot {shot.index + 1}: "
        detail = next((d[len(prefix) :] for d in cap.get("visual_details", []) if d.startswith(prefix)), "")
        return f"{text} ({detail})" if detail else text


def read_manifest(root: Path) -> dict:
    """A release's ``MANIFEST.json`` (an ExportError if ``root`` is not a release folder)."""
    manifest_path = Path(root) / "MANIFEST.json"
    if not manifest_path.is_file():
        raise ExportError(f"{root}: not a release folder (no MANIFEST.json)")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if not isinstance(manifest, dict):
        raise ExportError(f"{manifest_path}: not a release manifest (expected a JSON object)")
    return manifest


def release_family(root: Path) -> str:
    """The release's family (``icm`` when the manifest predates families)."""
    return str(read_manifest(root).get("family", DEFAULT_FAMILY))


def load_release(root: Path) -> ReleaseData:
    """Read an album release (``MANIFEST.json``, ``data/world.json``, ``data/icm/*.jsonl``)."""
    root = Path(root)
    manifest = read_manifest(root)
    fam = manifest.get("family", ALBUM)
    if fam != ALBUM:
        # a format registered under the family's own name exports it natively (names only: no
        # format module is imported here)
        native = fam in registry.names(registry.EXPORTERS_GROUP)
        hint = f" ({fam} releases export natively with --format {fam})" if native else ""
        raise ExportError(f"{root}: this reads album releases (family {ALBUM}); this is family {fam!r}{hint}")
    data = root / "data" / fam
    clip_rows = read_jsonl(data / "clips.jsonl")
    clips = sorted((validate_row(Clip, r) for r in clip_rows), key=lambda c: c.index)
    obs = [validate_row(Observation, r) for r in read_jsonl(data / "observations.jsonl")]
    agent = load_agent_view(root)  # the model's side of every export: captions and texts
    return ReleaseData(
        root=root,
        name=manifest["name"],
        version=manifest["version"],
        family=fam,
        world=World.model_validate_json((root / "data" / "world.json").read_text(encoding="utf-8")),
        clips=clips,
        observations={o.id: o for o in obs},
        captions={c["clip"]: c for c in agent.captions if "clip" in c},
        questions=[validate_row(Question, r) for r in read_jsonl(data / "questions.jsonl")],
        videos={r["id"]: r.get("video") or f"media/clips/{r['id']}.mp4" for r in clip_rows},
        texts={o["id"]: o.get("content", "") for o in agent.observations},
    )


def validate_row(model: type[M], row: dict) -> M:
    """Validate a release row, ignoring release-only columns (e.g. a clip's ``video`` path)."""
    return model.model_validate({k: v for k, v in row.items() if k in model.model_fields})


def clip_units(clip: Clip) -> list[Unit]:
    """The clip's observations in walk order: each shot, then the lines spoken during it."""
    units: list[Unit] = []
    for shot in clip.shots:
        units.append(Unit("shot", shot.id, shot, None))
        units.extend(Unit("line", line.id, shot, line) for line in shot.dialogue)
    return units


def unit_index(clips: list[Clip]) -> dict[str, tuple[Clip, int]]:
    """Observation id -> (its clip, its 1-based position in the clip's walk)."""
    return {u.obs_id: (c, i) for c in clips for i, u in enumerate(clip_units(c), start=1)}


def effective_cutoff(cutoff: int | None, last_index: int) -> int:
    """The latest accessible clip index; ``None`` (full timeline) is the last clip."""
    return last_index if cutoff is None else cutoff


def require(mapping: dict, key: str, fmt: str, what: str = "category"):  # type: ignore[no-untyped-def]
    """``mapping[key]``, or an ExportError naming the format and the constant to extend."""
    try:
        return mapping[key]
    except KeyError:
        raise ExportError(f"{fmt}: no mapping for {what} {key!r}; extend the module's constant") from None


def place_file(src: Path, dst: Path) -> Path:
    """Hard-link ``src`` at ``dst`` (copy across filesystems); atomic, idempotent.

    Exports are read by other people's tools, so every placed file is readable by all (0644): a
    source that is not is copied and the copy opened up (a hard link would share, and so change,
    the release file's mode)."""
    shareable = os.stat(src).st_mode & 0o444 == 0o444
    if shareable and dst.exists() and os.path.samefile(src, dst):
        return dst
    with atomic_path(dst) as tmp:
        try:
            if not shareable:
                raise OSError("copy: the source is not readable by all")
            os.link(src, tmp)
        except OSError:
            shutil.copyfile(src, tmp)
            os.chmod(tmp, file_mode())
    return dst


def readable(path: Path) -> Path:
    """Make a file the export wrote readable like any dataset (0644 under umask 022)."""
    os.chmod(path, file_mode())
    return path


def write_ordered_json(path: Path, obj: object) -> Path:
    """JSON in the peer's own key order (insertion order, 2-space indent, UTF-8), readable by all."""
    text = json.dumps(obj, ensure_ascii=False, indent=2) + "\n"
    with atomic_path(Path(path)) as tmp:
        tmp.write_text(text, encoding="utf-8")
        os.chmod(tmp, file_mode())
    return Path(path)


def load_json(path: Path) -> object:
    return json.loads(Path(path).read_text(encoding="utf-8"))
