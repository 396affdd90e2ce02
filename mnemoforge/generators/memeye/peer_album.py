"""MemEye / Mem-Gallery export: the album as a multi-session image-sharing chat.

Layout (paths relative to the export folder; the image root is ``image/``)::

    dialog/<Task>_Open.json     every question, open-ended
    dialog/<Task>.json          the multiple-choice mirror, only items with options + rotations
    image/<Task>/<shot>.png     hard links to the shot stills
    mnemoforge_export.json      question ids and cutoffs (MemEye has no cutoff; see below)

``<Task>`` is the release name in MemEye's task style (``life_album`` -> ``Life_Album``). Ids follow
MemEye's own files: sessions ``D1``, ``D2``, ..., rounds ``D1:1``, ``D1:2``, ... (the round's
position in its session). Visual-chat releases
(family ``memeye``) export natively, one task per life scenario: see :mod:`.peer_native`, which
writes its files with this module's writers (:func:`qa_record`, :func:`mcq_options`,
:func:`write_dialogs`) and is read back through :func:`mnemoforge.exporters.peers.formats.read_memeye`.

Mapping:

* top level: ``character_profile`` (the protagonist, whose album it is: ``name``, ``role``),
  ``multi_session_dialogues``, ``human-annotated QAs``.
* sessions: clip ``i`` (the calibration clip 0 included: it is where faces meet names) is
  ``{"session_id": "D{i+1}", "date": <clip start date, ISO>, "dialogues": [...]}`` (MemEye
  counts sessions from 1, so clip 0 is ``D1``).
* rounds, in the shared walk order (each shot, then its lines), ``round`` = ``D{i+1}:{n}``:
  a shot is a round where the user shares the still (``input_image`` = ``[<Task>/<shot>.png]``,
  relative to the image root, ``image_id`` = ``[<shot id>]``, ``image_caption`` = the clip
  caption plus the shot's framing); each dialogue line is a round whose user text is the line
  in ICM's ``Name: line`` form (text-only memory needs the speaker label ICM's speakerless
  transcripts withhold, since no audio is exported). The assistant only acknowledges.
* QAs: ``question_id`` (our id), ``question``, ``answer``, ``point`` (below), ``session_id`` =
  the sessions holding the clues, ``clue`` = the round ids of the evidence observations (1:1).
  The MCQ file adds ``options``: one dict per rotation, ``{"A".., "answer": <letter>}``, option
  letters in the rotation's order (``options[rotation[k]]`` under the k-th letter), and its
  top-level ``answer`` is a *letter*: the last rotation's, which is what MemEye's runner shows
  non-rotating callers and what its ``contains_gt`` compares the model's choice with. The answer
  text stays in the ``_Open`` file under the same ``question_id`` (our id, so results join back).
* cutoff: MemEye shows the whole history; the cutoff is kept in ``mnemoforge_export.json`` as
  ``cutoff_session`` (last accessible session id, ``null`` = full timeline).

Checked against MemEye's ``benchmark/dataset.py`` and ``benchmark/runner.py`` (ffzhai88/MemEye,
commit b902110fec88f71d12e3caf2d9343b16c871634c): rounds keyed by ``round``, MCQ rotations as a
list of option dicts, ``contains_gt`` = last rotation's choice == top-level ``answer``.

``point`` (:data:`POINT_MAP`): MemEye's [[X], [Y]] taxonomy — X visual granularity (X1 scene ..
X4 pixel), Y reasoning depth (Y1 atomic, Y2 relational, Y3 evolutionary). Visual-chat questions
carry their own X/Y labels (:mod:`.peer_native`); ICM items map by category:

* ``identity_recall`` -> [["X3"], ["Y1"]]: instance-level identity binding, one event.
* ``cross_episode_retrieval`` -> [["X3"], ["Y2"]]: several non-conflicting clues across clips.
* ``profile_inference`` -> [["X3"], ["Y3"]]: the answer is the state accumulated over the whole
  timeline (a usual choice can shift as choices accrue); the closest Y, not an exact match.

X3 throughout: telling recurring people apart is MemEye's instance-level evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from mnemoforge.exporters.peers.common import (
    MARKER,
    ExportError,
    PeerItem,
    ReleaseData,
    clip_units,
    effective_cutoff,
    load_json,
    load_release,
    place_file,
    require,
    unit_index,
    write_ordered_json,
)
from mnemoforge.schemas.questions import Question

FORMAT = "memeye"
QAS = "human-annotated QAs"
ACK = "Got it, I'll remember that."
SHARE = "Here is a photo from my album."
POINT_MAP: dict[str, list[list[str]]] = {
    "identity_recall": [["X3"], ["Y1"]],
    "cross_episode_retrieval": [["X3"], ["Y2"]],
    "profile_inference": [["X3"], ["Y3"]],
}
CATEGORY_FROM_POINT: dict[str, str] = {repr(v): k for k, v in POINT_MAP.items()}
LETTERS = "ABCDEFGHIJ"


def task_name(name: str) -> str:
    """MemEye's task file stem for a name: ``life_album`` -> ``Life_Album``, ``Choir Tour`` ->
    ``Choir_Tour`` (words split on anything but letters and digits)."""
    return "_".join(w[:1].upper() + w[1:] for w in re.split(r"[^0-9A-Za-z]+", name) if w)


def session_id(k: int) -> str:
    """MemEye's session id for the ``k``-th session (1-based): ``D{k}``."""
    return f"D{k}"


