"""Length variants: one history per kept item per variant, from one World (``build --variants``).

One run is planned, rendered and gated as the theme asks (its World is the largest history). At
freeze, as LongMemEval does, each kept item gets its **own** history in each variant: the episodes
(icm clips, smm sessions; the family's ``variant_unit``) holding its evidence, any episode every
history needs (an icm calibration clip), and more episodes of the same World that the item may
read (up to its cutoff), drawn in the item's own seeded order up to the variant's target: a
``size``, or a ``share`` of the episodes the item may read (rounded down). So an item's histories
nest (oracle ⊆ s ⊆ m ⊆ l) and no episode comes from anywhere but this World. An item whose
evidence alone spans more episodes than a variant's target (one that reads every event) is left
out of that variant, with why. Each item is re-derived on its own history in every variant it is
in: the exact gates, and its program run on *everything* that history shows up to its cutoff (a
longer history may make it ambiguous or give another answer). An item failing in one is dropped
from all of them, with the reason, by the ``variant_history`` gate.

A family may also name **modality ablations** (``Family.ablations``: icm ``transcript_only``,
``captions_only`` and ``no_audio``, smm ``no_attachments``, memeye ``captions_for_pictures``): the
whole history with each observation as the ablation leaves it (left out, without its media or a
modality of it, or as its caption). They are not re-derived (an ablation may
take an item's evidence away: that is what it measures); the release says how many items their
observations still answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from mnemoforge.family import Family
from mnemoforge.generators.questions.programs import Unanswerable
from mnemoforge.rng import derive_rng
from mnemoforge.schemas.observations import Channel, Expression, Observation
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.theme import Theme
from mnemoforge.schemas.variants import DEFAULT_VARIANTS, VariantSpec
from mnemoforge.schemas.verdicts import Verdict
from mnemoforge.schemas.world import World
from mnemoforge.validators.gates import CutoffValid, EvidenceResolves, GateContext, SymbolicRederive
from mnemoforge.validators.solver import solve

GATE, GATE_VERSION = "variant_history", "1"
VARIANT_GATES = (EvidenceResolves(), CutoffValid(), SymbolicRederive())


class VariantError(ValueError):
    """``--variants`` asks for something the theme or its family cannot give; ``field`` names where."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


@dataclass(frozen=True)
class Requested:
    """A variant asked for: its name and target (both None: the oracle, evidence only)."""

    name: str
    size: int | None = None
    share: float | None = None
    ablation: bool = False
    """A modality ablation of the whole history (``Family.ablations``): no size, not re-derived."""

    def target(self, total: int) -> int | None:
        """Episodes of an item's history of ``total`` readable ones (None: its evidence only); a
        share rounds down, so a share of 1/8 is never more than an eighth of the history."""
        if self.size is not None:
            return min(self.size, total)
        return None if self.share is None else max(1, math.floor(self.share * total + 1e-9))


def parse_names(text: str) -> list[str]:
    """``"oracle,s,m,l"`` -> names, in the order given (blank parts and repeats are errors)."""
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise VariantError("--variants", f"an empty name in {text!r} (write e.g. oracle,s,m,l)")
    if len(set(names)) != len(names):
        raise VariantError("--variants", f"a name is given twice in {text!r}")
    return names


def resolve(theme: Theme, family: Family, names: Sequence[str]) -> list[Requested]:
    """The variants ``names`` asks for, sized from the theme's ``variants:`` (else the defaults)."""
    lengths = [n for n in names if n not in family.ablations]
    if lengths and family.variant_unit_name is None:
        own = f"; its ablations: {', '.join(family.ablations)}" if family.ablations else ""
        raise VariantError(
            "--variants", f"family {family.name} has no length variants (icm, smm and memeye have){own}"
        )
    declared = theme.variants or {}
    out = []
    for n in names:
        if n in family.ablations:
            out.append(Requested(n, ablation=True))
            continue
        spec: VariantSpec | None = declared.get(n)
        if spec is None or (spec.size is None and spec.share is None):
            spec = DEFAULT_VARIANTS.get(n, spec)  # a default name may leave its size out
        if spec is None:
            known = sorted(set(declared) | set(DEFAULT_VARIANTS) | set(family.ablations))
            raise VariantError(
                "--variants", f"unknown variant {n!r}: the theme's variants and the defaults are {known}"
            )
        out.append(Requested(n, spec.size, spec.share))
    return out


