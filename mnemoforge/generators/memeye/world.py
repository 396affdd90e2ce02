"""The visual World: per scenario, recurring scenes with facts at X1–X4 and one-off state changes.

Entities: one ``scene`` entity per scene (attrs: scenario, kind, index, and the scenario's
``place`` if it declares one) and one ``session`` entity per chat session (attrs: scenario, index,
start, scenes shown). Facts: a stable key of a scene is one ``attribute`` fact; a key that changes
is two ``state`` facts (the stale state from the scene's first photo, the update from a later
session), so the latest ``at`` is the current state (MemEye's Y3 evolving visual state).

Session ``i`` of a scenario with ``m`` scenes shows scenes ``i mod m`` and ``(i+1) mod m``, so
every scene appears in at least two sessions when a scenario has at least ``m`` sessions.

A declared drawable (``draws``: a board, a coloured thing, a row of countables, a sign, a table-top,
a cast person) is **one object** seen in every scene of its scenario, unless it is declared
``per_scene``: it is an ``object`` entity of its own (attrs: scenario, key, scenes) whose facts and
timeline hold one value at a time, so two pictures taken minutes apart show the same collar colour.
The kind's own drawables (the mug of a room, the tag of a shelf) are each scene's own.
The World's timelines hold every key of every scene and object, and where the user (and a drawn
cast person) is during each session (``location``: the scenario's place, else the scenario id).
"""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass

from mnemoforge.generators.declared import assemble_world, cast_people
from mnemoforge.generators.memeye.labels import changed_label, make_label
from mnemoforge.generators.memeye.vocab import (
    CHANGE_CYCLE,
    CHANGEABLE,
    COLOURS,
    N_INSTANCES,
    ORDER_SEP,
    POSITIONS,
    VIEW,
    KindVocab,
    keys_of,
    vocab_for,
    vocab_json,
)
from mnemoforge.generators.memeye.whereabouts import available_time, whereabouts
from mnemoforge.generators.names import form
from mnemoforge.generators.timelines import from_facts
from mnemoforge.generators.typed_values import changed_typed, typed_label
from mnemoforge.hashing import content_hash, short
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.memeye import SHARED_DRAWABLES, ChangeSpec, MemEyeSpec, ScenarioSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Entity, Fact, World

COUNT_RANGE = (3, 9)


@dataclass(frozen=True)
class SessionPlan:
    id: str
    scenario: str
    index: int
    start: dt.datetime
    scenes: tuple[str, ...]


def spec_of(theme: Theme) -> MemEyeSpec:
    if theme.memeye is None:
        raise ValueError("memeye: section required for family memeye")
    return theme.memeye


def scene_id(scenario: ScenarioSpec, j: int) -> str:
    return f"{scenario.id}_sc{j + 1}"


def schedule(theme: Theme, seed: int) -> list[SessionPlan]:
    """Sessions of all scenarios interleaved in time (session i of each scenario, scenario order),
    spread evenly over the theme's span at seeded hours; ids ``s01``, ``s02``… in time order."""
    spec = spec_of(theme)
    slots = sorted(
        ((i, j) for j, sc in enumerate(spec.scenarios) for i in range(sc.sessions)),
        key=lambda t: (t[0], t[1]),
    )
    span = (theme.end - theme.start).days
    start = dt.datetime.combine(theme.start, dt.time())
    out = []
    width = max(2, len(str(len(slots))))
    for k, (i, j) in enumerate(slots):
        sc = spec.scenarios[j]
        rng = derive_rng(seed, "memeye", "session", sc.id, i)
        day = int((k + 0.5) * span / len(slots))
        when = start + dt.timedelta(
            days=min(day, span - 1), hours=rng.randint(9, 19), minutes=rng.choice([0, 15, 30, 45])
        )
        when = available_time(theme, sc, when)
        m = len(sc.scenes)
        shown = (scene_id(sc, i % m), scene_id(sc, (i + 1) % m))
        out.append(SessionPlan(f"s{k + 1:0{width}d}", sc.id, i, when, shown))
    # a session moved for someone's availability may pass a neighbour: ids follow time order
    out.sort(key=lambda s: (s.start, s.id))
    return [
        SessionPlan(f"s{k + 1:0{width}d}", *(s.scenario, s.index, s.start, s.scenes))
        for k, s in enumerate(out)
    ]


