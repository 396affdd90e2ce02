"""The identity-centric video family (ICM-Bench) as a ``Family`` plugin: an album of clips."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from mnemoforge.backends.text import make_text_backend
from mnemoforge.exporters import media_tables
from mnemoforge.exporters.tables import read_jsonl, write_jsonl_and_parquet
from mnemoforge.family import THEME_OPTIONS, Family, OnProgress, PreflightAlbum, ReleaseInput
from mnemoforge.generators import declared
from mnemoforge.generators.coherence import world_problems
from mnemoforge.generators.coherence_text import LineFilter
from mnemoforge.generators.icm import ablations as ablations_mod
from mnemoforge.generators.icm import (
    album,
    album_check,
    captions,
    programs,
    render,
    render_audit,
    render_pool,
    render_timing,
    routine_programs,
    world_rules,
)
from mnemoforge.generators.icm import dialogue as album_dialogue
from mnemoforge.generators.icm import model_dialogue as album_model_dialogue
from mnemoforge.generators.icm import questions as icm
from mnemoforge.generators.icm import world as world_mod
from mnemoforge.generators.icm.check import check_icm_theme, icm_theme_warnings
from mnemoforge.generators.questions import common, options
from mnemoforge.generators.questions import programs as program_base
from mnemoforge.generators.questions.common import overgenerate
from mnemoforge.generators.theme_review import Review, dry_run
from mnemoforge.hashing import source_hash
from mnemoforge.schemas.episodes import Clip
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.validators import gates as gates_mod
from mnemoforge.validators.prompts import load_prompt

CARD = """Clip 0 is a calibration clip in which each person faces the camera and says their name; it is
never used as evidence. Recall and Retrieval questions may use clips up to their `cutoff` (the
latest accessible clip, 5–20 clips after the last evidence clip); Profile questions use the whole
album.

`data/*/captions.*` holds one caption-memory record per clip for caption-based baselines: what is
seen (people described by appearance, never by name), the words spoken without speaker labels,
audio events, places, objects and time. `media/transcripts/` has timestamped transcripts of each
clip, speaker-labelled and speakerless (for ASR-only controls)."""


def dialogue_lineage(run_root: Path) -> Path:
    """Raw model I/O of ``album.dialogue_model`` (one record per line)."""
    return run_root / "episodes" / "dialogue_model.jsonl"


def model_plan_counts(run_root: Path) -> dict[str, Any]:
    """The counts of the model-planned stages a run used (``text.plan`` events, ``text.plan_shots``)."""
    out = {}
    for name, path in (("events", run_root / "world/plan_summary.json"),
                       ("shots", run_root / "episodes/shot_plan_summary.json")):  # fmt: skip
        if path.is_file():
            out[name] = json.loads(path.read_text())
    return out


def model_plan_card(planned: dict[str, Any] | None) -> str:
    """The card's paragraph on model-planned stages ("" for a procedural build)."""
    if not planned:
        return ""
    parts = []
    if ev := planned.get("events"):
        why = ", ".join(f"{k} {n}" for k, n in ev["rejected"].items()) or "none"
        parts.append(f"event outlines: {ev['accepted']} of {ev['slots']} proposed by a model and kept "
                     f"(the rest procedural; rejects: {why})")  # fmt: skip
    if sh := planned.get("shots"):
        why = ", ".join(f"{k} {n}" for k, n in sh["fell_back_by_reason"].items()) or "none"
        parts.append(f"shot lists: {sh['accepted']} of {sh['clips']} clips planned by a model "
                     f"({sh['repaired']} after a repair), {sh['fell_back']} kept the procedural shots "
                     f"(why: {why})")  # fmt: skip
    return (
        "\n\nModel-planned: " + "; ".join(parts) + ". Every proposal was validated into the same records "
        "the procedural planner makes; counts are in `dataset_statistics.json` (`model_plan`)."
    )


def load_clips(run_root: Path) -> list[Clip]:
    return [Clip.model_validate(r) for r in read_jsonl(RunLayout(run_root).clips)]


