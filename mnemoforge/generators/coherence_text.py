"""The coherence rules of realised text: chat and dialogue lines, questions and their options.

Codes as in ``coherence.py``. A line is checked with its speaker (``line_problems``): it must not
name its own speaker (a self-introduction aside) nor address them ("王芳, say hello…" said by
王芳; ``self_relation``), say "my"/"I keep" of an object the theme gives to someone else
(``ownership``), or break a text rule. Any text (``text_problems``): no title stands without its
name ("Dr., say hello", ``bare_title``), a weekday beside a date must be that date's, a range must
not be empty or inverted, a date must lie in the theme's span. An item (``item_problems``): its
question, answer and options as texts, a weekday or weekend its question asks for must match the
dates it offers, and an action item (a tool call, a relation) must not have the same person on
both sides (``self_relation``).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from mnemoforge.dates import MONTHS, WEEKDAYS, named_days
from mnemoforge.generators.coherence import Incoherence
from mnemoforge.generators.names import REGISTERS, bare_titles, form
from mnemoforge.schemas.questions import Question
from mnemoforge.schemas.world import World

_MON = {m.lower(): i for i, m in enumerate(MONTHS, 1)} | {m[:3].lower(): i for i, m in enumerate(MONTHS, 1)}
_WD = "|".join(WEEKDAYS)
_MN = "|".join(MONTHS)
ISO = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
WEEKDAY_DATE = re.compile(
    rf"\b({_WD}),?\s+(?:(\d{{1,2}})\s+({_MN})\s+(\d{{4}})|({_MN})\s+(\d{{1,2}}),?\s+(\d{{4}})|(\d{{4}}-\d{{2}}-\d{{2}}))"
)
DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})\s+({_MN})\s+(\d{{4}})\b")
MONTH_YEAR = rf"(?:{_MN})\s+\d{{4}}"
RANGE = re.compile(
    rf"\b(?:between\s+(?P<a>{MONTH_YEAR}|\d{{4}}-\d{{2}}-\d{{2}})\s+and\s+(?P<b>{MONTH_YEAR}|\d{{4}}-\d{{2}}-\d{{2}})"
    rf"|from\s+(?P<c>{MONTH_YEAR}|\d{{4}}-\d{{2}}-\d{{2}})\s+to\s+(?P<d>{MONTH_YEAR}|\d{{4}}-\d{{2}}-\d{{2}}))",
    re.IGNORECASE,
)


def _date(y: str, m: int, d: str) -> dt.date | None:
    try:
        return dt.date(int(y), m, int(d))
    except ValueError:
        return None


def _bound(text: str) -> tuple[dt.date, dt.date] | None:
    """The first and last day a range end names ('April 2026' -> its month, an ISO date -> itself)."""
    iso = ISO.fullmatch(text.strip())
    if iso:
        d = _date(iso[1], int(iso[2]), iso[3])
        return (d, d) if d else None
    name, year = text.split()
    first = dt.date(int(year), _MON[name.lower()], 1)
    last = (first + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)
    return first, last


def dates_in(text: str) -> list[dt.date]:
    """ISO dates and 'D Month YYYY' dates a text names."""
    out = [d for y, m, dd in ISO.findall(text) if (d := _date(y, int(m), dd))]
    out += [d for dd, m, y in DAY_MONTH_YEAR.findall(text) if (d := _date(y, _MON[m.lower()], dd))]
    return out


def text_problems(text: str, world: World, where: str = "") -> list[Incoherence]:
    """Bare titles, weekdays beside dates, ranges, and dates inside the theme's span."""
    ent = (where,) if where else ()
    out = [Incoherence("bare_title", ent, f"{b} in {text!r}") for b in bare_titles(text, world.people)]
    for m in WEEKDAY_DATE.finditer(text):
        wd = m[1]
        if m[2]:
            d = _date(m[4], _MON[m[3].lower()], m[2])
        elif m[5]:
            d = _date(m[7], _MON[m[5].lower()], m[6])
        else:
            iso = ISO.fullmatch(m[8])
            d = _date(iso[1], int(iso[2]), iso[3]) if iso else None
        if d is not None and WEEKDAYS[d.weekday()] != wd:
            out.append(Incoherence("weekday_mismatch", ent, f"{m[0]!r} is a {WEEKDAYS[d.weekday()]}"))
    for m in RANGE.finditer(text):
        a, b = (m["a"], m["b"]) if m["a"] else (m["c"], m["d"])
        lo, hi = _bound(a), _bound(b)
        if lo and hi and hi[1] <= lo[0] or (lo and hi and lo == hi):
            out.append(Incoherence("empty_range", ent, f"{m[0]!r} is no range"))
    for d in dates_in(text):
        if not world.start <= d <= world.end:
            out.append(Incoherence("outside_span", ent, f"{d} is outside {world.start}..{world.end}"))
    return out


_FORMS: dict[tuple[int, str], tuple[World, list[str]]] = {}


def _name_forms(world: World, pid: str) -> list[str]:
    """Every form a line may name person ``pid`` by (``names.form`` in each register, aliases);
    worked out once per World object and person (the background talk asks this for every line)."""
    got = _FORMS.get((id(world), pid))
    if got is None or got[0] is not world:
        if len(_FORMS) > 512:
            _FORMS.clear()
        p = world.person(pid)
        forms = sorted({p.name, *(form(p, r) for r in REGISTERS), *p.aliases}, key=len, reverse=True)
        got = _FORMS[(id(world), pid)] = (world, forms)
    return got[1]


def _names(text: str, form: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(form)}(?![\w])", text) is not None


