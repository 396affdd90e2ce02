"""MemEye export of a visual-chat release (family ``memeye``): its own sessions, rounds and labels.

The album mapping in :mod:`.peer_album` has to invent rounds and X/Y points; a visual-chat release
already is MemEye-shaped, so this module only renames. Layout (relative to the export folder;
the image root is ``image/``)::

    dialog/<Task>_Open.json     per task: its sessions and every question on them, open-ended
    dialog/<Task>.json          the multiple-choice mirror (items with options + rotations)
    image/<Task>/<file>.png     hard links (copies across filesystems) to the release's pictures
    mnemoforge_export.json      question ids, tasks, cutoffs and alternative clue rounds

Mapping:

* tasks: MemEye evaluates one task (one dialog file, one image folder) at a time, so each life
  scenario is a task, named after its title (the session's ``task``: ``Boat Repair`` ->
  ``Boat_Repair``). A task's history holds only its own
  sessions (the release interleaves scenarios; their scenes never share facts).
* sessions: ``data/memeye/sessions.jsonl`` in timeline order; the k-th session of the release
  (1-based, counted over all tasks, so ``s06`` is ``D6``) is ``{"session_id": "D{k}",
  "date": <ISO date>, "dialogues": [...]}``, in its task's file.
* rounds: the session's rounds (``data/memeye/rounds.jsonl``) in order; the n-th is
  ``D{k}:{n}`` (MemEye's id style) with the round's ``user`` and ``assistant`` text. A round that shares
  pictures adds ``input_image`` (``<Task>/<file>``, relative to the image root), ``image_id``
  (the file stem) and ``image_caption`` (the picture's dense caption from
  ``data/memeye/captions.jsonl``; ``[image: <kind>]``, the minimal caption, if it has none).
* QAs (built with :func:`.peer_album.qa_record`): ``question_id`` (our id), ``question``,
  ``answer``, ``point`` = ``[[labels.x], [labels.y]]``, ``clue`` = the evidence round ids (1:1,
  in order), ``session_id`` = their sessions; ``question_image`` (MemEye's QA-level pictures)
  when the question shows pictures. The MCQ file adds ``options``, one dict per rotation
  and the last rotation's letter as the top-level ``answer`` (:func:`.peer_album.mcq_record`). A
  question's clues must lie in one task.
* ``mnemoforge_export.json`` items: ``question_id``, ``id``, ``task``, ``cutoff`` (the release's
  value: latest accessible round order, ``null`` = full timeline; MemEye shows the whole history)
  and ``clue_alternatives``: the ``evidence_alternatives`` as MemEye round ids (other rounds
  showing the same facts, which retrieval metrics may count as clue hits).

:func:`read_memeye_native` (reached through :func:`.peer_format.read_memeye`) maps an export back.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from mnemoforge.exporters.peers.common import (
    ExportError,
    PeerItem,
    effective_cutoff,
    place_file,
    read_manifest,
    release_family,
    validate_row,
)
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.memeye.peer_album import (
    FORMAT,
    mcq_record,
    open_items,
    qa_record,
    round_id,
    session_id,
    task_name,
    write_dialogs,
)
from mnemoforge.schemas.memeye import X_LABELS, Y_LABELS
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World

FAMILY = "memeye"


@dataclass(frozen=True)
class VisualRelease:
    """A visual-chat release read back from disk (``data/memeye/*.jsonl``, ``data/world.json``)."""

    root: Path
    name: str
    version: str
    profile: dict[str, str]  # MemEye's character_profile: the user's name and role
    sessions: list[dict]  # sessions.jsonl rows, timeline order, each ``rounds`` list in order
    rounds: dict[str, dict]  # round id -> rounds.jsonl row
    captions: dict[str, str]  # release-relative image path -> dense caption
    questions: list[Question]

    @property
    def last_order(self) -> int:
        """Order of the last round: the cutoff that stands for the full timeline."""
        return max((int(r["order"]) for r in self.rounds.values()), default=0)


def load_visual_release(root: Path) -> VisualRelease:
    """Read a release of family ``memeye`` (an ExportError for any other family)."""
    root = Path(root)
    manifest = read_manifest(root)
    fam = release_family(root)
    if fam != FAMILY:
        raise ExportError(f"{root}: this reads visual-chat releases (family memeye); this one is {fam!r}")
    data = root / "data" / FAMILY
    rounds = {r["round"]: r for r in read_jsonl(data / "rounds.jsonl")}
    sessions = []
    for row in read_jsonl(data / "sessions.jsonl"):
        missing = [r for r in row["rounds"] if r not in rounds]
        if missing:
            raise ExportError(f"{FORMAT}: session {row['session']}: rounds not in rounds.jsonl: {missing}")
        sessions.append({**row, "rounds": sorted(row["rounds"], key=lambda r: rounds[r]["order"])})
    sessions.sort(key=lambda s: min((rounds[r]["order"] for r in s["rounds"]), default=-1))
    in_sessions = [r for s in sessions for r in s["rounds"]]
    if len(set(in_sessions)) != len(in_sessions) or set(in_sessions) != set(rounds):
        raise ExportError(f"{FORMAT}: {root}: every round must be in exactly one session")
    caps = read_jsonl(data / "captions.jsonl") if (data / "captions.jsonl").exists() else []
    world = World.model_validate_json((root / "data" / "world.json").read_text(encoding="utf-8"))
    user = world.person(world.protagonist)
    return VisualRelease(
        root=root,
        name=manifest["name"],
        version=manifest["version"],
        profile={"name": user.name, "role": user.role},
        sessions=sessions,
        rounds=rounds,
        captions={c["image"]: c["caption"] for c in caps if c.get("image") and c.get("caption")},
        questions=[validate_row(Question, r) for r in read_jsonl(data / "questions.jsonl")],
    )


def session_task(session: dict) -> str:
    """A session's MemEye task: its scenario title in task style (the scenario id if untitled)."""
    return task_name(str(session.get("task") or "")) or task_name(str(session["scenario"]))


def memeye_ids(rel: VisualRelease) -> dict[str, tuple[str, str]]:
    """Round id -> (its task, its MemEye round id ``D{k}:{n}``)."""
    ids = {}
    for k, session in enumerate(rel.sessions, start=1):
        task = session_task(session)
        sid = session_id(k)
        for n, rid in enumerate(session["rounds"], start=1):
            ids[rid] = (task, round_id(sid, n))
    return ids


class _Images:
    """Pictures to place under ``image/<Task>/``: collects them, refusing two files under one name."""

    def __init__(self, rel: VisualRelease, out: Path) -> None:
        self.rel, self.out = rel, out
        self.wanted: dict[Path, Path] = {}  # destination -> source

    def add(self, task: str, path: str) -> str:
        """Register a release-relative picture; returns its path relative to the image root."""
        src = self.rel.root / path
        if not src.is_file():
            raise ExportError(f"{FORMAT}: picture {path} is missing from the release")
        name = f"{task}/{Path(path).name}"
        dst = self.out / "image" / name
        if self.wanted.setdefault(dst, src) != src:
            raise ExportError(f"{FORMAT}: two pictures of task {task} share the file name {Path(path).name}")
        return name

    def place(self) -> list[Path]:
        """Hard-link (or copy) every registered picture; returns the files written."""
        return [place_file(src, dst) for dst, src in self.wanted.items()]


def _round(rel: VisualRelease, row: dict, rid: str, task: str, images: _Images) -> dict:
    """One MemEye round from a rounds.jsonl row (picture keys only when it shares pictures)."""
    rnd: dict = {"round": rid, "user": row["user"], "assistant": row["assistant"]}
    paths = list(row.get("images") or [])
    if paths:
        minimal = f"[image: {row.get('image_kind') or 'image'}]"
        rnd["input_image"] = [images.add(task, p) for p in paths]
        rnd["image_id"] = [Path(p).stem for p in paths]
        rnd["image_caption"] = [rel.captions.get(p, minimal) for p in paths]
    return rnd


def _point(q: Question) -> list[list[str]]:
    x, y = q.labels.get("x"), q.labels.get("y")
    if x not in X_LABELS or y not in Y_LABELS:
        raise ExportError(f"{FORMAT}: {q.id}: labels x/y must be X1..X4 / Y1..Y3, got {x!r} / {y!r}")
    return [[x], [y]]


def export_memeye_native(rel: VisualRelease, out: Path) -> tuple[list[Path], list[dict], dict]:
    """Write ``dialog/<Task>_Open.json`` and ``dialog/<Task>.json`` per task, and the pictures."""
    ids = memeye_ids(rel)
    images = _Images(rel, out)
    tasks: dict[str, list[dict]] = {}
    for k, session in enumerate(rel.sessions, start=1):
        task = session_task(session)
        dialogues = [_round(rel, rel.rounds[r], ids[r][1], task, images) for r in session["rounds"]]
        date = dt.datetime.fromisoformat(str(session["date"])).date().isoformat()
        tasks.setdefault(task, []).append({"session_id": session_id(k), "date": date, "dialogues": dialogues})
    open_qas: dict[str, list[dict]] = {t: [] for t in tasks}
    mcq_qas: dict[str, list[dict]] = {t: [] for t in tasks}
    items = []
    for q in rel.questions:
        unknown = [e for e in [*q.evidence, *q.evidence_alternatives] if e not in ids]
        if unknown or not q.evidence:
            raise ExportError(f"{FORMAT}: {q.id}: evidence must be rounds of the release, got {unknown}")
        where = sorted({ids[e][0] for e in q.evidence})
        if len(where) != 1:
            raise ExportError(f"{FORMAT}: {q.id}: clues span tasks {where}; a QA lives in one task file")
        task = where[0]
        qa = qa_record(q.id, q.question, q.answer, _point(q), [ids[e][1] for e in q.evidence])
        if q.question_media:
            qa["question_image"] = [images.add(task, m) for m in q.question_media]
        open_qas[task].append(qa)
        if q.options and q.rotations:
            mcq_qas[task].append(mcq_record(qa, q))
        alternatives = [ids[e][1] for e in q.evidence_alternatives]
        items.append(
            {
                "question_id": q.id,
                "id": q.id,
                "task": task,
                "cutoff": q.cutoff,
                "clue_alternatives": alternatives,
            }
        )
    files = images.place()
    for task, sessions in tasks.items():
        files += write_dialogs(out, task, rel.profile, sessions, open_qas[task], mcq_qas[task])
    return files, items, {}


def read_memeye_native(export_dir: Path, release_dir: Path) -> list[PeerItem]:
    """Read a MemEye export of a visual-chat release back (clue rounds -> round ids).

    ``category`` is the point's cell (``X4_Y3``, the release's category); an item mirrored in an
    MCQ file gets ``choices`` (option texts per rotation) after its answer letters are checked.
    """
    export_dir = Path(export_dir)
    rel = load_visual_release(release_dir)
    back = {mid: rid for rid, (_, mid) in memeye_ids(rel).items()}
    out = []
    for qa, m, options in open_items(export_dir):
        (x,), (y,) = qa["point"]
        out.append(
            PeerItem(
                id=m["id"],
                question=qa["question"],
                answer=qa["answer"],
                category=f"{x}_{y}",
                evidence=tuple(back[c] for c in qa["clue"]),
                cutoff=effective_cutoff(m["cutoff"], rel.last_order),
                choices=options,
            )
        )
    return out
