"""Plan MemEye questions per X×Y cell: programs answer them, labels follow the highest bottleneck.

Labels (``Question.labels``): ``x`` is the highest granularity among the facts the program read
through pictures (X1 scene < X2 region < X3 instance < X4 pixel); ``y`` is Y3 when the program read
an earlier state and a later override of the same scene and key, else Y2 when the evidence spans
several rounds, else Y1. ``category`` is the cell, ``"X4_Y3"``. A candidate whose computed cell
differs from the cell it was planned for is dropped.

Mirrored forms: each question is one record with the concise open answer (``answer``) and its
multiple-choice mirror (``options``, correct first, three World-drawn distractors, the stale state
always among them for Y3) with four ``rotations`` putting the correct option once at each of A–D.
Option sets are built to carry no structural tell (``item_options``): no near-variant centre, no
addends of a total, no fixed rank of a number, pair slots in a 2×2 grid, no majority colour group.
Wording is present tense with one seeded time phrase for every item (Y1 and Y3 alike).

Evidence: ``evidence`` is minimal (the first round showing each fact read);
``evidence_alternatives`` lists every other round showing one of those facts.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from itertools import combinations
from typing import Any

from mnemoforge.generators.memeye.forms import frame
from mnemoforge.generators.memeye.item_options import options_for
from mnemoforge.generators.memeye.option_screen import text_screen
from mnemoforge.generators.memeye.vocab import (
    GRANULARITY,
    VIEW,
    entity_vocab,
)
from mnemoforge.generators.option_balance import (
    stratified_targets,
)
from mnemoforge.generators.questions.common import (
    Candidate,
    EvidenceIndex,
    Template,
    make_question,
    overgenerate,
    solve_candidates,
)
from mnemoforge.hashing import content_hash
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.memeye import CELLS
from mnemoforge.schemas.observations import Channel, Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import Fact, World

log = logging.getLogger("mnemoforge.memeye")
CELL_HINTS = {
    "Y1": "add scenes to a scenario (each scene gives one item per key)",
    "Y2": "add sessions to a scenario or scenes shown together (items that join two pictures)",
    "Y3": "declare a scenario `changes` entry for the key, raise memeye.changes_per_scene or add sessions "
    "(each change of a key gives one)",
}
# what a theme declares to get items of a granularity when no scene pack draws the kind's own
X_HINTS = {
    "X1": "a `board` (a list written on it)",
    "X2": "a `person` (a cast member holding one of the things they may hold)",
    "X3": "a `table` (four named things in a row) or a `map` (named places, a pin at one)",
    "X4": "a `colour` (an animal's collar, a mug...), a `count` (a shelf of tins) or a `label` "
    "(a level on a sign)",
}
FAMILY = "memeye"
VISUAL = (Channel.scene, Channel.pixel)
# (key of the first scene, key of the second) for mixed pairs: a coarse key beside a finer one
MIXED_KEYS = (("gist", "left"), ("left", "mark"), ("gist", "colour"), ("right", "label"), ("mark", "colour"))


def _template(program: str, key: str, cell: str) -> Template:
    return Template(id=f"memeye.{program}.{key}.v1", category=cell, program=program, text="")


def _scene_keys(world: World) -> dict[str, dict[str, list[Fact]]]:
    out: dict[str, dict[str, list[Fact]]] = {}
    for f in world.facts:
        if f.kind in ("attribute", "state") and f.object != VIEW:
            out.setdefault(f.subject, {}).setdefault(f.object, []).append(f)
    return out


def plan_items(world: World) -> Iterator[tuple[Template, dict[str, Any]]]:
    """Every candidate (template, args), each tagged with the cell it is planned for."""
    keys = _scene_keys(world)
    by_scenario: dict[str, list[str]] = {}
    for e in world.entities:
        if e.kind == "scene":
            by_scenario.setdefault(e.attrs["scenario"], []).append(e.id)
    for e in world.entities:  # a shared object: asked about itself (its value is one everywhere)
        if e.kind == "object":
            for key, facts in keys.get(e.id, {}).items():
                x = GRANULARITY[key]
                if facts[0].kind == "attribute":
                    yield _template("visual_attr", key, f"{x}_Y1"), {"scene": e.id, "key": key}
                else:
                    yield _template("visual_latest", key, f"{x}_Y3"), {"scene": e.id, "key": key}
    for scenes in by_scenario.values():
        for s in scenes:
            for key, facts in keys.get(s, {}).items():
                x = GRANULARITY[key]
                if facts[0].kind == "attribute":
                    yield _template("visual_attr", key, f"{x}_Y1"), {"scene": s, "key": key}
                else:
                    yield _template("visual_latest", key, f"{x}_Y3"), {"scene": s, "key": key}
        for a, b in combinations(scenes, 2):
            for key in keys.get(a, {}):
                fb = keys.get(b, {}).get(key)
                if keys[a][key][0].kind == "attribute" and fb and fb[0].kind == "attribute":
                    prog = "visual_total" if key == "count" else "visual_pair"
                    yield _template(prog, key, f"{GRANULARITY[key]}_Y2"), {"scenes": [a, b], "key": key}
            for ka, kb in MIXED_KEYS:
                if all(
                    k in keys.get(s, {}) and keys[s][k][0].kind == "attribute" for s, k in ((a, ka), (b, kb))
                ):
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


WHEN = ("", " now", " currently", " at the moment")


def _when(world: World, c: Candidate) -> str:
    """A seeded time phrase drawn the same way for every item, so the wording neither presupposes
    a change nor tells Y3 items from stable ones."""
    return derive_rng(world.seed, "memeye", "when", c.template.id, content_hash(c.args)).choice(WHEN)


def _text(world: World, c: Candidate) -> str:
    """The question in a seeded surface form (``memeye/forms.py``)."""
    return frame(_plain_text(world, c), world.seed, c.template.id, c.args)[1]


def _plain_text(world: World, c: Candidate) -> str:
    a, t = c.args, _when(world, c)
    if "scenes" in a:
        sa, sb = (world.entity(s) for s in a["scenes"])
        v = entity_vocab(sa.attrs)
        if c.template.program == "visual_total":
            return f"How many {v.count_noun} are there {v.where(sa.name)} and {v.where(sb.name)} combined{t}?"
        if c.template.program == "visual_pair_mixed":
            ka, kb = a["keys"]
            qa, qb = v.question(ka, sa.name), v.question(kb, sb.name, t)
            return f"{qa[:-1]}, and {qb[0].lower()}{qb[1:]}"
        return v.question(a["key"], sa.name, t, other=sb.name)
    s = world.entity(a["scene"])
    return entity_vocab(s.attrs).question(a["key"], s.name if s.kind == "scene" else "", t)


def _select(
    world: World, pool: list[Candidate], n: int, cell: str, cap: int | None = None
) -> list[Candidate]:
    """A seeded pick of ``n`` candidates spreading answers and scenarios (answer balance); ``cap``:
    no answer picked more often (so whichever of them the gates keep, no answer dominates),
    unless that leaves fewer than ``2 * cap`` picks (a small cell takes the repeats back)."""
    rng = derive_rng(world.seed, "memeye", "select", cell)
    pool = sorted(pool, key=lambda c: content_hash(c.template.id, c.args))
    rng.shuffle(pool)
    picked: list[Candidate] = []
    answers: dict[str, int] = {}
    scen: dict[str, int] = {}
    forms: dict[str, int] = {}
    spare: list[Candidate] = []

    def scenario(c: Candidate) -> str:
        s = c.args.get("scene") or c.args["scenes"][0]
        return world.entity(s).attrs["scenario"]

    while pool and len(picked) < n:
        best = min(
            pool,
            key=lambda c: (answers.get(c.answer, 0), forms.get(c.template.id, 0), scen.get(scenario(c), 0)),
        )
        pool.remove(best)
        if cap is not None and answers.get(best.answer, 0) >= cap:
            spare.append(best)
            continue
        picked.append(best)
        forms[best.template.id] = forms.get(best.template.id, 0) + 1
        answers[best.answer] = answers.get(best.answer, 0) + 1
        scen[scenario(best)] = scen.get(scenario(best), 0) + 1
    if cap is not None and len(picked) < 2 * cap:  # too few without repeats: take them back
        picked += spare[: n - len(picked)]
    return picked


def alternative_rounds(index: EvidenceIndex, c: Candidate) -> list[str]:
    """Every other round expressing a fact the program read (a later showing of the same picture
    state), in stream order; ``evidence`` stays the minimal set (the first showing of each fact)."""
    chosen = {o.id for o in c.evidence}
    rounds = {o.id: o for f in c.read for o in index.by_fact.get(f, []) if o.id not in chosen}
    return [o.id for o in sorted(rounds.values(), key=lambda o: (o.order, o.id))]


def cell_candidates(world: World, index: EvidenceIndex) -> dict[str, list[Candidate]]:
    """Every cell's solved candidates (empty: nothing drawn supports the cell)."""
    by_cell: dict[str, list[Candidate]] = {c: [] for c in CELLS}
    for c in solve_candidates(world, index, plan_items(world)):
        x, y = cell_of(world, c)
        if f"{x}_{y}" == c.template.category:
            by_cell[c.template.category].append(c)
    return by_cell