def names_person(world: World, pid: str, text: str) -> bool:
    """Whether ``text`` names person ``pid`` (full name, short name or alias), not merely a part
    of another person's full name ("Li" inside "Li Ming" names Li Ming, not Li Hua)."""
    others = [q.name for q in world.people if q.id != pid]
    for said in _name_forms(world, pid):
        if not _names(text, said):
            continue
        rest = text
        for o in others:
            if said in o and said != o:
                rest = rest.replace(o, " ")
        if _names(rest, said):
            return True
    return False


def addresses_person(world: World, pid: str, text: str) -> bool:
    """Whether ``text`` addresses person ``pid`` by name: a form of it opening the line before a
    comma ("Amara, say hello…") or closing a clause after one ("Thanks, Amara.")."""
    for f in _name_forms(world, pid):
        n = re.escape(f)
        greeting = r"(?:(?i:hi|hey|hello|thanks|morning),?\s+)?"
        if re.search(rf"^\W*{greeting}{n}\s*[,!?]|,\s*{n}\s*[.?!,]", text):
            return True
    return False


def line_problems(
    world: World, speaker: str | None, text: str, where: str = "", self_intro: bool = False
) -> list[Incoherence]:
    """The rules of one line spoken or written by cast member ``speaker`` (None: the assistant or
    nobody of the cast); ``self_intro``: the line introduces its speaker by name."""
    out = text_problems(text, world, where)
    ent = (where,) if where else ()
    if speaker is None or speaker not in {p.id for p in world.people}:
        return out
    if addresses_person(world, speaker, text):
        out.append(Incoherence("self_relation", (*ent, speaker), f"the line addresses its speaker: {text!r}"))
    elif not self_intro and names_person(world, speaker, text):
        out.append(Incoherence("self_relation", (*ent, speaker), f"the line names its own speaker: {text!r}"))
    low = text.lower()
    for o in world.objects:
        if o.owner is None or o.owner == speaker:
            continue
        n = re.escape(o.name.lower())
        if re.search(rf"\b(?:my|i keep the|i brought the|i have the)\s+{n}\b", low):
            out.append(
                Incoherence(
                    "ownership", (*ent, speaker, o.id), f"says they keep {o.name!r}, which is {o.owner}'s"
                )
            )
    return out


def _call_problems(world: World, q: Question) -> list[Incoherence]:
    """A tool call with the same person in two of its arguments (unless the tool is reflexive)."""
    from mnemoforge.generators.tool_calls import tools_of

    plan = q.structured_answer
    if plan is None:
        try:
            plan = json.loads(q.answer)
        except ValueError:
            return []
    if not isinstance(plan, list):
        return []
    tools = tools_of(world)
    names = {p.name: p.id for p in world.people}
    out = []
    for step in plan:
        for call in step.get("calls", []) if isinstance(step, dict) else []:
            tool = tools.get(call.get("name", ""))
            if tool is not None and tool.reflexive:
                continue
            args = call.get("arguments") or {}
            who = [(k, v) for k, v in sorted(args.items()) if isinstance(v, str) and v in names]
            seen: dict[str, str] = {}
            for k, v in who:
                if v in seen:
                    out.append(
                        Incoherence(
                            "self_relation",
                            (q.id, names[v]),
                            f"{call.get('name')}({seen[v]}={v!r}, {k}={v!r}): one person on both sides",
                        )
                    )
                seen[v] = k
    return out


def item_problems(world: World, q: Question) -> list[Incoherence]:
    """The rules of one question item (its text, answer and options; an action's two people)."""
    texts = [q.question, q.answer, *(q.options or [])]
    out: list[Incoherence] = []
    for t in texts:
        out += text_problems(t, world, q.id)
    a = q.program.args
    for x, y in (("person", "other"), ("person_a", "person_b")):
        if a.get(x) is not None and a.get(x) == a.get(y):
            out.append(Incoherence("self_relation", (q.id, str(a[x])), f"{x} and {y} are the same person"))
    want = named_days(q.question, world.calendar.weekend)
    if want is not None:
        for t in [q.answer, *(q.options or [])]:
            iso = ISO.fullmatch(t.strip())
            d = _date(iso[1], int(iso[2]), iso[3]) if iso else None
            if d is not None and d.weekday() not in want:
                out.append(
                    Incoherence(
                        "weekday_mismatch", (q.id,), f"{t} ({WEEKDAYS[d.weekday()]}) for {q.question!r}"
                    )
                )
    if q.program.fn == "function_call" or q.structured_answer is not None:
        out += _call_problems(world, q)
    return list(dict.fromkeys(out))


@dataclass
class LineFilter:
    """Keeps coherent lines and counts the rejected ones by code (the funnel's ``lines``)."""

    world: World
    rejected: Counter[str] = field(default_factory=Counter)

    def ok(self, speaker: str | None, text: str, self_intro: bool = False, count: bool = True) -> bool:
        """Whether the line is coherent; a rejected one is counted under each code it breaks."""
        problems = line_problems(self.world, speaker, text, self_intro=self_intro)
        if count:
            for code in dict.fromkeys(p.code for p in problems):
                self.rejected[code] += 1
        return not problems

    def summary(self) -> dict[str, object]:
        return {"rejected": sum(self.rejected.values()), "reasons": dict(sorted(self.rejected.items()))}


def merge_summaries(parts: Iterable[dict]) -> dict[str, object]:
    total: Counter[str] = Counter()
    for p in parts:
        total.update(p.get("reasons", {}))
    return {"rejected": sum(total.values()), "reasons": dict(sorted(total.items()))}
