"""The visual-centric family (MemEye) as a ``Family`` plugin: multi-session chats with pictures."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from mnemoforge.backends.image import (
    visual_animals,
    visual_catalog,
    visual_figures,
    visual_gists,
    visual_library,
    visual_props,
    visual_scene,
    visual_shelf,
)
from mnemoforge.exporters.tables import read_jsonl, write_jsonl_and_parquet
from mnemoforge.family import Family, OnProgress, ReleaseInput
from mnemoforge.generators import declared
from mnemoforge.generators import typed_values as typed_labels
from mnemoforge.generators.coherence_text import LineFilter
from mnemoforge.generators.memeye import (
    captions,
    chat,
    labels,
    programs,
    questions,
    render,
    sessions,
    vocab,
)
from mnemoforge.generators.memeye import gates as memeye_gates
from mnemoforge.generators.memeye import world as world_mod
from mnemoforge.generators.questions import common, options
from mnemoforge.generators.questions import programs as shared_programs
from mnemoforge.schemas.memeye import CELLS, X_LABELS, Y_LABELS
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.validators.gates import Gate

if TYPE_CHECKING:
    from mnemoforge.exporters.report_part import ReportPart

CARD = """Each scenario is a multi-session chat in which the user shares pictures of a few recurring
scenes (rooms, game tables, health dashboards, street corners, shop shelves) and later asks
about them. Every
picture is drawn from the facts it carries, each at a granularity: X1 scene gist, X2 region
(what stands left / right), X3 instance (which of four look-alike items has a small detail), X4
pixel (colour, count, small text). Some keys change between sessions (a repainted wall, a moved
card, an updated step count): the answer is the latest state.

Dialogue text never states a visual value, so X3/X4 facts are only in the pixels (the asked
colour is a small object, about 1 % of the frame; the large background is a neutral tint that is
never asked). `data/memeye/captions.*` holds one dense caption per picture (X1/X2 only) for
caption-proof comparisons; the minimal caption is `[image: <kind>]`.

Each question has labels `x` (highest granularity read) and `y` (Y1 one evidence round; Y2
several non-conflicting rounds; Y3 a stale state and a later override). Every item is mirrored:
`answer` is the open-ended answer; `options` (correct first) with four `rotations` is the MCQ,
the correct option once at each of A–D. For Y3 the stale state is always a distractor. `evidence`
lists the minimal clue rounds (`sNN_rMM`, the first showing of each fact read),
`evidence_alternatives` every other round showing one of those facts, `evidence_sources` the
sessions. `data/memeye/rounds.*` marks each round's `clue_for` and `alt_clue_for` questions.

