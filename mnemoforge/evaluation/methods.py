"""Evaluation methods: what each puts in front of the model for one item.

Every method reads the release's agent view only (:func:`load_agent_view`), and only the
observations at or before the item's cutoff (:meth:`AgentView.history`). ``oracle_evidence`` is
additionally handed the gold evidence *ids* (never answers) by the runner; it still shows only
those at or before the cutoff.

=========================  ==========================================================================
``question_only``          the question (and options), no memory
``oracle_evidence``        the gold evidence observations, with their images
``full_context_text``      every observation's text in time order (images as their captions),
                           truncated to the model's context by dropping the oldest (``keep_latest``)
``caption_memory``         icm: one line per clip: caption, visual details, speakerless speech
``asr_only``               icm: the speakerless transcripts only
``retrieval``              the top-K observations by BM25 (or MiniLM: the release's history embedded
                           once, ``evaluation/vectors.py``) against the question, in time order
``full_context_multimodal`` the full text context plus the images (latest first within ``max_images``);
                           video as frames sampled at ``fps``
``retrieval_multimodal``   the retrieved observations with their images
``concentrated:<m>``       smm: method ``<m>`` on the source-concentrated twin (``concentrated`` alone:
                           ``full_context_text``)
=========================  ==========================================================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemoforge import registry
from mnemoforge.evaluation.keys import EvaluationError
from mnemoforge.exporters.views import AgentItem, AgentView
from mnemoforge.validators.answerers.protocol import IMAGE_SUFFIXES

VIDEO_SUFFIXES = (".mp4", ".mov", ".webm", ".mkv")


@dataclass(frozen=True)
class MethodConfig:
    """Knobs a method may use; recorded with every result."""

    top_k: int = 5
    retriever: str = "bm25"
    fps: float = 0.5
    max_frames: int = 4
    max_context_chars: int | None = None
    """None: the model's own limit."""
    max_images: int = 16
    frames_dir: Path | None = None
    on_overflow: str = "retrieval"
    """Full-context methods, an item whose history overflows a model of known context:
    ``retrieval`` (built by the retrieval method instead) or ``truncate`` (the latest lines)."""

    def record(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k,
            "retriever": self.retriever,
            "fps": self.fps,
            "max_frames": self.max_frames,
            "max_context_chars": self.max_context_chars,
            "max_images": self.max_images,
            "on_overflow": self.on_overflow,
        }


@dataclass
class Built:
    """A method's context for one item: memory lines, images, and which observations they came from."""

    lines: list[str]
    images: list[Path] = field(default_factory=list)
    observation_ids: list[str] = field(default_factory=list)
    note: dict[str, Any] = field(default_factory=dict)


@dataclass
class MethodInput:
    view: AgentView
    config: MethodConfig
    evidence: dict[str, list[str]] | None = None  # oracle only: item id -> gold observation ids
    _captions: dict[str, str] | None = None
    _indexes: dict[Any, Any] = field(default_factory=dict)

    def caption_of(self) -> dict[str, str]:
        """Observation id (or clip/episode id) -> caption text, from the release's captions table."""
        if self._captions is None:
            caps: dict[str, str] = {}
            for c in self.view.captions:
                text = " ".join(str(c[k]) for k in ("caption", "visual_details") if c.get(k))
                for ref in ("observation", "observation_id", "image", "clip", "id"):
                    if isinstance(c.get(ref), str) and text:
                        caps.setdefault(c[ref], text)
            self._captions = caps
        return self._captions


def _media(o: dict, suffixes: tuple[str, ...]) -> list[str]:
    return [m for m in o.get("media") or [] if m.lower().endswith(suffixes)]


def text_of(o: dict, inp: MethodInput, with_images: bool = False) -> str:
    """One observation as a memory line: time, source, content; an image as its caption (text methods)."""
    body = (o.get("content") or "").strip()
    if _media(o, IMAGE_SUFFIXES) and not with_images:
        cap = inp.caption_of().get(o["id"])
        body = f"{body} [image: {cap}]".strip() if cap else f"{body} [image]".strip()
    elif _media(o, IMAGE_SUFFIXES):
        body = f"{body} <image>".strip()
    return f"[{o.get('timestamp', '')} | {o.get('source', '')}] {body}".strip()


def fit_latest(lines: list[str], ids: list[str], budget: int | None) -> tuple[list[str], list[str], dict]:
    """Keep the most recent lines that fit ``budget`` characters (the ``keep_latest`` policy)."""
    budget = budget or 10**12
    kept: list[int] = []
    used = 0
    for k in range(len(lines) - 1, -1, -1):
        size = len(lines[k]) + 1
        if used + size > budget:
            break
        kept.append(k)
        used += size
    kept.reverse()
    note = {
        "truncation": "keep_latest",
        "total": len(lines),
        "kept": len(kept),
        "dropped": len(lines) - len(kept),
    }
    return [lines[k] for k in kept], [ids[k] for k in kept], note


