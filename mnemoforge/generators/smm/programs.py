"""Question programs of the source-distributed family (registered on import).

Every program reads facts through a ``FactView`` (recording what it read) and raises
``Unanswerable`` when the visible facts do not determine one answer, so the symbolic gates can
re-run it on the evidence, on each single source, or with one unit masked.

- ``entity_facts`` (single hop): several attributes of one named entity.
- ``member_attribute`` / ``member_lead_profile`` (multi hop): person → their entity → attribute
  (→ the lead's profile field).
- ``latest_value`` / ``member_latest_value`` (conflict resolution): the most recent of at least
  two conflicting values.
- ``preference_of`` (preference): the value a person chose consistently, at least ``support`` times.
- ``function_call``: a structured call list whose arguments come from the World (canonical JSON).
"""

from __future__ import annotations

from typing import Any

from mnemoforge.generators.questions.programs import FactView, Unanswerable, program
from mnemoforge.generators.smm.tools import call_plan, typed
from mnemoforge.hashing import canonical_json
from mnemoforge.schemas.world import Fact

JOIN = "; "


def display(view: FactView, value: str | None) -> str:
    """A fact value as people read it (person ids become names)."""
    v = value or ""
    return view.lexicon.names.get(v, v)


def values(view: FactView, subject: str, key: str) -> list[Fact]:
    """Visible attribute facts of (subject, key), without recording reads."""
    return [f for f in view.of_kind("attribute") if f.subject == subject and f.object == key]


def single_value(view: FactView, subject: str, key: str) -> Fact:
    vs = values(view, subject, key)
    if len({f.value for f in vs}) != 1:
        raise Unanswerable(f"{len(vs)} visible values of {subject}.{key}")
    view.mark(vs)
    return vs[0]


def latest(view: FactView, subject: str, key: str, need_conflict: bool) -> Fact:
    """The most recent value; with ``need_conflict`` at least two different values must be visible."""
    vs = values(view, subject, key)
    if not vs:
        raise Unanswerable(f"no visible value of {subject}.{key}")
    if need_conflict and len({f.value for f in vs}) < 2:
        raise Unanswerable(f"no conflict visible for {subject}.{key}")
    ordered = sorted(vs, key=lambda f: (f.at is None, f.at))
    if len(ordered) > 1 and ordered[-1].at == ordered[-2].at:
        raise Unanswerable("two values with the same time")
    # a conflict item needs both sides; elsewhere the current value alone determines the answer
    view.mark(vs if need_conflict else ordered[-1:])
    return ordered[-1]


def entity_of(view: FactView, person: str, kind: str) -> str:
    """The one entity of ``kind`` the person is a member of (member facts carry the kind as value)."""
    hits = [f for f in view.of_kind("member") if f.subject == person and f.value == kind]
    if len(hits) != 1:
        raise Unanswerable(f"{len(hits)} visible {kind} memberships of {person}")
    view.mark(hits)
    return hits[0].object


@program
def entity_facts(view: FactView, args: dict[str, Any]) -> str:
    """Several attributes of one entity, in the order asked ('v1; v2')."""
    return JOIN.join(display(view, single_value(view, args["entity"], k).value) for k in args["keys"])


@program
def member_attribute(view: FactView, args: dict[str, Any]) -> str:
    """An attribute of the entity of ``kind`` the person belongs to."""
    ent = entity_of(view, args["person"], args["kind"])
    return display(view, single_value(view, ent, args["key"]).value)


@program
def member_lead_profile(view: FactView, args: dict[str, Any]) -> str:
    """A profile field of whoever the person's entity names in ``via`` (e.g. the project lead)."""
    ent = entity_of(view, args["person"], args["kind"])
    lead = single_value(view, ent, args["via"]).value or ""
    return display(view, single_value(view, lead, args["key"]).value)


@program
def latest_value(view: FactView, args: dict[str, Any]) -> str:
    """The current value of an entity's attribute after a conflicting update."""
    return display(view, latest(view, args["entity"], args["key"], need_conflict=True).value)


@program
def member_latest_value(view: FactView, args: dict[str, Any]) -> str:
    """The current value of an attribute of the person's entity, after a conflicting update."""
    ent = entity_of(view, args["person"], args["kind"])
    return display(view, latest(view, ent, args["key"], need_conflict=True).value)


@program
def preference_of(view: FactView, args: dict[str, Any]) -> str:
    """What the person consistently chooses for a key: a unique value chosen ``support`` times."""
    picks = [f for f in view.of_kind("chose") if f.subject == args["person"] and f.object == args["key"]]
    tally: dict[str, int] = {}
    for f in picks:
        tally[f.value or ""] = tally.get(f.value or "", 0) + 1
    top = sorted(tally.items(), key=lambda kv: -kv[1])
    if not top or top[0][1] < int(args["support"]) or (len(top) > 1 and top[1][1] == top[0][1]):
        raise Unanswerable(f"no consistent choice among {tally}")
    view.mark(picks)
    return top[0][0]


def _argument(view: FactView, args: dict[str, Any], source: str) -> str | list[str]:
    person, subject = args.get("person"), args["subject"]
    if source == "person":
        return view.lexicon.name(person)
    head, _, key = source.partition(".")
    if head == "profile":
        return display(view, single_value(view, person, key).value)
    ent = args.get("entity") or entity_of(view, person, subject)
    if key == "name":
        return view.lexicon.name(ent)
    if key == "members":
        found = view.find("member", obj=ent)
        if not found:
            raise Unanswerable(f"no visible members of {ent}")
        return sorted(view.lexicon.name(f.subject) for f in found)
    return display(view, latest(view, ent, key, need_conflict=False).value)


@program
def function_call(view: FactView, args: dict[str, Any]) -> str:
    """The call list (canonical JSON) whose arguments are gathered from the World."""
    steps = []
    for step in args["steps"]:
        call = {
            name: typed(_argument(view, args, src), step["types"][name])
            for name, src in step["bindings"].items()
        }
        steps.append((step["tool"], call))
    return canonical_json(call_plan(steps))