def theme_problems(theme: Theme, family: Family) -> list[tuple[str, str]]:
    """``theme check``: a ``variants:`` section the family can build (sizes within its World)."""
    if not theme.variants:
        return []
    if family.variant_unit_name is None:
        why = f"family {family.name} has no length variants (icm, smm and memeye have); remove it"
        return [("variants", why)]
    cap = family.variant_capacity(theme)
    clash = [
        (f"variants.{n}", f"{n!r} is a modality ablation of family {family.name}; name the variant otherwise")
        for n in theme.variants
        if n in family.ablations
    ]
    return clash + [
        (f"variants.{n}.size", f"{s.size} {family.variant_unit_name}, more than the World's {cap}; "
         f"lower it or raise the album's clips")
        for n, s in theme.variants.items()
        if cap is not None and s.size is not None and s.size > cap
    ]  # fmt: skip


@dataclass
class Haystack:
    """One kept item's history in one length variant: its episodes (stream order) and the
    observations of them it may read (up to its cutoff)."""

    item: str
    units: list[str]
    observations: list[Observation] = field(repr=False)


@dataclass
class Selection:
    """One variant: per kept item its own haystack (length variants), or the whole history as an
    ablation leaves it (``ablation``: ``units`` and ``observations`` are then that history)."""

    name: str
    target: int | None
    share: float | None = None
    haystacks: dict[str, Haystack] = field(default_factory=dict, repr=False)
    left_out: dict[str, str] = field(default_factory=dict)
    """Kept items not in this variant, with why (their evidence spans more than its target)."""
    units: list[str] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list, repr=False)
    ablation: bool = False
    answerable: int | None = None
    """Ablations: the kept items their observations still answer (evidence kept, same answer)."""
    moved: dict[str, str] = field(default_factory=dict, repr=False)
    """Ablations: where each observation the ablation keeps went (``ablated``)."""


def captioned(obs: Observation, caption: dict | None) -> Observation:
    """``obs`` with its pictures replaced by their caption (an ablation): no media, the caption
    appended to its text, and the facts it expresses those of its words plus the caption's."""
    if not obs.media:
        return obs
    keep = [e for e in obs.expresses if e.channel in (Channel.text, Channel.speech)]
    text = obs.content
    if caption is not None:
        text = f"{text}\n[picture: {caption['caption']}]" if text else f"[picture: {caption['caption']}]"
        have = {e.fact for e in keep}
        keep += [
            Expression(fact=f, channel=Channel.caption) for f in caption.get("facts", []) if f not in have
        ]
    return obs.model_copy(update={"media": [], "content": text, "expresses": keep})


def caption_index(captions: list[dict]) -> dict[str, dict]:
    """Caption rows by the observation they caption, or the clip (icm rows)."""
    return {k: r for r in captions if (k := r.get("observation") or r.get("clip"))}


def ablated(
    family: Family, name: str, observations: list[Observation], caps: dict[str, dict]
) -> tuple[list[Observation], dict[str, str]]:
    """The history (stream order) as ablation ``name`` leaves it, and where each observation it
    keeps went (id -> id). An ablation may fold several observations into one with the same id
    (icm ``captions_only``: one per clip, at the clip's first): their facts and people merge."""
    out: dict[str, Observation] = {}
    moved: dict[str, str] = {}
    for o in sorted(observations, key=lambda o: (o.order, o.id)):
        x = family.ablate(name, o, caps)
        if x is None:
            continue
        moved[o.id] = x.id
        if (prev := out.get(x.id)) is None:
            out[x.id] = x
            continue
        have = {e.fact for e in prev.expresses}
        out[x.id] = prev.model_copy(
            update={"expresses": [*prev.expresses, *(e for e in x.expresses if e.fact not in have)],
                    "people": list(dict.fromkeys([*prev.people, *x.people]))}
        )  # fmt: skip
    return list(out.values()), moved


