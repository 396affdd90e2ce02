"""M3-Bench export: the album as one M3-Bench video, laid out as an M3-Agent checkout's ``data/``.

Layout (relative to the export folder, which is an M3-Agent checkout's root or an empty folder
laid out like one; M3-Agent's scripts run from that root)::

    data/annotations/<name>.json          {video_id: {"video_path", "mem_path", "qa_list": [...]}}
                                          (the shape of M3-Bench's data/annotations/robot.json)
    data/data.jsonl                       memorization input, one line: {"id", "video_path",
                                          "clip_path", "mem_path", "intermediate_path",
                                          "intermediate_outputs"}
    data/videos/<name>/<name>.mp4         the album video on a 30 s grid (:mod:`.m3_video`)
    data/clips/<name>/<name>/<n>.mp4      its 30 s segments, n = 0, 1, ... (what M3-Agent globs)
    mnemoforge_export.json                question ids (the export's join table)

``<name>`` is the release name: the subset (like ``robot``/``web``) and the video id. The memory
graph (``data/memory_graphs/<name>/<name>.pkl``) and the intermediate outputs
(``data/intermediate_outputs/<name>/<name>``) are where M3-Agent writes them; they do not exist
until it runs, but their folders, ``data/results/``, ``logs/`` and a keyless
``configs/api_config.json`` do (:mod:`.m3_setup`), so its scripts run with no manual step.
``data.jsonl`` carries both ``intermediate_path`` (M3-Agent's README) and ``intermediate_outputs``
(what ``m3_agent/memorization_*.py`` read), with the same value.

Checked against ByteDance-Seed/m3-agent at commit 0e3e41939bd8a0b66d756e7b7eb8d5fe9992da5c:
``m3_agent/memorization_intermediate_outputs.py`` and ``memorization_memory_graphs.py`` (read
``data.jsonl`` lines, ``glob(clip_path + "/*")``, each file name's integer stem is the clip id),
``m3_agent/control.py`` (``qa_list`` entries: ``question_id``, ``question``, ``answer``,
``before_clip``; ``mem_path``) and ``data/annotations/robot.json`` (key order, id style
``<video_id>_Q01``, ``before_clip = floor(t / 30) - 1`` for every question's ``timestamp`` t).

Video: every clip (the calibration clip 0 included: faces and voices introduce themselves, and
ICM lets video methods use it), each followed by a still gap up to the next 30 s mark, so clip
``i`` fills segments ``[s_i, e_i)`` of the grid. A question with cutoff ``c`` (``null`` = the
last clip) is asked at ``t = 30 * e_c`` (``timestamp``), so ``before_clip = e_c - 1``: the agent
has seen every segment of clip ``c`` and nothing of clip ``c + 1``. The export checks that every
evidence observation ends before ``t`` and raises otherwise.

QA fields, in M3-Bench's order: ``question``, ``answer``, ``question_id`` (``<name>_Qnn``),
``reasoning`` (``"Evidence: <observation ids>; segments <n, ...>."``: M3-Bench has no evidence
field, its rationale names the evidence; :func:`read_m3bench` parses it back), ``timestamp``
(``MM:SS``), ``type``, ``before_clip``. Our question id is in the sidecar, keyed by
``question_id``.

Types (:data:`TYPE_MAP`), M3-Bench's vocabulary (Person Understanding, Multi-Hop Reasoning,
Multi-Detail Reasoning, Cross-Modal Reasoning, General Knowledge Extraction). Every ICM item is
about people, so all carry "Person Understanding":

* ``identity_recall`` -> ["Person Understanding"]: one event, who/what/where.
* ``cross_episode_retrieval`` -> ["Person Understanding", "Multi-Hop Reasoning"]: evidence in
  several clips must be linked.
* ``profile_inference`` -> ["Person Understanding", "Multi-Detail Reasoning"]: many scattered
  details aggregated into a profile (usual choice, habit, relation).

"Cross-Modal Reasoning" is added when the evidence mixes shots (vision) and speech; the inverse
(:data:`CATEGORY_FROM_TYPE`) ignores it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mnemoforge.backends.video.probe import probe
from mnemoforge.exporters.peers.common import (
    MARKER,
    ExportError,
    PeerItem,
    ReleaseData,
    effective_cutoff,
    load_json,
    load_release,
    readable,
    require,
    unit_index,
    write_ordered_json,
)
from mnemoforge.exporters.peers.m3_setup import make_folders, write_api_config
from mnemoforge.exporters.peers.m3_video import SEGMENT_S, cut_segments, encode_album, grid_duration
from mnemoforge.store.atomic import write_text

FORMAT = "m3bench"
PERSON = "Person Understanding"
CROSS_MODAL = "Cross-Modal Reasoning"
TYPE_MAP: dict[str, list[str]] = {
    "identity_recall": [PERSON],
    "cross_episode_retrieval": [PERSON, "Multi-Hop Reasoning"],
    "profile_inference": [PERSON, "Multi-Detail Reasoning"],
}
CATEGORY_FROM_TYPE: dict[tuple[str, ...], str] = {tuple(sorted(v)): k for k, v in TYPE_MAP.items()}
_REASONING = re.compile(r"^Evidence: (?P<ids>[^;]*); segments (?P<segs>[^.]*)\.$")


def layout(name: str) -> dict[str, str]:
    """The checkout-relative paths of one release's export (M3-Agent's ``data/`` layout)."""
    return {
        "annotations": f"data/annotations/{name}.json",
        "data": "data/data.jsonl",
        "video_path": f"data/videos/{name}/{name}.mp4",
        "clip_path": f"data/clips/{name}/{name}",
        "mem_path": f"data/memory_graphs/{name}/{name}.pkl",
        "intermediate": f"data/intermediate_outputs/{name}/{name}",
    }


def timestamp(seconds: int) -> str:
    """M3-Bench's ``MM:SS`` (minutes run past 59 for long videos)."""
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def before_clip(t: int) -> int:
    """M3-Bench's last accessible segment for a question asked at ``t`` seconds."""
    return t // SEGMENT_S - 1


