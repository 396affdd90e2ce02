"""The source-distributed family (SMMBench) as a ``Family`` plugin."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from mnemoforge.exporters.tables import read_jsonl, write_jsonl_and_parquet
from mnemoforge.family import Family, OnProgress, ReleaseInput
from mnemoforge.generators import declared
from mnemoforge.generators import tool_calls as tools
from mnemoforge.generators.questions import common, options
from mnemoforge.generators.smm import (
    concentrated,
    conversation,
    filler,
    injection,
    paraphrase,
    programs,
    questions,
    render,
    scaffold,
    stream,
)
from mnemoforge.generators.smm import gates as smm_gates
from mnemoforge.generators.smm import world as world_mod
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.smm import CONVERSATIONAL, TASKS
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World
from mnemoforge.store import atomic
from mnemoforge.store.layout import RunLayout
from mnemoforge.validators.gates import Gate

if TYPE_CHECKING:
    from mnemoforge.exporters.report_part import ReportPart

BLOCKS, SOURCES = "episodes/smm_blocks.jsonl", "episodes/smm_sources.jsonl"
TURNS = "episodes/smm_turns.jsonl"
COHERENCE = "episodes/coherence.json"  # lines rejected as incoherent, by rule (gates copy it to the funnel)

CARD = """Each observation is ⟨content, source, timestamp⟩ with a global `order` (the agent receives all
sources merged in time order). Sources ({sources}) each have their own purpose, members and
authority (`data/smm/sources.*`). Questions were planned from the World first; the facts each
one reads were then routed to different sources (mean {mean} sources per kept question, minimum
{minimum}), each inside a short local scaffold (a lead-in, the fact or an attachment referenced as
"Table N", "Doc. N", "Fig. N", "Photo N", numbered in order per source, then a reply). Entity details are
filed under record codes (e.g. `PRO-47`): which entity a code names is said in another source.
True facts nobody asks about arrive the same way (hard negatives), and filler items of the
artifact sources are numbered and announced like evidence. A fact drawn in an image is never
repeated in the text of the message carrying it; `data/smm/captions.*` holds dense captions of
every image for caption-based baselines. Conflicts resolve by **authority, then recency**: an
update arrives at least {gap} rounds after the stale value (observed minimum {observed}), in a
source at least as authoritative; a later rumour in a lower-authority chat does not override it.
No item is answerable from one source alone, even under relaxed rules (checked by running its
program, and a relaxed form of it, on each source's observations).

Tasks: single-hop, multi-hop, conflict resolution and preference items have four options (four
rotations put the answer once at each of A-D) and are also asked open-ended (ignore `options`);
function-calling items are open: `structured_answer` is the call list
(`[{{"step": 1, "calls": [{{"name": ..., "arguments": {{...}}}}]}}]`), scored by exact match of names and
normalised arguments (`mnemoforge.generators.smm.tools.score_calls`, which needs the tool schemas
in `data/smm/tools.json`: an optional argument given at its default equals an omitted one).

Control: `data/smm/concentrated/` is the source-concentrated twin: the same questions and
observations (ids, contents, order, total length), with every observation in the source `{hub}`
(so every question's evidence is in one source); only `source`/`episode` differ. Every row moves,
not only the evidence: the rows that differ between the two views never mark the evidence."""


def _read_rows(run_root: Path, rel: str) -> list[dict]:
    return read_jsonl(run_root / rel)


def _load_obs(run: RunLayout) -> list[Observation]:
    return [Observation.model_validate(r) for r in read_jsonl(run.observations)]


def twin(data: ReleaseInput) -> concentrated.Twin:
    conv = {s.id for s in world_mod.spec(data.theme).sources if s.kind in CONVERSATIONAL}
    return concentrated.concentrate(data.observations, _read_rows(data.run_root, BLOCKS), data.kept, conv)


def _hist(values: list[int]) -> dict[str, int]:
    return {str(k): v for k, v in sorted(Counter(values).items())}


def conflict_gaps(observations: list[Observation], qs: list[Question]) -> list[int]:
    """Rounds between each stale value and its update, over the pairs the items read."""
    where = {}
    for o in observations:
        for e in o.expresses:
            where.setdefault(e.fact, o.order)
    pairs = {
        (f, f[:-2] + "_1")
        for q in qs
        for f in q.facts_read
        if f.startswith("f_attr_") and f.endswith("_0") and f[:-2] + "_1" in q.facts_read
    } | {
        (f[:-2] + "_1", f)
        for q in qs
        for f in q.facts_read
        if f.startswith("f_attr_") and f.endswith("_r") and f[:-2] + "_1" in q.facts_read
    }
    return [where[b] - where[a] for a, b in sorted(pairs) if a in where and b in where]


def short_lines(short: dict[str, dict[str, int]]) -> list[str]:
    return [
        f"{t}: {v['asked']} asked, the World supports {v['available']} distinct items "
        f"({questions.TASK_HINTS[t]})"
        for t, v in short.items()
        if v["available"] < v["asked"]
    ]


def route_report(data: ReleaseInput) -> list[dict[str, Any]]:
    """Per routed conflict (``smm.conflicts``): the declared sources, where each value appears, and
    the kept items about it."""
    s = world_mod.spec(data.theme)
    where: dict[str, set[str]] = {}
    for o in data.observations:
        for e in o.expresses:
            where.setdefault(e.fact, set()).add(o.source)
    out = []
    for r in s.conflicts:
        stem = f"f_attr_{r.entity}_{r.key}"
        out.append(
            {
                "entity": r.entity,
                "key": r.key,
                "declared": {"stale": r.stale, "update": r.update, "rumour": r.rumour},
                "shown": {
                    role: sorted(where.get(f"{stem}_{sfx}", set()))
                    for role, sfx in (("stale", "0"), ("update", "1"), ("rumour", "r"))
                },
                "items": sum(f"{stem}_1" in q.facts_read for q in data.kept),
            }
        )
    return out


class SmmFamily(Family):
    name = "smm"
    program_modules = ("mnemoforge.generators.smm.programs",)
    shortfall_hint = "more entities, attributes, preferences, tools or sources give more"
    description = "source-distributed memory: chats, documents and records from several sources"
    example_theme = "office_launch.yaml"
    warns_own_shortfall = True  # its questions stage logs one warning per short task

    eval_keys = ("task",)
    eval_titles = {"task": "By task"}
    agent_tables = {  # ``blocks`` is an evaluator key only
        "captions": ("observation", "source", "kind", "caption"),
        "sources": ("id", "kind", "title", "purpose", "members", "authority", "rounds"),
        "concentrated/observations": None,
        "concentrated/questions": None,
    }

    def requested(self, theme: Theme) -> dict[str, int]:
        return dict(theme.smm.tasks.counts()) if theme.smm is not None else {}

    def preflight_media(self, theme: Theme, world: World) -> tuple[int, int, str]:
        """The attachments the stream carries, and exactly the candidates the questions stage plans."""
        from mnemoforge.generators.smm.questions import plan_questions

        images = len(stream.build_stream(theme, world).attachments)
        return images, len(plan_questions(theme, world)), f"{images} attachments (documents, tables, charts)"

    def eval_group(self, category: str, labels: Mapping[str, str]) -> dict[str, str]:
        return {"task": labels.get("task", category)}

    stage_modules: Mapping[str, tuple[ModuleType, ...]] = {
        "plan": (world_mod, declared),
        "episodes": (stream, injection, scaffold, conversation, filler, paraphrase, questions, programs),
        "render": (render, filler),
        "questions": (questions, programs, tools, common, options),
    }

    variant_unit_name = "sessions"
    ablations = {
        "no_attachments": "messages and notes only: no pictures, screenshots, documents, tables, mail "
        "or calendars"
    }

    def ablate(self, name: str, obs: Observation, captions: Mapping[str, dict]) -> Observation | None:
        if name != "no_attachments":
            return super().ablate(name, obs, captions)
        return None if obs.media else obs

    def variant_unit(self, obs: Observation) -> str:
        """A session: one source's observations of one day (a day of a chat, of a mailbox)."""
        return f"{obs.source}@{obs.timestamp.date().isoformat()}"

    def check_theme(self, theme: Theme) -> list[str]:
        from mnemoforge.generators.smm.check import check_theme

        return check_theme(theme)

    def theme_warnings(self, theme: Theme) -> list[str]:
        from mnemoforge.generators.smm.check import theme_warnings

        return theme_warnings(theme)

    def plan(self, theme: Theme, seed: int) -> World:
        return world_mod.plan_world(theme, seed)

    def episodes(self, theme: Theme, world: World, run: RunLayout) -> list[Path]:
        st = stream.build_stream(theme, world)
        written = [
            atomic.write_jsonl(run.observations, st.observations),
            atomic.write_jsonl(run.captions, st.captions),
            atomic.write_jsonl(run.root / render.ATTACHMENTS, st.attachments),
            atomic.write_jsonl(run.root / BLOCKS, st.blocks),
            atomic.write_jsonl(run.root / SOURCES, st.sources),
        ]
        if st.turns:
            written.append(atomic.write_jsonl(run.root / TURNS, st.turns))
        # the funnel's `lines` (incoherent lines left out) and `unrouted` (items no source can show)
        written.append(atomic.write_json(run.root / COHERENCE, {"lines": st.lines, "unrouted": st.unrouted}))
        return written

    def render(
        self, theme: Theme, world: World, run: RunLayout, workers: int, on_progress: OnProgress | None
    ) -> list[Path]:
        return render.render_run(theme, world, run, workers, on_progress)

    def questions(self, theme: Theme, world: World, run: RunLayout) -> list[Question]:
        return questions.make_questions(theme, world, _load_obs(run))

    def gates(self) -> list[Gate]:
        return list(smm_gates.SMM_GATES)

    def release_tables(self, data: ReleaseInput, root: Path) -> dict[str, str]:
        d = root / "data/smm"
        write_jsonl_and_parquet(
            _read_rows(data.run_root, SOURCES), d / "sources.jsonl", d / "sources.parquet"
        )
        write_jsonl_and_parquet(_read_rows(data.run_root, BLOCKS), d / "blocks.jsonl", d / "blocks.parquet")
        atomic.write_json(
            d / "tools.json", [t.model_dump(mode="json") for t in world_mod.spec(data.theme).tools]
        )
        if (data.run_root / TURNS).exists():  # raw model I/O of turn rewrites (lineage)
            atomic.write_jsonl(d / "turn_rewrites.jsonl", _read_rows(data.run_root, TURNS))
        tw = twin(data)
        c = d / "concentrated"
        write_jsonl_and_parquet(
            [o.model_dump(mode="json") for o in tw.observations],
            c / "observations.jsonl",
            c / "observations.parquet",
        )
        write_jsonl_and_parquet(
            [q.model_dump(mode="json") for q in tw.questions], c / "questions.jsonl", c / "questions.parquet"
        )
        return {
            "smm_sources": "data/smm/sources.parquet",
            "smm_blocks": "data/smm/blocks.parquet",
            "smm_concentrated_observations": "data/smm/concentrated/observations.parquet",
            "smm_concentrated_questions": "data/smm/concentrated/questions.parquet",
        }

    def statistics(self, data: ReleaseInput) -> dict[str, Any]:
        s = world_mod.spec(data.theme)
        cands = [Question.model_validate(r) for r in read_jsonl(RunLayout(data.run_root).candidates)]
        per_q = [len(q.evidence_sources) for q in data.kept]
        gaps = conflict_gaps(
            data.observations, [q for q in data.kept if q.labels.get("task") == "conflict_resolution"]
        )
        rows = _read_rows(data.run_root, SOURCES)
        tw = twin(data)
        short = questions.shortfalls(data.theme, data.world)  # warned about when planned
        steps = Counter(len(q.structured_answer or []) for q in data.kept if q.structured_answer)
        calls = Counter(c["name"] for q in data.kept for st in q.structured_answer or [] for c in st["calls"])
        return {
            "smm": {
                "sources": {
                    "count": len(rows),
                    "kinds": dict(sorted(Counter(r["kind"] for r in rows).items())),
                    "by_source": {
                        r["id"]: {k: r[k] for k in ("kind", "authority", "rounds", "evidence_units")}
                        for r in rows
                    },
                },
                "rounds": len(data.observations),
                "sources_per_question": {
                    "mean": round(sum(per_q) / len(per_q), 3) if per_q else 0.0,
                    "min": min(per_q, default=0),
                    "max": max(per_q, default=0),
                    "histogram": _hist(per_q),
                    "target": s.target_sources_per_question,
                },
                "tasks": {
                    t: {
                        "planned": s.tasks.counts()[t],
                        "available": short[t]["available"],
                        "candidates": sum(q.labels.get("task") == t for q in cands),
                        "kept": sum(q.labels.get("task") == t for q in data.kept),
                        "shortfall": max(0, s.tasks.counts()[t] - short[t]["available"]),
                    }
                    for t in TASKS
                },
                "shortfalls": short_lines(short),
                "conflict_routes": route_report(data),
                "conflict_gaps": {
                    "required": s.conflict_gap,
                    "pairs": len(gaps),
                    "min": min(gaps, default=0),
                    "mean": round(sum(gaps) / len(gaps), 3) if gaps else 0.0,
                    "max": max(gaps, default=0),
                },
                "function_calling": {
                    "steps": _hist(list(steps.elements())),
                    "calls": dict(sorted(calls.items())),
                },
                "concentrated": {
                    "hub": tw.hub,
                    "moved_blocks": tw.moved_blocks,
                    "swapped_blocks": tw.swapped_blocks,
                },
            },
            "questions": {
                "by_task": {t: sum(q.labels.get("task") == t for q in data.kept) for t in TASKS},
                "mean_evidence_sources": round(sum(per_q) / len(per_q), 3) if per_q else 0.0,
            },
        }

    def counts(self, stats: dict[str, Any]) -> dict[str, int]:
        return {"sources": stats["smm"]["sources"]["count"], "rounds": stats["smm"]["rounds"]}

    def contents_line(self, stats: dict[str, Any]) -> str:
        sm = stats["smm"]
        return (
            f"{sm['sources']['count']} sources of {len(sm['sources']['kinds'])} kinds, "
            f"{sm['rounds']} rounds, "
            f"{sm['sources_per_question']['mean']:.2f} sources per question"
        )

    def card_section(self, stats: dict[str, Any]) -> str:
        sm = stats["smm"]
        kinds = ", ".join(f"{n} {k}" for k, n in sm["sources"]["kinds"].items())
        return CARD.format(
            sources=kinds,
            mean=sm["sources_per_question"]["mean"],
            minimum=sm["sources_per_question"]["min"],
            gap=sm["conflict_gaps"]["required"],
            observed=sm["conflict_gaps"]["min"],
            hub=sm["concentrated"]["hub"],
        )

    def report_part(self) -> ReportPart:
        from mnemoforge.generators.smm.report import SourcesReport

        return SourcesReport()

    def realiser(self, theme_bytes: bytes, world: World) -> Callable[[Question], list[str] | None] | None:
        from mnemoforge.generators.smm.retext import realiser

        return realiser(world, theme_bytes)


FAMILY = SmmFamily()
