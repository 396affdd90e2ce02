"""What makes an item unfair or redundant, checked alike by the generators (which draw options and
plan items to pass) and the gates (``validators/item_gates.py``, ``gates.UniqueQuestion``):

- :func:`fair_set`: no cast prior picks the answer (``cast_prior``) and no distractor is ruled out
  by the question's grammar or its asker (``distractor_grammar``);
- :func:`near_duplicates`: items that ask the same thing (same normalised text and answer; or the
  same program and arguments but their time window, one window inside the other, same answer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mnemoforge.generators.questions import cast_prior
from mnemoforge.generators.questions.distractor_grammar import ruled_out
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World
from mnemoforge.textnorm import normalize


def fair_set(question: str, options: Sequence[str], world: World) -> bool:
    """Neither the ``cast_prior`` nor the ``fair_distractors`` gate would reject this option set
    (the answer first)."""
    if any(0 in top for top in cast_prior.tells(question, options, world).values()):
        return False
    return not ruled_out(question, options[0], options, world)


def screen_for(question: str, world: World) -> Callable[[Sequence[str]], bool]:
    """:func:`fair_set` for one question, as an ``option_balance.Screen`` (memoised per set: a
    draw meets the same sets again and again)."""
    seen: dict[tuple[str, ...], bool] = {}

    def screen(options: Sequence[str]) -> bool:
        key = tuple(options)
        if key not in seen:
            seen[key] = fair_set(question, options, world)
        return seen[key]

    return screen


TIME_ARGS = ("month", "day", "from_month", "to_month")


def time_window(args: dict[str, Any]) -> tuple[str, str]:
    """The period a program's arguments ask about as ISO bounds (the whole album: ``("", "~")``)."""
    if "day" in args:
        return str(args["day"]), str(args["day"])
    if "from_month" in args or "to_month" in args:
        return f"{args.get('from_month', '')}-00", f"{args.get('to_month', '~')}-99"
    if "month" in args:
        return f"{args['month']}-00", f"{args['month']}-99"
    return "", "~"


def near_duplicates(questions: list[Question]) -> dict[str, str]:
    """Item id -> why it repeats an earlier item (by id): same normalised text and answer, or the
    same program and non-time arguments with nested time windows and the same answer."""
    out: dict[str, str] = {}
    texts: dict[tuple[str, str], str] = {}
    groups: dict[str, list[Question]] = {}
    for q in sorted(questions, key=lambda x: x.id):
        key = (normalize(q.question), q.answer)
        if key in texts:
            out[q.id] = f"same normalised text and answer as {texts[key]}"
            continue
        texts[key] = q.id
        rest = {k: v for k, v in q.program.args.items() if k not in TIME_ARGS}
        group = groups.setdefault(repr((q.program.fn, sorted(rest.items()), q.answer)), [])
        lo, hi = time_window(q.program.args)
        for p in group:
            plo, phi = time_window(p.program.args)
            if (plo <= lo and hi <= phi) or (lo <= plo and phi <= hi):
                out[q.id] = f"same program, arguments and answer as {p.id}, one time window inside the other"
                break
        else:
            group.append(q)
    return out