def _images(inp: MethodInput, obs: list[dict]) -> list[Path]:
    """Images of these observations (release paths), video as sampled frames (each file once);
    the latest first within ``max_images``, returned in time order."""
    out: list[Path] = []
    seen: set[str] = set()
    root = inp.view.root
    for o in reversed(obs):
        for m in _media(o, IMAGE_SUFFIXES + VIDEO_SUFFIXES):
            if m in seen:
                continue
            seen.add(m)
            if m.lower().endswith(VIDEO_SUFFIXES):
                out += reversed(sample_frames(root / m, inp.config))
            else:
                out.append(root / m)
        if len(out) >= inp.config.max_images:
            break
    return list(reversed(out[: inp.config.max_images]))


def sample_frames(video: Path, config: MethodConfig) -> list[Path]:
    """Frames of ``video`` at ``config.fps`` (at most ``max_frames``), extracted once into ``frames_dir``."""
    import subprocess

    import imageio_ffmpeg

    from mnemoforge.hashing import content_hash, short

    folder = (config.frames_dir or video.parent / ".frames") / short(content_hash(str(video), config.fps))
    frames = sorted(folder.glob("f*.png"))
    if not frames:
        folder.mkdir(parents=True, exist_ok=True)
        cmd = [
            imageio_ffmpeg.get_ffmpeg_exe(),
            "-v",
            "error",
            "-y",
            "-i",
            str(video),
            "-vf",
            f"fps={config.fps}",
            "-frames:v",
            str(config.max_frames),
            str(folder / "f%03d.png"),
        ]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)
        frames = sorted(folder.glob("f*.png"))
    return frames[: config.max_frames]


def _lines(inp: MethodInput, obs: list[dict], with_images: bool = False) -> tuple[list[str], list[str]]:
    keep = [o for o in obs if (o.get("content") or "").strip() or o.get("media")]
    return [text_of(o, inp, with_images) for o in keep], [o["id"] for o in keep]


def question_only(inp: MethodInput, item: AgentItem) -> Built:
    return Built([], note={"context": "none"})


def oracle_evidence(inp: MethodInput, item: AgentItem) -> Built:
    if inp.evidence is None:
        raise EvaluationError("oracle_evidence needs the gold evidence ids")
    gold = set(inp.evidence.get(item.id, []))
    obs = [o for o in inp.view.history(item.cutoff) if o["id"] in gold]
    lines, ids = _lines(inp, obs, with_images=True)
    return Built(lines, _images(inp, obs), ids, {"evidence": len(ids)})


def full_context_text(inp: MethodInput, item: AgentItem) -> Built:
    lines, ids = _lines(inp, inp.view.history(item.cutoff))
    lines, ids, note = fit_latest(lines, ids, inp.config.max_context_chars)
    return Built(lines, [], ids, note)


def _needs_clips(inp: MethodInput, name: str) -> None:
    """``caption_memory`` and ``asr_only`` read an album's clips (a caption per clip, spoken lines)."""
    if not any(c.get("clip") for c in inp.view.captions):
        raise EvaluationError(
            f"method {name} reads clips (an album release, family icm); this one ({inp.view.family}) has none"
        )


def caption_memory(inp: MethodInput, item: AgentItem) -> Built:
    _needs_clips(inp, "caption_memory")
    allowed = {o["episode"] for o in inp.view.history(item.cutoff)}
    by_clip: dict[str, list[str]] = {}
    for o in inp.view.observations:
        by_clip.setdefault(o["episode"], []).append(o["id"])
    lines, clips = [], []
    for c in inp.view.captions:
        clip = c.get("clip")
        if clip not in allowed:
            continue
        parts = [str(c[k]) for k in ("time", "caption", "visual_details") if c.get(k)]
        if c.get("speech"):
            speech = c["speech"] if isinstance(c["speech"], str) else " / ".join(map(str, c["speech"]))
            parts.append(f"Speech: {speech}")
        lines.append(" ".join(parts))
        clips.append(clip)
    lines, clips, note = fit_latest(lines, clips, inp.config.max_context_chars)
    return Built(lines, [], [i for clip in clips for i in by_clip.get(clip, [])], note)


def asr_only(inp: MethodInput, item: AgentItem) -> Built:
    _needs_clips(inp, "asr_only")
    obs = [o for o in inp.view.history(item.cutoff) if o.get("kind") == "speech"]
    lines, ids = _lines(inp, obs)
    lines, ids, note = fit_latest(lines, ids, inp.config.max_context_chars)
    return Built(lines, [], ids, note)


