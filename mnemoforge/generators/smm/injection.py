"""Evidence injection: route each planned question's evidence units to different sources.

Questions are planned first (``questions.plan_questions``); every fact they read becomes an
evidence unit (a person's profile facts share one profile card). Units are routed greedily,
questions with the most units first: each unit goes to a compatible source the question does
not use yet (least loaded first), bridging facts (memberships, stale values) lean towards chats
and answer-bearing facts towards attachments, and an update goes to a source at least as
authoritative as its stale value's. ``scaffold.py`` then wraps each unit in a short local
thread and ``assemble`` merges all sources into one stream, pushing an update later until it
comes at least ``conflict_gap`` rounds after its stale value.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from mnemoforge.generators.questions.common import Candidate
from mnemoforge.generators.smm.world import source_authority
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.smm import CONVERSATIONAL, SmmSpec
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.world import Fact, World

STOP = {"the", "and", "a", "an", "of", "to", "in", "at", "on", "for", "with"}
ATTACH_PROB = 0.35
PIXEL_CHOICE = 0.35


@dataclass
class Unit:
    """One evidence unit: the facts it expresses, where, how, and when it arrives."""

    id: str
    facts: list[str]
    source: str = ""
    medium: str = "text"  # text | table | document | chat_screenshot | calendar | profile_card
    at: dt.datetime = dt.datetime(2000, 1, 1)
    forbidden: set[str] = field(default_factory=set)
    numbers: set[str] = field(default_factory=set)  # numbers in the answers it supports
    answer_bearing: bool = False


def answer_words(answer: str) -> set[str]:
    """The words the shared text-leak gate looks for (answer words of more than two letters)."""
    return {w for w in re.findall(r"[a-z0-9]+", answer.lower()) if w not in STOP and len(w) > 2}


def _unit_key(f: Fact, world: World, has_cards: bool) -> str:
    if has_cards and f.kind == "attribute" and f.subject in {p.id for p in world.people}:
        return f"u_card_{f.subject}"
    return f"u_{f.id[2:]}"


def _answer_facts(world: World, c: Candidate) -> set[str]:
    """Facts whose value is (part of) the answer: the final hop, the update, the choices."""
    read = [world.fact(f) for f in c.read]
    prog = c.template.program
    if prog == "entity_facts" or prog == "preference_of":
        return {f.id for f in read if f.kind in ("attribute", "chose")}
    if prog in ("latest_value", "member_latest_value"):
        attrs = sorted((f for f in read if f.kind == "attribute"), key=lambda f: f.at or dt.datetime.min)
        return {attrs[-1].id} if attrs else set()
    if prog in ("member_attribute", "member_lead_profile"):
        return {f.id for f in read if f.kind == "attribute" and f.object == c.args["key"]}
    return set()


def pixel_choices(seed: int, person: str, key: str) -> bool:
    """Whether a person's choices for a key are all shown in images (chat screenshots): a
    preference item reads all of them, so its choices share one channel."""
    return derive_rng(seed, "smm", "choice_medium", person, key).random() < PIXEL_CHOICE


def _compatible(s: SmmSpec, f: Fact, people: set[str], seed: int) -> dict[str, list[str]]:
    """source id -> media that can carry fact ``f`` there."""
    out: dict[str, list[str]] = {}
    profile = f.kind == "attribute" and f.subject in people
    for src in s.sources:
        k = src.kind
        if k == "profile_cards":
            media = ["profile_card"] if profile else []
        elif profile:
            media = (
                []
                if any(x.kind == "profile_cards" for x in s.sources) or k not in CONVERSATIONAL
                else ["text"]
            )
        elif f.kind == "chose" and pixel_choices(seed, f.subject, f.object):
            media = ["chat_screenshot"] if k in (*CONVERSATIONAL, "screenshots") else []
        elif f.kind == "chose":
            media = ["text"] if k in CONVERSATIONAL else []
        elif k in CONVERSATIONAL:
            media = ["text", "table", "document"] if f.kind == "attribute" else ["text"]
        elif k == "spreadsheet":
            media = ["table"]
        elif k == "documents":
            media = ["document"]
        elif k == "screenshots":
            is_date = f.kind == "attribute" and bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", f.value or ""))
            media = ["calendar"] if is_date else ["chat_screenshot"]
        else:
            media = []
        if media:
            out[src.id] = media
    return out


def route(theme: Theme, world: World, cands: list[Candidate]) -> list[Unit]:
    """Evidence units of the planned questions, each with its source, medium and time."""
    s = theme.smm
    assert s is not None
    people = {p.id for p in world.people}
    has_cards = any(x.kind == "profile_cards" for x in s.sources)
    authority = source_authority(world)
    units: dict[str, Unit] = {}
    q_units: list[tuple[Candidate, list[str]]] = []
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
            u.numbers |= set(re.findall(r"\d+", c.answer))
            u.answer_bearing |= fid in bearing
            if key not in keys:
                keys.append(key)
        q_units.append((c, keys))
    for u in units.values():  # a profile card shows every field of its person
        if u.id.startswith("u_card_"):
            pid = u.id[len("u_card_") :]
            u.facts = sorted(f.id for f in world.facts if f.kind == "attribute" and f.subject == pid)
    load: dict[str, float] = {src.id: 0.0 for src in s.sources}
    capacity = {src.id: (2.0 if src.kind in CONVERSATIONAL else 1.5) for src in s.sources}
    order = sorted(q_units, key=lambda qu: (-len(qu[1]), qu[0].template.id, str(sorted(qu[0].read))))
    conv = {x.id for x in s.sources if x.kind in CONVERSATIONAL}
    for _, keys in order:
        used = {units[k].source for k in keys if units[k].source}
        for key in keys:
            u = units[key]
            if u.source:
                continue
            f = world.fact(u.facts[0])
            comp = _compatible(s, f, people, world.seed)
            stale_auth = _stale_authority(world, units, f, authority, has_cards)
            rng = derive_rng(world.seed, "smm", "route", key)
            ctx = _Scoring(world, f, u, used, load, capacity, authority, conv, stale_auth)
            src = min(sorted(comp), key=lambda src, ctx=ctx, rng=rng: (ctx.score(src), rng.random()))
            u.source = src
            media = comp[src]
            u.medium = media[0]
            if len(media) > 1 and u.answer_bearing and rng.random() < ATTACH_PROB * 2:
                u.medium = rng.choice(media[1:])
            elif len(media) > 1 and rng.random() < ATTACH_PROB:
                u.medium = rng.choice(media[1:])
            load[src] += 1
            used.add(src)
    _improve(world, s, units, q_units, authority, people, has_cards)
    for u in units.values():
        rng = derive_rng(world.seed, "smm", "time", u.id)
        facts = [world.fact(x) for x in u.facts]
        if u.medium == "profile_card":
            day = theme.start + dt.timedelta(days=rng.randint(0, 6))
            u.at = dt.datetime.combine(day, dt.time(10, rng.randint(0, 59)))
        else:
            u.at = max(f.at for f in facts if f.at) + dt.timedelta(minutes=rng.randint(0, 90))
    return sorted(units.values(), key=lambda u: u.id)


@dataclass
class _Scoring:
    """How well a source suits a unit: unused by the question, lightly loaded, the right authority
    (a stale value low, its update at least as high) and the right channel (bridging facts in
    chats, answer-bearing facts in attachments)."""

    world: World
    f: Fact
    u: Unit
    used: set[str]
    load: dict[str, float]
    capacity: dict[str, float]
    authority: dict[str, int]
    conv: set[str]
    stale_auth: int | None

    def score(self, src: str) -> float:
        f, conv = self.f, src in self.conv
        sc = 100.0 * (src in self.used) + self.load[src] / self.capacity[src]
        if self.stale_auth is not None:
            sc += 0.0 if self.authority[src] >= self.stale_auth else 50.0
            sc -= 0.3 * self.authority[src]
        elif f.kind == "attribute" and f.id.endswith("_0") and _has_update(self.world, f):
            sc += 0.3 * self.authority[src]  # a stale value: low authority, leaves room above
        bridging = f.kind == "member" or (
            not self.u.answer_bearing and f.kind == "attribute" and f.id.endswith("_0")
        )
        if bridging:
            sc += 0.0 if conv else 1.5
        elif self.u.answer_bearing:
            sc += 1.5 if conv else 0.0
        return sc


def _improve(
    world: World,
    s: SmmSpec,
    units: dict[str, Unit],
    q_units: list[tuple[Candidate, list[str]]],
    authority: dict[str, int],
    people: set[str],
    has_cards: bool,
    passes: int = 3,
) -> None:
    """Local search after the greedy pass: move single units to another compatible source when
    that raises the number of questions spanning >= 2 sources (then the total of distinct sources
    per question), keeping every update at least as authoritative as its stale value."""
    of_unit: dict[str, list[list[str]]] = {}
    for _, keys in q_units:
        for k in keys:
            of_unit.setdefault(k, []).append(keys)

    def value(qs: list[list[str]]) -> tuple[int, int]:
        spans = [len({units[k].source for k in keys}) for keys in qs]
        return sum(n >= 2 for n in spans), sum(spans)

    def authority_ok(u: Unit) -> bool:
        for fid in u.facts:
            f = world.fact(fid)
            if f.kind != "attribute" or not _has_update(world, f) and not fid.endswith("_1"):
                continue
            stale = world.fact(fid[:-2] + "_0")
            upd = next((g for g in world.facts if g.id == fid[:-2] + "_1"), None)
            if upd is None:
                continue
            a = units.get(_unit_key(stale, world, has_cards))
            b = units.get(_unit_key(upd, world, has_cards))
            if a and b and a.source and b.source and authority[b.source] < authority[a.source]:
                return False
        return True

    for _ in range(passes):
        changed = False
        for key in sorted(units):
            u = units[key]
            qs = of_unit.get(key, [])
            if not qs:
                continue
            comp = _compatible(s, world.fact(u.facts[0]), people, world.seed)
            best, best_val, original = u.source, value(qs), (u.source, u.medium)
            for src in sorted(comp):
                if src == original[0]:
                    continue
                u.source, u.medium = src, comp[src][0]
                val = value(qs)
                if val > best_val and authority_ok(u):
                    best, best_val = src, val
            u.source, u.medium = original
            if best != original[0]:
                u.source, u.medium = best, comp[best][0]
                changed = True
        if not changed:
            break


def _has_update(world: World, f: Fact) -> bool:
    return any(g.id == f.id[:-2] + "_1" for g in world.facts)


def _stale_authority(
    world: World, units: dict[str, Unit], f: Fact, authority: dict[str, int], has_cards: bool
) -> int | None:
    """For an update fact: the authority of the source its stale value went to (if routed)."""
    if f.kind != "attribute" or not f.id.endswith("_1"):
        return None
    stale = world.fact(f.id[:-2] + "_0")
    u = units.get(_unit_key(stale, world, has_cards))
    return authority[u.source] if u is not None and u.source else 0


def conflict_pairs(world: World) -> list[tuple[str, str]]:
    """(stale fact id, update fact id) of every updated attribute."""
    ids = {f.id for f in world.facts}
    return [(f.id, f.id[:-2] + "_1") for f in world.facts if f.id.endswith("_0") and f.id[:-2] + "_1" in ids]