def round_id(session: str, n: int) -> str:
    """MemEye's round id: the ``n``-th round (1-based) of a session, ``D{k}:{n}``."""
    return f"{session}:{n}"


def parse_round(rid: str) -> tuple[int, int]:
    """``D{k}:{n}`` -> (k, n); a ValueError names the id otherwise."""
    m = re.fullmatch(r"D(\d+):(\d+)", rid)
    if m is None:
        raise ValueError(f"not a MemEye round id (D<k>:<n>): {rid!r}")
    return int(m[1]), int(m[2])


def qa_record(qid: str, question: str, answer: str, point: list[list[str]], clue: list[str]) -> dict:
    """One open-ended QA; ``session_id`` lists the sessions holding the clues, in clue order."""
    return {
        "question_id": qid,
        "question": question,
        "answer": answer,
        "point": point,
        "session_id": list(dict.fromkeys(c.split(":")[0] for c in clue)),
        "clue": clue,
    }


def write_dialogs(
    out: Path, task: str, profile: dict, sessions: list[dict], open_qas: list[dict], mcq_qas: list[dict]
) -> list[Path]:
    """Write ``dialog/<task>_Open.json`` (always) and ``dialog/<task>.json`` (if any MCQ items)."""
    base = {"character_profile": profile, "multi_session_dialogues": sessions}
    files = [write_ordered_json(out / "dialog" / f"{task}_Open.json", {**base, QAS: open_qas})]
    if mcq_qas:
        files.append(write_ordered_json(out / "dialog" / f"{task}.json", {**base, QAS: mcq_qas}))
    return files


def _sessions(rel: ReleaseData, task: str, out: Path) -> tuple[list[dict], list[Path]]:
    sessions, files = [], []
    for clip in rel.clips:
        sid, rounds = session_id(clip.index + 1), []
        for n, unit in enumerate(clip_units(clip), start=1):
            rid = round_id(sid, n)
            if unit.kind == "shot":
                still = rel.still(unit.shot.id)
                image = f"{task}/{Path(still).name}"
                files.append(place_file(rel.root / still, out / "image" / image))
                rounds.append(
                    {
                        "round": rid,
                        "user": SHARE,
                        "assistant": ACK,
                        "input_image": [image],
                        "image_id": [unit.shot.id],
                        "image_caption": [rel.caption(clip, unit.shot)],
                    }
                )
            else:
                assert unit.line is not None
                line = f"{rel.name_of(unit.line.speaker)}: {rel.text(unit.obs_id)}"  # ICM's script form
                rounds.append({"round": rid, "user": line, "assistant": ACK})
        sessions.append({"session_id": sid, "date": clip.start.date().isoformat(), "dialogues": rounds})
    return sessions, files


def mcq_record(qa: dict, q: Question) -> dict:
    """The MCQ mirror of an open QA: ``options`` per rotation and the letter as ``answer``."""
    options = mcq_options(q)
    return {**qa, "answer": options[-1]["answer"], "options": options}


def mcq_options(q: Question) -> list[dict]:
    """MemEye's rotation dicts: option texts under letters in each rotation's order; the answer
    letter names the one option equal to ``q.answer`` (an ExportError otherwise)."""
    assert q.options is not None and q.rotations is not None
    out = []
    for rot in q.rotations:
        shown = {LETTERS[k]: q.options[i] for k, i in enumerate(rot)}
        answer = [letter for letter, text in shown.items() if text == q.answer]
        if len(answer) != 1:
            raise ExportError(f"{FORMAT}: {q.id}: answer {q.answer!r} must be exactly one option")
        out.append({**shown, "answer": answer[0]})
    return out


