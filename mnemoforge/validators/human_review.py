"""Human review decisions (``review/decisions.jsonl`` in a run folder) and the ``human_review`` gate.

A reviewer passes or excludes each shot and each candidate item, with reason tags and a note
(``mnemoforge review RUN``). The file holds the latest decision per (kind, id), sorted, one JSON
object a line. It is the run's one transactional store of decisions: ``record_decision`` reads,
updates and rewrites it under an exclusive ``flock`` on ``review/.decisions.lock`` (threads and
processes alike, so two review servers on one run never lose each other's decisions), and the new
file is fsync'd, renamed into place and its folder fsync'd before the call returns. The gate
applies it: an excluded item is
rejected with its tags; an item citing an excluded shot (directly, or through a line spoken in
it) becomes unanswerable, as in ICM-Bench, since the media it stands on no longer hold. With no
decisions file the gate is not in the gate list at all, so a build without review is unchanged.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mnemoforge.hashing import content_hash
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.store import atomic, retakes
from mnemoforge.validators.gates import GateContext, verdict

REASON_TAGS = (
    "face_drift",
    "identity_error",
    "wrong_prop",
    "bad_audio",
    "bad_lipsync",
    "off_theme",
    "ambiguous",
    "wrong_key",
    "unnatural",
)
DECISIONS = Path("review") / "decisions.jsonl"
STORE_LOCK = Path("review") / ".decisions.lock"


class Decision(BaseModel):
    """One reviewer decision on a shot or a candidate item."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["shot", "item"]
    id: str = Field(min_length=1, max_length=200)
    decision: Literal["pass", "exclude", "rerender"]
    reasons: list[str] = Field(default_factory=list)
    note: str = Field(default="", max_length=2000)

    @model_validator(mode="after")
    def _rerender_shots_only(self) -> Decision:
        if self.decision == "rerender" and self.kind != "shot":
            raise ValueError("decision: rerender is for shots (an item is passed or excluded)")
        return self

    @field_validator("reasons")
    @classmethod
    def _known_tags(cls, v: list[str]) -> list[str]:
        bad = sorted(set(v) - set(REASON_TAGS))
        if bad:
            raise ValueError(f"unknown reason tags {bad}; tags are {list(REASON_TAGS)}")
        return sorted(set(v))


def first_error(e: ValueError) -> str:
    """``field: message`` of the first problem of a validation error (one line, no URL)."""
    if isinstance(e, ValidationError) and e.errors():
        err = e.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ())) or "decision"
        return f"{where}: {err.get('msg', 'invalid')}"
    return str(e).splitlines()[0] if str(e) else "invalid decision"


def decisions_path(run_root: Path) -> Path:
    return Path(run_root) / DECISIONS


class DecisionsError(ValueError):
    """A malformed decisions file (names the file and line)."""


Decisions = dict[tuple[str, str], Decision]
_PARSED: dict[str, tuple[str, Decisions]] = {}  # path -> (digest of the bytes parsed, decisions)
_PARSED_LOCK = threading.Lock()


def load_decisions(run_root: Path) -> Decisions:
    """The decisions of a run, keyed by (kind, id); empty when there is no file.

    Bytes parsed before (the same digest) are not parsed again: a reviewer's thousands of
    decisions are re-read, not re-validated, on every save."""
    path = decisions_path(run_root)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    with _PARSED_LOCK:
        got = _PARSED.get(str(path))
    if got is not None and got[0] == digest:
        return dict(got[1])
    out: Decisions = {}
    for n, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = Decision.model_validate_json(line)
        except ValueError as e:
            raise DecisionsError(f"{path}:{n}: {first_error(e)}") from None
        out[(d.kind, d.id)] = d
    with _PARSED_LOCK:
        _PARSED[str(path)] = (digest, dict(out))
    return out


def save_decisions(run_root: Path, decisions: Decisions) -> Path:
    """Write every decision, sorted by (kind, id), atomically and durably (file and folder fsync'd)."""
    rows = [decisions[k].model_dump(mode="json") for k in sorted(decisions)]
    path = atomic.write_text(
        decisions_path(run_root),
        "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows),
    )
    atomic.fsync_dir(path.parent)
    return path


@contextlib.contextmanager
def store_lock(run_root: Path) -> Iterator[None]:
    """The decisions store's writer lock (a blocking ``flock``; the kernel drops it if we die)."""
    path = Path(run_root) / STORE_LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def record_decision(run_root: Path, decision: Decision) -> Decision:
    """Store one decision as a transaction: read, update and rewrite the file under the store lock;
    when this returns the decision is on disk. A ``rerender`` also counts the shot's next take
    (``review/retakes.json``), which the next build renders with fresh seeds."""
    with store_lock(run_root):
        decisions = load_decisions(run_root)
        decisions[(decision.kind, decision.id)] = decision
        if decision.decision == "rerender":
            retakes.next_take(run_root, decision.id)
        save_decisions(run_root, decisions)
    return decision