def draws_of(sc: ScenarioSpec, theme: Theme | None = None) -> dict | None:
    """The scenario's declared drawables as plain data (None: the kind's own); with ``theme``, a
    declared person gets their name and colours (skin, hair, signature top and bottom)."""
    d = sc.draws.model_dump(mode="json", exclude_none=True)
    for part, field, default in (("label", "type", "code"), ("colour", "markings", "none")):
        if d.get(part, {}).get(field) == default:  # an undeclared look or type stays out of the World
            del d[part][field]
    if theme is not None and d.get("person"):
        p = next(p for p in theme.cast if p.id == d["person"]["cast"])
        a = p.appearance
        d["person"]["name"] = form(p, "colleague", among=theme.cast)  # the tag's name, never a bare title
        d["person"]["colours"] = {
            "skin": a.skin_tone,
            "hair": a.hair_color,
            "top": a.signature_outfit.top_color,
            "bottom": a.signature_outfit.bottom_color,
        }
    return d or None


def _initial(kind: str, rng: random.Random, v: KindVocab, draws: dict | None = None) -> dict[str, str]:
    """The first value of every key a scene of vocabulary ``v`` can show (the kind's own from a
    scene pack; a declared label of a ``type`` takes a value of its range)."""
    left, right = rng.sample(v.items, 2) if v.items else ("", "")
    extra = {}
    if v.table_items:
        extra["order"] = ORDER_SEP.join(rng.sample(v.table_items, len(v.table_items)))
    if v.holds:
        extra["presence"] = rng.choice(v.holds)
    if v.map_places:
        extra["marked"] = rng.choice(v.map_places)
    label = (draws or {}).get("label") or {}
    return extra | {
        "gist": rng.choice(v.gists) if v.gists else "",
        "left": left,
        "right": right,
        "mark": rng.choice(POSITIONS[:N_INSTANCES]),
        "colour": rng.choice(sorted(COLOURS)),
        "count": str(rng.randint(*COUNT_RANGE)),
        "label": typed_label(label, rng) if label.get("type", "code") != "code" else make_label(kind, rng),
    }


def _changed(kind: str, key: str, values: dict[str, str], rng: random.Random, v: KindVocab) -> str:
    """A different value for ``key`` (a left item never equals the right one)."""
    if key == "gist":
        pool = list(v.gists)
    elif key == "left":
        pool = [x for x in v.items if x != values["right"]]
    elif key == "mark":
        pool = list(POSITIONS[:N_INSTANCES])
    elif key == "colour":
        pool = sorted(COLOURS)
    elif key == "order":  # the same objects moved round: a rotation (all states share one option set)
        xs = values["order"].split(ORDER_SEP)
        k = rng.randint(1, len(xs) - 1)
        return ORDER_SEP.join(xs[k:] + xs[:k])
    elif key == "presence":
        pool = list(v.holds)
    elif key == "marked":
        pool = list(v.map_places)
    elif key == "count":
        n, (lo, hi) = int(values["count"]), COUNT_RANGE
        pool = [str(x) for x in range(max(lo, n - 3), min(hi, n + 3) + 1)]
    elif v.label_type:  # a declared level, count or time: another value of its range
        return changed_typed(v.label_type, v.label_range, values["label"], rng)
    else:  # a later reading of the same tag/score/counter: a near value
        return changed_label(kind, values["label"], rng)
    return rng.choice([x for x in pool if x != values[key]])


def plan_changes(spec: MemEyeSpec, seed: int) -> dict[str, tuple[str, ...]]:
    """Which keys change in each scene: the k-th scene of the theme (scenario order) takes the
    next ``changes_per_scene`` keys of one seeded rotation of ``CHANGE_CYCLE``, so the changes
    spread evenly over the X*_Y3 cells and every key stays stable in other scenes."""
    off = derive_rng(seed, "memeye", "changes").randrange(len(CHANGE_CYCLE))
    n, c = len(CHANGE_CYCLE), spec.changes_per_scene
    sids = [scene_id(sc, j) for sc in spec.scenarios for j in range(len(sc.scenes))]
    out: dict[str, tuple[str, ...]] = {}
    for k, sid in enumerate(sids):
        keys = dict.fromkeys(CHANGE_CYCLE[(off + c * k + i) % n] for i in range(c))
        rest = [x for x in CHANGEABLE if x not in keys]  # more than three per scene: fill up
        out[sid] = (*keys, *rest[: c - len(keys)])
    return out


def declared_changes(sc: ScenarioSpec, j: int) -> dict[str, ChangeSpec]:
    """key -> the declared schedule of scene ``j`` of a scenario (``scenarios.*.changes``)."""
    return {c.key: c for c in sc.changes if c.scenes is None or j in c.scenes}


def object_id(sc: ScenarioSpec, key: str) -> str:
    """The entity id of a scenario's shared declared drawable carrying ``key``."""
    return f"{sc.id}_{key}"