def _retrieve(inp: MethodInput, item: AgentItem) -> tuple[list[dict], dict]:
    obs = [o for o in inp.view.history(item.cutoff) if (o.get("content") or "").strip() or o.get("media")]
    k = inp.config.top_k
    if not obs:
        return [], {"retriever": inp.config.retriever, "top_k": k, "pool": 0}
    if inp.config.retriever == "bm25":
        from mnemoforge.validators.answerers.lexical import BM25
        from mnemoforge.validators.answerers.textnorm import tokens

        key = ("bm25", item.cutoff, inp.view.haystack)
        if key not in inp._indexes:  # one index per history: items sharing a cutoff share the pool
            inp._indexes[key] = BM25([tokens(text_of(o, inp)) for o in obs])
        ranked = inp._indexes[key].rank(tokens(item.question))
    elif inp.config.retriever == "minilm":
        ranked = _minilm_index(inp).rank(item.question, [o["id"] for o in obs])
    else:
        raise EvaluationError(f"--retriever must be bm25 or minilm, got {inp.config.retriever!r}")
    top = sorted(ranked[:k])
    return [obs[i] for i in top], {"retriever": inp.config.retriever, "top_k": k, "pool": len(obs)}


def retrieval_text(o: dict, inp: MethodInput) -> str:
    """What MiniLM embeds of an observation: its content, an image as its caption (no timestamp or
    source prefix: those are the same kind of text on every line and only blur the meaning)."""
    body = (o.get("content") or "").strip()
    if _media(o, IMAGE_SUFFIXES):
        cap = inp.caption_of().get(o["id"])
        body = f"{body} [image: {cap}]".strip() if cap else f"{body} [image]".strip()
    return body


def _minilm_index(inp: MethodInput) -> Any:
    """The release's history embedded once (per process, and on disk by content hash)."""
    key = ("minilm", "release")
    if key not in inp._indexes:
        from mnemoforge.evaluation.vectors import HistoryIndex
        from mnemoforge.validators.answerers import minilm

        reason = minilm.missing()
        if reason:
            raise EvaluationError(f"retriever minilm: {reason}")
        obs = [o for o in inp.view.observations if (o.get("content") or "").strip() or o.get("media")]
        inp._indexes[key] = HistoryIndex([o["id"] for o in obs], [retrieval_text(o, inp) for o in obs])
    return inp._indexes[key]


def retrieval(inp: MethodInput, item: AgentItem) -> Built:
    obs, note = _retrieve(inp, item)
    lines, ids = _lines(inp, obs)
    return Built(lines, [], ids, note)


def full_context_multimodal(inp: MethodInput, item: AgentItem) -> Built:
    obs = inp.view.history(item.cutoff)
    lines, ids = _lines(inp, obs, with_images=True)
    lines, ids, note = fit_latest(lines, ids, inp.config.max_context_chars)
    kept = set(ids)
    images = _images(inp, [o for o in obs if o["id"] in kept])
    return Built(lines, images, ids, {**note, "images": len(images)})


def retrieval_multimodal(inp: MethodInput, item: AgentItem) -> Built:
    obs, note = _retrieve(inp, item)
    lines, ids = _lines(inp, obs, with_images=True)
    images = _images(inp, obs)
    return Built(lines, images, ids, {**note, "images": len(images)})


Method = Callable[[MethodInput, AgentItem], Built]
# the built-in methods; each is registered in the ``mnemoforge.methods`` entry-point group too
# (``mnemoforge.registry``), where an installed package adds its own
METHODS: dict[str, Method] = {
    "question_only": question_only,
    "oracle_evidence": oracle_evidence,
    "full_context_text": full_context_text,
    "caption_memory": caption_memory,
    "asr_only": asr_only,
    "retrieval": retrieval,
    "full_context_multimodal": full_context_multimodal,
    "retrieval_multimodal": retrieval_multimodal,
}
MULTIMODAL = {"oracle_evidence", "full_context_multimodal", "retrieval_multimodal"}


def method_names() -> list[str]:
    """Every registered method (``mnemoforge.methods``: the built-ins of :data:`METHODS`, then
    an installed package's)."""
    return [*METHODS, *(n for n in registry.names(registry.METHODS_GROUP) if n not in METHODS)]


def get_method(name: str) -> Method:
    """The method registered as ``name`` (a built-in, or an installed package's)."""
    return registry.load(registry.METHODS_GROUP, name)  # type: ignore[no-any-return]


def resolve_method(name: str) -> tuple[str, bool]:
    """``(base method, on the concentrated twin?)``; a clear error for an unknown name."""
    concentrated = name == "concentrated" or name.startswith("concentrated:")
    base = name.split(":", 1)[1] if name.startswith("concentrated:") else name
    if base == "concentrated":
        base = "full_context_text"
    if base not in (names := method_names()):
        known = ", ".join([*names, "concentrated[:METHOD]"])
        raise EvaluationError(f"--method {name!r}: unknown; known methods: {known}")
    return base, concentrated