def decisions_hash(run_root: Path) -> str | None:
    """Digest of the decisions file (``None`` without one): part of the gates stage's cache key."""
    path = decisions_path(run_root)
    return content_hash(path.read_bytes().hex()) if path.is_file() else None


def shot_index(run_root: Path) -> dict[str, str]:
    """Observation id -> its shot (shots and their spoken lines), from ``episodes/clips.jsonl``."""
    path = Path(run_root) / "episodes" / "clips.jsonl"
    out: dict[str, str] = {}
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        for shot in json.loads(line).get("shots", []):
            out[shot["id"]] = shot["id"]
            for ln in shot.get("dialogue", []):
                out[ln["id"]] = shot["id"]
    return out


def cited_shots(q: Question, shot_of: dict[str, str]) -> set[str]:
    return set(q.evidence_shots) | {shot_of[e] for e in q.evidence if e in shot_of}


@dataclass
class HumanReview:
    """Rejects excluded items, and items that cite an excluded shot (unanswerable)."""

    decisions: dict[tuple[str, str], Decision]
    shot_of: dict[str, str]
    name: str = "human_review"
    version: str = "1"

    def __post_init__(self) -> None:
        digest = content_hash([d.model_dump(mode="json") for _, d in sorted(self.decisions.items())])
        self.version = f"1+{digest[:12]}"  # a changed decision recomputes (and never reuses) verdicts

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        d = self.decisions.get(("item", q.id))
        if d is not None and d.decision == "exclude":
            tags = "+".join(d.reasons) or "untagged"
            return verdict(self, q, False, f"item excluded ({tags}): {d.note}".rstrip(": "))
        bad = []
        for sid in sorted(cited_shots(q, self.shot_of)):
            sd = self.decisions.get(("shot", sid))
            if sd is not None and sd.decision == "exclude":
                bad.append(f"{sid} ({'+'.join(sd.reasons) or 'untagged'})")
        if bad:
            return verdict(self, q, False, f"unanswerable, cites an excluded shot: {', '.join(bad)}")
        return verdict(self, q, True, "passed by the reviewer" if d is not None else "not reviewed")


def review_gates(run_root: Path) -> list[HumanReview]:
    """``[HumanReview]`` when the run has a decisions file, else ``[]`` (the build is unchanged)."""
    if not decisions_path(run_root).is_file():
        return []
    return [HumanReview(load_decisions(run_root), shot_index(run_root))]


def coverage(run_root: Path, questions: list[Question]) -> dict | None:
    """How much of the run a reviewer looked at: shots and items reviewed, passed, excluded, by tag."""
    if not decisions_path(run_root).is_file():
        return None
    decisions = load_decisions(run_root)
    shots = sorted(set(shot_index(run_root).values()))
    out: dict = {}
    for kind, ids in (("shots", shots), ("items", [q.id for q in questions])):
        ds = [decisions[(kind[:-1], i)] for i in ids if (kind[:-1], i) in decisions]
        out[kind] = {
            "total": len(ids),
            "reviewed": len(ds),
            "passed": sum(d.decision == "pass" for d in ds),
            "excluded": sum(d.decision == "exclude" for d in ds),
            **({"rerender": n} if (n := sum(d.decision == "rerender" for d in ds)) else {}),
            "reasons": dict(
                sorted(Counter(t for d in ds if d.decision == "exclude" for t in d.reasons).items())
            ),
        }
    return out


def review_changes(questions: list[Question], verdicts: list[Verdict], gctx: GateContext) -> dict:
    """What the review changed in the release: the items it took out (excluded, or citing an excluded
    shot) and the survivors that took their places, found by running the family-level gates
    (answer balance, category quotas) once more as if there had been no review."""
    from dataclasses import replace

    from mnemoforge.validators.balance_gates import AnswerBalance, CategoryQuota

    family_level = {"answer_balance", "category_quota"}
    by_id = {q.id: q for q in questions}
    review = {v.item: v for v in verdicts if v.gate == "human_review" and not v.keep}
    before = {v.item for v in verdicts if not v.keep and v.gate not in family_level | {"human_review"}}
    ctx = replace(gctx, survivors={q.id for q in questions} - before, review_excluded=set())
    dropped = {q.id for q in questions if not AnswerBalance().check(q, ctx).keep}
    ctx = replace(ctx, survivors=ctx.survivors - dropped)
    dropped |= {q.id for q in questions if not CategoryQuota().check(q, ctx).keep}
    unreviewed = {q.id for q in questions} - before - dropped
    kept = {v.item for v in verdicts} - {v.item for v in verdicts if not v.keep}
    left = sorted(unreviewed - kept)
    entered = sorted(kept - unreviewed)
    return {
        "left": [
            {"id": i, "category": by_id[i].category, "why": review[i].reason if i in review else "rebalanced"}
            for i in left
        ],
        "entered": [{"id": i, "category": by_id[i].category} for i in entered],
    }
