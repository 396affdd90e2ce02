"""The source-distributed family (SMMBench) end to end on the shipped office theme.

One build per module (about 6 s on 2 cores); every test reads that release.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from pathlib import Path

import pytest

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.questions.programs import Unanswerable
from mnemoforge.generators.smm.tools import score_calls, tools_of, validate_calls
from mnemoforge.generators.smm.world import conflict_gap, source_authority
from mnemoforge.hashing import canonical_json
from mnemoforge.pipeline import build
from mnemoforge.schemas.observations import Channel, Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.theme_io import THEMES_DIR, load_theme
from mnemoforge.validators.release_check import verify_release
from mnemoforge.validators.solver import solve

THEME_PATH = THEMES_DIR / "office_launch.yaml"
THEME = load_theme(THEME_PATH)
SPEC = THEME.smm
assert SPEC is not None


class Release:
    def __init__(self, root: Path, run_dir: Path) -> None:
        self.root, self.run_dir = root, run_dir
        self.world = World.model_validate_json((root / "data/world.json").read_text())
        self.obs = [Observation.model_validate(r) for r in read_jsonl(root / "data/smm/observations.jsonl")]
        self.by_id = {o.id: o for o in self.obs}
        self.qs = [Question.model_validate(r) for r in read_jsonl(root / "data/smm/questions.jsonl")]
        self.stats = json.loads((root / "dataset_statistics.json").read_text())


@pytest.fixture(scope="module")
def rel(tmp_path_factory: pytest.TempPathFactory) -> Release:
    res = build(THEME_PATH, outputs=tmp_path_factory.mktemp("smm"), workers=2)
    return Release(res.release_dir, res.run_dir)


def test_release_verifies_and_keeps_most_candidates(rel: Release) -> None:
    assert verify_release(rel.root) == []
    funnel = json.loads((rel.root / "gates/funnel.json").read_text())
    assert 60 <= funnel["candidates"] <= 120
    assert funnel["kept"] >= 0.8 * funnel["candidates"]
    assert {q.labels["task"] for q in rel.qs} == set(SPEC.tasks.counts())


def test_sources_kinds_and_stream(rel: Release) -> None:
    kinds = {s.id: s.kind for s in SPEC.sources}
    used = {o.source for o in rel.obs}
    assert len(used) >= 6 and len({kinds[s] for s in used}) >= 4 and used <= set(kinds)
    assert [o.order for o in rel.obs] == list(range(len(rel.obs)))
    assert all(a.timestamp <= b.timestamp for a, b in zip(rel.obs, rel.obs[1:], strict=False))
    start, end = dt.datetime.combine(THEME.start, dt.time()), dt.datetime.combine(THEME.end, dt.time(23, 59))
    assert all(start <= o.timestamp <= end for o in rel.obs)
    assert all(o.episode == o.source for o in rel.obs)
    # every fact is expressed in the channel it really arrives through
    for o in rel.obs:
        for e in o.expresses:
            assert e.channel == (Channel.pixel if o.media else Channel.text), o.id


def test_every_item_spans_sources_and_the_mean_meets_the_target(rel: Release) -> None:
    per_q = []
    for q in rel.qs:
        sources = sorted({rel.by_id[e].source for e in q.evidence})
        assert q.evidence_sources == sources and len(sources) >= 2, q.id
        per_q.append(len(sources))
    mean = sum(per_q) / len(per_q)
    assert mean >= SPEC.target_sources_per_question
    sq = rel.stats["smm"]["sources_per_question"]
    assert sq["mean"] == round(mean, 3) and sq["min"] == min(per_q) >= 2
    assert sq["histogram"] == {str(k): v for k, v in sorted(Counter(per_q).items())}


def test_no_single_source_rederives_the_answer(rel: Release) -> None:
    by_source: dict[str, list[Observation]] = {}
    for o in rel.obs:
        by_source.setdefault(o.source, []).append(o)
    for q in rel.qs:
        assert solve(q, rel.world, [rel.by_id[e] for e in q.evidence]) == q.answer
        for src, obs in by_source.items():
            try:
                got = solve(q, rel.world, obs)
            except Unanswerable:
                continue
            assert got != q.answer, (q.id, src)


def test_conflicts_update_after_stale_and_answer_the_later_value(rel: Release) -> None:
    gap, authority = conflict_gap(rel.world), source_authority(rel.world)
    assert gap == SPEC.conflict_gap
    items = [q for q in rel.qs if q.labels["task"] == "conflict_resolution"]
    assert len(items) >= 10
    where = {e.fact: o for o in rel.obs for e in o.expresses}
    for q in items:
        pairs = [
            (f, f[:-2] + "_1") for f in q.facts_read if f.endswith("_0") and f[:-2] + "_1" in q.facts_read
        ]
        assert len(pairs) == 1, q.id
        stale, upd = (rel.world.fact(x) for x in pairs[0])
        assert where[upd.id].order - where[stale.id].order >= gap
        assert authority[where[upd.id].source] >= authority[where[stale.id].source]
        assert upd.at > stale.at
        later = {p.id: p.name for p in rel.world.people}.get(upd.value or "", upd.value)
        assert q.answer == later and q.options is not None
        stale_text = {p.id: p.name for p in rel.world.people}.get(stale.value or "", stale.value)
        assert stale_text in q.options  # the stale value is always offered
    pairs = {
        (f, f[:-2] + "_1")
        for q in items
        for f in q.facts_read
        if f.endswith("_0") and f[:-2] + "_1" in q.facts_read
    }
    observed = [where[b].order - where[a].order for a, b in sorted(pairs)]
    gaps = rel.stats["smm"]["conflict_gaps"]
    assert gaps == {
        "required": gap,
        "pairs": len(observed),
        "min": min(observed),
        "mean": round(sum(observed) / len(observed), 3),
        "max": max(observed),
    }
    assert gaps["min"] >= gap


def test_function_calls_validate_and_score_exactly(rel: Release) -> None:
    tools = tools_of(rel.world)
    assert set(tools) == {t.name for t in SPEC.tools}
    items = [q for q in rel.qs if q.labels["task"] == "function_calling"]
    assert items and any(len(q.structured_answer or []) == 2 for q in items)
    for q in items:
        assert q.options is None and q.structured_answer is not None
        assert canonical_json(q.structured_answer) == q.answer
        assert validate_calls(q.structured_answer, tools) == []
        assert score_calls(q.structured_answer, q.answer, tools) == 1.0
        assert len(q.evidence_sources) >= 3  # arguments gathered from several sources
        wrong = json.loads(q.answer)
        args = wrong[0]["calls"][0]["arguments"]
        key = sorted(args)[0]
        args[key] = [*args[key], "Somebody Else"] if isinstance(args[key], list) else "Somewhere Else"
        assert score_calls(wrong, q.structured_answer, tools) == 0.0
        renamed = json.loads(q.answer)
        renamed[0]["calls"][0]["name"] = "cancel_everything"
        assert score_calls(renamed, q.structured_answer, tools) == 0.0
        assert validate_calls(renamed, tools)
    tools_json = json.loads((rel.root / "data/smm/tools.json").read_text())
    assert [t["name"] for t in tools_json] == [t.name for t in SPEC.tools]


def test_pixel_values_never_leak_into_carrier_text(rel: Release) -> None:
    captions = {r["observation"]: r["caption"] for r in read_jsonl(rel.root / "data/smm/captions.jsonl")}
    for o in rel.obs:
        pixel = [e.fact for e in o.expresses if e.channel == Channel.pixel]
        if not pixel:
            continue
        assert o.media and (rel.root / o.media[0]).is_file() and o.id in captions
        for fid in pixel:
            f = rel.world.fact(fid)
            value = {p.id: p.name for p in rel.world.people}.get(f.value or "", f.value or "")
            assert value.lower() not in o.content.lower(), o.id
            # dense captions carry the values for caption baselines
            assert value.lower() in captions[o.id].lower()


def test_evidence_arrives_inside_local_scaffolds(rel: Release) -> None:
    blocks = read_jsonl(rel.root / "data/smm/blocks.jsonl")
    refs = Counter()
    for b in blocks:
        assert len(b["observations"]) >= 2  # a lead-in or note before, often a reply after
        obs = [rel.by_id[x] for x in b["observations"]]
        assert {o.source for o in obs} == {b["source"]}
        carrier = [o for o in obs if o.expresses]
        assert len(carrier) == 1 and sorted(e.fact for e in carrier[0].expresses) == b["facts"]
        for word in ("Table", "Doc.", "Fig.", "Card"):
            refs[word] += word in carrier[0].content
    assert all(refs[w] > 0 for w in ("Table", "Doc.", "Fig.", "Card"))
    talk = " ".join(o.content for o in rel.obs if not o.expresses)
    for act in ("Is that final?", "I'm not sure I agree", "Changing the subject", "Can you clarify"):
        assert act in talk or act.lower() in talk.lower()


def test_concentrated_twin_differs_only_in_placement(rel: Release) -> None:
    c = rel.root / "data/smm/concentrated"
    twin = [Observation.model_validate(r) for r in read_jsonl(c / "observations.jsonl")]
    assert [o.id for o in twin] == [o.id for o in rel.obs]
    assert sum(len(o.content) for o in twin) == sum(len(o.content) for o in rel.obs)
    moved = 0
    for a, b in zip(rel.obs, twin, strict=True):
        da, db = a.model_dump(exclude={"source", "episode"}), b.model_dump(exclude={"source", "episode"})
        assert da == db
        moved += a.source != b.source
    assert moved > 0
    assert Counter(o.source for o in twin) == Counter(o.source for o in rel.obs)  # block swap keeps sizes
    tq = [Question.model_validate(r) for r in read_jsonl(c / "questions.jsonl")]
    assert [q.id for q in tq] == [q.id for q in rel.qs]
    tby = {o.id: o for o in twin}
    hub = rel.stats["smm"]["concentrated"]["hub"]
    for q, t in zip(rel.qs, tq, strict=True):
        assert t.model_dump(exclude={"evidence_sources"}) == q.model_dump(exclude={"evidence_sources"})
        assert {tby[e].source for e in q.evidence} == {hub} and t.evidence_sources == [hub]


def test_statistics_report_tasks_sources_and_gaps(rel: Release) -> None:
    sm = rel.stats["smm"]
    cands = [Question.model_validate(r) for r in read_jsonl(rel.run_dir / "questions/candidates.jsonl")]
    for task, n in SPEC.tasks.counts().items():
        row = sm["tasks"][task]
        assert row["planned"] == n
        assert row["candidates"] == sum(q.labels["task"] == task for q in cands)
        assert (
            row["kept"]
            == sum(q.labels["task"] == task for q in rel.qs)
            == rel.stats["questions"]["by_task"][task]
        )
    assert sm["sources"]["count"] == len(SPEC.sources) and sm["rounds"] == len(rel.obs)
    assert sum(v["rounds"] for v in sm["sources"]["by_source"].values()) == len(rel.obs)
    manifest = json.loads((rel.root / "MANIFEST.json").read_text())
    assert manifest["counts"]["sources"] == len(SPEC.sources)
    card = (rel.root / "README.md").read_text()
    assert "smm_concentrated_questions" in card and "source-concentrated twin" in card


def test_same_seed_gives_identical_manifest(rel: Release, tmp_path: Path) -> None:
    again = build(THEME_PATH, outputs=tmp_path / "again", workers=1)
    assert (again.release_dir / "MANIFEST.json").read_bytes() == (rel.root / "MANIFEST.json").read_bytes()
