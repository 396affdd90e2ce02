"""M3-Bench export: the album as one long video cut into clips, for M3-Agent-style harnesses.

Layout (paths relative to the export folder; run a harness with the export folder as cwd)::

    annotations/<name>.json        {video_id: {"video_path", "mem_path", "qa_list": [...]}}
                                   (the shape of M3-Bench's data/annotations/robot.json)
    data.jsonl                     M3-Agent memorization input, one line per video:
                                   {"id", "video_path", "clip_path", "mem_path", "intermediate_path"}
    videos/<name>.mp4              every clip joined in order (ffmpeg concat, stream copy)
    clips/<name>/<index>.mp4       hard links to media/clips/<clip>.mp4, named by clip index
    mnemoforge_export.json         question ids per video (the export's join table)

Choice: the whole album is *one* video (``video_id`` = release name) made of its clips, so
``before_clip`` keeps its M3-Bench meaning: the index of the latest clip the agent may have
seen (M3-Agent's ``truncate_memory_by_clip`` keeps clip ``before_clip`` and everything
before). The clips are already cut, so M3-Agent's 30-second cutting step is skipped: its
memorization globs ``clip_path/*`` and parses each file name as the integer clip id, which is
why the clip files are named ``<index>.mp4`` rather than by clip id. Clip 0 is the
calibration clip (faces and voices introduce themselves); it is kept, as ICM allows video
methods to use it. ``mem_path``/``intermediate_path`` are where M3-Agent will write its
memory graph and intermediate outputs; they do not exist until it runs.

QA fields: ``question``, ``answer``, ``question_id`` (our id), ``type`` (list, below),
``before_clip`` = the question's cutoff (``null`` = full timeline -> the last clip index),
``timestamp`` = ``MM:SS`` in ``videos/<name>.mp4`` at the end of clip ``before_clip`` (planned
durations), ``reasoning`` = ``"Evidence: <observation ids>; clips <indices>."`` (M3-Bench has no
evidence field; its rationale names the evidence, and :func:`read_m3bench` parses it back).

Types (:data:`TYPE_MAP`), from M3-Bench's question types (Multi-Detail Reasoning, Multi-Hop
Reasoning, Cross-Modal Reasoning, Human Understanding, General Knowledge Extraction). Every ICM
item is about people, so all carry "Human Understanding":

* ``identity_recall`` -> ["Human Understanding"]: one event, who/what/where.
* ``cross_episode_retrieval`` -> ["Human Understanding", "Multi-Hop Reasoning"]: evidence in
  several clips must be linked (e.g. a face seen with an object, its name heard earlier).
* ``profile_inference`` -> ["Human Understanding", "Multi-Detail Reasoning"]: many scattered
  details aggregated into a profile (usual choice, habit, relation).

"Cross-Modal Reasoning" is added when the evidence mixes shots (vision) and speech; the inverse
(:data:`CATEGORY_FROM_TYPE`) ignores it.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from mnemoforge.backends.video.probe import ffmpeg_exe
from mnemoforge.exporters.peers.common import (
    MARKER,
    ExportError,
    PeerItem,
    ReleaseData,
    effective_cutoff,
    load_json,
    load_release,
    place_file,
    require,
)
from mnemoforge.store.atomic import atomic_path, write_json, write_jsonl

FORMAT = "m3bench"
CROSS_MODAL = "Cross-Modal Reasoning"
TYPE_MAP: dict[str, list[str]] = {
    "identity_recall": ["Human Understanding"],
    "cross_episode_retrieval": ["Human Understanding", "Multi-Hop Reasoning"],
    "profile_inference": ["Human Understanding", "Multi-Detail Reasoning"],
}
CATEGORY_FROM_TYPE: dict[tuple[str, ...], str] = {tuple(sorted(v)): k for k, v in TYPE_MAP.items()}
_REASONING = re.compile(r"^Evidence: (?P<ids>[^;]*); clips (?P<clips>[^.]*)\.$")


def _timestamp(rel: ReleaseData, before_clip: int) -> str:
    seconds = sum(c.duration_s for c in rel.clips if c.index <= before_clip)
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def _types(rel: ReleaseData, category: str, evidence: list[str]) -> list[str]:
    types = list(require(TYPE_MAP, category, FORMAT))
    kinds = {rel.observations[o].kind for o in evidence if o in rel.observations}
    return [*types, CROSS_MODAL] if {"shot", "speech"} <= kinds else types


def concat_clips(clips: list[Path], out: Path) -> Path:
    """Join same-encoding MP4 clips into ``out`` with ffmpeg's concat demuxer (stream copy)."""
    with tempfile.TemporaryDirectory(prefix="mf-concat-") as td, atomic_path(out) as tmp:
        listing = Path(td) / "clips.ffconcat"
        quoted = (str(p.resolve()).replace("'", "'\\''") for p in clips)
        listing.write_text("ffconcat version 1.0\n" + "".join(f"file '{q}'\n" for q in quoted))
        cmd = [ffmpeg_exe(), "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
        cmd += ["-f", "concat", "-safe", "0", "-i", str(listing), "-map", "0", "-c", "copy"]
        cmd += ["-fflags", "+bitexact", "-map_metadata", "-1", "-movflags", "+faststart"]
        cmd += ["-f", "mp4", str(tmp)]
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, check=False)
        if proc.returncode != 0:
            tail = proc.stderr.decode("utf-8", "replace")[-2000:]
            raise ExportError(f"{FORMAT}: ffmpeg could not join the clips into {out}: {tail}")
    return out


