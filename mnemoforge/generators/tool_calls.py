"""Function calling: tool schemas, validation of call lists, and exact-match scoring.

A call list is ``[{"step": 1, "calls": [{"name": "book_flight", "arguments": {...}}]}, ...]``.
``score_calls`` compares a prediction with the gold list by exact match on tool names and
*normalised* arguments: strings ignore case, accents and extra whitespace; numbers compare by
value (``"2"``, ``2``, ``2.0``); dates accept common spellings (``2026-11-13``, ``13 Nov 2026``,
``November 13, 2026``, ``2026/11/13``); times accept ``9:30``/``09.30``; arrays compare as sets; an
optional argument given at its declared default equals an omitted one.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from mnemoforge.dates import parse_month_day
from mnemoforge.schemas.smm import ToolSpec
from mnemoforge.schemas.world import World

DATE_FORMATS = (
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%d.%m.%Y",
    "%Y%m%d",
)


def tools_of(world: World) -> dict[str, ToolSpec]:
    """The tool schemas a World declares (entities of kind ``tool``)."""
    return {
        e.name: ToolSpec.model_validate_json(e.attrs["schema"]) for e in world.entities if e.kind == "tool"
    }


def _text(v: Any) -> str:
    s = unicodedata.normalize("NFKD", str(v))
    s = "".join(c for c in s if not unicodedata.combining(c))
    return " ".join(s.casefold().split())


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    s = str(v).strip().replace(",", "").replace("_", "")
    try:
        return float(s)
    except ValueError:
        return None


def _date(v: Any) -> str | None:
    s = " ".join(str(v).strip().split())
    named = parse_month_day(s)  # "3 Mar 2025", "March 3, 2025": English names in any locale
    if named:
        return named.isoformat()
    for fmt in DATE_FORMATS:
        try:
            return dt.datetime.strptime(s, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def _time(v: Any) -> str | None:
    m = re.fullmatch(r"\s*(\d{1,2})[:.h](\d{2})\s*", str(v))
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        return None
    return f"{int(m.group(1)):02d}:{m.group(2)}"


def normalise_value(v: Any, typ: str | None = None) -> Any:
    """A comparable form of one argument value (type-directed when ``typ`` is known)."""
    if isinstance(v, list | tuple) or typ == "array":
        items = v if isinstance(v, list | tuple) else [v]
        return tuple(sorted(repr(normalise_value(x)) for x in items))
    if typ in ("integer", "number") or (typ is None and _number(v) is not None):
        n = _number(v)
        return n if n is not None else _text(v)
    if typ == "date" or (typ is None and _date(v)):
        return _date(v) or _text(v)
    if typ == "time" or (typ is None and _time(v)):
        return _time(v) or _text(v)
    if typ == "boolean" or isinstance(v, bool):
        return _text(v) in ("true", "1", "yes")
    return _text(v)


def normalise_call(call: Mapping[str, Any], tools: Mapping[str, ToolSpec] | None = None) -> tuple:
    """(name, sorted normalised arguments), dropping optional arguments given at their default."""
    name = _text(call.get("name", ""))
    tool = (tools or {}).get(str(call.get("name", "")))
    types = {a.name: a.type for a in tool.arguments} if tool else {}
    defaults = {a.name: a.default for a in tool.arguments if not a.required} if tool else {}
    args = call.get("arguments") or {}
    out = []
    for k in sorted(args):
        v = normalise_value(args[k], types.get(k))
        if k in defaults and defaults[k] is not None and v == normalise_value(defaults[k], types.get(k)):
            continue
        out.append((_text(k), repr(v)))
    return name, tuple(out)


def parse_calls(calls: Any) -> list[dict[str, Any]]:
    """Accept a list, or a JSON string holding one; anything else is an empty plan."""
    if isinstance(calls, str):
        try:
            calls = json.loads(calls)
        except ValueError:
            return []
    return calls if isinstance(calls, list) else []


def _steps(calls: Any, tools: Mapping[str, ToolSpec] | None) -> list[tuple]:
    out = []
    for step in parse_calls(calls):
        if not isinstance(step, dict):
            return [("invalid",)]
        group = step.get("calls") or []
        out.append(tuple(sorted(repr(normalise_call(c, tools)) for c in group if isinstance(c, dict))))
    return out


def score_calls(pred: Any, gold: Any, tools: Mapping[str, ToolSpec] | World) -> float:
    """1.0 when every step holds the same calls (names and normalised arguments), else 0.0.

    Steps are compared in order; calls within a step in any order. ``tools`` (the schemas, or the
    World that declares them) is required: without the declared defaults an optional argument
    given at its default would count as a difference.
    """
    if isinstance(tools, World):
        tools = tools_of(tools)
    if not tools:
        raise ValueError("score_calls needs the tool schemas (a mapping name -> ToolSpec, or the World)")
    g = _steps(gold, tools)
    return 1.0 if g and _steps(pred, tools) == g else 0.0


def _type_ok(v: Any, typ: str) -> bool:
    if typ == "string":
        return isinstance(v, str) and bool(v.strip())
    if typ == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if typ == "number":
        return isinstance(v, int | float) and not isinstance(v, bool)
    if typ == "boolean":
        return isinstance(v, bool)
    if typ == "date":
        return isinstance(v, str) and bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", v)) and _date(v) is not None
    if typ == "time":
        return isinstance(v, str) and bool(re.fullmatch(r"\d{2}:\d{2}", v)) and _time(v) is not None
    if typ == "array":
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    return False


def validate_calls(calls: Any, tools: Mapping[str, ToolSpec]) -> list[str]:
    """Problems of a call list against the tool schemas: shape, names, required, unknown, types."""
    steps = parse_calls(calls)
    if not steps:
        return ["not a non-empty list of steps"]
    problems = []
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or step.get("step") != i + 1 or not step.get("calls"):
            problems.append(f"step {i + 1}: expected {{'step': {i + 1}, 'calls': [...]}}")
            continue
        for j, call in enumerate(step["calls"]):
            where = f"step {i + 1} call {j + 1}"
            tool = tools.get(call.get("name", "")) if isinstance(call, dict) else None
            if tool is None:
                problems.append(
                    f"{where}: unknown tool {call.get('name') if isinstance(call, dict) else call!r}"
                )
                continue
            args = call.get("arguments")
            if not isinstance(args, dict):
                problems.append(f"{where}: arguments must be an object")
                continue
            declared = {a.name: a for a in tool.arguments}
            problems += [f"{where}: unknown argument {k!r}" for k in sorted(set(args) - set(declared))]
            for a in tool.arguments:
                if a.name not in args:
                    if a.required:
                        problems.append(f"{where}: missing required argument {a.name!r}")
                elif not _type_ok(args[a.name], a.type):
                    problems.append(f"{where}: {a.name}={args[a.name]!r} is not a valid {a.type}")
    return problems


def typed(value: str | list[str], typ: str) -> Any:
    """A World value (string) as the JSON type a tool argument declares."""
    if typ == "array":
        return sorted(value) if isinstance(value, list) else [value]
    if typ == "integer":
        return int(str(value))
    if typ == "number":
        return float(str(value))
    if typ == "boolean":
        return str(value).lower() == "true"
    return value


def call_plan(steps: Iterable[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """``[(tool, arguments), ...]`` as the canonical structured answer (one call per step)."""
    return [
        {"step": i + 1, "calls": [{"name": n, "arguments": dict(sorted(a.items()))}]}
        for i, (n, a) in enumerate(steps)
    ]
