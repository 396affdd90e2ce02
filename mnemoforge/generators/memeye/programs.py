"""Question programs of the visual family, registered with the shared program registry.

Each reads scene facts through a ``FactView`` (recording what it read), so the answer is computed
and the evidence is the set of rounds whose pictures express those facts:

* ``visual_attr`` (Y1): one stable fact of one scene, read from one picture.
* ``visual_pair`` (Y2): the same stable key of two scenes, from two pictures ("a / b").
* ``visual_pair_mixed`` (Y2): two different keys of two scenes, from two pictures; its X label is
  the higher granularity of the two (the highest-bottleneck rule).
* ``visual_total`` (Y2): the sum of a count over two scenes, from two pictures.
* ``visual_latest`` (Y3): a key that changed between pictures; the answer is the latest state,
  and the question presupposes the change, so it needs both the stale and the updating picture
  (of a scheduled variable with more states: the latest change, the state just before it).
"""

from __future__ import annotations

from typing import Any

from mnemoforge.generators.questions.programs import FactView, Unanswerable, program
from mnemoforge.schemas.world import Fact

PAIR_SEP = " / "


def _stable(view: FactView, subject: str, key: str) -> Fact:
    hits = view.find("attribute", subject=subject, obj=key)
    if len(hits) != 1 or hits[0].value is None:
        raise Unanswerable(f"{subject}.{key}: {len(hits)} visible values")
    return hits[0]


@program
def visual_attr(view: FactView, args: dict[str, Any]) -> str:
    """The value of a stable key of one scene (gist, region item, marked instance, colour…)."""
    return _stable(view, args["scene"], args["key"]).value or ""


@program
def visual_pair(view: FactView, args: dict[str, Any]) -> str:
    """The same key of two scenes, in the order asked: 'value of first / value of second'."""
    a, b = args["scenes"]
    if a == b:
        raise Unanswerable("a pair needs two scenes")
    return PAIR_SEP.join(_stable(view, s, args["key"]).value or "" for s in (a, b))


@program
def visual_pair_mixed(view: FactView, args: dict[str, Any]) -> str:
    """Key ``keys[0]`` of the first scene and key ``keys[1]`` of the second: 'first / second'."""
    (a, b), (ka, kb) = args["scenes"], args["keys"]
    if a == b:
        raise Unanswerable("a pair needs two scenes")
    return PAIR_SEP.join(_stable(view, s, k).value or "" for s, k in ((a, ka), (b, kb)))


@program
def visual_total(view: FactView, args: dict[str, Any]) -> str:
    """The total of a count over two scenes."""
    a, b = args["scenes"]
    if a == b:
        raise Unanswerable("a total needs two scenes")
    return str(sum(int(_stable(view, s, args["key"]).value or "0") for s in (a, b)))


@program
def visual_latest(view: FactView, args: dict[str, Any]) -> str:
    """The current state of a key that changed: the latest of at least two distinct visible states."""
    states = [f for f in view.of_kind("state") if f.subject == args["scene"] and f.object == args["key"]]
    if len({f.value for f in states}) < 2:
        raise Unanswerable(f"the change of {args['scene']}.{args['key']} is not visible")
    ordered = sorted(states, key=lambda f: (f.at, f.id))
    latest = ordered[-1]
    # the latest state and the last different one before it: the change the question is about (a
    # variable with a schedule has more states; the older ones are not needed to answer)
    before = next(f for f in reversed(ordered) if f.value != latest.value)
    view.mark([before, *(f for f in ordered if f.value == latest.value and f.at > before.at)])
    return latest.value or ""
