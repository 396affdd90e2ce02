"""Question programs of the source-distributed family (registered on import).

Every program reads facts through a ``FactView`` (recording what it read) and raises
``Unanswerable`` when the visible facts do not determine one answer, so the symbolic gates can
re-run it on the evidence, on each single source, or with one unit masked. An entity's attributes
are filed under its record code, so reading one also needs the code fact (who ``PRO-47`` is).

- ``entity_value`` (single hop): one attribute of a named entity (code + value).
- ``member_attribute`` / ``member_lead_profile`` (multi hop): person → their entity → attribute
  (→ the lead's profile field).
- ``latest_value`` / ``member_latest_value`` (conflict resolution): the current value under the
  rule **authority, then recency**: hearsay (a rumour, id suffix ``_r``, always carried by a
  lowest-authority chat) never overrides an official value; among official values the latest wins.
- ``preference_of`` (preference): the unique most frequent choice, seen at least ``support`` times
  (contrary choices are visible too).
- ``function_call``: a structured call list whose arguments come from the World (canonical JSON).

With ``relaxed: true`` in the arguments (the ``single_source`` gate) the thresholds drop: a conflict
item needs no visible stale value and a preference needs one choice more than any other value.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from mnemoforge.generators.questions.programs import FactView, Unanswerable, program
from mnemoforge.generators.smm.world import CODE
from mnemoforge.generators.tool_calls import call_plan, typed
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


def filed(view: FactView, subject: str) -> None:
    """An entity's values are filed under its code: the code fact must be visible (and is read)."""
    hits = values(view, subject, CODE)
    if not hits:
        raise Unanswerable(f"the record code of {subject} is not visible")
    view.mark(hits)


def hearsay(f: Fact) -> bool:
    return f.id.endswith("_r")


def single_value(view: FactView, subject: str, key: str, coded: bool = True) -> Fact:
    """The one visible value of (subject, key); an entity's (``coded``) needs its record code."""
    if coded:
        filed(view, subject)
    vs = values(view, subject, key)
    if len({f.value for f in vs}) != 1:
        raise Unanswerable(f"{len(vs)} visible values of {subject}.{key}")
    view.mark(vs)
    return vs[0]


def latest(view: FactView, subject: str, key: str, need_conflict: bool) -> Fact:
    """The most recent value; with ``need_conflict`` at least two different values must be visible."""
    filed(view, subject)
    vs = values(view, subject, key)
    if not vs:
        raise Unanswerable(f"no visible value of {subject}.{key}")
    if need_conflict and len({f.value for f in vs}) < 2:
        raise Unanswerable(f"no conflict visible for {subject}.{key}")
    # authority, then recency: hearsay ranks below every official value
    ordered = sorted(vs, key=lambda f: (not hearsay(f), f.at or dt.datetime.min))
    if len(ordered) > 1 and ordered[-1].at == ordered[-2].at and hearsay(ordered[-1]) == hearsay(ordered[-2]):
        raise Unanswerable("two values with the same time")
    # a conflict item reads the answer and what it must beat (a rumour if any, else the stale
    # values); elsewhere the current value alone determines the answer
    rivals = [f for f in ordered[:-1] if hearsay(f)] or ordered[:-1]
    view.mark(ordered[-1:] + (rivals if need_conflict else []))
    return ordered[-1]


def entity_of(view: FactView, person: str, kind: str) -> str:
    """The one entity of ``kind`` the person is a member of (member facts carry the kind as value)."""
    hits = [f for f in view.of_kind("member") if f.subject == person and f.value == kind]
    if len(hits) != 1:
        raise Unanswerable(f"{len(hits)} visible {kind} memberships of {person}")
    view.mark(hits)
    return hits[0].object


@program
def entity_value(view: FactView, args: dict[str, Any]) -> str:
    """One attribute of a named entity (its record code, then the value filed under it)."""
    return display(view, single_value(view, args["entity"], args["key"]).value)


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
    return display(view, single_value(view, lead, args["key"], coded=False).value)


@program
def latest_value(view: FactView, args: dict[str, Any]) -> str:
    """The current value of an entity's attribute after a conflicting update."""
    relaxed = bool(args.get("relaxed"))
    return display(view, latest(view, args["entity"], args["key"], need_conflict=not relaxed).value)


@program
def member_latest_value(view: FactView, args: dict[str, Any]) -> str:
    """The current value of an attribute of the person's entity, after a conflicting update."""
    ent = entity_of(view, args["person"], args["kind"])
    relaxed = bool(args.get("relaxed"))
    return display(view, latest(view, ent, args["key"], need_conflict=not relaxed).value)


def preferred(view: FactView, person: str, key: str, support: int) -> str:
    """The unique most frequent visible choice, chosen at least ``support`` times."""
    picks = [f for f in view.of_kind("chose") if f.subject == person and f.object == key]
    tally: dict[str, int] = {}
    for f in picks:
        tally[f.value or ""] = tally.get(f.value or "", 0) + 1
    top = sorted(tally.items(), key=lambda kv: -kv[1])
    if not top or top[0][1] < support or (len(top) > 1 and top[1][1] == top[0][1]):
        raise Unanswerable(f"no clear preference among {tally}")
    view.mark(picks)
    return top[0][0]


@program
def preference_of(view: FactView, args: dict[str, Any]) -> str:
    """What the person chooses most often for a key (a unique maximum, ``support`` times or more)."""
    support = 1 if args.get("relaxed") else int(args["support"])
    return preferred(view, args["person"], args["key"], support)


def _argument(view: FactView, args: dict[str, Any], source: str) -> str | list[str]:
    person, subject = args.get("person"), args["subject"]
    if source == "person":
        return view.lexicon.name(person)
    head, _, key = source.partition(".")
    if head == "preference":
        return preferred(view, person, key, 1 if args.get("relaxed") else int(args["support"]))
    if head == "profile":
        return display(view, single_value(view, person, key, coded=False).value)
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
        people = getattr(view.lexicon, "people", frozenset())
        who = [v for v in call.values() if isinstance(v, str) and v in people]
        if len(who) != len(set(who)) and not step.get("reflexive"):  # swap(a=X, b=X): no action
            raise Unanswerable(f"self_relation: {step['tool']} names one person in two arguments")
        steps.append((step["tool"], call))
    return canonical_json(call_plan(steps))
