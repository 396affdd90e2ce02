"""The cross items of a multi-family release as an evaluation reads them (docs/cross-family.md).

A multi-family release's root holds the ``cross`` config (its MANIFEST's ``family`` is
``cross``): ``evaluate`` run on the root evaluates the cross items, run on ``families/F/`` the
family F's items (their World is the root's ``data/world.json``).

**What a memory system receives for a cross item.** Its history is the whole agent view of each
family that ``agent/cross/histories.jsonl`` lists for it (the families its evidence spans, at
least two): every agent-visible observation of those families, over their whole timelines (a
cross item has no cutoff), with their captions and media, and nothing of the other families.
Observation ids, sources, episodes and caption references are qualified ``FAMILY:ID`` (the ids
of the cross items' evidence; two families may use one id), media paths are relative to the
root (``families/F/media/...``), and the history is in time order (timestamp, then id). The
items are ``agent/cross/questions.*``; the keys ``data/cross/questions.*``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mnemoforge.evaluation.cross_keys import release_families
from mnemoforge.exporters.views import AGENT_DIR, AgentItem, AgentView, load_agent_view

CAPTION_IDS = ("observation", "observation_id", "clip", "session", "id")
CAPTION_PATHS = ("image", "media")


def _qualify(fam: str, rel: str, row: dict, ids: tuple[str, ...], paths: tuple[str, ...]) -> dict:
    out = dict(row)
    for k in ids:
        if isinstance(out.get(k), str):
            out[k] = f"{fam}:{out[k]}"
    for k in paths:
        v = out.get(k)
        if isinstance(v, str):
            out[k] = f"{rel}/{v}"
        elif isinstance(v, list):
            out[k] = [f"{rel}/{m}" if isinstance(m, str) else m for m in v]
    return out


def histories(root: Path) -> dict[str, list[str]]:
    """Cross item id -> the families whose agent views are its history
    (``agent/cross/histories.jsonl``; a release frozen before it: the families of its evidence)."""
    from mnemoforge.evaluation.keys import read_jsonl
    from mnemoforge.exporters.multi_release import HISTORIES, history_rows
    from mnemoforge.generators.cross_items import CROSS

    path = Path(root) / AGENT_DIR / CROSS / HISTORIES
    rows = (
        read_jsonl(path)
        if path.is_file()
        else history_rows(read_jsonl(root / "data" / CROSS / "questions.jsonl"))
    )
    return {r["item"]: list(r["families"]) for r in rows}


def cross_view(root: Path) -> AgentView:
    """The agent view the cross items are answered from (the module's docstring): every listed
    family's agent view, qualified, and each item's history (``haystacks``)."""
    from mnemoforge.evaluation.keys import EvaluationError, read_jsonl
    from mnemoforge.exporters.multi_release import members
    from mnemoforge.generators.cross_items import CROSS

    root = Path(root)
    obs: list[dict] = []
    caps: list[dict] = []
    by_family: dict[str, set[str]] = {}
    for fam, rel in members(release_families(root)).items():
        view = load_agent_view(root / rel)
        for o in view.observations:
            obs.append(_qualify(fam, rel, o, ("id", "source", "episode"), ("media",)))
        caps += [_qualify(fam, rel, c, CAPTION_IDS, CAPTION_PATHS) for c in view.captions]
        by_family[fam] = {f"{fam}:{o['id']}" for o in view.observations}
    items = [
        AgentItem(
            id=r["id"],
            family=r["family"],
            question=r["question"],
            choices=r.get("choices"),
            question_media=list(r.get("question_media") or []),
            cutoff=r.get("cutoff"),
        )  # fmt: skip
        for r in read_jsonl(root / AGENT_DIR / CROSS / "questions.jsonl")
    ]
    hist = histories(root)
    haystacks = {}
    for item in items:
        fams = hist.get(item.id)
        if not fams or any(f not in by_family for f in fams):
            raise EvaluationError(f"{root}: cross item {item.id}: no history families ({fams})")
        haystacks[item.id] = frozenset().union(*(by_family[f] for f in fams))
    obs.sort(key=lambda o: (o.get("timestamp") or "", o["id"]))
    return AgentView(
        root=root, family=CROSS, items=items, observations=obs, captions=caps, haystacks=haystacks
    )


def cross_observations(root: Path) -> dict[str, Any]:
    """Every family's observations (evaluator rows), by qualified id: what the exact solver reads
    the facts of when it answers a cross item."""
    from mnemoforge.evaluation.keys import read_jsonl
    from mnemoforge.exporters.multi_release import members
    from mnemoforge.generators.cross_items import qualified
    from mnemoforge.schemas.observations import Observation

    out = {}
    for fam, rel in members(release_families(root)).items():
        for r in read_jsonl(Path(root) / rel / "data" / fam / "observations.jsonl"):
            o = qualified(fam, Observation.model_validate(r))
            out[o.id] = o
    return out
