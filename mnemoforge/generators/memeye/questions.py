"""Plan MemEye questions per X×Y cell: programs answer them, labels follow the highest bottleneck.

Labels (``Question.labels``): ``x`` is the highest granularity among the facts the program read
through pictures (X1 scene < X2 region < X3 instance < X4 pixel); ``y`` is Y3 when the program read
an earlier state and a later override of the same scene and key, else Y2 when the evidence spans
several rounds, else Y1. ``category`` is the cell, ``"X4_Y3"``. A candidate whose computed cell
differs from the cell it was planned for is dropped.

Mirrored forms: each question is one record with the concise open answer (``answer``) and its
multiple-choice mirror (``options``, correct first, three World-drawn distractors: the stale state
for Y3, sibling instances and region items, near colours, misread labels, near counts) with four
``rotations`` putting the correct option once at each of A–D.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations
from typing import Any

from mnemoforge.generators.memeye.programs import PAIR_SEP
from mnemoforge.generators.memeye.vocab import GRANULARITY, POSITIONS, VOCAB, near_colours, near_labels
from mnemoforge.generators.questions import options as options_mod
from mnemoforge.generators.questions.common import (
    Candidate,
    EvidenceIndex,
    Template,
    make_question,
    solve_candidates,
)
from mnemoforge.hashing import content_hash
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.memeye import CELLS
from mnemoforge.schemas.observations import Channel, Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import Fact, World
from mnemoforge.validators.answerers.judges import exact_match

FAMILY = "memeye"
VISUAL = (Channel.scene, Channel.pixel)
# (key of the first scene, key of the second) for mixed pairs: a coarse key beside a finer one
MIXED_KEYS = (("gist", "left"), ("left", "mark"), ("gist", "colour"), ("right", "label"), ("mark", "colour"))


def _template(program: str, key: str, cell: str) -> Template:
    return Template(id=f"memeye.{program}.{key}.v1", category=cell, program=program, text="")


def _scene_keys(world: World) -> dict[str, dict[str, list[Fact]]]:
    out: dict[str, dict[str, list[Fact]]] = {}
    for f in world.facts:
        if f.kind in ("attribute", "state"):
            out.setdefault(f.subject, {}).setdefault(f.object, []).append(f)
    return out


def plan_items(world: World) -> Iterator[tuple[Template, dict[str, Any]]]:
    """Every candidate (template, args), each tagged with the cell it is planned for."""
    keys = _scene_keys(world)
    by_scenario: dict[str, list[str]] = {}
    for e in world.entities:
        if e.kind == "scene":
            by_scenario.setdefault(e.attrs["scenario"], []).append(e.id)
    for scenes in by_scenario.values():
        for s in scenes:
            for key, facts in keys[s].items():
                x = GRANULARITY[key]
                if facts[0].kind == "attribute":
                    yield _template("visual_attr", key, f"{x}_Y1"), {"scene": s, "key": key}
                else:
                    yield _template("visual_latest", key, f"{x}_Y3"), {"scene": s, "key": key}
        for a, b in combinations(scenes, 2):
            for key in keys[a]:
                fb = keys[b].get(key)
                if keys[a][key][0].kind == "attribute" and fb and fb[0].kind == "attribute":
                    prog = "visual_total" if key == "count" else "visual_pair"
                    yield _template(prog, key, f"{GRANULARITY[key]}_Y2"), {"scenes": [a, b], "key": key}
            for ka, kb in MIXED_KEYS:
                if all(keys[s][k][0].kind == "attribute" for s, k in ((a, ka), (b, kb))):
                    cell = f"{max(GRANULARITY[ka], GRANULARITY[kb])}_Y2"
                    args = {"scenes": [a, b], "keys": [ka, kb], "key": f"{ka}+{kb}"}
                    yield _template("visual_pair_mixed", f"{ka}_{kb}", cell), args


def cell_of(world: World, c: Candidate) -> tuple[str, str]:
    """(X, Y) by the highest-bottleneck rule over what the program read and the evidence."""
    xs = [
        e.granularity
        for o in c.evidence
        for e in o.expresses
        if e.fact in c.read and e.channel in VISUAL and e.granularity
    ]
    x = max(xs) if xs else "X1"
    facts = [world.fact(f) for f in c.read]
    states: dict[tuple[str, str], set[str | None]] = {}
    for f in facts:
        if f.kind == "state":
            states.setdefault((f.subject, f.object), set()).add(f.value)
    if any(len(v) >= 2 for v in states.values()):
        return x, "Y3"
    return x, ("Y2" if len(c.evidence) >= 2 else "Y1")


def _text(world: World, c: Candidate) -> str:
    a = c.args
    if "scenes" in a:
        sa, sb = (world.entity(s) for s in a["scenes"])
        v = VOCAB[sa.attrs["kind"]]
        if c.template.program == "visual_total":
            return f"How many {v.count_noun} were there in {sa.name} and {sb.name} together?"
        if c.template.program == "visual_pair_mixed":
            ka, kb = a["keys"]
            qa, qb = v.question(ka, sa.name), v.question(kb, sb.name)
            return (
                f"{qa[:-1]}, and {qb[0].lower()}{qb[1:-1]}? Give both, in that order, separated by a slash."
            )
        q = v.question(a["key"], f"{sa.name} and {sb.name}")
        return f"{q[:-1]}? Give both, in that order, separated by a slash."
    s = world.entity(a["scene"])
    q = VOCAB[s.attrs["kind"]].question(a["key"], s.name)
    if c.template.program == "visual_latest":
        return f"{q[:-1]} in the latest picture, after it changed?"
    return q


def _pool(world: World, scene: str, key: str, value: str) -> list[str]:
    """Plausible wrong values for one key of one scene, most confusable first."""
    kind = world.entity(scene).attrs["kind"]
    v = VOCAB[kind]
    if key == "gist":
        return [g for g in v.gists if g != value]
    if key in ("left", "right"):
        here = [
            f.value for f in world.facts if f.subject == scene and f.object in ("left", "right") and f.value
        ]
        return list(dict.fromkeys([*here, *v.items]))  # the scene's other region items first
    if key == "mark":
        return list(POSITIONS)  # the sibling instances
    if key == "colour":
        return near_colours(value)
    if key == "count":
        n = int(value)
        return [str(x) for x in (n + 1, n - 1, n + 2, n - 2, n + 3) if x > 0]
    return near_labels(kind, value)


def _distinct(answer: str, items: list[str]) -> list[str]:
    out: list[str] = []
    for x in items:
        if x and not exact_match(answer, x) and not any(exact_match(x, y) for y in out):
            out.append(x)
    return out


def distractors(world: World, q: Question, rng: random.Random) -> list[str]:
    """Three wrong options; for Y3 the stale state is always one of them."""
    a, fn = q.program.args, q.program.fn
    if fn == "visual_total":
        parts = [f.value or "" for f in world.facts if f.id in q.facts_read]
        n = int(q.answer)
        pool = _distinct(q.answer, [*parts, str(n + 1), str(n - 1), str(n + 2), str(n - 2)])
        return pool[:2] + rng.sample(pool[2:], 1) if len(pool) >= 3 else pool
    if fn in ("visual_pair", "visual_pair_mixed"):
        va, vb = q.answer.split(PAIR_SEP)
        sa, sb = a["scenes"]
        ka, kb = a.get("keys", [a["key"], a["key"]])
        swapped = [f"{vb}{PAIR_SEP}{va}"] if va != vb and ka == kb else []
        alt_a = _distinct(va, _pool(world, sa, ka, va))[:3]
        alt_b = _distinct(vb, _pool(world, sb, kb, vb))[:3]
        mixed = [f"{x}{PAIR_SEP}{vb}" for x in alt_a] + [f"{va}{PAIR_SEP}{y}" for y in alt_b]
        mixed += [f"{x}{PAIR_SEP}{y}" for x, y in zip(alt_a, alt_b, strict=False)]
        pool = _distinct(q.answer, [*swapped, *rng.sample(mixed, len(mixed))])
        return pool[:3]
    must: list[str] = []
    if fn == "visual_latest":
        must = [f.value or "" for f in world.facts if f.id in q.facts_read and f.value != q.answer]
    pool = _distinct(q.answer, [*must, *_pool(world, a["scene"], a["key"], q.answer)])
    rest = [x for x in pool if x not in must]
    head = rest[:5] if a["key"] in ("colour", "left", "right", "count") else rest
    return must + rng.sample(head, min(len(head), 3 - len(must)))


def with_options(world: World, q: Question) -> Question:
    rng = derive_rng(world.seed, q.id, "options")
    d = distractors(world, q, rng)
    if len(d) < options_mod.N_OPTIONS - 1:
        return q
    d = d[:3]
    rng.shuffle(d)
    return q.model_copy(update={"options": [q.answer, *d], "rotations": options_mod.rotations()})


def _select(world: World, pool: list[Candidate], n: int, cell: str) -> list[Candidate]:
    """A seeded pick of ``n`` candidates spreading answers and scenarios (answer balance)."""
    rng = derive_rng(world.seed, "memeye", "select", cell)
    pool = sorted(pool, key=lambda c: content_hash(c.template.id, c.args))
    rng.shuffle(pool)
    picked: list[Candidate] = []
    answers: dict[str, int] = {}
    scen: dict[str, int] = {}
    forms: dict[str, int] = {}

    def scenario(c: Candidate) -> str:
        s = c.args.get("scene") or c.args["scenes"][0]
        return world.entity(s).attrs["scenario"]

    while pool and len(picked) < n:
        best = min(
            pool,
            key=lambda c: (answers.get(c.answer, 0), forms.get(c.template.id, 0), scen.get(scenario(c), 0)),
        )
        pool.remove(best)
        picked.append(best)
        forms[best.template.id] = forms.get(best.template.id, 0) + 1
        answers[best.answer] = answers.get(best.answer, 0) + 1
        scen[scenario(best)] = scen.get(scenario(best), 0) + 1
    return picked


def generate(world: World, observations: list[Observation], targets: dict[str, int]) -> list[Question]:
    """Candidates for every X×Y cell (``targets``: cell -> how many), answers computed by programs."""
    index = EvidenceIndex(observations)
    solved = solve_candidates(world, index, plan_items(world))
    by_cell: dict[str, list[Candidate]] = {c: [] for c in CELLS}
    for c in solved:
        x, y = cell_of(world, c)
        if f"{x}_{y}" == c.template.category:
            by_cell[c.template.category].append(c)
    world_hash = content_hash(world)
    out: list[Question] = []
    for cell in CELLS:
        for c in _select(world, by_cell[cell], targets.get(cell, 0), cell):
            x, y = cell.split("_")
            q = make_question(world, FAMILY, c, _text(world, c), [world.protagonist], None, world_hash)
            scen = world.entity(c.args.get("scene") or c.args["scenes"][0]).attrs["scenario"]
            q = q.model_copy(
                update={
                    "labels": {"x": x, "y": y, "scenario": scen, "key": c.args["key"]},
                    "evidence_sources": sorted({o.episode for o in c.evidence}),
                    "evidence_clips": [],
                }
            )
            out.append(with_options(world, q))
    return sorted(out, key=lambda q: q.id)