def _types(rel: ReleaseData, category: str, evidence: list[str]) -> list[str]:
    types = list(require(TYPE_MAP, category, FORMAT))
    kinds = {rel.observations[o].kind for o in evidence if o in rel.observations}
    return [*types, CROSS_MODAL] if {"shot", "speech"} <= kinds else types


def _evidence_end(where: dict, starts: dict[int, int], oid: str) -> tuple[int, int]:
    """(segment index, end second in the album video) of an evidence observation."""
    if oid not in where:
        raise ExportError(f"{FORMAT}: evidence {oid!r} is not an observation of the album")
    clip, _ = where[oid]
    unit_shot = None
    offset = 0
    for shot in clip.shots:
        if oid == shot.id or any(line.id == oid for line in shot.dialogue):
            unit_shot = shot
            break
        offset += shot.duration_s
    assert unit_shot is not None
    end = starts[clip.index] + offset + unit_shot.duration_s
    return (starts[clip.index] + offset) // SEGMENT_S, end


def export_m3bench(rel: ReleaseData, out: Path) -> tuple[list[Path], list[dict], dict]:
    """Write the annotations, ``data.jsonl``, the grid video and its 30 s segments."""
    vid, paths = rel.name, layout(rel.name)
    sources = []
    for clip in rel.clips:
        src = rel.root / rel.videos[clip.id]
        if not src.is_file():
            raise ExportError(f"{FORMAT}: missing clip file {src}")
        sources.append(src)
    slots = [grid_duration(c.duration_s) for c in rel.clips]
    starts, ends, t = {}, {}, 0
    for clip, slot in zip(rel.clips, slots, strict=True):
        starts[clip.index], t = t, t + slot
        ends[clip.index] = t
    first = probe(sources[0])  # every clip of a release shares its size and frame rate
    video = encode_album(
        sources,
        slots,
        out / paths["video_path"],
        width=first.width,
        height=first.height,
        fps=int(round(first.fps)) or 24,
    )
    files = [video, *cut_segments(video, out / paths["clip_path"], t // SEGMENT_S)]
    qa_list, items = [], []
    where = unit_index(rel.clips)
    for n, q in enumerate(rel.questions, start=1):
        cutoff = effective_cutoff(q.cutoff, rel.last_index)
        if cutoff not in ends:
            raise ExportError(f"{FORMAT}: {q.id}: cutoff {cutoff} is not a clip index")
        asked = ends[cutoff]
        segs = []
        for oid in q.evidence:
            seg, end = _evidence_end(where, starts, oid)
            if end > asked:
                raise ExportError(
                    f"{FORMAT}: {q.id}: evidence {oid} ends at {end} s, after the question ({asked} s)"
                )
            segs.append(seg)
        qid = f"{vid}_Q{n:02d}"
        seen = ", ".join(map(str, sorted(set(segs))))
        qa_list.append(
            {
                "question": q.question,
                "answer": q.answer,
                "question_id": qid,
                "reasoning": f"Evidence: {', '.join(q.evidence)}; segments {seen}.",
                "timestamp": timestamp(asked),
                "type": _types(rel, q.category, q.evidence),
                "before_clip": before_clip(asked),
            }
        )
        items.append({"video_id": vid, "question_id": qid, "id": q.id, "cutoff": q.cutoff})
    annotations = {
        vid: {"video_path": paths["video_path"], "mem_path": paths["mem_path"], "qa_list": qa_list}
    }
    files.append(write_ordered_json(out / paths["annotations"], annotations))
    sample = {
        "id": vid,
        "video_path": paths["video_path"],
        "clip_path": paths["clip_path"],
        "mem_path": paths["mem_path"],
        "intermediate_path": paths["intermediate"],
        "intermediate_outputs": paths["intermediate"],
    }
    files.append(readable(write_text(out / paths["data"], json.dumps(sample, ensure_ascii=False) + "\n")))
    grid = [
        {"clip": c.index, "first_segment": starts[c.index] // SEGMENT_S, "end_s": ends[c.index]}
        for c in rel.clips
    ]
    made = make_folders(out, vid)
    api_config, warning = write_api_config(out)
    extra: dict = {"segment_s": SEGMENT_S, "grid": grid, "folders": made, "api_config": api_config}
    if warning:
        extra["warning"] = warning
    return files, items, extra


def read_m3bench(export_dir: Path, release_dir: Path) -> list[PeerItem]:
    """Read an M3-Bench export back into mnemoforge terms (cutoffs from the sidecar; videos the
    sidecar does not list, such as a checkout's own M3-Bench annotations, are skipped)."""
    export_dir = Path(export_dir)
    rel = load_release(release_dir)
    meta = load_json(export_dir / MARKER)
    link = {(m["video_id"], m["question_id"]): m for m in meta["items"]}  # type: ignore[index]
    out = []
    for ann in sorted((export_dir / "data" / "annotations").glob("*.json")):
        doc = load_json(ann)
        for vid, video in doc.items():  # type: ignore[union-attr]
            if vid not in {v for v, _ in link}:
                continue  # a checkout's own annotations (robot.json, web.json)
            for qa in video["qa_list"]:
                m = _REASONING.match(qa["reasoning"])
                if m is None:
                    raise ValueError(f"{ann}: {qa['question_id']}: unreadable reasoning {qa['reasoning']!r}")
                meta_row = link[(vid, qa["question_id"])]
                types = tuple(sorted(t for t in qa["type"] if t != CROSS_MODAL))
                out.append(
                    PeerItem(
                        id=meta_row["id"],
                        question=qa["question"],
                        answer=qa["answer"],
                        category=CATEGORY_FROM_TYPE.get(types),
                        evidence=tuple(e for e in m["ids"].split(", ") if e),
                        cutoff=effective_cutoff(meta_row["cutoff"], rel.last_index),
                    )
                )
    return out