def generate(
    world: World, observations: list[Observation], targets: dict[str, int], max_answer_share: float = 0.5
) -> list[Question]:
    """Candidates for every X×Y cell (``targets``: cell -> how many), answers computed by programs."""
    index = EvidenceIndex(observations)
    by_cell = cell_candidates(world, index)
    world_hash = content_hash(world)
    out: list[Question] = []
    drawn_x = {GRANULARITY[f.object] for f in world.facts if f.object in GRANULARITY and f.object != VIEW}
    stable_x = {
        GRANULARITY[f.object]
        for f in world.facts
        if f.kind == "attribute" and f.object in GRANULARITY and f.object != VIEW
    }
    for cell in CELLS:
        want = targets.get(cell, 0)
        x_of, y_of = cell.split("_")
        if want and not by_cell[cell] and y_of != "Y3" and x_of in drawn_x and x_of not in stable_x:
            log.warning(
                "memeye: cell %s plans %d items, but every %s value drawn changes over time (its items are "
                "%s_Y3): declare a drawable without a `changes` entry, or set memeye.targets.%s: 0",
                cell,
                want,
                x_of,
                x_of,
                cell,
            )
        elif want and not by_cell[cell] and x_of not in drawn_x:
            log.warning(
                "memeye: cell %s plans %d items, nothing drawn supports it: declare %s in a scenario's "
                "`draws` (or opt into memeye.scene_packs), or set memeye.targets.%s: 0",
                cell,
                want,
                X_HINTS[cell.split("_")[0]],
                cell,
            )
        elif len(by_cell[cell]) < want:
            log.warning(
                "memeye: cell %s plans %d items, the World supports %d (%s, or lower memeye.targets.%s)",
                cell,
                want,
                len(by_cell[cell]),
                CELL_HINTS[cell.split("_")[1]],
                cell,
            )
        # no answer above the theme's gates.max_answer_share of a cell; a small cell keeps every candidate
        cap = max(1, int(want * max_answer_share)) if want >= 4 else None
        for c in _select(world, by_cell[cell], overgenerate(want), cell, cap):
            x, y = cell.split("_")
            q = make_question(world, FAMILY, c, _text(world, c), [world.protagonist], None, world_hash)
            scen = world.entity(c.args.get("scene") or c.args["scenes"][0]).attrs["scenario"]
            q = q.model_copy(
                update={
                    "labels": {"x": x, "y": y, "scenario": scen, "key": c.args["key"]},
                    "evidence_sources": sorted({o.episode for o in c.evidence}),
                    "evidence_clips": [],
                    "evidence_alternatives": alternative_rounds(index, c),
                }
            )
            out.append(q)
    targets = stratified_targets([q.id for q in out], world.seed)  # answer ranks spread over items
    return sorted(options_for(world, out, targets, text_screen(observations)), key=lambda q: q.id)
