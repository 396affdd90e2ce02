"""LoCoMo export: the album as one long two-party conversation (``locomo.json``).

Layout (paths relative to the export folder)::

    locomo.json             a JSON list with one sample per release (theme)
    media/shots/<shot>.png  hard links to the shot stills the image turns point at
    mnemoforge_export.json  question ids and cutoffs (LoCoMo has neither; see below)

Mapping:

* sample: ``{"sample_id": <release name>, "conversation": {...}, "qa": [...]}``.
* sessions: each non-calibration clip ``i`` is ``session_i`` with ``session_i_date_time`` from
  the clip start in LoCoMo's style ("1:56 pm on 8 May, 2023"). The calibration clip 0 is left
  out (LoCoMo sessions start at 1 and clip 0 is never evidence).
* turns: each shot first contributes an *image turn* by the protagonist (``img_url`` = the shot
  still's relative path, ``blip_caption`` = the clip caption from ``captions.jsonl`` plus the
  shot's framing), then its dialogue lines as text turns with the speaker's *name*. ``dia_id``
  is ``D{session}:{turn}``, turns numbered from 1 in that order.
* speakers: LoCoMo has exactly two (``speaker_a``, ``speaker_b``). Ours are a cast of up to six,
  so ``speaker_a`` is the protagonist (whose album it is) and ``speaker_b`` is the literal
  ``"others"``; every turn still names its real speaker. Harnesses that split turns by
  ``speaker == speaker_a`` then see the protagonist against everyone else. Compromise: text
  turns carry the speaker label that ICM's speakerless transcripts withhold (the labelled
  transcript variant), so voice-based speaker identification is not tested by this export.
* evidence: each evidence observation's dia_id (a line maps 1:1 to its turn, a shot to its
  image turn).
* cutoff: LoCoMo has none; plain LoCoMo harnesses see the whole conversation. The cutoff is
  kept in ``mnemoforge_export.json`` as ``cutoff_session`` (last accessible session number) for
  harnesses that can truncate, together with each qa's mnemoforge question id.

Categories (:data:`CATEGORY_MAP`). LoCoMo's released data numbers its categories 1 multi-hop,
2 temporal, 3 open-domain, 4 single-hop, 5 adversarial (its evaluation scores category 1 with
comma-split multi-answer F1, cuts category-3 answers at ``;`` and expects an abstention for 5):

* ``identity_recall`` -> 4 (single-hop): one event's observations answer it.
* ``cross_episode_retrieval`` -> 1 (multi-hop): evidence spans at least two sessions.
* ``profile_inference`` -> 3 (open-domain): inferred traits (usual choices, habits, relations)
  rather than a stated fact, like LoCoMo's inference questions ("Would X likely ...?").

2 and 5 are unused (no temporal or adversarial ICM items). The map is one-to-one, so
:data:`CATEGORY_FROM_LOCOMO` recovers our category.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from mnemoforge.dates import month_name
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
)
from mnemoforge.store.atomic import write_json

FORMAT = "locomo"
FILE = "locomo.json"
OTHERS = "others"
IMAGE_TEXT = "Here is a photo."
CATEGORY_MAP: dict[str, int] = {"identity_recall": 4, "cross_episode_retrieval": 1, "profile_inference": 3}
CATEGORY_FROM_LOCOMO: dict[int, str] = {v: k for k, v in CATEGORY_MAP.items()}


def locomo_datetime(t: dt.datetime) -> str:
    """LoCoMo's session time style: ``1:56 pm on 8 May, 2023``."""
    hour = t.hour % 12 or 12
    return f"{hour}:{t.minute:02d} {'am' if t.hour < 12 else 'pm'} on {t.day} {month_name(t)}, {t.year}"


def _turns(rel: ReleaseData, clip_index: int) -> list[dict]:
    clip = next(c for c in rel.clips if c.index == clip_index)
    turns = []
    for t, unit in enumerate(clip_units(clip), start=1):
        dia = f"D{clip.index}:{t}"
        if unit.kind == "shot":
            turns.append(
                {
                    "speaker": rel.protagonist,
                    "dia_id": dia,
                    "text": IMAGE_TEXT,
                    "img_url": [rel.still(unit.shot.id)],
                    "blip_caption": rel.caption(clip, unit.shot),
                }
            )
        else:
            assert unit.line is not None
            turns.append({"speaker": rel.name_of(unit.line.speaker), "dia_id": dia, "text": unit.line.text})
    return turns


def export_locomo(rel: ReleaseData, out: Path) -> tuple[list[Path], list[dict]]:
    """Write ``locomo.json`` and the shot stills; returns (files written, per-qa sidecar rows)."""
    sessions = [c for c in rel.clips if not c.calibration]
    conversation: dict[str, object] = {"speaker_a": rel.protagonist, "speaker_b": OTHERS}
    files: list[Path] = []
    for clip in sessions:
        conversation[f"session_{clip.index}_date_time"] = locomo_datetime(clip.start)
        turns = _turns(rel, clip.index)
        conversation[f"session_{clip.index}"] = turns
        for turn in turns:
            for url in turn.get("img_url", []):
                files.append(place_file(rel.root / url, out / url))
    where = unit_index(sessions)
    qa, items = [], []
    for q in rel.questions:
        evidence = []
        for oid in q.evidence:
            if oid not in where:
                raise ExportError(f"{FORMAT}: {q.id}: evidence {oid!r} is not in a non-calibration clip")
            clip, turn = where[oid]
            evidence.append(f"D{clip.index}:{turn}")
        category = require(CATEGORY_MAP, q.category, FORMAT)
        qa.append({"question": q.question, "answer": q.answer, "evidence": evidence, "category": category})
        items.append({"sample_id": rel.name, "qa_index": len(qa) - 1, "id": q.id, "cutoff_session": q.cutoff})
    sample = {"sample_id": rel.name, "conversation": conversation, "qa": qa}
    files.append(write_json(out / FILE, [sample]))
    return files, items


def read_locomo(export_dir: Path, release_dir: Path) -> list[PeerItem]:
    """Read a LoCoMo export back into mnemoforge terms (dia_ids -> observation ids)."""
    rel = load_release(release_dir)
    by_turn = {(c.index, i): oid for oid, (c, i) in unit_index(rel.clips).items()}
    meta = load_json(Path(export_dir) / MARKER)
    link = {(m["sample_id"], m["qa_index"]): m for m in meta["items"]}  # type: ignore[index]
    out = []
    for sample in load_json(Path(export_dir) / FILE):  # type: ignore[union-attr]
        for i, qa in enumerate(sample["qa"]):
            m = link[(sample["sample_id"], i)]
            evidence = []
            for dia in qa["evidence"]:
                session, turn = dia[1:].split(":")
                evidence.append(by_turn[(int(session), int(turn))])
            out.append(
                PeerItem(
                    id=m["id"],
                    question=qa["question"],
                    answer=str(qa["answer"]),
                    category=CATEGORY_FROM_LOCOMO.get(qa["category"]),
                    evidence=tuple(evidence),
                    cutoff=effective_cutoff(m["cutoff_session"], rel.last_index),
                )
            )
    return out
