"""Length variants: several haystacks of one World over the same kept items (``build --variants``).

One run is planned, rendered and gated as the theme asks (its World is the largest variant).
At freeze, each variant is a subset of that run's episodes (icm clips, smm sessions; the family's
``variant_unit``): the episodes holding a kept item's evidence, any episode every variant needs
(an icm calibration clip), and more episodes of the same World up to the variant's target, drawn
in one seeded order, so every variant holds the smaller ones (oracle ⊆ s ⊆ m ⊆ l) and no episode
comes from anywhere but this World. Each kept item is then re-derived in every variant: the exact
gates on the variant's observations, and its program run on *everything* the variant shows up to
the item's cutoff (a longer history may make it ambiguous or give another answer). An item failing
in any variant is dropped from all of them, with the reason, by the ``variant_history`` gate; the
selection is then made again without it (fewer evidence episodes) until nothing more drops.

A family may also name **modality ablations** (``Family.ablations``: icm ``transcript_only``, smm
``no_attachments``): the whole history with each observation as the ablation leaves it (left out,
or without its media). They are not re-derived (an ablation may take an item's evidence away: that
is what it measures); the release says how many items their observations still answer.
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
        if self.size is not None:
            return self.size
        return None if self.share is None else max(1, math.ceil(self.share * total - 1e-9))


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
            "--variants", f"family {family.name} has no length variants (icm and smm have){own}"
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
        return [("variants", f"family {family.name} has no length variants (icm and smm have); remove it")]
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
class Selection:
    """One variant's episodes (stream order) and observations."""

    name: str
    target: int | None
    units: list[str]
    observations: list[Observation] = field(repr=False)
    ablation: bool = False
    answerable: int | None = None
    """Ablations: the kept items their observations still answer (evidence kept, same answer)."""


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
    """Caption rows by the observation they caption (rows keyed by a clip are left out)."""
    return {r["observation"]: r for r in captions if r.get("observation")}


def select(
    family: Family,
    seed: int,
    observations: list[Observation],
    kept: list[Question],
    asked: list[Requested],
    captions: list[dict] | None = None,
) -> list[Selection]:
    """Each variant's episodes: pinned and evidence episodes, then seeded filler up to the target."""
    obs = sorted(observations, key=lambda o: (o.order, o.id))
    caps = caption_index(captions or [])
    unit_of = {o.id: family.variant_unit(o) for o in obs}
    units = list(dict.fromkeys(unit_of[o.id] for o in obs))
    pinned = {unit_of[o.id] for o in obs if not o.evidence_eligible}  # e.g. the icm calibration clip
    needed = pinned | {unit_of[e] for q in kept for e in q.evidence if e in unit_of}
    filler = [u for u in units if u not in needed]
    derive_rng(seed, "variants", "filler").shuffle(filler)
    out = []
    for a in asked:
        if a.ablation:  # the whole history, each observation as the ablation leaves it
            kept_obs = [x for o in obs if (x := family.ablate(a.name, o, caps)) is not None]
            seen = {unit_of[o.id] for o in kept_obs}
            out.append(Selection(a.name, None, [u for u in units if u in seen], kept_obs, ablation=True))
            continue
        target = a.target(len(units))
        chosen = set(needed) | set(filler[: max(0, (target or 0) - len(needed))])
        out.append(
            Selection(
                a.name, target, [u for u in units if u in chosen], [o for o in obs if unit_of[o.id] in chosen]
            )
        )
    return out


def problem(q: Question, world: World, sel: Selection, by_id: dict[str, Observation]) -> str | None:
    """Why ``q`` does not hold in this variant (None: it does, with the same answer)."""
    ctx = GateContext(world, by_id)
    for gate in VARIANT_GATES:
        v = gate.check(q, ctx)
        if not v.keep:
            return f"{sel.name}: {gate.name}: {v.reason}"
    try:  # the whole history the variant shows up to the cutoff (solve applies it)
        got = solve(q, world, sel.observations)
    except Unanswerable as e:
        return f"{sel.name}: its {len(sel.units)}-episode history leaves it ambiguous: {e}"
    except KeyError as e:
        return f"{sel.name}: program error: unknown {e}"
    if got != q.answer:
        return f"{sel.name}: its {len(sel.units)}-episode history gives {got!r}, the answer is {q.answer!r}"
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
    """Select every variant and re-derive every kept item in each; drop (in all) what fails in one."""
    reasons: dict[str, str] = {}
    alive = list(kept)
    while True:
        sels = select(family, world.seed, observations, alive, asked, captions)
        new = {}
        seen: dict[frozenset[str], str] = {}
        for sel in sels:
            if sel.ablation:  # an ablation may take an item's evidence away: that is its point
                continue
            key = frozenset(sel.units)
            if key in seen:  # the same episodes as an earlier variant: the same verdicts
                continue
            seen[key] = sel.name
            by_id = {o.id: o for o in sel.observations}
            for q in alive:
                if q.id not in new and (why := problem(q, world, sel, by_id)):
                    new[q.id] = why
        if not new:
            break
        reasons |= new
        alive = [q for q in alive if q.id not in new]
    for sel in sels:
        if sel.ablation:
            by_id = {o.id: o for o in sel.observations}
            sel.answerable = sum(problem(q, world, sel, by_id) is None for q in alive)
    names = ", ".join(a.name for a in asked if not a.ablation)
    verdicts = [
        Verdict(
            item=q.id, gate=GATE, gate_version=GATE_VERSION, keep=q.id not in reasons,
            reason=reasons.get(q.id, f"re-derived in every length variant ({names or 'none'})"),
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