def _moments(c: ChangeSpec, shown: list[SessionPlan]) -> list[int]:
    """Indexes (>= 1) of the photos at which the value changes under schedule ``c``."""
    if c.after is not None or c.dates:
        marks = [c.after + dt.timedelta(days=1)] if c.after is not None else sorted(c.dates)
        out: list[int] = []
        for d in marks:
            i = next(
                (i for i, s in enumerate(shown) if i >= 1 and s.start.date() >= d and i not in out), None
            )
            if i is not None:
                out.append(i)
        return out
    if c.every_days is not None:
        out, last = [], 0
        for i in range(1, len(shown)):
            if (shown[i].start - shown[last].start).days >= c.every_days:
                out.append(i)
                last = i
        return out
    return list(range(1, len(shown)))  # restock: the count moves at every photo


def scheduled(
    sc: ScenarioSpec,
    j: int,
    c: ChangeSpec,
    shown: list[SessionPlan],
    values: dict[str, str],
    rng: random.Random,
    v: KindVocab,
) -> list[tuple[SessionPlan, str]]:
    """The states of one declared variable: (photo, value) from the first photo on, one per change.
    ``restock``: the count drops by one or two per photo and is restocked to the top once low."""
    moments = _moments(c, shown)
    if not moments:
        what = sc.scenes[j] if j >= 0 else f"the scenario's {SHARED_DRAWABLES[c.key]}"
        raise ValueError(
            f"memeye.scenarios.{sc.id}.changes ({c.key} of {what!r}): no later photo falls in its "
            f"schedule; move the date earlier, shorten every_days or add sessions"
        )
    lo, hi = COUNT_RANGE
    cur = dict(values)
    if c.restock:
        cur["count"] = str(hi - rng.randint(0, 1))
    steps = [(shown[0], cur[c.key])]
    for i in moments:
        if c.restock:
            n = int(cur["count"])
            new = str(hi - rng.randint(0, 1)) if n - 1 < lo + 1 else str(max(lo, n - rng.randint(1, 2)))
            if new == cur["count"]:
                new = str(n - 1)
        else:
            new = _changed(sc.kind, c.key, cur, rng, v)
        cur[c.key] = new
        steps.append((shown[i], new))
    return steps


def fact_id(seed: int, scene: str, key: str, version: int) -> str:
    """An opaque fact id: the scene, then a hash (it names neither the key nor a version)."""
    return f"{scene}.f{short(content_hash('memeye-fact', seed, scene, key, version), 8)}"


def plan_world(theme: Theme, seed: int) -> World:
    """Deterministic in (theme, seed)."""
    spec = spec_of(theme)
    people = cast_people(theme)
    user = spec.user or theme.protagonist or theme.cast[0].id
    sessions = schedule(theme, seed)
    entities: list[Entity] = []
    facts: list[Fact] = []
    changes = plan_changes(spec, seed)
    for sc in spec.scenarios:  # declared state variables replace the rotation in their scenes
        swap = {"gist": "order", "left": "presence", "mark": "marked"}
        own = keys_of(draws_of(sc), bool(spec.scene_packs))
        for j in range(len(sc.scenes)):  # a drawable taking a key's place takes its change too
            sid = scene_id(sc, j)  # (a key nothing draws without a scene pack changes nowhere)
            swapped = (k if k in own else swap.get(k, "") for k in changes[sid])
            changes[sid] = tuple(dict.fromkeys(k for k in swapped if k in own))
        if sc.changes:
            for j in range(len(sc.scenes)):
                changes[scene_id(sc, j)] = tuple(declared_changes(sc, j))
    for sc in spec.scenarios:
        mine = [s for s in sessions if s.scenario == sc.id]
        draws = draws_of(sc, theme)
        v = vocab_for(sc, spec.pack, draws, spec.scene_packs)
        packed = bool(spec.scene_packs)
        extra = {"draws": json.dumps(draws, sort_keys=True)} if draws else {}
        extra["vocab"] = vocab_json(v)
        if sc.place is not None:  # the place the scenes are in (a cross item's place bridge reads it)
            extra["place"] = sc.place
        shared = sc.draws.shared_keys()
        for j, name in enumerate(sc.scenes):
            sid = scene_id(sc, j)
            entities.append(
                Entity(
                    id=sid,
                    name=name,
                    kind="scene",
                    attrs={"scenario": sc.id, "kind": sc.kind, "index": str(j), **extra},
                )
            )
            shown = [s for s in mine if sid in s.scenes]
            rng = derive_rng(seed, "memeye", "scene", sid)
            values = _initial(sc.kind, rng, v, draws)
            keys = [k for k in keys_of(draws, packed) if k not in shared]
            facts += _key_facts(
                seed, sid, keys, changes[sid], declared_changes(sc, j), sc, j, shown, values, rng, v
            )
            if not keys:  # every drawable is shared: one unasked fact says which scene a picture shows
                facts.append(
                    Fact(id=fact_id(seed, sid, VIEW, 0), kind="attribute", subject=sid, object=VIEW,
                         value=str(j + 1), at=shown[0].start)
                )  # fmt: skip
        for key, drawable in sorted(shared.items()):  # one object in every scene of the scenario
            oid = object_id(sc, key)
            noun = (draws or {}).get(drawable, {}).get("noun") or (draws or {}).get(drawable, {}).get(
                "name", ""
            )
            entities.append(
                Entity(
                    id=oid,
                    name=noun or key,
                    kind="object",
                    attrs={
                        "scenario": sc.id,
                        "kind": sc.kind,
                        "key": key,
                        "drawable": drawable,
                        "scenes": ",".join(scene_id(sc, j) for j in range(len(sc.scenes))),
                        **extra,
                    },
                )
            )
            rng = derive_rng(seed, "memeye", "object", oid)
            values = _initial(sc.kind, rng, v, draws)
            rotated = any(key in changes[scene_id(sc, j)] for j in range(len(sc.scenes)))
            declared = {c.key: c for c in sc.changes if c.scenes is None}
            facts += _key_facts(
                seed, oid, [key], (key,) if rotated else (), declared, sc, -1, mine, values, rng, v
            )
    timelines = from_facts(facts) + whereabouts(spec, sessions, user)
    for s in sessions:
        entities.append(
            Entity(
                id=s.id,
                name=f"session {s.id}",
                kind="session",
                attrs={
                    "scenario": s.scenario,
                    "index": str(s.index),
                    "start": s.start.isoformat(),
                    "scenes": ",".join(s.scenes),
                },
            )
        )
    return assemble_world(theme, seed, user, people, facts, entities=entities, timelines=timelines)