def answerable(
    world: World, name: str, questions: list[Question], obs: list[Observation], moved: dict[str, str]
) -> int:
    """The items an ablation still answers: every evidence observation kept (where it went), and
    the item re-derives over the ablated history with its answer."""
    n = 0
    for q in questions:
        if not all(e in moved for e in q.evidence):
            continue
        ev = list(dict.fromkeys(moved[e] for e in q.evidence))
        n += problem(q.model_copy(update={"evidence": ev}), world, name, obs) is None
    return n


@dataclass
class Timeline:
    """A run's episodes as the variants draw them: stream order, each episode's observations, the
    episodes every history needs (an icm calibration clip), and the family's unit name."""

    family: Family
    observations: list[Observation]

    def __post_init__(self) -> None:
        self.observations = sorted(self.observations, key=lambda o: (o.order, o.id))
        self.unit_of = {o.id: self.family.variant_unit(o) for o in self.observations}
        self.units = list(dict.fromkeys(self.unit_of[o.id] for o in self.observations))
        self.first = {}
        for o in self.observations:
            self.first.setdefault(self.unit_of[o.id], o.order)
        self.pinned = {self.unit_of[o.id] for o in self.observations if not o.evidence_eligible}

    def readable(self, cutoff: int | None) -> list[str]:
        """The episodes an item with this cutoff may read (any observation at or before it)."""
        return self.units if cutoff is None else [u for u in self.units if self.first[u] <= cutoff]

    def needed(self, q: Question) -> set[str]:
        """The episodes of ``q``'s history in every variant: its evidence's and the pinned ones."""
        readable = set(self.readable(q.cutoff))
        return (self.pinned & readable) | {self.unit_of[e] for e in q.evidence if e in self.unit_of}

    def filler(self, seed: int, q: Question) -> list[str]:
        """The other episodes ``q`` may read, in its own seeded order (every variant takes a prefix
        of it, so an item's histories nest: oracle ⊆ s ⊆ m ⊆ l)."""
        needed = self.needed(q)
        rest = [u for u in self.readable(q.cutoff) if u not in needed]
        derive_rng(seed, "variants", "filler", q.id).shuffle(rest)
        return rest

    def haystack(self, q: Question, units: set[str]) -> Haystack:
        cut = q.cutoff
        obs = [
            o for o in self.observations
            if self.unit_of[o.id] in units and (cut is None or o.order <= cut)
        ]  # fmt: skip
        return Haystack(q.id, [u for u in self.units if u in units], obs)


def select(
    family: Family,
    seed: int,
    observations: list[Observation],
    kept: list[Question],
    asked: list[Requested],
    captions: list[dict] | None = None,
) -> list[Selection]:
    """Each variant: per kept item, its evidence and pinned episodes, then its own seeded filler
    up to the variant's target (a share of the episodes *it* may read, or a size); an item whose
    evidence alone is above the target is left out of that variant. Ablations: the whole history."""
    tl = Timeline(family, observations)
    caps = caption_index(captions or [])
    unit = family.variant_unit_name or "episodes"
    plan = {q.id: (tl.needed(q), tl.filler(seed, q)) for q in kept}
    out = []
    for a in asked:
        if a.ablation:  # the whole history, each observation as the ablation leaves it
            kept_obs, moved = ablated(family, a.name, tl.observations, caps)
            seen = {tl.unit_of[i] for i in moved}
            out.append(
                Selection(a.name, None, units=[u for u in tl.units if u in seen], observations=kept_obs,
                          ablation=True, moved=moved)
            )  # fmt: skip
            continue
        sel = Selection(a.name, a.size, a.share)
        for q in kept:
            needed, filler = plan[q.id]
            target = a.target(len(tl.readable(q.cutoff)))
            if target is not None and len(needed) > target:
                sel.left_out[q.id] = (
                    f"its evidence spans {len(needed)} {unit}, more than {a.name}'s {target} of its "
                    f"{len(tl.readable(q.cutoff))}"
                )
                continue
            sel.haystacks[q.id] = tl.haystack(q, needed | set(filler[: max(0, (target or 0) - len(needed))]))
        used = {u for h in sel.haystacks.values() for u in h.units}
        sel.units = [u for u in tl.units if u in used]
        out.append(sel)
    return out


