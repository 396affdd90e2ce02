"""Verify a multi-family release (docs/cross-family.md): each family's release against the one
World, and the cross items (their gates re-run, evidence resolved, agent view without keys)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from mnemoforge.exporters.multi_release import HISTORIES, history_rows, members
from mnemoforge.exporters.tables import TableReader
from mnemoforge.exporters.views import AGENT_DIR, forbidden_fields
from mnemoforge.generators.cross_items import CROSS, qualified
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.release import ReleaseManifest
from mnemoforge.schemas.world import World
from mnemoforge.validators import release_audit
from mnemoforge.validators.agent_keys import check_agent_keys
from mnemoforge.validators.cross_gates import cross_gates
from mnemoforge.validators.gates import EXACT_GATES, GateContext


def verify_multi(
    root: Path, manifest: ReleaseManifest, verify_release: Callable[..., list[str]]
) -> list[str]:
    """Every problem of the release at ``root`` (its files already match its MANIFEST.json);
    ``verify_release(folder, world=...)`` verifies one family's release."""
    try:
        world = World.model_validate_json((root / "data/world.json").read_text())
    except (OSError, ValidationError) as e:
        return [f"data/world.json: unreadable ({type(e).__name__})"]
    problems: list[str] = []
    observations: dict[str, Observation] = {}
    tables = TableReader()
    for fam, rel in members(manifest.families or []).items():
        if (root / rel / "data/world.json").exists():
            problems.append(
                f"{rel}/data/world.json: a family of a multi-family release has no World of its own"
            )
        problems += [f"{rel}/{p}" for p in verify_release(root / rel, world=world)]
        obs = root / rel / f"data/{fam}/observations.jsonl"
        if obs.is_file():
            for r in tables.rows(obs):
                o = qualified(fam, Observation.model_validate(r))
                observations[o.id] = o
    problems += release_audit.card_tables(root, manifest, tables)
    return problems + _cross(root, manifest, world, observations, tables)


def _cross(
    root: Path,
    manifest: ReleaseManifest,
    world: World,
    observations: dict[str, Observation],
    tables: TableReader,
) -> list[str]:
    rel = f"data/{CROSS}/questions.jsonl"
    problems: list[str] = []
    questions = []
    for i, row in enumerate(tables.rows(root / rel)):
        try:
            questions.append(Question.model_validate(row))
        except ValidationError as e:
            problems.append(f"{rel}: line {i + 1}: {e.errors()[0]['msg']}")
    sources = json.loads((root / f"data/{CROSS}/fact_families.json").read_text())
    gctx = GateContext(world, observations, questions)
    for q in questions:  # the exact gates every item passes, then the cross items' own
        for gate in (*EXACT_GATES, *cross_gates(sources)):
            v = gate.check(q, gctx)
            if not v.keep:
                problems.append(f"{rel}: {q.id}: {gate.name}: {v.reason}")
    if manifest.counts.get("questions") != len(questions):
        problems.append(
            f"MANIFEST.json: counts.questions {manifest.counts.get('questions')}, {len(questions)} in {rel}"
        )
    agent = root / AGENT_DIR / CROSS / "questions.jsonl"
    rows = tables.rows(agent) if agent.is_file() else []
    if [r.get("id") for r in rows] != [q.id for q in questions]:
        problems.append(f"{AGENT_DIR}/{CROSS}/questions.jsonl: question ids differ from {rel}")
    hist = root / AGENT_DIR / CROSS / HISTORIES
    rows_h = tables.rows(hist) if hist.is_file() else []
    if rows_h != history_rows([q.model_dump(mode="json") for q in questions]):
        problems.append(f"{AGENT_DIR}/{CROSS}/{HISTORIES}: not the families of each item's evidence")
    problems += check_agent_keys(root, CROSS, tables)  # no option layout gives the answers away
    bad = sorted({f for r in rows for f in forbidden_fields(r)})
    if bad:
        problems.append(
            f"{AGENT_DIR}/{CROSS}/questions.jsonl: evaluator key field(s) {bad} in an agent-input table"
        )
    return problems
