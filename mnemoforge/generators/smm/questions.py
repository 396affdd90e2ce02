"""Questions of the source-distributed family, planned from the World before any source exists.

``plan_questions`` enumerates every question form the World supports, runs its program on the
full World (answer and facts read), and picks a seeded, template-stratified sample per task. The
episodes stage routes the picked questions' facts to sources; the questions stage plans the same
sample again and takes the evidence from the observations. QA items get four options (with the
correct one at each of A–D across four rotations) and are also asked open-ended (ignore the
options); function-calling items are open with a ``structured_answer``.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from collections.abc import Iterator
from typing import Any

from mnemoforge.generators.questions.common import Candidate, EvidenceIndex, Template, make_question, select
from mnemoforge.generators.questions.options import rotations
from mnemoforge.generators.questions.programs import FactView, Lexicon, Unanswerable, run_program
from mnemoforge.generators.smm import programs as smm_programs
from mnemoforge.hashing import content_hash
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.smm import EntityKindSpec, SmmSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import World

FAMILY = "smm"
SH, MH, CR, PR, FC = "single_hop", "multi_hop", "conflict_resolution", "preference", "function_calling"

T = {
    t.id: t
    for t in [
        Template("sh.entity.v1", SH, "entity_facts", "What are the {labels} of the {noun} {name}?", "all"),
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
            "Which tool calls should be made to {actions} for {person}'s {noun}? "
            "Fill every argument from memory.",
            "all",
        ),
        Template(
            "fc.entity.v1",
            FC,
            "function_call",
            "Which tool call should be made to {actions} for the {name}? Fill every argument from memory.",
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
        stable = [a.key for a in k.attributes if (e.id, a.key) not in updated]
        for n in (2, 3):
            for keys in itertools.combinations(stable, n):
                yield T["sh.entity.v1"], {"entity": e.id, "keys": list(keys)}
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
                for c in combo
            ]
            if kinds[subject].membership == "one":
                for p in people:
                    yield T["fc.person.v1"], {"person": p, "subject": subject, "steps": steps}
            else:
                for e in s.entities:
                    if e.kind == subject:
                        yield T["fc.entity.v1"], {"entity": e.id, "subject": subject, "steps": steps}


def plan_questions(theme: Theme, world: World) -> list[Candidate]:
    """The picked candidates (answer and facts read computed on the full World; no evidence yet)."""
    assert theme.smm is not None
    base = FactView(world.facts, Lexicon(world))
    pool, seen = [], set()
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
        pool.append(Candidate(tpl, args, answer, set(view.read), []))
    out: list[Candidate] = []
    for task, n in theme.smm.tasks.counts().items():
        out += select(world, [c for c in pool if c.template.category == task], n, FAMILY, task)
    return sorted(out, key=lambda c: content_hash(c.template.id, c.args))


# ------------------------------------------------------------------------------------ text


def _pronoun(world: World, pid: str) -> str:
    g = world.person(pid).gender
    return "she" if g == "female" else "he" if g == "male" else "they"


def _labels(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def question_text(theme: Theme, world: World, c: Candidate) -> str:
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
    if "keys" in a and kind:
        fields["labels"] = _labels([kind.attribute(k).label for k in a["keys"]])
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
    text = c.template.text.format(**fields)
    return text[0].upper() + text[1:]


# ---------------------------------------------------------------------------------- options


def _alternatives(
    theme: Theme, world: World, subject: str, key: str, answer_value: str, rng_key: str
) -> list[str]:
    """Plausible wrong values for (subject, key): the World's other values of the key, then the pool."""
    s = theme.smm
    assert s is not None
    lex = Lexicon(world)
    own = [
        f.value or ""
        for f in world.facts
        if f.kind == "attribute" and f.subject == subject and f.object == key
    ]
    same_key = [f.value or "" for f in world.facts if f.kind == "attribute" and f.object == key]
    kind = next((k for k in s.entity_kinds if any(a.key == key for a in k.attributes)), None)
    spec = kind.attribute(key) if kind and any(a.key == key for a in kind.attributes) else None
    pool: list[str] = []
    if spec is not None and spec.type == "date":
        base = dt.date.fromisoformat(answer_value)
        pool = [(base + dt.timedelta(days=d)).isoformat() for d in (1, -1, 2, -2, 7, -7, 3)]
    elif spec is not None and spec.type == "person":
        pool = [p.id for p in world.people]
    elif spec is not None:
        pool = list(spec.values)
    else:  # a profile field
        prof = next((f for f in s.profile if f.key == key), None)
        pool = list(prof.values) if prof else []
    rng = derive_rng(world.seed, rng_key, subject, key, "alts")
    rest = [v for v in same_key + pool if v]
    rng.shuffle(rest)
    out: list[str] = []
    for v in [*own, *rest]:
        d = lex.names.get(v, v)
        if d != answer_value and d not in out:
            out.append(d)
    return out