def problem(q: Question, world: World, name: str, observations: list[Observation]) -> str | None:
    """Why ``q`` does not hold over ``observations``, variant ``name``'s history for it (None: it
    does, with the same answer)."""
    ctx = GateContext(world, {o.id: o for o in observations})
    for gate in VARIANT_GATES:
        v = gate.check(q, ctx)
        if not v.keep:
            return f"{name}: {gate.name}: {v.reason}"
    n = len(observations)
    try:  # the whole history the variant shows up to the cutoff (solve applies it)
        got = solve(q, world, observations)
    except Unanswerable as e:
        return f"{name}: its {n}-observation history leaves it ambiguous: {e}"
    except KeyError as e:
        return f"{name}: program error: unknown {e}"
    if got != q.answer:
        return f"{name}: its {n}-observation history gives {got!r}, the answer is {q.answer!r}"
    return None


def rederive(q: Question, world: World, sels: list[Selection]) -> str | None:
    """Why ``q`` fails in one of the length variants it is in (None: it holds in all of them);
    a history of the same episodes as an earlier variant's is checked once."""
    seen: set[tuple[str, ...]] = set()
    for sel in sels:
        h = sel.haystacks.get(q.id)
        if sel.ablation or h is None or tuple(h.units) in seen:
            continue
        seen.add(tuple(h.units))
        if why := problem(q, world, sel.name, h.observations):
            return why
    return None


@dataclass
class Outcome:
    selections: list[Selection]
    verdicts: list[Verdict]
    """One ``variant_history`` verdict per item the other gates kept."""
    stage: dict


def apply(
    family: Family,
    world: World,
    observations: list[Observation],
    kept: list[Question],
    asked: list[Requested],
    captions: list[dict] | None = None,
) -> Outcome:
    """Select every variant and re-derive every kept item on its own history in each; an item
    failing in one is dropped from all (each item's histories do not depend on the others')."""
    sels = select(family, world.seed, observations, kept, asked, captions)
    reasons = {q.id: why for q in kept if (why := rederive(q, world, sels))}
    alive = [q for q in kept if q.id not in reasons]
    for sel in sels:
        for qid in reasons:
            sel.haystacks.pop(qid, None)
            sel.left_out.pop(qid, None)
        if sel.ablation:
            sel.answerable = answerable(world, sel.name, alive, sel.observations, sel.moved)
        else:
            used = {u for h in sel.haystacks.values() for u in h.units}
            sel.units = [u for u in sel.units if u in used]
    names = ", ".join(a.name for a in asked if not a.ablation)
    verdicts = [
        Verdict(
            item=q.id, gate=GATE, gate_version=GATE_VERSION, keep=q.id not in reasons,
            reason=reasons.get(q.id, f"re-derived on its history in each length variant ({names or 'none'})"),
            scores={"variants": float(sum(not a.ablation for a in asked))},
        )
        for q in kept
    ]  # fmt: skip
    counted: dict[str, int] = {}
    for why in reasons.values():
        key = why.split(":")[0]
        counted[key] = counted.get(key, 0) + 1
    stage = {
        "gate": GATE,
        "version": GATE_VERSION,
        "rejected": len(reasons),
        "kept": len(alive),
        "reasons": dict(sorted(counted.items())),
    }
    return Outcome(sels, verdicts, stage)


def size_stats(sel: Selection) -> dict[str, float | int]:
    """A length variant's haystack sizes over its items: mean, min and max episodes, mean observations."""
    hs = list(sel.haystacks.values())
    if not hs:
        return {"size": 0.0, "size_min": 0, "size_max": 0, "observations": 0.0}
    sizes = [len(h.units) for h in hs]
    return {
        "size": round(sum(sizes) / len(hs), 2),
        "size_min": min(sizes),
        "size_max": max(sizes),
        "observations": round(sum(len(h.observations) for h in hs) / len(hs), 2),
    }