def _key_facts(
    seed: int,
    subject: str,
    keys: list[str],
    changing: tuple[str, ...],
    declared: dict[str, ChangeSpec],
    sc: ScenarioSpec,
    j: int,
    shown: list[SessionPlan],
    values: dict[str, str],
    rng: random.Random,
    v: KindVocab,
) -> list[Fact]:
    """The facts of one subject (a scene, or a shared object: ``j`` = -1) over the photos showing
    it: a stable key is one ``attribute`` fact, a changing key one ``state`` fact per value."""
    out: list[Fact] = []
    first = shown[0].start
    for key in keys:
        if key not in changing and key not in declared:
            out.append(
                Fact(id=fact_id(seed, subject, key, 0), kind="attribute", subject=subject, object=key,
                     value=values[key], at=first)
            )  # fmt: skip
            continue
        c = declared.get(key)
        if c is None:  # one change, at a seeded later photo
            later = shown[rng.randint(1, len(shown) - 1)]
            steps = [(shown[0], values[key]), (later, _changed(sc.kind, key, values, rng, v))]
        else:
            steps = scheduled(sc, j, c, shown, values, rng, v)
        for n, (sess, value) in enumerate(steps):
            out.append(
                Fact(id=fact_id(seed, subject, key, n + 1), kind="state", subject=subject, object=key,
                     value=value, at=first if n == 0 else sess.start)
            )  # fmt: skip
    return out


def subjects_of(world: World, scene: str) -> set[str]:
    """The scene and the shared objects seen in it (``object`` entities listing it)."""
    out = {scene}
    for e in world.entities:
        if e.kind == "object" and scene in e.attrs.get("scenes", "").split(","):
            out.add(e.id)
    return out


def sessions_of(world: World) -> list[SessionPlan]:
    """The session plan stored in the World's ``session`` entities, in time order."""
    out = [
        SessionPlan(
            e.id,
            e.attrs["scenario"],
            int(e.attrs["index"]),
            dt.datetime.fromisoformat(e.attrs["start"]),
            tuple(e.attrs["scenes"].split(",")),
        )
        for e in world.entities
        if e.kind == "session"
    ]
    return sorted(out, key=lambda s: (s.start, s.id))


def state_at(world: World, scene: str, when: dt.datetime) -> dict[str, Fact]:
    """key -> the fact holding at ``when`` (the latest ``at`` not after it) for one scene and the
    shared objects seen in it (one timeline each: ``subjects_of``)."""
    subjects = subjects_of(world, scene)
    out: dict[str, Fact] = {}
    for f in world.facts:
        if f.subject not in subjects or f.kind not in ("attribute", "state") or f.at is None or f.at > when:
            continue
        if f.object not in out or (out[f.object].at or when) <= f.at:
            out[f.object] = f
    return out
