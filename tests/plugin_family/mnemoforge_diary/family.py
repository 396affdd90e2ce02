"""The diary family: one ``mnemoforge.family.Family`` subclass, registered by this package's
``pyproject.toml`` (entry-point group ``mnemoforge.families``). Nothing in mnemoforge names it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from mnemoforge.exporters.tables import write_jsonl_and_parquet
from mnemoforge.family import Family, OnProgress, ReleaseInput
from mnemoforge.generators.questions.common import (
    Candidate,
    EvidenceIndex,
    Template,
    make_question,
    solve_candidates,
)
from mnemoforge.generators.questions.options import rotations
from mnemoforge.hashing import content_hash
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.validators.gates import GateContext, verdict
from mnemoforge_diary import programs
from mnemoforge_diary import world as world_mod

NAME = "diary"
CATEGORY = "where_was"
WHERE = Template(id="diary_where_v1", category=CATEGORY, program="diary_where", text="")


def _day_text(day: dt.date) -> str:
    return f"{day:%A} {day.day} {day:%B} {day.year}"


def _entries(world: World) -> list[Observation]:
    """One written entry a day, in day order: where the diarist spent it."""
    names = {p.id: p.name for p in world.places}
    out = []
    for i, f in enumerate(sorted(world.facts, key=lambda f: f.at or dt.datetime.min)):
        assert f.at is not None
        out.append(
            Observation(
                id=f"diary_{f.at.date().isoformat()}",
                source="diary",
                episode=f"day_{i:02d}",
                kind="entry",
                timestamp=f.at,
                order=i,
                content=f"Dear diary, today I spent the day at the {names[f.object]}.",
                people=[f.subject],
                expresses=[Expression(fact=f.id, channel=Channel.text)],
            )
        )
    return out


class OneEntryEvidence:
    """The diary's own gate: an item's evidence is exactly the entry of the day it asks about."""

    name, version = "diary_one_entry", "1"

    def check(self, q: Question, ctx: GateContext) -> Verdict:
        want = f"diary_{q.program.args.get('day')}"
        ok = q.evidence == [want]
        return verdict(self, q, ok, "the day's entry" if ok else f"evidence {q.evidence}, not {want}")


class DiaryFamily(Family):
    name = NAME
    program_modules = ("mnemoforge_diary.programs",)
    stage_modules = {"plan": (world_mod,), "episodes": (), "render": (), "questions": (programs,)}
    shortfall_hint = "a longer theme span gives more days"
    uses_workers = False  # nothing to render in processes

    def requested(self, theme: Theme) -> dict[str, int]:
        return {CATEGORY: len(world_mod.days(theme))}

    def plan(self, theme: Theme, seed: int) -> World:
        return world_mod.plan_world(theme, seed)

    def episodes(self, theme: Theme, world: World, run: RunLayout) -> list[Path]:
        entries = _entries(world)
        captions = [{"observation": o.id, "caption": o.content} for o in entries]
        return [atomic.write_jsonl(run.observations, entries), atomic.write_jsonl(run.captions, captions)]

    def render(
        self, theme: Theme, world: World, run: RunLayout, workers: int, on_progress: OnProgress | None
    ) -> list[Path]:
        return [atomic.write_jsonl(run.media_index, [])]  # a written diary: no media

    def questions(self, theme: Theme, world: World, run: RunLayout) -> list[Question]:
        from mnemoforge.exporters.tables import read_jsonl

        obs = [Observation.model_validate(r) for r in read_jsonl(run.observations)]
        items = [(WHERE, {"person": f.subject, "day": f.at.date().isoformat()}) for f in world.facts if f.at]
        whash = content_hash(world)
        places = [p.name for p in world.places]
        out = []
        for c in solve_candidates(world, EvidenceIndex(obs), iter(items)):
            out.append(self._question(world, c, whash, places))
        return out

    def _question(self, world: World, c: Candidate, whash: str, places: list[str]) -> Question:
        day = dt.date.fromisoformat(c.args["day"])
        who = world.person(c.args["person"]).name
        q = make_question(world, NAME, c, f"where did {who} spend {_day_text(day)}?", [c.args["person"]],
                          None, whash)  # fmt: skip
        others = sorted(p for p in places if p != c.answer)[:3]
        if len(others) < 3:
            return q  # open-ended
        return q.model_copy(update={"options": [c.answer, *others], "rotations": rotations(world.seed, q.id)})

    def gates(self) -> list:
        return [OneEntryEvidence()]

    def release_tables(self, data: ReleaseInput, root: Path) -> dict[str, str]:
        rows = [{"day": o.timestamp.date().isoformat(), "entry": o.id} for o in data.observations]
        write_jsonl_and_parquet(rows, root / f"data/{NAME}/days.jsonl", root / f"data/{NAME}/days.parquet")
        return {f"{NAME}_days": f"data/{NAME}/days.parquet"}

    def statistics(self, data: ReleaseInput) -> dict[str, Any]:
        return {NAME: {"days": len(data.observations)}}

    def counts(self, stats: dict[str, Any]) -> dict[str, int]:
        return {"days": int(stats.get(NAME, {}).get("days", 0))}

    def contents_line(self, stats: dict[str, Any]) -> str:
        return f"{stats.get(NAME, {}).get('days', 0)} diary days"

    def card_section(self, stats: dict[str, Any]) -> str:
        return "## Diary\n\nOne written entry a day says where the diarist spent it; each item asks where.\n"


FAMILY = DiaryFamily()