def _options(theme: Theme, world: World, c: Candidate, qid: str) -> list[str] | None:
    a, rng = c.args, derive_rng(world.seed, qid, "options")
    prog = c.template.program
    if prog == "entity_facts":
        parts = c.answer.split(smm_programs.JOIN)
        alts = [
            _alternatives(theme, world, a["entity"], k, v, qid) for k, v in zip(a["keys"], parts, strict=True)
        ]
        if any(not x for x in alts):
            return None
        alt = [x[0] for x in alts]
        if len(parts) == 2:  # 2x2: every single component leaves a tie
            combos = [[alt[0], parts[1]], [parts[0], alt[1]], [alt[0], alt[1]]]
        else:  # change one component each
            combos = [[alt[i] if j == i else parts[j] for j in range(len(parts))] for i in range(len(parts))]
        distractors = [smm_programs.JOIN.join(x) for x in combos[:3]]
    elif prog == "preference_of":
        spec = next(p for p in theme.smm.preferences if p.key == a["key"])  # type: ignore[union-attr]
        vals = [v for v in spec.values if v != c.answer]
        distractors = rng.sample(vals, 3) if len(vals) >= 3 else []
    else:
        read = [world.fact(f) for f in sorted(c.read)]
        last = [f for f in read if f.kind == "attribute" and f.object == a.get("key")]
        subject = last[0].subject if last else a.get("entity", "")
        alts = _alternatives(theme, world, subject, a["key"], c.answer, qid)
        distractors = alts[:1] + rng.sample(alts[1:], min(2, len(alts) - 1)) if alts else []
    if len(set(distractors)) < 3 or c.answer in distractors:
        return None
    rng.shuffle(distractors)
    return [c.answer, *distractors]


def make_questions(theme: Theme, world: World, observations: list[Observation]) -> list[Question]:
    """The candidate questions with evidence from the observations (every observation of each fact read)."""
    index = EvidenceIndex(observations)
    world_hash = content_hash(world)
    out = []
    for c in plan_questions(theme, world):
        try:
            evidence = index.evidence_for(c.read, "all")
        except Unanswerable:
            continue  # a fact was never routed to a source: no item (counted by the stats as planned-only)
        c = Candidate(c.template, c.args, c.answer, c.read, evidence)
        q = make_question(world, FAMILY, c, question_text(theme, world, c), _targets(c), None, world_hash)
        update: dict[str, Any] = {
            "evidence_clips": [],
            "evidence_shots": [],
            "evidence_sources": sorted({o.source for o in evidence}),
            "labels": {"task": c.template.category},
        }
        if c.template.program == "function_call":
            update["structured_answer"] = json.loads(c.answer)
        else:
            opts = _options(theme, world, c, q.id)
            if opts:
                update |= {"options": opts, "rotations": rotations()}
        out.append(q.model_copy(update=update))
    return sorted(out, key=lambda q: q.id)


def _targets(c: Candidate) -> list[str]:
    return [c.args["person"]] if "person" in c.args else []
