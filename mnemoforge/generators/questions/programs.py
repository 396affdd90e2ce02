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

    def name(self, entity: str) -> str:
        return self.names[entity]


class FactView:
    """Indexed, read-recording access to a set of facts. ``fork()`` shares the index, not the reads."""

    def __init__(self, facts: Iterable[Fact], lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self.read: set[str] = set()
        self.by_kind: dict[str, list[Fact]] = {}
        for f in facts:
            self.by_kind.setdefault(f.kind, []).append(f)

    def fork(self) -> FactView:
        view = object.__new__(FactView)
        view.lexicon, view.by_kind, view.read = self.lexicon, self.by_kind, set()
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


def program(fn: Program) -> Program:
    """Register a program under its function name."""
    PROGRAMS[fn.__name__] = fn
    return fn


def run_program(name: str, view: FactView, args: dict[str, Any]) -> str:
    if name not in PROGRAMS:
        from mnemoforge.generators.families import import_program_modules

        import_program_modules()  # other families register their programs on import
    if name not in PROGRAMS:
        raise KeyError(f"unknown program {name!r}; known: {sorted(PROGRAMS)}")
    return PROGRAMS[name](view, args)


def join_names(names: Iterable[str]) -> str:
    """Canonical answer form for a set of names: sorted, 'A, B and C'."""
    ns = sorted(set(names))
    return ns[0] if len(ns) == 1 else ", ".join(ns[:-1]) + " and " + ns[-1]


def _month(f: Fact) -> str:
    assert f.at is not None
    return f.at.strftime("%Y-%m")


def _unique_event(
    view: FactView, people: list[str], activity: str, month: str, place: str | None = None
) -> str:
    """The one event with this activity (and place) in this month that all ``people`` attended."""
    acts = {f.subject: f for f in view.of_kind("activity") if f.object == activity and _month(f) == month}
    candidates = set(acts)
    for p in people:
        candidates &= {f.object for f in view.of_kind("attended") if f.subject == p}
    if place is not None:
        candidates &= {f.subject for f in view.of_kind("at_place") if f.object == place}
    if len(candidates) != 1:
        raise Unanswerable(f"{len(candidates)} events match {activity} in {month} with {people}")
    ev = candidates.pop()
    view.mark([acts[ev]])
    for p in people:  # participation facts that identify the event
        view.find("attended", subject=p, obj=ev)
    if place is not None:
        view.find("at_place", subject=ev)
    return ev


@program
def event_companions(view: FactView, args: dict[str, Any]) -> str:
    """Who else took part in the person's (activity, place, month) event."""
    ev = _unique_event(view, [args["person"]], args["activity"], args["month"], args["place"])
    others = [f.subject for f in view.find("attended", event=ev) if f.subject != args["person"]]
    if not others:
        raise Unanswerable("no companions visible")
    return join_names(view.lexicon.name(p) for p in others)


@program
def object_brought(view: FactView, args: dict[str, Any]) -> str:
    """What the person brought to their (activity, month) event."""
    ev = _unique_event(view, [args["person"]], args["activity"], args["month"])
    objs = [f.object for f in view.find("brought", event=ev) if f.subject == args["person"]]
    if len(objs) != 1:
        raise Unanswerable(f"{len(objs)} objects brought")
    return view.lexicon.name(objs[0])


@program
def meeting_place(view: FactView, args: dict[str, Any]) -> str:
    """Where two people did an activity together in a month."""
    ev = _unique_event(view, [args["person"], args["other"]], args["activity"], args["month"])
    places = view.find("at_place", subject=ev)
    if len(places) != 1:
        raise Unanswerable("place not visible")
    return view.lexicon.name(places[0].object)


def _events_with(view: FactView, person: str, activity: str) -> dict[str, Fact]:
    """Events of ``activity`` the person attended: event id -> its activity fact (no reads recorded)."""
    mine = {f.object for f in view.of_kind("attended") if f.subject == person}
    return {f.subject: f for f in view.of_kind("activity") if f.object == activity and f.subject in mine}


@program
def count_events(view: FactView, args: dict[str, Any]) -> str:
    """How many times the person did an activity between two months (inclusive)."""
    evs = {
        e: f
        for e, f in _events_with(view, args["person"], args["activity"]).items()
        if args["from_month"] <= _month(f) <= args["to_month"]
    }
    if len(evs) < 2:
        raise Unanswerable(f"{len(evs)} events: not a cross-episode count")
    view.mark(evs.values())
    for e in evs:
        view.find("attended", subject=args["person"], obj=e)
    return str(len(evs))


@program
def frequent_companion(view: FactView, args: dict[str, Any]) -> str:
    """Who most often joined the person for an activity (a unique maximum over several events)."""
    evs = _events_with(view, args["person"], args["activity"])
    counts: dict[str, int] = {}
    for e in evs:
        for f in view.of_kind("attended"):
            if f.object == e and f.subject != args["person"]:
                counts[f.subject] = counts.get(f.subject, 0) + 1
    if not counts:
        raise Unanswerable("no companions")
    best = max(counts.values())
    top = [p for p, n in counts.items() if n == best]
    if len(top) != 1 or best < 2:
        raise Unanswerable(f"no unique companion seen at least twice ({top}, {best})")
    view.mark(evs.values())
    for e in evs:
        view.find("attended", event=e, subject=args["person"])
        view.find("attended", event=e, subject=top[0])
    return view.lexicon.name(top[0])


@program
def who_brought(view: FactView, args: dict[str, Any]) -> str:
    """Who brought an object to an (activity, month) event: the face seen with it, named by voice.

    The answer needs face-name binding: the holder's name comes from a ``name`` fact, which is
    only heard when someone says the name aloud in some clip.
    """
    acts = {
        f.subject: f
        for f in view.of_kind("activity")
        if f.object == args["activity"] and _month(f) == args["month"]
    }
    hits = [f for f in view.of_kind("brought") if f.object == args["object"] and f.event in acts]
    if len(hits) != 1:
        raise Unanswerable(f"{len(hits)} matching events")
    view.mark([hits[0], acts[hits[0].event]])
    names = view.find("name", subject=hits[0].subject)
    if not names:
        raise Unanswerable("the holder's name is never heard")
    return names[0].object


@program
def usual_choice(view: FactView, args: dict[str, Any]) -> str:
    """What the person usually picks for a preference key: the clear majority of their choices."""
    picks = [f for f in view.of_kind("chose") if f.subject == args["person"] and f.object == args["key"]]
    tally: dict[str, int] = {}
    for f in picks:
        tally[f.value or ""] = tally.get(f.value or "", 0) + 1
    if len(picks) < 2 or not tally:
        raise Unanswerable(f"{len(picks)} choices seen")
    best = max(tally.values())
    top = [v for v, n in tally.items() if n == best]
    if len(top) != 1 or best < 2:
        raise Unanswerable(f"no clear habit among {tally}")
    view.mark(picks)
    return top[0]


@program
def habit_of(view: FactView, args: dict[str, Any]) -> str:
    """A recurring habit of the person, as mentioned in conversation."""
    habits = view.find("habit", subject=args["person"], obj=args["habit"])
    if not habits:
        raise Unanswerable("habit never mentioned")
    return habits[0].object


@program
def relation_to(view: FactView, args: dict[str, Any]) -> str:
    """How one person refers to another ("wife", "manager")."""
    rel = view.find("relation", subject=args["person"], obj=args["other"])
    if len(rel) != 1 or not rel[0].value:
        raise Unanswerable("relation never stated")
    return rel[0].value