def _planned(theme: Theme) -> Review:
    """The World planned as the build plans it: its coherence problems, and the planner's warnings
    (``mnemoforge.plan``: a slot left out), from one dry run per theme."""

    def stages(r: Review) -> None:
        world = world_mod.plan_world(theme, theme.seed, theme.album.clips - 1)
        r.problems += [f"world: {p}" for p in world_problems(world, theme)]

    return dry_run(("icm-plan", theme.model_dump_json()), stages, "mnemoforge.plan")


class IcmFamily(Family):
    name = "icm"
    program_modules = (
        "mnemoforge.generators.icm.programs",
        "mnemoforge.generators.icm.routine_programs",
        "mnemoforge.generators.icm.part_programs",
    )
    shortfall_hint = "more people, activities, places, objects or clips give more"
    description = (
        "identity-centric video albums: a recurring cast, places, objects and activities on a timeline"
    )
    eval_titles = {"category": "By category (Recall / Retrieval / Profile)"}
    agent_tables = {
        "captions": ("clip", "caption", "visual_details", "speech", "audio_events", "time"),
        "clips": ("id", "index", "start", "day_of_week", "season", "calibration", "video"),
        "shots": ("id", "clip_id", "index", "start", "composition", "camera", "image"),
        "speech": ("id", "clip_id", "shot_id", "text", "audio_path"),
    }
    theme_options = THEME_OPTIONS  # model planners; image, video and speech backends
    stage_modules: Mapping[str, tuple[ModuleType, ...]] = {
        "plan": (world_mod, world_rules, declared),
        "episodes": (album, album_dialogue, album_model_dialogue, render_timing, album_check, captions),
        "render": (render, render_audit, render_pool, render_timing),
        "questions": (icm, common, program_base, programs, routine_programs, options),
    }

    variant_unit_name = "clips"
    extends = True  # more clips of the same World for the longer variants (generators/icm/extension.py)
    ablations = ablations_mod.ABLATIONS

    def ablate(self, name: str, obs: Observation, captions: Mapping[str, dict]) -> Observation | None:
        if name not in self.ablations:
            return super().ablate(name, obs, captions)
        return ablations_mod.ablate(name, obs, captions)

    def write_ablation_media(self, name: str, root: Path, paths: list[str]) -> None:
        ablations_mod.write_media(name, root, paths)

    def check_ablation_media(self, name: str, root: Path, paths: list[str]) -> list[str]:
        return ablations_mod.check_media(name, root, paths)

    def variant_capacity(self, theme: Theme) -> int | None:
        return theme.album.clips

    def variant_extension(
        self, theme: Theme, world: World, run_root: Path, n: int
    ) -> tuple[World, list[Observation]] | None:
        """``n`` more clips of the same World (``generators/icm/extension.py``)."""
        from mnemoforge.generators.icm.extension import plan_extension

        ext = plan_extension(theme, world, load_clips(run_root), n)
        return ext.world, ext.observations

    def write_variant_extension(
        self, theme: Theme, world: World, run_root: Path, n: int, dest: Path, workers: int
    ) -> Path | None:
        from mnemoforge.generators.icm.extension_run import write_extended_run

        return write_extended_run(theme, world, RunLayout(run_root), n, dest, workers).root

    def check_theme(self, theme: Theme) -> list[str]:
        """A frame too small for the face-size rule, activities whose who-rules cannot fill them,
        a model dialogue without a text backend (``generators/icm/check.py``), and the planned
        World's coherence (``generators/coherence.py``)."""
        warned = set(icm_theme_warnings(theme))
        out = [p for p in check_icm_theme(theme) if p not in warned]
        return out or _planned(theme).problems

    def theme_warnings(self, theme: Theme) -> list[str]:
        """Cast cues that collide at wide-shot scale and look-alike rooms: legal, but hard to tell
        apart; and the planner's shortfall lines (an event slot no day could hold)."""
        return icm_theme_warnings(theme) + _planned(theme).warnings

    def plan(self, theme: Theme, seed: int) -> World:
        return world_mod.plan_world(theme, seed, theme.album.clips - 1)

    def episodes(self, theme: Theme, world: World, run: RunLayout) -> list[Path]:
        lines_ok = LineFilter(world)
        clips, obs = album.plan_album(theme, world, lines_ok)
        written = [
            atomic.write_json(run.root / "episodes/coherence.json", {"lines": lines_ok.summary()})
        ]  # funnel
        if theme.text.plan_shots:  # opt-in: a model proposes each clip's shots (model_shots.py)
            from mnemoforge.generators.icm import model_shots

            clips, paths = model_shots.plan_album_shots(theme, world, clips, run)
            obs = [o for c in clips for o in album.observations_for_clip(world, c)]
            written += paths
        if theme.album.dialogue_model:
            if not theme.text.backend:
                raise ValueError(
                    "album.dialogue_model: needs text.backend (the model that rewords the lines)"
                )
            clips, records = album_model_dialogue.reword_album(
                theme, world, clips, make_text_backend(theme.text.backend), load_prompt("dialogue")
            )
            obs = [o for c in clips for o in album.observations_for_clip(world, c)]
            atomic.write_jsonl(dialogue_lineage(run.root), records)
            written.append(dialogue_lineage(run.root))
        album_check.validate_album(theme, world, clips)
        atomic.write_jsonl(run.clips, clips)
        atomic.write_jsonl(run.observations, obs)
        atomic.write_jsonl(run.captions, captions.album_captions(world, clips))
        return [run.clips, run.observations, run.captions, *written]

    def render(
        self, theme: Theme, world: World, run: RunLayout, workers: int, on_progress: OnProgress | None
    ) -> list[Path]:
        return render_pool.render_run(
            run, theme, world, load_clips(run.root), workers=workers, on_clip=on_progress
        )

    shard_unit = "clips"  # album clips render as shards on a task runner

    def render_shards(self, run: RunLayout, workers: int) -> list[list[str]]:
        return [[c.id for c in s] for s in render_pool.shard_clips(load_clips(run.root), workers)]

    def render_shard(self, theme: Theme, world: World, run: RunLayout, ids: list[str]) -> list[dict]:
        wanted = set(ids)
        clips = [c for c in load_clips(run.root) if c.id in wanted]
        return render_pool.render_shard(run, theme, world, clips)

    def finish_render(
        self, theme: Theme, world: World, run: RunLayout, rows: list[dict], workers: int
    ) -> list[Path]:
        return render.finish_render(run, theme, world, load_clips(run.root), rows, workers)

    def questions(self, theme: Theme, world: World, run: RunLayout) -> list[Question]:
        obs = [Observation.model_validate(r) for r in read_jsonl(run.observations)]
        last = max(c.index for c in load_clips(run.root))
        counts = {k: overgenerate(n) for k, n in theme.questions.counts().items()}
        caps = read_jsonl(run.captions) if run.captions.is_file() else []
        return icm.generate_icm(world, obs, counts, last_order=last, captions=caps)

    def preflight_album(self, theme: Theme, seed: int) -> PreflightAlbum:
        """The album as ``plan`` and ``episodes`` would lay it out (World, clips, shots, lines)."""
        from mnemoforge.generators.icm.fit_length import length_alternatives

        world = world_mod.plan_world(theme, seed, theme.album.clips - 1)
        clips, _ = album.plan_album(theme, world)
        shots = [s for c in clips for s in c.shots]
        asks = None
        if theme.text.plan_shots:
            from mnemoforge.generators.icm.model_shots import preflight_asks

            asks = preflight_asks(theme, world, clips)
        alternatives = length_alternatives(theme, world, shots)
        return PreflightAlbum(world, clips, album_dialogue.line_seconds, alternatives, asks)

    def fit_length(self, theme: Theme, seed: int, ref_minutes: float) -> dict[str, Any]:
        """The album knobs (shot length, shots per clip, talk density) that reach the pace."""
        from mnemoforge.generators.icm.fit_length import fit_report

        return fit_report(theme, seed, ref_minutes)

    def model_plan(self, theme: Theme, seed: int, run: RunLayout) -> list[Path]:
        """A model proposes the event outlines (``generators/icm/model_plan.py``)."""
        from mnemoforge.generators.icm.model_plan import plan_stage

        return plan_stage(theme, seed, run)

    def model_plan_inputs(self, theme: Theme) -> list[object]:
        """The planners' source and prompts (``text.plan``: events; ``text.plan_shots``: shots)."""
        from mnemoforge.generators.icm import model_plan, model_shots, shot_proposals

        folder = Path(theme.gates.prompts_dir) if theme.gates.prompts_dir else None
        parts: list[object] = []
        if theme.text.plan:
            parts += [source_hash(model_plan), load_prompt(theme.text.plan_prompt, folder).sha256]
        if theme.text.plan_shots:
            parts += ["shots", source_hash(model_shots, shot_proposals)]
            parts += [p.sha256 for p in model_shots.load_prompts(theme)]
        return parts

    def preflight_candidates(self, theme: Theme) -> int:
        """Each category over-generated, as ``questions`` asks for it."""
        return sum(overgenerate(n) for n in theme.questions.counts().values())

    keep_split = True  # the category_quota gate keeps ICM-Bench's split after the gates

    def quotas(self, theme: Theme) -> dict[str, int]:
        """The requested split, met after the gates (candidates are over-generated)."""
        return theme.questions.counts()

    def gates(self) -> list[gates_mod.Gate]:
        from mnemoforge.validators.perceivable import Perceivable

        return [gates_mod.CategoryRules(), Perceivable()]

    def release_tables(self, data: ReleaseInput, root: Path) -> dict[str, str]:
        clips = load_clips(data.run_root)
        rows = [cl.model_dump(mode="json") | {"video": f"media/clips/{cl.id}.mp4"} for cl in clips]
        write_jsonl_and_parquet(rows, root / "data/icm/clips.jsonl", root / "data/icm/clips.parquet")
        media_tables.write_shots(clips, root, root / "data/icm/shots.parquet")
        media_tables.write_speech(clips, root / "data/icm/speech.parquet")
        lineage = dialogue_lineage(data.run_root)
        if lineage.exists():  # model-written dialogue: the raw model I/O travels with the release
            atomic.write_bytes(root / "data/icm/dialogue_model.jsonl", lineage.read_bytes())
        shots_lineage = data.run_root / "episodes" / "shot_plan_lineage.jsonl"
        if shots_lineage.exists():  # model-planned shots (text.plan_shots): the raw model I/O too
            atomic.write_bytes(root / "data/icm/shot_plan.jsonl", shots_lineage.read_bytes())
        return {
            "icm_clips": "data/icm/clips.parquet",
            "icm_shots": "data/icm/shots.parquet",
            "icm_speech": "data/icm/speech.parquet",
        }

    def statistics(self, data: ReleaseInput) -> dict[str, Any]:
        clips = load_clips(data.run_root)
        seconds = sum(cl.duration_s for cl in clips)
        ev = [len(q.evidence_clips) for q in data.kept]
        stats: dict[str, Any] = {
            "clips": {
                "count": len(clips),
                "shots": sum(len(cl.shots) for cl in clips),
                "seconds": seconds,
                "minutes": round(seconds / 60, 3),
                "lines": sum(len(s.dialogue) for cl in clips for s in cl.shots),
            },
            "questions": {"mean_evidence_clips": round(sum(ev) / len(ev), 3) if ev else 0.0},
        }
        run = RunLayout(data.run_root)
        vc = run.voice_check
        if vc.exists():
            stats["voice_distinguishability"] = json.loads(vc.read_text())
        ra = render_audit.audit_path(run.media)
        if ra.exists():
            stats["render_audit"] = json.loads(ra.read_text())
        planned = model_plan_counts(data.run_root)
        if planned:  # text.plan / text.plan_shots: proposed, accepted, repaired, fell back, by reason
            stats["model_plan"] = planned
        return stats

    def counts(self, stats: dict[str, Any]) -> dict[str, int]:
        return {"clips": stats["clips"]["count"]}

    def contents_line(self, stats: dict[str, Any]) -> str:
        c = stats["clips"]
        return f"{c['count']} clips ({c['minutes']:.1f} min), {c['shots']} shots"

    def card_section(self, stats: dict[str, Any]) -> str:
        return CARD + model_plan_card(stats.get("model_plan"))

    def report_part(self) -> None:
        return None  # clips of shots: the report's own album pages

    def realiser(self, theme_bytes: bytes, world: World) -> Callable[[Question], list[str] | None] | None:
        from mnemoforge.generators.icm.retext import realiser

        return realiser(world)


FAMILY = IcmFamily()