**Ground truth, not agent input**: `data/world.json`, `data/memeye/observations.*` and
`data/memeye/images.*` (facts per round and picture) and `data/memeye/annotations/layouts.*`
(where each picture draws its marked instance, countables, colour object and label) give the
answers away; a harness must show the agent only the rounds
(`data/memeye/rounds.*`: text and images) and the question."""


def _obs(run: RunLayout) -> list[Observation]:
    return [Observation.model_validate(r) for r in read_jsonl(run.observations)]


def cell_counts(qs: list[Question]) -> dict[str, dict[str, int]]:
    """X -> Y -> number of questions (all 12 cells, zeros shown)."""
    out = {x: dict.fromkeys(Y_LABELS, 0) for x in X_LABELS}
    for q in qs:
        x, y = q.labels.get("x"), q.labels.get("y")
        if x in out and y in out[x]:
            out[x][y] += 1
    return out


def stale_gaps(qs: list[Question], obs: dict[str, Observation]) -> list[int]:
    """For each Y3 item: rounds between its first (stale) and last (latest) evidence round."""
    gaps = []
    for q in qs:
        if q.labels.get("y") == "Y3":
            orders = [obs[e].order for e in q.evidence if e in obs]
            gaps.append(max(orders) - min(orders))
    return gaps


def target_report(planned: dict[str, int], candidates: list[dict], kept: list[Question]) -> dict[str, dict]:
    """Per cell: candidates planned (theme), produced (questions stage) and kept (after gates)."""
    made = {c: 0 for c in CELLS}
    for r in candidates:
        if r.get("category") in made:
            made[r["category"]] += 1
    have = {c: sum(q.category == c for q in kept) for c in CELLS}
    return {c: {"planned": planned.get(c, 0), "candidates": made[c], "kept": have[c]} for c in CELLS}


def declared_report(data: ReleaseInput, sc: Any) -> list[dict[str, Any]]:
    """Per declared state variable: its schedule, the states drawn in each scene, and the kept
    items about it (X label from the key, Y3 from the change)."""
    out = []
    for c in sc.changes:
        schedule = (
            "restock"
            if c.restock
            else f"every {c.every_days} days"
            if c.every_days
            else f"after {c.after}"
            if c.after
            else "dates " + ", ".join(map(str, c.dates))
        )
        idx = c.scenes if c.scenes is not None else list(range(len(sc.scenes)))
        states = {}
        for j in idx:
            sid = world_mod.scene_id(sc, j)
            subjects = (sid, world_mod.object_id(sc, c.key))  # a shared drawable: its object's states
            mine = [f for f in data.world.facts if f.subject in subjects and f.object == c.key]
            seq = sorted(mine, key=lambda f: str(f.at))
            states[sc.scenes[j]] = [f.value for f in seq]
        kept = [q for q in data.kept if q.labels.get("scenario") == sc.id and q.labels.get("key") == c.key]
        out.append(
            {
                "key": c.key,
                "x": vocab.GRANULARITY[c.key],
                "schedule": schedule,
                "states": states,
                "changes": sum(len(v) - 1 for v in states.values()),
                "items": len(kept),
                "y3_items": sum(q.labels.get("y") == "Y3" for q in kept),
            }
        )
    return out


class MemEyeFamily(Family):
    name = "memeye"
    program_modules = ("mnemoforge.generators.memeye.programs",)
    shortfall_hint = "more scenes, sessions or changing keys give more"
    description = "visual chats: images shared in conversations whose details are asked about later"
    example_theme = "visual_diary.yaml"
    warns_own_shortfall = True  # its questions stage logs one warning per short cell
    uses_workers = False  # the pictures are drawn in this process

    eval_keys = ("x", "y", "cell")
    eval_titles = {"x": "By X (visual granularity)", "y": "By Y (memory operation)"}
    agent_tables = {  # ``annotations/layouts`` is an evaluator key only
        "captions": None,
        "sessions": ("session", "scenario", "task", "date", "rounds", "images"),
        "rounds": (
            "round", "session", "scenario", "order", "timestamp", "user", "assistant", "images", "image_kind",
        ),  # fmt: skip
        # no ``scene``: which pictures show one scene is what a memory must work out (issue 31)
        "images": ("path", "kind", "observation", "session", "width", "height", "sha256"),
    }

    variant_unit_name = "sessions"  # an episode is one chat session (its rounds)
    ablations = {"captions_for_pictures": "each picture replaced by its caption, in the chat's text"}

    def ablate(self, name: str, obs: Observation, captions: Mapping[str, dict]) -> Observation | None:
        from mnemoforge.variants import captioned

        if name != "captions_for_pictures":
            return super().ablate(name, obs, captions)
        return captioned(obs, captions.get(obs.id))

    def requested(self, theme: Theme) -> dict[str, int]:
        return dict(theme.memeye.cell_targets()) if theme.memeye is not None else {}

    def preflight_media(self, theme: Theme, world: World) -> tuple[int, int, str]:
        """The chat images the sessions show, and at most each cell's over-generated target."""
        images = sum(1 for o in sessions.plan_sessions(theme, world) if o.media)
        n = sum(common.overgenerate(k) for k in world_mod.spec_of(theme).cell_targets().values())
        return images, n, f"{images} chat images"

    def eval_group(self, category: str, labels: Mapping[str, str]) -> dict[str, str]:
        x, y = labels.get("x", "?"), labels.get("y", "?")
        return {"x": x, "y": y, "cell": f"{x}·{y}"}

    stage_modules: Mapping[str, tuple[ModuleType, ...]] = {
        "plan": (world_mod, vocab, labels, typed_labels, visual_catalog, declared),
        "episodes": (sessions, chat, captions),
        "render": (
            render,
            visual_scene,
            visual_props,
            visual_gists,
            visual_shelf,
            visual_library,
            visual_figures,
            visual_animals,
        ),
        "questions": (questions, programs, typed_labels, common, options, shared_programs),
    }

    def check_theme(self, theme: Theme) -> list[str]:
        from mnemoforge.generators.memeye.check import check_theme

        return check_theme(theme)

    def theme_warnings(self, theme: Theme) -> list[str]:
        from mnemoforge.generators.memeye.check import theme_warnings

        return theme_warnings(theme)

    def plan(self, theme: Theme, seed: int) -> World:
        return world_mod.plan_world(theme, seed)

    def episodes(self, theme: Theme, world: World, run: RunLayout) -> list[Path]:
        lines_ok = LineFilter(world)
        obs = sessions.plan_sessions(theme, world, lines_ok)
        atomic.write_jsonl(run.observations, obs)
        atomic.write_jsonl(run.captions, captions.dense_captions(world, obs))
        coherence = atomic.write_json(
            run.root / "episodes/coherence.json", {"lines": lines_ok.summary()}
        )  # funnel
        return [run.observations, run.captions, coherence]

    def render(
        self, theme: Theme, world: World, run: RunLayout, workers: int, on_progress: OnProgress | None
    ) -> list[Path]:
        spec = world_mod.spec_of(theme)
        return render.render_images(run, world, _obs(run), spec.image_width, spec.image_height, on_progress)

    def questions(self, theme: Theme, world: World, run: RunLayout) -> list[Question]:
        return questions.generate(
            world, _obs(run), world_mod.spec_of(theme).cell_targets(), theme.gates.max_answer_share
        )

    def quotas(self, theme: Theme) -> dict[str, int]:
        """Each cell's target, met after the gates (candidates are over-generated)."""
        return world_mod.spec_of(theme).cell_targets()

    def gates(self) -> list[Gate]:
        return memeye_gates.family_gates()

    def release_tables(self, data: ReleaseInput, root: Path) -> dict[str, str]:
        spec = world_mod.spec_of(data.theme)
        titles = {sc.id: sc.title for sc in spec.scenarios}
        places = {sc.id: sc.place for sc in spec.scenarios}
        clue_for: dict[str, list[str]] = {}
        alt_for: dict[str, list[str]] = {}
        for q in data.kept:
            for e in q.evidence:
                clue_for.setdefault(e, []).append(q.id)
            for e in q.evidence_alternatives:
                alt_for.setdefault(e, []).append(q.id)
        sess_rows: dict[str, dict] = {}
        for o in data.observations:
            row = sess_rows.setdefault(
                o.episode,
                {
                    "session": o.episode,
                    "scenario": o.source,
                    "task": titles.get(o.source, o.source),
                    "place": places.get(o.source),
                    "date": o.timestamp.isoformat(),
                    "rounds": [],
                    "images": [],
                },
            )
            row["rounds"].append(o.id)
            row["images"] += o.media
        rounds = []
        for o in data.observations:
            user, _, reply = o.content.partition("\n")
            rounds.append(
                {
                    "round": o.id,
                    "session": o.episode,
                    "scenario": o.source,
                    "order": o.order,
                    "timestamp": o.timestamp.isoformat(),
                    "user": user.removeprefix("User: "),
                    "assistant": reply.split(": ", 1)[-1],
                    "images": o.media,
                    "image_kind": o.kind if o.media else None,
                    "clue_for": sorted(clue_for.get(o.id, [])),
                    "alt_clue_for": sorted(alt_for.get(o.id, [])),
                }
            )
        by_id = {o.id: o for o in data.observations}
        keep = ("path", "kind", "observation", "session", "scene", "width", "height", "sha256")
        images = [
            {k: m[k] for k in keep}
            | {"facts": [e.model_dump(mode="json") for e in by_id[m["observation"]].expresses]}
            for m in data.media
            if m.get("observation") in by_id
        ]
        base = root / "data/memeye"
        write_jsonl_and_parquet(list(sess_rows.values()), base / "sessions.jsonl", base / "sessions.parquet")
        write_jsonl_and_parquet(rounds, base / "rounds.jsonl", base / "rounds.parquet")
        write_jsonl_and_parquet(images, base / "images.jsonl", base / "images.parquet")
        layouts = [
            {
                "observation": r["observation"],
                "path": r["path"],
                "layout": json.dumps(r["layout"], sort_keys=True),
            }
            for r in read_jsonl(data.run_root / render.LAYOUTS)
        ]
        ann = base / "annotations"
        write_jsonl_and_parquet(layouts, ann / "layouts.jsonl", ann / "layouts.parquet")
        return {
            "memeye_sessions": "data/memeye/sessions.parquet",
            "memeye_rounds": "data/memeye/rounds.parquet",
            "memeye_images": "data/memeye/images.parquet",
            "memeye_layouts": "data/memeye/annotations/layouts.parquet",
        }

    def statistics(self, data: ReleaseInput) -> dict[str, Any]:
        obs = {o.id: o for o in data.observations}
        gaps = stale_gaps(data.kept, obs)
        spec = world_mod.spec_of(data.theme)
        per_scenario = {}
        for sc in spec.scenarios:
            mine = [o for o in data.observations if o.source == sc.id]
            per_scenario[sc.id] = {
                "title": sc.title,
                "kind": sc.kind,
                "sessions": len({o.episode for o in mine}),
                "rounds": len(mine),
                "images": sum(len(o.media) for o in mine),
                "questions": sum(q.labels.get("scenario") == sc.id for q in data.kept),
            }
            if sc.changes:
                per_scenario[sc.id]["state_variables"] = declared_report(data, sc)
        cells = cell_counts(data.kept)
        targets = target_report(
            spec.cell_targets(), read_jsonl(RunLayout(data.run_root).candidates), data.kept
        )
        return {
            "memeye": {
                "scenarios": per_scenario,
                "sessions": len({o.episode for o in data.observations}),
                "rounds": len(data.observations),
                "images": sum(len(o.media) for o in data.observations),
                "cells": cells,
                "cells_covered": sum(1 for x in cells for y in cells[x] if cells[x][y] > 0),
                "targets": targets,
                "shortfalls": sorted(c for c, t in targets.items() if t["kept"] < t["planned"]),
                "y3_stale_latest_gap": {
                    "items": len(gaps),
                    "min_rounds": min(gaps) if gaps else 0,
                    "mean_rounds": round(sum(gaps) / len(gaps), 3) if gaps else 0.0,
                    "max_rounds": max(gaps) if gaps else 0,
                },
            },
            "questions": {
                "by_cell": {c: cells[c[:2]][c[3:]] for c in CELLS},
                "mcq": sum(1 for q in data.kept if q.options),
                "mean_evidence_rounds": round(sum(len(q.evidence) for q in data.kept) / len(data.kept), 3)
                if data.kept
                else 0.0,
            },
        }

    def counts(self, stats: dict[str, Any]) -> dict[str, int]:
        m = stats["memeye"]
        return {"sessions": m["sessions"], "rounds": m["rounds"], "images": m["images"]}

    def contents_line(self, stats: dict[str, Any]) -> str:
        m = stats["memeye"]
        return (
            f"{len(m['scenarios'])} scenarios, {m['sessions']} sessions, {m['rounds']} rounds, "
            f"{m['images']} images, {m['cells_covered']}/12 X×Y cells"
        )

    def card_section(self, stats: dict[str, Any]) -> str:
        cells = stats["memeye"]["cells"]
        rows = ["", "| | " + " | ".join(Y_LABELS) + " |", "|---|" + "---|" * len(Y_LABELS)]
        rows += [f"| {x} | " + " | ".join(str(cells[x][y]) for y in Y_LABELS) + " |" for x in X_LABELS]
        short = stats["memeye"].get("shortfalls", [])
        t = stats["memeye"].get("targets", {})
        note = (
            "\n\nBelow target (planned → kept): "
            + ", ".join(f"{c} {t[c]['planned']}→{t[c]['kept']}" for c in short)
            if short
            else "\n\nEvery cell met its planned target."
        )
        return CARD + "\n\nKept questions per cell:\n" + "\n".join(rows) + note

    def report_part(self) -> ReportPart:
        from mnemoforge.generators.memeye.report import ScenariosReport

        return ScenariosReport()

    def realiser(self, theme_bytes: bytes, world: World) -> Callable[[Question], list[str] | None] | None:
        from mnemoforge.generators.memeye.retext import realiser

        return realiser(world)


FAMILY = MemEyeFamily()
