"""The visual World: per scenario, recurring scenes with facts at X1–X4 and one-off state changes.

Entities: one ``scene`` entity per scene (attrs: scenario, kind, index) and one ``session``
entity per chat session (attrs: scenario, index, start, scenes shown). Facts: a stable key of a
scene is one ``attribute`` fact; a key that changes is two ``state`` facts (the stale state from
the scene's first photo, the update from a later session), so the latest ``at`` is the current
state (MemEye's Y3 evolving visual state).

Session ``i`` of a scenario with ``m`` scenes shows scenes ``i mod m`` and ``(i+1) mod m``, so
every scene appears in at least two sessions when a scenario has at least ``m`` sessions.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from mnemoforge.generators.memeye.vocab import CHANGEABLE, KEYS, N_INSTANCES, POSITIONS, VOCAB, make_label
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.memeye import MemEyeSpec, ScenarioSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Entity, Fact, Person, Place, Relation, World, WorldObject

COLOURS_BY_KIND = {
    "room": ("sage green", "terracotta", "sky blue", "butter yellow", "lavender", "dusty rose", "mint green"),
    "board": ("forest green", "navy blue", "brick red", "plum", "ochre", "teal"),
    "dashboard": ("teal", "coral", "navy blue", "mauve", "mustard yellow", "olive green"),
    "street": ("powder blue", "terracotta", "butter yellow", "sage green", "dusty rose", "ochre"),
}


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
        m = len(sc.scenes)
        shown = (scene_id(sc, i % m), scene_id(sc, (i + 1) % m))
        out.append(SessionPlan(f"s{k + 1:0{width}d}", sc.id, i, when, shown))
    return out


def _initial(kind: str, rng: random.Random) -> dict[str, str]:
    v = VOCAB[kind]
    left, right = rng.sample(v.items, 2)
    return {
        "gist": rng.choice(v.gists),
        "left": left,
        "right": right,
        "mark": rng.choice(POSITIONS[:N_INSTANCES]),
        "colour": rng.choice(COLOURS_BY_KIND[kind]),
        "count": str(rng.randint(3, 9)),
        "label": make_label(kind, rng),
    }


def _changed(kind: str, key: str, values: dict[str, str], rng: random.Random) -> str:
    """A different value for ``key`` (a left item never equals the right one)."""
    v = VOCAB[kind]
    if key == "gist":
        pool = list(v.gists)
    elif key == "left":
        pool = [x for x in v.items if x != values["right"]]
    elif key == "mark":
        pool = list(POSITIONS[:N_INSTANCES])
    elif key == "colour":
        pool = list(COLOURS_BY_KIND[kind])
    elif key == "count":
        n = int(values["count"])
        pool = [str(x) for x in range(max(2, n - 3), min(9, n + 3) + 1)]
    else:
        for _ in range(20):
            new = make_label(kind, rng)
            if new != values["label"]:
                return new
        raise RuntimeError("could not draw a new label")
    return rng.choice([x for x in pool if x != values[key]])


def plan_changes(scenario: ScenarioSpec, seed: int) -> dict[str, tuple[str, ...]]:
    """Which keys change in each scene: scene j takes the next two keys of a seeded rotation of
    ``CHANGEABLE``, so every changeable key changes in some scene and stays stable in others."""
    off = derive_rng(seed, "memeye", "changes", scenario.id).randrange(len(CHANGEABLE))
    n = len(CHANGEABLE)
    return {
        scene_id(scenario, j): (CHANGEABLE[(off + 2 * j) % n], CHANGEABLE[(off + 2 * j + 1) % n])
        for j in range(len(scenario.scenes))
    }


def plan_world(theme: Theme, seed: int) -> World:
    """Deterministic in (theme, seed)."""
    spec = spec_of(theme)
    people = [
        Person(**p.model_dump(exclude={"appearance", "voice"}), appearance=p.appearance, voice=p.voice)
        for p in theme.cast
    ]
    user = spec.user or theme.protagonist or theme.cast[0].id
    sessions = schedule(theme, seed)
    entities: list[Entity] = []
    facts: list[Fact] = []
    for sc in spec.scenarios:
        changes = plan_changes(sc, seed)
        mine = [s for s in sessions if s.scenario == sc.id]
        for j, name in enumerate(sc.scenes):
            sid = scene_id(sc, j)
            entities.append(
                Entity(
                    id=sid,
                    name=name,
                    kind="scene",
                    attrs={"scenario": sc.id, "kind": sc.kind, "index": str(j)},
                )
            )
            shown = [s for s in mine if sid in s.scenes]
            rng = derive_rng(seed, "memeye", "scene", sid)
            values = _initial(sc.kind, rng)
            first = shown[0].start
            for key in KEYS:
                if key not in changes[sid]:
                    facts.append(
                        Fact(
                            id=f"{sid}.{key}",
                            kind="attribute",
                            subject=sid,
                            object=key,
                            value=values[key],
                            at=first,
                        )
                    )
                    continue
                later = shown[rng.randint(1, len(shown) - 1)]
                new = _changed(sc.kind, key, values, rng)
                facts.append(
                    Fact(
                        id=f"{sid}.{key}.v1",
                        kind="state",
                        subject=sid,
                        object=key,
                        value=values[key],
                        at=first,
                    )
                )
                facts.append(
                    Fact(
                        id=f"{sid}.{key}.v2", kind="state", subject=sid, object=key, value=new, at=later.start
                    )
                )
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
    return World(
        theme=theme.name,
        seed=seed,
        start=theme.start,
        end=theme.end,
        protagonist=user,
        people=people,
        relations=[Relation(**r.model_dump()) for r in theme.relations],
        places=[Place(**p.model_dump()) for p in theme.places],
        objects=[WorldObject(**o.model_dump()) for o in theme.objects],
        events=[],
        facts=facts,
        entities=entities,
    )


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
    """key -> the fact holding at ``when`` (the latest ``at`` not after it) for one scene."""
    out: dict[str, Fact] = {}
    for f in world.facts:
        if f.subject != scene or f.kind not in ("attribute", "state") or f.at is None or f.at > when:
            continue
        if f.object not in out or (out[f.object].at or when) <= f.at:
            out[f.object] = f
    return out
