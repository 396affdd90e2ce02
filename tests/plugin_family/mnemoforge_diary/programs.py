"""The diary's one question program: where a person spent a given day."""

from __future__ import annotations

from typing import Any

from mnemoforge.generators.questions.programs import FactView, Unanswerable, program


@program
def diary_where(view: FactView, args: dict[str, Any]) -> str:
    """``args``: person, day (ISO date). The name of the place of that day's ``at_place`` fact."""
    mine = [f for f in view.of_kind("at_place") if f.subject == args["person"] and f.at]
    hits = [f for f in mine if f.at and f.at.date().isoformat() == args["day"]]
    if len(hits) != 1:
        raise Unanswerable(f"{len(hits)} places for {args['person']} on {args['day']}")
    view.mark(hits)  # the one fact read: its entry is the evidence
    return view.lexicon.name(hits[0].object)
