"""Evidence injection: route each planned question's evidence units to different sources.

Questions are planned first (``questions.plan_questions``); every fact they read becomes an
evidence unit (a person's profile facts share one profile card; a preferred and a contrary choice
share one unit, so every source that shows a choice shows a tie). Facts no question reads become
**hard negatives** with a seeded probability (the theme's ``smm.negatives``): the same kind of
units, scaffolds and attachments, stating true facts nobody asks about. Units are routed greedily,
questions with the most units first: each unit goes to a compatible source the question does not
use yet (least loaded first), under the conflict rules of ``_Authority`` (authority, then recency:
a stale value no higher than its update, a rumour only in a lowest-authority chat below its
update). ``scaffold.py`` wraps each unit in a short local thread and ``stream.build_stream``
merges all sources, pushing a later fact on until it comes at least ``conflict_gap`` rounds after
the one it overrides.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from mnemoforge.generators.questions.common import Candidate
from mnemoforge.generators.smm.carriers import compatible, fact_topics
from mnemoforge.generators.smm.world import source_authority
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.smm import CONVERSATIONAL, SmmSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Fact, World

STOP = {"the", "and", "a", "an", "of", "to", "in", "at", "on", "for", "with"}
ATTACH_PROB = 0.35


@dataclass
class Unit:
    """One evidence unit: the facts it expresses, where, how, and when it arrives."""

    id: str
    facts: list[str]
    source: str = ""
    medium: str = "text"  # text | table | document | chat_screenshot | calendar | profile_card
    at: dt.datetime = dt.datetime(2000, 1, 1)
    forbidden: set[str] = field(default_factory=set)
    answer_bearing: bool = False
    negative: bool = False  # a hard negative: a true fact no question reads
    unrouted: str = ""  # why no source can show it (then ``source`` is empty and it is never shown)


def answer_words(answer: str) -> set[str]:
    """The words the shared text-leak gate looks for (answer words of more than two letters)."""
    return {w for w in re.findall(r"[a-z0-9]+", answer.lower()) if w not in STOP and len(w) > 2}


def _unit_key(f: Fact, world: World, has_cards: bool) -> str:
    if has_cards and f.kind == "attribute" and f.subject in {p.id for p in world.people}:
        return f"u_card_{f.subject}"
    if f.kind == "chose":  # a preferred and a contrary choice travel together (a tie per source)
        head, _, i = f.id.rpartition("_")
        return f"u_{head[2:]}_pair{int(i) // 2}"
    return f"u_{f.id[2:]}"


def conflict_role(f: Fact, ids: set[str]) -> str:
    """'stale', 'update', 'rumour' for the facts of an updated attribute, else ''."""
    if f.kind != "attribute" or not f.id.startswith("f_attr_"):
        return ""
    stem, _, suffix = f.id.rpartition("_")
    if suffix == "0":
        return "stale" if f"{stem}_1" in ids else ""
    return {"1": "update", "r": "rumour"}.get(suffix, "")


def _answer_facts(world: World, c: Candidate) -> set[str]:
    """Facts whose value is (part of) the answer: the final hop, the update, the choices."""
    read = [world.fact(f) for f in c.read]
    prog = c.template.program
    if prog == "preference_of":
        return {f.id for f in read if f.kind == "chose"}
    if prog == "entity_value":
        return {f.id for f in read if f.kind == "attribute" and f.object == c.args["key"]}
    if prog in ("latest_value", "member_latest_value"):
        return {f.id for f in read if f.id.endswith("_1")}
    if prog in ("member_attribute", "member_lead_profile"):
        return {f.id for f in read if f.kind == "attribute" and f.object == c.args["key"]}
    return set()


def _units(
    theme: Theme, world: World, cands: list[Candidate], has_cards: bool
) -> tuple[dict[str, Unit], list[tuple[Candidate, list[str]]]]:
    units: dict[str, Unit] = {}
    q_units: list[tuple[Candidate, list[str]]] = []
    negatives = theme.smm.negatives if theme.smm is not None else 0.5
    for c in cands:
        keys = []
        bearing = _answer_facts(world, c)
        for fid in sorted(c.read):
            f = world.fact(fid)
            key = _unit_key(f, world, has_cards)
            u = units.setdefault(key, Unit(key, []))
            if fid not in u.facts:
                u.facts.append(fid)
            u.forbidden |= answer_words(c.answer)
            u.answer_bearing |= fid in bearing
            if key not in keys:
                keys.append(key)
        q_units.append((c, keys))
    read = {f for c in cands for f in c.read}
    ids = {f.id for f in world.facts}
    for f in world.facts:  # hard negatives: true facts nobody asks about, in the same scaffolds
        if f.id in read or f.kind not in ("attribute", "member", "chose") or conflict_role(f, ids):
            continue
        key = _unit_key(f, world, has_cards)
        if key in units or derive_rng(world.seed, "smm", "negative", key).random() >= negatives:
            continue
        units[key] = Unit(key, [f.id], negative=True)
    for u in units.values():  # a profile card shows every field; a choice pair both choices
        if u.id.startswith("u_card_"):
            pid = u.id[len("u_card_") :]
            u.facts = sorted(f.id for f in world.facts if f.kind == "attribute" and f.subject == pid)
        elif "_pair" in u.id:
            head, _, j = u.id.rpartition("_pair")
            u.facts = [f"f_{head[2:]}_{2 * int(j)}", f"f_{head[2:]}_{2 * int(j) + 1}"]
    return units, q_units


def route(theme: Theme, world: World, cands: list[Candidate]) -> list[Unit]:
    """Evidence units of the planned questions (and hard negatives), with source, medium and time."""
    s = theme.smm
    assert s is not None
    people = {p.id for p in world.people}
    has_cards = any(x.kind == "profile_cards" for x in s.sources)
    authority = source_authority(world)
    units, q_units = _units(theme, world, cands, has_cards)
    topics = fact_topics(s, world)
    rules = _Authority(world, units, authority, has_cards, s)
    load: dict[str, float] = {src.id: 0.0 for src in s.sources}
    capacity = {src.id: (2.0 if src.kind in CONVERSATIONAL else 1.5) for src in s.sources}
    order = sorted(q_units, key=lambda qu: (-len(qu[1]), qu[0].template.id, str(sorted(qu[0].read))))
    negatives = [[k] for k in sorted(units) if units[k].negative]
    conv = {x.id for x in s.sources if x.kind in CONVERSATIONAL}
    for keys in [k for _, k in order] + negatives:
        used = {units[k].source for k in keys if units[k].source}
        for key in keys:
            u = units[key]
            if u.source:
                continue
            f = world.fact(u.facts[0])
            comp = rules.filter(u, compatible(s, f, people, world.seed, topics.get(f.id)))
            if not comp:  # no source whose purpose fits can show it: said nowhere, with the reason
                u.unrouted = rules.why or f"no source carries {topics.get(f.id)!r} facts in a medium for it"
                continue
            rng = derive_rng(world.seed, "smm", "route", key)
            ctx = _Scoring(world, f, u, used, load, capacity, authority, conv, rules.ids)
            src = min(sorted(comp), key=lambda src, ctx=ctx, rng=rng: (ctx.score(src), rng.random()))
            u.source = src
            media = comp[src]
            u.medium = media[0]
            if len(media) > 1 and rng.random() < (ATTACH_PROB * 2 if u.answer_bearing else ATTACH_PROB):
                u.medium = rng.choice(media[1:])
            load[src] += 1
            used.add(src)
    _improve(world, s, units, q_units, rules, people, topics)
    for u in units.values():
        if u.unrouted:
            continue
        rng = derive_rng(world.seed, "smm", "time", u.id)
        facts = [world.fact(x) for x in u.facts]
        if u.medium == "profile_card":
            day = theme.start + dt.timedelta(days=rng.randint(0, 6))
            u.at = dt.datetime.combine(day, dt.time(10, rng.randint(0, 59)))
        else:
            u.at = max(f.at for f in facts if f.at) + dt.timedelta(minutes=rng.randint(0, 90))
    return sorted(units.values(), key=lambda u: u.id)


@dataclass
class _Authority:
    """Hard placement rules of a conflict (authority, then recency): a stale value in a source no
    more authoritative than its update's; a rumour only in a lowest-authority chat, strictly below
    its update's source."""

    world: World
    units: dict[str, Unit]
    authority: dict[str, int]
    has_cards: bool
    spec: SmmSpec

    def __post_init__(self) -> None:
        self.ids = {f.id for f in self.world.facts}
        self.why = ""  # why the last ``filter`` left no source
        conv = [x.id for x in self.spec.sources if x.kind in CONVERSATIONAL]
        self.low = min(self.authority[x] for x in conv)

    def _auth_of(self, fid: str) -> int | None:
        if fid not in self.ids:
            return None
        u = self.units.get(_unit_key(self.world.fact(fid), self.world, self.has_cards))
        return self.authority[u.source] if u is not None and u.source else None

    def routed(self, f: Fact, role: str) -> str | None:
        """The source the theme routes this conflict fact to (``smm.conflicts``), if any."""
        r = self.spec.route(f.subject, f.object or "") if role else None
        return getattr(r, role) if r is not None else None

    def ok(self, u: Unit, src: str) -> bool:
        f = self.world.fact(u.facts[0])
        role = conflict_role(f, self.ids)
        if not role:
            return True
        want = self.routed(f, role)
        if want is not None:
            return src == want
        stem = f.id.rpartition("_")[0]
        a = self.authority[src]
        stale, upd, rum = (self._auth_of(f"{stem}_{x}") for x in ("0", "1", "r"))
        if role == "stale":
            return upd is None or a <= upd
        if role == "rumour":
            return a == self.low and (upd is None or a < upd)
        has_rumour = f"{stem}_r" in self.ids
        return (stale is None or a >= stale) and (not has_rumour or a > self.low) and (rum is None or a > rum)

    def filter(self, u: Unit, comp: dict[str, list[str]]) -> dict[str, list[str]]:
        """The sources of ``comp`` where the unit keeps its conflict's rules; none (``why`` says
        why) when a conflict value has no source that lets authority, then recency, decide it."""
        f = self.world.fact(u.facts[0])
        self.why = ""
        role = conflict_role(f, self.ids)
        if role == "rumour":  # hearsay is said in a chat
            comp = {k: ["text"] for k, m in comp.items() if "text" in m}
        good = {k: m for k, m in comp.items() if self.ok(u, k)}
        want = self.routed(f, role)
        if want is not None and not good:
            raise ValueError(
                f"smm.conflicts: {f.subject}.{f.object} cannot be shown in source {want!r} "
                f"(no medium of that source carries this value)"
            )
        if role and comp and not good:
            self.why = (
                f"conflict: no source carrying the {role} of {f.subject}.{f.object} keeps authority "
                "before recency"
            )
        return good if role else good or comp


