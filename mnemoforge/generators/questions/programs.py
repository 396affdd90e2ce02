"""Question programs: small functions executed on a view of the World's facts.

A program reads facts only through a ``FactView``, which records every fact it read. The
generator runs programs on the full World (to compute the answer and the evidence); the
symbolic gate runs the same program on a view restricted to the evidence (to re-derive it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from mnemoforge.schemas.world import Fact, World


class Unanswerable(Exception):
    """The facts visible to the program do not determine a unique answer."""


class Lexicon:
    """Surface names of entities (people, places, objects, activities): known to every answerer."""

    def __init__(self, world: World) -> None:
        self.names = {p.id: p.name for p in world.people}
        self.names |= {p.id: p.name for p in world.places}
        self.names |= {o.id: o.name for o in world.objects}
        self.names |= {e.id: e.name for e in world.entities}
        self.people = frozenset(p.name for p in world.people)
        """Names of the cast: an action naming one of them twice is a self-action."""

    def name(self, entity: str) -> str:
        return self.names[entity]


class FactView:
    """Indexed, read-recording access to a set of facts. ``fork()`` shares the index, not the reads."""

    base: FactView | None = None
    """For a view of a larger view's facts less a few (a masked context's: ``validators/solver``),
    that view: a family's index may be derived from the base's instead of built again."""
    dropped: dict[str, list[Fact]] = {}  # noqa: RUF012  (never mutated: replaced per view)
    """With ``base``: the base's facts this view lacks, by kind (each kind in World order)."""
    dropped_ids: frozenset[str] = frozenset()

    def __init__(self, facts: Iterable[Fact], lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self.read: set[str] = set()
        self.memo: dict[str, Any] = {}
        """Indexes a family's programs build over these facts (shared by forks, never by reads)."""
        self.by_kind: dict[str, list[Fact]] = {}
        for f in facts:
            self.by_kind.setdefault(f.kind, []).append(f)

    @classmethod
    def grouped(cls, by_kind: dict[str, list[Fact]], lexicon: Lexicon) -> FactView:
        """A view of facts already grouped by kind (each list in World order, as ``__init__``
        would group them)."""
        view = object.__new__(cls)
        view.lexicon, view.by_kind, view.read, view.memo = lexicon, by_kind, set(), {}
        return view

    def fork(self) -> FactView:
        view = object.__new__(FactView)
        view.lexicon, view.by_kind, view.read, view.memo = self.lexicon, self.by_kind, set(), self.memo
        view.base, view.dropped, view.dropped_ids = self.base, self.dropped, self.dropped_ids
        return view

    def of_kind(self, kind: str) -> list[Fact]:
        """All facts of a kind, without recording reads (for searching)."""
        return self.by_kind.get(kind, [])

    def find(
        self, kind: str, *, subject: str | None = None, obj: str | None = None, event: str | None = None
    ) -> list[Fact]:
        hits = [
            f
            for f in self.of_kind(kind)
            if (subject is None or f.subject == subject)
            and (obj is None or f.object == obj)
            and (event is None or f.event == event)
        ]
        self.read.update(f.id for f in hits)
        return hits

    def mark(self, facts: Iterable[Fact]) -> None:
        self.read.update(f.id for f in facts)


Program = Callable[[FactView, dict[str, Any]], str]
PROGRAMS: dict[str, Program] = {}
# called before an unknown program is looked up (the family lookup registers one that imports
# every family's program modules: this module imports no family)
LOADERS: list[Callable[[], None]] = []


def program(fn: Program) -> Program:
    """Register a program under its function name."""
    PROGRAMS[fn.__name__] = fn
    return fn


def run_program(name: str, view: FactView, args: dict[str, Any]) -> str:
    if name not in PROGRAMS:
        for load in LOADERS:  # other families register their programs on import
            load()
    if name not in PROGRAMS:
        raise KeyError(f"unknown program {name!r}; known: {sorted(PROGRAMS)}")
    return PROGRAMS[name](view, args)


def join_names(names: Iterable[str]) -> str:
    """Canonical answer form for a set of names: sorted, 'A, B and C'."""
    ns = sorted(set(names))
    return ns[0] if len(ns) == 1 else ", ".join(ns[:-1]) + " and " + ns[-1]