def export_memeye(rel: ReleaseData, out: Path) -> tuple[list[Path], list[dict], dict]:
    """Write ``dialog/<Task>_Open.json`` (all items), ``dialog/<Task>.json`` (MCQ items), images."""
    task = task_name(rel.name)
    sessions, files = _sessions(rel, task, out)
    where = unit_index(rel.clips)
    open_qas, mcq_qas, items = [], [], []
    for q in rel.questions:
        if any(o not in where for o in q.evidence):
            raise ExportError(f"{FORMAT}: {q.id}: evidence not found in the album: {q.evidence}")
        clue = [round_id(session_id(where[o][0].index + 1), where[o][1]) for o in q.evidence]
        qa = qa_record(q.id, q.question, q.answer, require(POINT_MAP, q.category, FORMAT), clue)
        open_qas.append(qa)
        if q.options and q.rotations:
            mcq_qas.append(mcq_record(qa, q))
        cutoff = None if q.cutoff is None else session_id(q.cutoff + 1)
        items.append({"question_id": q.id, "id": q.id, "cutoff_session": cutoff})
    profile = {"name": rel.protagonist, "role": rel.world.person(rel.world.protagonist).role}
    files += write_dialogs(out, task, profile, sessions, open_qas, mcq_qas)
    return files, items, {}


def read_choices(export_dir: Path) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Question id -> option texts per rotation (letter order), from every MCQ file; each
    rotation's answer letter is checked to name the answer of the ``_Open`` file, and the
    top-level letter to be the last rotation's."""
    choices: dict[str, tuple[tuple[str, ...], ...]] = {}
    for path in sorted((Path(export_dir) / "dialog").glob("*.json")):
        if path.stem.endswith("_Open"):
            continue
        open_path = path.with_name(f"{path.stem}_Open.json")
        texts = {qa["question_id"]: qa["answer"] for qa in load_json(open_path)[QAS]}  # type: ignore[index]
        for qa in load_json(path)[QAS]:  # type: ignore[index]
            text = texts[qa["question_id"]]
            if qa["answer"] != qa["options"][-1]["answer"]:
                raise ValueError(f"{path}: {qa['question_id']}: answer must be the last rotation's letter")
            for rot in qa["options"]:
                if rot[rot["answer"]] != text:
                    raise ValueError(f"{path}: {qa['question_id']}: answer letter does not name the answer")
            letters = [k for k in LETTERS if k in qa["options"][0]]
            choices[qa["question_id"]] = tuple(tuple(r[k] for k in letters) for r in qa["options"])
    return choices


def open_items(export_dir: Path) -> Iterator[tuple[dict, dict, tuple[tuple[str, ...], ...] | None]]:
    """Each open-ended QA of a MemEye export (``dialog/*_Open.json``, files in name order) with
    its marker entry and, where an MCQ file mirrors it, its checked option texts per rotation."""
    meta = load_json(export_dir / MARKER)
    link = {m["question_id"]: m for m in meta["items"]}  # type: ignore[index]
    choices = read_choices(export_dir)
    for path in sorted((export_dir / "dialog").glob("*_Open.json")):
        for qa in load_json(path)[QAS]:  # type: ignore[index]
            yield qa, link[qa["question_id"]], choices.get(qa["question_id"])


def read_memeye_album(export_dir: Path, release_dir: Path) -> list[PeerItem]:
    """Read a MemEye export of an album release back into mnemoforge terms (clue rounds ->
    observation ids).

    Open-ended items come from ``*_Open.json``; an item mirrored in the MCQ file gets
    ``choices`` (option texts per rotation) after its answer letters are checked. A visual-chat
    release (family ``memeye``) is read by :func:`.peer_native.read_memeye_native`; the
    package's ``read_memeye`` chooses between them.
    """
    export_dir = Path(export_dir)
    rel = load_release(release_dir)
    by_round = {(c.index, n): oid for oid, (c, n) in unit_index(rel.clips).items()}
    out = []
    for qa, m, options in open_items(export_dir):
        evidence = []
        for clue in qa["clue"]:
            session, rnd = parse_round(clue)
            evidence.append(by_round[(session - 1, rnd)])
        cut = m["cutoff_session"]
        cut_index = None if cut is None else int(cut.removeprefix("D")) - 1
        out.append(
            PeerItem(
                id=m["id"],
                question=qa["question"],
                answer=qa["answer"],
                category=CATEGORY_FROM_POINT.get(repr(qa["point"])),
                evidence=tuple(evidence),
                cutoff=effective_cutoff(cut_index, rel.last_index),
                choices=options,
            )
        )
    return out