def export_m3bench(rel: ReleaseData, out: Path) -> tuple[list[Path], list[dict]]:
    """Write annotations, data.jsonl, the joined video and the clip files."""
    vid = rel.name
    files: list[Path] = []
    sources = []
    for clip in rel.clips:
        src = rel.root / rel.videos[clip.id]
        if not src.is_file():
            raise ExportError(f"{FORMAT}: missing clip file {src}")
        sources.append(src)
        files.append(place_file(src, out / "clips" / vid / f"{clip.index}.mp4"))
    video_path = f"videos/{vid}.mp4"
    files.append(concat_clips(sources, out / video_path))
    mem_path = f"memory_graphs/{vid}.pkl"
    qa_list, items = [], []
    for q in rel.questions:
        before = effective_cutoff(q.cutoff, rel.last_index)
        clips = sorted({rel.observations[o].order for o in q.evidence if o in rel.observations})
        qa_list.append(
            {
                "question": q.question,
                "answer": q.answer,
                "question_id": q.id,
                "reasoning": f"Evidence: {', '.join(q.evidence)}; clips {', '.join(map(str, clips))}.",
                "timestamp": _timestamp(rel, before),
                "type": _types(rel, q.category, q.evidence),
                "before_clip": before,
            }
        )
        items.append({"video_id": vid, "question_id": q.id, "id": q.id})
    annotations = {vid: {"video_path": video_path, "mem_path": mem_path, "qa_list": qa_list}}
    files.append(write_json(out / "annotations" / f"{vid}.json", annotations))
    sample = {
        "id": vid,
        "video_path": video_path,
        "clip_path": f"clips/{vid}",
        "mem_path": mem_path,
        "intermediate_path": f"intermediate_outputs/{vid}",
    }
    files.append(write_jsonl(out / "data.jsonl", [sample]))
    return files, items


def read_m3bench(export_dir: Path, release_dir: Path) -> list[PeerItem]:
    """Read an M3-Bench export back into mnemoforge terms."""
    export_dir = Path(export_dir)
    load_release(release_dir)  # the release the export came from must still be readable
    meta = load_json(export_dir / MARKER)
    link = {(m["video_id"], m["question_id"]): m["id"] for m in meta["items"]}  # type: ignore[index]
    out = []
    for ann in sorted((export_dir / "annotations").glob("*.json")):
        for vid, video in load_json(ann).items():  # type: ignore[union-attr]
            for qa in video["qa_list"]:
                m = _REASONING.match(qa["reasoning"])
                if m is None:
                    raise ValueError(f"{ann}: {qa['question_id']}: unreadable reasoning {qa['reasoning']!r}")
                types = tuple(sorted(t for t in qa["type"] if t != CROSS_MODAL))
                out.append(
                    PeerItem(
                        id=link[(vid, qa["question_id"])],
                        question=qa["question"],
                        answer=qa["answer"],
                        category=CATEGORY_FROM_TYPE.get(types),
                        evidence=tuple(e for e in m["ids"].split(", ") if e),
                        cutoff=int(qa["before_clip"]),
                    )
                )
    return out