@dataclass
class _Scoring:
    """How well a source suits a unit: unused by the question, lightly loaded, and the right
    channel (memberships lean to chats, answer-bearing facts to attachments); conflict facts get
    a random lean so stale values and updates arrive through every kind of source."""

    world: World
    f: Fact
    u: Unit
    used: set[str]
    load: dict[str, float]
    capacity: dict[str, float]
    authority: dict[str, int]
    conv: set[str]
    ids: set[str]

    def score(self, src: str) -> float:
        f, conv = self.f, src in self.conv
        sc = 100.0 * (src in self.used) + self.load[src] / self.capacity[src]
        if f.kind == "member":
            sc += 0.0 if conv else 1.5
        elif self.u.answer_bearing and f.kind != "chose" and not conflict_role(f, self.ids):
            sc += 1.5 if conv else 0.0
        return sc


def _improve(
    world: World,
    s: SmmSpec,
    units: dict[str, Unit],
    q_units: list[tuple[Candidate, list[str]]],
    rules: _Authority,
    people: set[str],
    topics: dict[str, str],
    passes: int = 3,
) -> None:
    """Local search after the greedy pass: move single units to another compatible source when
    that raises the number of questions spanning >= 2 sources (then the total of distinct sources
    per question), keeping the authority rules of every conflict."""
    of_unit: dict[str, list[list[str]]] = {}
    for _, keys in q_units:
        for k in keys:
            of_unit.setdefault(k, []).append(keys)

    def value(qs: list[list[str]]) -> tuple[int, int]:
        spans = [len({units[k].source for k in keys}) for keys in qs]
        return sum(n >= 2 for n in spans), sum(spans)

    for _ in range(passes):
        changed = False
        for key in sorted(units):
            u = units[key]
            qs = of_unit.get(key, [])
            if not qs or u.unrouted:
                continue
            f = world.fact(u.facts[0])
            comp = rules.filter(u, compatible(s, f, people, world.seed, topics.get(f.id)))
            best, best_val, original = u.source, value(qs), (u.source, u.medium)
            for src in sorted(comp):
                if src == original[0] or not rules.ok(u, src):
                    continue
                u.source, u.medium = src, comp[src][0]
                val = value(qs)
                if val > best_val:
                    best, best_val = src, val
            u.source, u.medium = original
            if best != original[0]:
                u.source = best
                u.medium = original[1] if original[1] in comp[best] else comp[best][0]
                changed = True
        if not changed:
            break


def conflict_pairs(world: World) -> list[tuple[str, str]]:
    """(earlier, later) fact ids that must arrive in this order: stale -> update, update -> rumour."""
    ids = {f.id for f in world.facts}
    attrs = [f.id for f in world.facts if f.id.startswith("f_attr_")]
    out = [(f, f[:-2] + "_1") for f in attrs if f.endswith("_0") and f[:-2] + "_1" in ids]
    return out + [(f[:-2] + "_1", f) for f in attrs if f.endswith("_r")]
