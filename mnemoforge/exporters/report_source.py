"""What the report reads (:class:`Source`): a release (``MANIFEST.json``) or run (``run.json``)
folder's World, clips or episodes, observations, kept questions, funnel and statistics, the same
for both; a family's release inside a multi-family release reads the root's one World.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from mnemoforge.evaluation.cross_keys import shared_world
from mnemoforge.exporters import report_families as fam
from mnemoforge.exporters.report_part import ReportPart
from mnemoforge.generators.families import get_family
from mnemoforge.registry import DEFAULT_FAMILY

Rec = dict[str, Any]


def _jsonl(path: Path) -> list[Rec]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _json(path: Path) -> Rec:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


@dataclass
class Source:
    """What the report reads, the same for a run and a release; ``questions`` are the kept ones."""

    root: Path
    label: str
    meta: Rec
    world: Rec
    clips: list[Rec]
    observations: dict[str, Rec]
    questions: list[Rec]
    candidates: int
    funnel: Rec
    family: str
    stats: Rec = field(default_factory=dict)
    sources: list[Rec] = field(default_factory=list)

    @property
    def people(self) -> dict[str, Rec]:
        """People of the World by id, in cast order."""
        return {p["id"]: p for p in self.world.get("people", [])}

    @cached_property
    def part(self) -> ReportPart | None:
        """What the family adds to the page; None: an album of clips (the report's own clip
        pages). A family no installed package registers gets the generic part."""
        if self.clips:
            return None
        try:
            return get_family(self.family).report_part()
        except KeyError:
            return ReportPart()

    @property
    def icm(self) -> bool:
        """Whether the source is an album of clips (the icm family)."""
        return self.part is None

    @cached_property
    def episodes(self) -> list[Rec]:
        """The clips, or (families without clips) clip-shaped episodes from the observations."""
        return self.clips or fam.episodes(self.observations.values())


CLIP_UNIT = ("clip", "clips")


def _unit(src: Source) -> tuple[str, str]:
    """The source's episode word, singular and plural ("clip", "clips")."""
    return CLIP_UNIT if src.part is None else src.part.unit


def load_source(source: Path) -> Source:
    """Read a release (``MANIFEST.json``) or run (``run.json``) folder into a :class:`Source`."""
    root = Path(source)
    if (root / "MANIFEST.json").is_file():
        meta = _json(root / "MANIFEST.json")
        if meta.get("families"):
            raise ValueError(f"{root}: a multi-family release (report_multi.write_multi_report reports it)")
        family = str(meta.get("family", DEFAULT_FAMILY))
        data = root / "data" / family
        questions, funnel = _jsonl(data / "questions.jsonl"), _json(root / "gates" / "funnel.json")
        label = f"release {meta.get('name', '?')} {meta.get('version', '?')}"
        world, clips, obs = root / "data" / "world.json", data / "clips.jsonl", data / "observations.jsonl"
        candidates = int(funnel.get("candidates", len(questions)))
        sources, stats = data / "sources.jsonl", _json(root / "dataset_statistics.json")
    elif (root / "run.json").is_file():
        meta = _json(root / "run.json")
        pool = _jsonl(root / "questions" / "candidates.jsonl")
        verdicts = _jsonl(root / "gates" / "verdicts.jsonl")
        rejected = {v["item"] for v in verdicts if not v["keep"]}
        judged = {v["item"] for v in verdicts}
        questions = [q for q in pool if q["id"] in judged and q["id"] not in rejected] if verdicts else pool
        family = str(pool[0]["family"]) if pool else DEFAULT_FAMILY
        funnel, label, candidates = _json(root / "gates" / "funnel.json"), f"run {root.name}", len(pool)
        world, clips = root / "world" / "world.json", root / "episodes" / "clips.jsonl"
        obs = root / "episodes" / "observations.jsonl"
        sources, stats = root / "episodes" / f"{family}_sources.jsonl", {}
    else:
        raise ValueError(f"{root}: neither a release (MANIFEST.json) nor a run folder (run.json)")
    if not world.is_file() and (shared := shared_world(root)) is not None:
        world = shared  # a family's release inside a multi-family release: the one World
    w = _json(world)
    observations = {o["id"]: o for o in _jsonl(obs)}
    return Source(
        root, label, meta, w, _jsonl(clips), observations, questions, candidates, funnel, family, stats,
        _jsonl(sources),
    )  # fmt: skip
