"""Questions of the source-distributed family, planned from the World before any source exists.

``plan_questions`` enumerates every question form the World supports, runs its program on the
full World (answer and facts read), and picks a seeded, template-stratified sample per task. The
episodes stage routes the picked questions' facts to sources; the questions stage plans the same
sample again and takes the evidence from the observations. QA items get four options (with the
correct one at each of A–D across four rotations) and are also asked open-ended (ignore the
options); function-calling items are open with a ``structured_answer``.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Iterator
from typing import Any

from mnemoforge.english import fill as fill_template
from mnemoforge.generators.option_balance import semantic_available, stratified_targets
from mnemoforge.generators.questions.common import Candidate, EvidenceIndex, Template, make_question
from mnemoforge.generators.questions.options import rotations
from mnemoforge.generators.questions.programs import FactView, Lexicon, Unanswerable, run_program
from mnemoforge.generators.rank_plan import assign_ranks
from mnemoforge.generators.realise import Slots, realise
from mnemoforge.generators.smm.hops import wrong_hop
from mnemoforge.generators.smm.options import options_for, ranks_for, retrieval_screen, text_history
from mnemoforge.generators.smm.world import CODE
from mnemoforge.hashing import content_hash
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.smm import EntityKindSpec, SmmSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World

FAMILY = "smm"
SH, MH, CR, PR, FC = "single_hop", "multi_hop", "conflict_resolution", "preference", "function_calling"
FILL = (
    "Fill in every argument you know from the conversations; leave any other optional argument "
    "at its default."
)
log = logging.getLogger("mnemoforge.smm")

T = {
    t.id: t
    for t in [
        Template("sh.value.v1", SH, "entity_value", "What is the {label} of the {noun} {name}?", "all"),
        Template(
            "mh.member.v1", MH, "member_attribute", "What is the {label} of the {noun} {person} is on?", "all"
        ),
        Template(
            "mh.lead.v1",
            MH,
            "member_lead_profile",
            "What is the {plabel} of the {via} of the {noun} {person} is on?",
            "all",
        ),
        Template(
            "cr.entity.v1", CR, "latest_value", "What is the current {label} of the {noun} {name}?", "all"
        ),
        Template(
            "cr.member.v1",
            CR,
            "member_latest_value",
            "What is the current {label} of the {noun} {person} is on?",
            "all",
        ),
        Template(
            "pr.choice.v1",
            PR,
            "preference_of",
            "Judging from what {person} does, which {noun} does {subj} prefer?",
            "all",
        ),
        Template(
            "fc.person.v1",
            FC,
            "function_call",
            "Which tool calls should be made to {actions} for {person}'s {noun}? " + FILL,
            "all",
        ),
        Template(
            "fc.entity.v1",
            FC,
            "function_call",
            "Which tool call should be made to {actions} for {name}? " + FILL,
            "all",
        ),
    ]
}


def _kinds(s: SmmSpec) -> dict[str, EntityKindSpec]:
    return {k.kind: k for k in s.entity_kinds}


def _updated(world: World) -> set[tuple[str, str]]:
    """(subject, key) pairs with more than one value (the conflicts)."""
    seen: dict[tuple[str, str], int] = {}
    for f in world.facts:
        if f.kind == "attribute":
            seen[(f.subject, f.object)] = seen.get((f.subject, f.object), 0) + 1
    return {k for k, n in seen.items() if n > 1}


def _forms(theme: Theme, world: World) -> Iterator[tuple[Template, dict[str, Any]]]:
    s = theme.smm
    assert s is not None
    kinds, updated = _kinds(s), _updated(world)
    people = [p.id for p in world.people]
    for e in s.entities:
        k = kinds[e.kind]
        for a in k.attributes:
            if (e.id, a.key) not in updated:
                yield T["sh.value.v1"], {"entity": e.id, "key": a.key}
        for a in k.attributes:
            if (e.id, a.key) in updated:
                yield T["cr.entity.v1"], {"entity": e.id, "key": a.key}
    for k in s.entity_kinds:
        if k.membership != "one":
            continue
        for p in people:
            for a in k.attributes:
                ent = next(
                    f.object
                    for f in world.facts
                    if f.kind == "member" and f.subject == p and f.value == k.kind
                )
                if (ent, a.key) in updated:
                    yield T["cr.member.v1"], {"person": p, "kind": k.kind, "key": a.key}
                else:
                    yield T["mh.member.v1"], {"person": p, "kind": k.kind, "key": a.key}
                if a.type == "person":
                    for f in s.profile:
                        yield T["mh.lead.v1"], {"person": p, "kind": k.kind, "via": a.key, "key": f.key}
    for p in people:
        for pref in s.preferences:
            yield T["pr.choice.v1"], {"person": p, "key": pref.key, "support": s.preference_support}
    tools = {t.name: t for t in s.tools}
    by_subject: dict[str, list] = {}
    for c in s.calls:
        by_subject.setdefault(c.subject, []).append(c)
    for subject, calls in sorted(by_subject.items()):
        combos = [[c] for c in calls] + [list(pair) for pair in itertools.combinations(calls, 2)]
        for combo in combos:
            steps = [
                {
                    "tool": c.tool,
                    "bindings": dict(sorted(c.arguments.items())),
                    "types": {a.name: a.type for a in tools[c.tool].arguments if a.name in c.arguments},
                }
                | ({"reflexive": True} if tools[c.tool].reflexive else {})
                for c in combo
            ]
            if kinds[subject].membership == "one":
                for p in people:
                    yield (
                        T["fc.person.v1"],
                        {
                            "person": p,
                            "subject": subject,
                            "steps": steps,
                            "support": s.preference_support,
                        },
                    )
            else:
                for e in s.entities:
                    if e.kind == subject:
                        yield T["fc.entity.v1"], {"entity": e.id, "subject": subject, "steps": steps}


def core(world: World, c: Candidate) -> tuple:
    """What a candidate is really about: items sharing it are redundant (one is kept). The facts
    read minus the bridges (memberships, record codes); a call: its entity and tools."""
    if c.template.program == "function_call":
        ent = c.args.get("entity") or next(
            world.fact(f).object for f in c.read if world.fact(f).kind == "member"
        )
        return (FC, ent, tuple(st["tool"] for st in c.args["steps"]))
    bridges = {f for f in c.read if world.fact(f).kind == "member" or world.fact(f).object == CODE}
    return (c.template.category, tuple(sorted(c.read - bridges)))


def _balanced(world: World, pool: list[Candidate], n: int, task: str) -> list[Candidate]:
    """A seeded sample stratified over templates that prefers answers not picked yet."""
    rng = derive_rng(world.seed, "select", FAMILY, task)
    by_tpl: dict[str, list[Candidate]] = {}
    for c in sorted(pool, key=lambda c: content_hash(c.template.id, c.args)):
        by_tpl.setdefault(c.template.id, []).append(c)
    for lst in by_tpl.values():
        rng.shuffle(lst)
    picked: list[Candidate] = []
    answers: dict[str, int] = {}
    while len(picked) < n and any(by_tpl.values()):
        for tid in sorted(by_tpl):
            lst = by_tpl[tid]
            if not lst or len(picked) >= n:
                continue
            best = min(range(len(lst)), key=lambda i: (answers.get(lst[i].answer, 0), i))
            c = lst.pop(best)
            answers[c.answer] = answers.get(c.answer, 0) + 1
            picked.append(c)
    return picked


def plan_pool(theme: Theme, world: World) -> list[Candidate]:
    """Every distinct answerable question form (one per underlying fact set)."""
    base = FactView(world.facts, Lexicon(world))
    pool, seen, cores = [], set(), set()
    for tpl, args in _forms(theme, world):
        key = content_hash(tpl.id, args)
        if key in seen:
            continue
        seen.add(key)
        view = base.fork()
        try:
            answer = run_program(tpl.program, view, args)
        except Unanswerable:
            continue
        if wrong_hop(world, base, tpl.program, args, answer):  # a wrong hop would score: refused
            continue
        c = Candidate(tpl, args, answer, set(view.read), [])
        k = core(world, c)
        if k not in cores:
            cores.add(k)
            pool.append(c)
    return pool


def shortfalls(theme: Theme, world: World) -> dict[str, dict[str, int]]:
    """Per task: how many were asked for and how many distinct forms the World supports."""
    assert theme.smm is not None
    pool = plan_pool(theme, world)
    return {
        t: {"asked": n, "available": sum(c.template.category == t for c in pool)}
        for t, n in theme.smm.tasks.counts().items()
    }


TASK_HINTS = {
    "single_hop": "add entities or attributes: each attribute of an entity that is never updated gives one",
    "multi_hop": "add an entity kind with `membership: one`, attributes to it, or cast members; a person "
    "attribute with profile fields adds two-hop items",
    "conflict_resolution": "mark attributes `mutable: true` or add entities of kinds with mutable attributes",
    "preference": "add preferences or cast members: each person and preference gives one",
    "function_calling": "add tools and `calls` bindings, or entities of the bound subject kinds",
}


def plan_questions(theme: Theme, world: World) -> list[Candidate]:
    """The picked candidates (answer and facts read computed on the full World; no evidence yet).
    A task the World cannot fill is planned short, with a warning (``shortfalls`` reports it)."""
    assert theme.smm is not None
    pool = plan_pool(theme, world)
    out: list[Candidate] = []
    for task, n in theme.smm.tasks.counts().items():
        cands = [c for c in pool if c.template.category == task]
        if len(cands) < n:
            log.warning(
                "smm: task %s asks for %d items, the World supports %d distinct ones (%s)",
                task,
                n,
                len(cands),
                TASK_HINTS[task],
            )
        # the conflicts the theme routes (smm.conflicts) are asked first
        routed = [
            c
            for c in cands
            if c.template.id == "cr.entity.v1" and theme.smm.route(c.args["entity"], c.args["key"])
        ][:n]
        rest = [c for c in cands if c not in routed]
        out += routed + _balanced(world, rest, n - len(routed), task)
    return sorted(out, key=lambda c: content_hash(c.template.id, c.args))


# ------------------------------------------------------------------------------------ text


def _pronoun(world: World, pid: str) -> str:
    g = world.person(pid).gender
    return "she" if g == "female" else "he" if g == "male" else "they"


def question_text(theme: Theme, world: World, c: Candidate) -> str:
    return realised(theme, world, c)[1]


def realised(theme: Theme, world: World, c: Candidate) -> tuple[str, str]:
    """(surface form id, text): realisation-layer forms for attribute programs, else the template."""
    s = theme.smm
    assert s is not None
    kinds, a = _kinds(s), c.args
    ent = world.entity(a["entity"]) if "entity" in a else None
    kind = kinds[ent.kind] if ent else kinds.get(a.get("kind") or a.get("subject", ""))
    fields: dict[str, str] = {
        "name": ent.name if ent else "",
        "noun": kind.noun if kind else "",
        "person": world.person(a["person"]).name if "person" in a else "",
        "subj": _pronoun(world, a["person"]) if "person" in a else "",
    }
    if "key" in a and kind and c.template.program != "member_lead_profile":
        fields["label"] = kind.attribute(a["key"]).label
    if c.template.program == "member_lead_profile" and kind:
        fields["via"] = kind.attribute(a["via"]).label
        fields["plabel"] = next(f.label for f in s.profile if f.key == a["key"])
    if c.template.program == "preference_of":
        fields["noun"] = next(p.noun for p in s.preferences if p.key == a["key"])
    if c.template.program == "function_call":
        tools = {t.name: t for t in s.tools}
        descs = [tools[st["tool"]].description.rstrip(".") for st in a["steps"]]
        fields["actions"] = " and then ".join(d[0].lower() + d[1:] for d in descs)
    shape = SHAPES.get(c.template.program)
    if shape and kind:
        attr = kind.attribute(a["via"] if shape == "lead" else a["key"])
        slots = Slots(
            label=fields.get("plabel") or fields.get("label", ""),
            who=attr.type == "person" and shape != "lead",
            name=fields["name"],
            person=fields["person"],
            noun=fields["noun"],
            via=fields.get("via", ""),
            member=kind.belongs(),
        )
        # the form depends on the seed and the fact asked, never on the task: a conflict item and
        # a single-hop item over the same kind of fact draw from the same forms
        rng = derive_rng(
            world.seed, "smm", "form", shape, content_hash(a.get("entity"), a.get("person"), a.get("key"))
        )
        return realise(shape, slots, rng)
    return c.template.id, fill_template(c.template.text, fields)


SHAPES = {
    "entity_value": "entity",
    "latest_value": "entity",
    "member_attribute": "member",
    "member_latest_value": "member",
    "member_lead_profile": "lead",
}
"""Programs whose text comes from the realisation layer (``generators/realise.py``)."""


_MADE: dict[tuple[str, str, str, bool], tuple[Question, ...]] = {}


def make_questions(theme: Theme, world: World, observations: list[Observation]) -> list[Question]:
    """The candidate questions with evidence from the observations (every observation of each fact
    read). Made once per content of the three (and MiniLM's presence, which the option sets read)
    in a process: a build's questions stage takes what its theme check's dry run
    (``smm/check.py``) made."""
    key = (content_hash(theme), content_hash(world), content_hash(observations), semantic_available())
    made = _MADE.get(key)
    if made is None:
        if len(_MADE) >= 4:
            _MADE.clear()
        made = _MADE[key] = tuple(_make_questions(theme, world, observations, key[1]))
    return list(made)


def _make_questions(
    theme: Theme, world: World, observations: list[Observation], world_hash: str
) -> list[Question]:
    index = EvidenceIndex(observations)
    made = []
    for c in plan_questions(theme, world):
        try:
            evidence = index.evidence_for(c.read, "all")
        except Unanswerable:
            continue  # a fact was never routed to a source: no item (counted by the stats as planned-only)
        c = Candidate(c.template, c.args, c.answer, c.read, evidence)
        made.append((c, make_question(world, FAMILY, c, question_text(theme, world, c), _targets(c), None,
                                      world_hash)))  # fmt: skip
    # the answer's rank among its options, spread evenly over the items (option_balance)
    targets = stratified_targets([q.id for c, q in made if c.template.program != "function_call"], world.seed)
    # ordered answers (dates, times, integers): where each stands among its options, planned over
    # all of them at once, from the ranks each can take (rank_plan.assign_ranks)
    qa = [(c, q) for c, q in made if c.template.program != "function_call"]
    history = text_history(observations) if qa else None  # a visual item's set: no text retrieval reads it
    quiet = {q.id: retrieval_screen(history, q, c.evidence) for c, q in qa}
    plan = assign_ranks({q.id: ranks_for(theme, world, c, q.id, q.question, quiet[q.id]) for c, q in qa})
    out = []
    for c, q in sorted(made, key=lambda cq: cq[1].id):
        update: dict[str, Any] = {
            "evidence_clips": [],
            "evidence_shots": [],
            "evidence_sources": sorted({o.source for o in c.evidence}),
            "labels": {"task": c.template.category},
        }
        if c.template.program == "function_call":
            update["structured_answer"] = json.loads(c.answer)
        else:
            opts = options_for(
                theme, world, c, q.id, targets.get(q.id), q.question, plan.get(q.id), quiet.get(q.id)
            )
            if opts:
                update |= {"options": opts, "rotations": rotations(world.seed, q.id)}
        out.append(q.model_copy(update=update))
    return sorted(out, key=lambda q: q.id)


def _targets(c: Candidate) -> list[str]:
    return [c.args["person"]] if "person" in c.args else []
