"""One World from the Worlds that several families planned of one theme (``families:``).

Every family plans from the same cast, places, objects, calendar and seed, so these parts agree;
each family adds its own events, entities, facts and timelines. The merge keeps one copy of the
shared parts (and fails loudly where two families disagree on one), unions the rest (an id two
families both use for different records is an error), and joins the timelines of one subject and
attribute: two families that put one person in two places at one time make an ``IncoherentWorld``,
as do any other overlapping spans with different values and two families giving one standing value
two ways (a person's preferred tea, ``STANDING``). ``fact_sources`` says which family each fact
came from: the ``cross`` items (``cross_items.py``) run their programs on each family's facts alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from mnemoforge.generators.coherence import IncoherentWorld
from mnemoforge.schemas.world import Span, Timeline, World

SHARED = ("theme", "seed", "start", "end", "protagonist", "calendar")  # World fields every family has alike
BY_ID = ("people", "places", "objects", "events", "entities", "facts")  # id'd records: one per id


def merge_worlds(worlds: Mapping[str, World]) -> World:
    """The one World of ``worlds`` (family name -> its World), in the order given."""
    first = next(iter(worlds.values()))
    problems: list[str] = []
    for fam, w in worlds.items():
        for name in SHARED:
            if getattr(w, name) != getattr(first, name):
                problems.append(
                    f"{name}: family {fam} planned {getattr(w, name)!r}, another {getattr(first, name)!r}"
                )
    merged: dict[str, list] = {}
    for name in BY_ID:
        seen: dict[str, tuple[str, object]] = {}
        for fam, w in worlds.items():
            for rec in getattr(w, name):
                if rec.id in seen and seen[rec.id][1] != rec:
                    if name in ("people", "places", "objects") and _same_declared(seen[rec.id][1], rec):
                        continue  # the same declared record, one family filled more of it
                    problems.append(
                        f"{name}: {rec.id!r} differs between families {seen[rec.id][0]} and {fam}"
                    )
                seen.setdefault(rec.id, (fam, rec))
        merged[name] = [rec for _, rec in seen.values()]
    _standing_values(worlds, problems)
    relations = list(dict.fromkeys(r for w in worlds.values() for r in w.relations))
    timelines = _timelines(worlds, problems)
    if problems:
        raise IncoherentWorld(problems)
    return first.model_copy(update={**merged, "relations": relations, "timelines": timelines})


# fact kinds that state a standing value of (subject, object) for the whole World, without a
# timeline (a person's preferred tea, what one person calls another): two families stating one must
# agree, whichever of these kinds each uses (one family's ``preference`` is another's ``prefers``)
STANDING = {"preference": "preference", "prefers": "preference", "relation": "relation"}


def _standing_values(worlds: Mapping[str, World], problems: list[str]) -> None:
    """Two families stating one standing value must state the same values (a family may state
    several: a dated change of preference is its own business)."""
    said: dict[tuple[str, str, str], dict[str, set[str]]] = {}
    for fam, w in worlds.items():
        for f in w.facts:
            if f.kind in STANDING and f.value is not None:
                said.setdefault((STANDING[f.kind], f.subject, f.object), {}).setdefault(fam, set()).add(
                    f.value
                )
    for (what, subject, obj), by_fam in said.items():
        if len({frozenset(v) for v in by_fam.values()}) > 1:
            told = "; ".join(f"{fam}: {', '.join(sorted(v))}" for fam, v in by_fam.items())
            problems.append(f"{what} {subject} -> {obj} differs between families ({told})")


def _same_declared(a: object, b: object) -> bool:
    """Two records of one declared thing: the fields both set agree (names, roles, owners)."""
    da, db = a.model_dump(), b.model_dump()  # type: ignore[attr-defined]
    keys = ("name", "role", "owner", "kind")
    return all(da.get(k) == db.get(k) for k in keys if k in da and k in db)


def _timelines(worlds: Mapping[str, World], problems: list[str]) -> list[Timeline]:
    """Each (subject, attribute)'s spans of every family, in time order; overlapping spans with
    different values are problems (one person in two places at once)."""
    spans: dict[tuple[str, str], list[tuple[str, Span]]] = {}
    for fam, w in worlds.items():
        for t in w.timelines:
            spans.setdefault((t.subject, t.attribute), []).extend((fam, s) for s in t.spans)
    out = []
    for (subject, attribute), got in spans.items():
        got.sort(key=lambda fs: (fs[1].start, fs[1].end is None, fs[1].end or fs[1].start))
        kept: list[Span] = []
        last_fam = ""
        for fam, s in got:
            prev = kept[-1] if kept else None
            if prev is not None and (prev.end is None or s.start < prev.end):
                if prev.value != s.value:
                    problems.append(
                        f"timeline {subject}.{attribute}: {prev.value!r} from {prev.start} ({last_fam}) "
                        f"overlaps {s.value!r} from {s.start} ({fam})"
                    )
                elif s.end is None or (prev.end is not None and s.end > prev.end):  # the same value: join
                    kept[-1] = prev.model_copy(update={"end": s.end})
                continue
            kept.append(s)
            last_fam = fam
        out.append(Timeline(subject=subject, attribute=attribute, spans=kept))
    return out


def fact_sources(worlds: Mapping[str, World]) -> dict[str, str]:
    """fact id -> the family whose World states it (the first, for a fact two families share)."""
    out: dict[str, str] = {}
    for fam, w in worlds.items():
        for f in w.facts:
            out.setdefault(f.id, fam)
    return out
