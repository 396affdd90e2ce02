"""An outside audit of a release's world and text: counts of the defects issue 29 names.

    python benchmarks/world_audit.py [THEME.yaml | RELEASE_DIR ...] [--outputs DIR]
                                     [--json benchmarks/results/world_audit.json]

Each argument is a theme (built here with ``pipeline.build`` into ``--outputs``) or a frozen
release folder. Without arguments: the unseen-domain test themes (``tests/themes/*.yaml``).

The audit reads only the release's files (``data/world.json``, the agent view ``agent/<family>/``, the
evaluator questions) and applies its own rules, written here independently of the generators'
coherence check (it imports nothing from mnemoforge but ``pipeline.build`` to build a theme):

- ``two_states``: a World timeline with two values at one time (overlapping spans that disagree);
- ``bare_title``: a title (one the World's people carry, or a common honorific) with no name after it;
- ``self_named``: a chat line that names its own speaker (a full or given name);
- ``same_person``: an item whose program asks about one person on both sides (``person``/``other``,
  ``person_a``/``person_b``), or a tool-call answer naming one person twice;
- ``weekday_date``: "Friday 5 February 2027", "Friday, February 5, 2027" or "2027-02-05 (Friday)"
  whose weekday is not that date's;
- ``foreign_holiday``: a country holiday in ``world.json`` when the theme names no country, or a
  well-known holiday name in any text when the World's calendar has no day of that name;
- ``outside_span``: an ISO date in an option or answer outside the World's span;
- ``broken_pattern``: "a the", "the the", "did X had", an unfilled ``{slot}``, a doubled word.

Prints one line per release and writes every count with up to five examples per rule as JSON.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from machine import write_result  # noqa: E402

RULES = (
    "two_states", "bare_title", "self_named", "same_person", "weekday_date", "foreign_holiday",
    "outside_span", "broken_pattern",
)  # fmt: skip
HONORIFICS = ("Dr.", "Capt.", "Prof.", "Mr.", "Mrs.", "Ms.", "Mx.", "Sr.", "Sra.", "Fr.", "Sgt.")
WELL_KNOWN_HOLIDAYS = (
    "Spring Festival", "Labour Day", "Labor Day", "National Day", "Thanksgiving", "Christmas Day",
    "Independence Day", "Golden Week", "Mid-Autumn Festival", "Boxing Day", "Easter Monday",
    "Diwali", "Memorial Day", "Bastille Day",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")  # fmt: skip
_WD, _MO = "|".join(WEEKDAYS), "|".join(MONTHS)
DAY_FIRST = re.compile(rf"\b({_WD}),? (\d{{1,2}}) ({_MO}),? (\d{{4}})\b")
MONTH_FIRST = re.compile(rf"\b({_WD}),? ({_MO}) (\d{{1,2}}),? (\d{{4}})\b")
ISO_WD = re.compile(rf"\b(\d{{4}})-(\d{{2}})-(\d{{2}}) \(({_WD})\)")
ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
BROKEN = (
    re.compile(r"\b(?:a|an|the) (?:a|an|the)\b", re.I),
    re.compile(r"\bdid \w+(?: \w+)? (?:had|went|was|were|brought|made|took|came)\b"),
    re.compile(r"\{[a-z_]+(?::[a-z]+)?\}"),
    re.compile(r"\b([A-Za-z]{3,})\s+\1\b", re.I),
)


def _rows(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _when(s: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(s) if s else None


def two_states(world: dict) -> list[str]:
    out = []
    for t in world.get("timelines", []):
        spans = sorted(t["spans"], key=lambda s: s["start"])
        for a, b in zip(spans, spans[1:], strict=False):
            end = _when(a.get("end"))
            if (end is None or end > _when(b["start"])) and a["value"] != b["value"]:
                both = f"{a['value']!r} and {b['value']!r}"
                out.append(f"{t['subject']}.{t['attribute']}: {both} at {b['start']}")
    return out


def _date(y: str, m: str | int, d: str) -> dt.date | None:
    try:
        month = int(m) if str(m).isdigit() else MONTHS.index(str(m)) + 1
        return dt.date(int(y), month, int(d))
    except ValueError:
        return None


def weekday_problems(text: str) -> list[str]:
    out = []
    for wd, d, m, y in DAY_FIRST.findall(text):
        got = _date(y, m, d)
        if got is None or WEEKDAYS[got.weekday()] != wd:
            out.append(f"{wd} {d} {m} {y}")
    for wd, m, d, y in MONTH_FIRST.findall(text):
        got = _date(y, m, d)
        if got is None or WEEKDAYS[got.weekday()] != wd:
            out.append(f"{wd} {m} {d} {y}")
    for y, m, d, wd in ISO_WD.findall(text):
        got = _date(y, m, d)
        if got is None or WEEKDAYS[got.weekday()] != wd:
            out.append(f"{y}-{m}-{d} ({wd})")
    return out


def bare_titles(text: str, titles: set[str]) -> list[str]:
    out = []
    for t in titles:
        tail = r"(?![\w])" if t.endswith(".") else r"(?![\w.])"  # "Dr" is not the start of "Dr."
        for m in re.finditer(rf"(?<![\w.]){re.escape(t)}{tail}", text):
            rest = text[m.end() :]
            nxt = re.match(r"\s*(\S+)", rest)
            word = nxt.group(1) if nxt else ""
            if not word or not (word[0].isupper() or not word[0].isascii() and word[0].isalpha()):
                out.append(text[max(0, m.start() - 20) : m.end() + 20])
    return out


def audit(release: Path) -> dict:
    """Counts and examples of every rule over one release folder."""
    manifest = json.loads((release / "MANIFEST.json").read_text(encoding="utf-8"))
    fam = manifest["family"]
    world = json.loads((release / "data" / "world.json").read_text(encoding="utf-8"))
    people = world["people"]
    titles = {p["title"] for p in people if p.get("title")} | set(HONORIFICS)
    start, end = dt.date.fromisoformat(world["start"]), dt.date.fromisoformat(world["end"])
    found: dict[str, list[str]] = {r: [] for r in RULES}
    found["two_states"] += two_states(world)
    cal = world.get("calendar") or {}
    country = cal.get("country")
    for h in cal.get("holidays", []):
        if h.get("source", "country") == "country" and not country:
            found["foreign_holiday"].append(f"world.json: {h['name']} (the theme names no country)")
    holiday_names = {h["name"] for h in cal.get("holidays", [])}
    name_of = {p["id"]: p for p in people}
    agent = release / "agent" / fam
    texts: list[tuple[str, str]] = []
    for path in sorted(agent.rglob("*.jsonl")):
        rel = path.relative_to(release).as_posix()
        for row in _rows(path):
            for s in _strings(row):
                texts.append((rel, s))
            speaker, said = row.get("speaker"), row.get("text")
            if isinstance(speaker, str) and isinstance(said, str):
                for p in people:
                    if p["name"] == speaker:
                        forms = {p["name"], p.get("given") or ""} - {""}
                        if any(re.search(rf"(?<!\w){re.escape(f)}(?!\w)", said) for f in forms):
                            found["self_named"].append(f"{rel}: {speaker}: {said[:90]}")
    for rel, s in texts:
        found["bare_title"] += [f"{rel}: …{x}…" for x in bare_titles(s, titles)]
        found["weekday_date"] += [f"{rel}: {x}" for x in weekday_problems(s)]
        for name in WELL_KNOWN_HOLIDAYS:
            if name in s and name not in holiday_names and not any(name in h for h in holiday_names):
                found["foreign_holiday"].append(f"{rel}: {name}")
        for pat in BROKEN:
            m = pat.search(s)
            if m and not m.group(0)[:1].isdigit():
                found["broken_pattern"].append(f"{rel}: {m.group(0)!r} in {s[:80]!r}")
    for q in _rows(release / "data" / fam / "questions.jsonl"):
        args = (q.get("program") or {}).get("args") or {}
        for a, b in (("person", "other"), ("person_a", "person_b")):
            if args.get(a) and args.get(a) == args.get(b) and args[a] in name_of:
                found["same_person"].append(f"{q['id']}: {a} = {b} = {args[a]}")
        for call in q.get("structured_answer") or []:
            named = [v for v in _strings(call) if v in {p["name"] for p in people}]
            if len(named) != len(set(named)):
                found["same_person"].append(f"{q['id']}: {call}")
        for s in [q.get("answer") or "", *(q.get("options") or [])]:
            for y, m, d in ISO.findall(str(s)):
                got = _date(y, m, d)
                if got is not None and not start <= got <= end:
                    found["outside_span"].append(f"{q['id']}: {s}")
    return {
        "name": manifest.get("name"),
        "family": fam,
        "texts": len(texts),
        "counts": {r: len(v) for r, v in found.items()},
        "examples": {r: v[:5] for r, v in found.items() if v},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="*", type=Path)
    ap.add_argument("--outputs", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    inputs = args.inputs or sorted((ROOT / "tests/themes").glob("*.yaml"))
    outputs = args.outputs or Path(tempfile.mkdtemp(prefix="world-audit-"))
    report = {}
    for path in inputs:
        if (path / "MANIFEST.json").is_file():
            release = path
        else:
            from mnemoforge.pipeline import build

            release = build(path, outputs=outputs).release_dir
        r = audit(release)
        report[f"{r['name']}@{release.name}"] = r
        bad = {k: v for k, v in r["counts"].items() if v}
        said = json.dumps(bad) if bad else "clean"
        print(f"{r['name']}: {r['family']} {r['texts']} texts: {said}")
    total = {rule: sum(r["counts"][rule] for r in report.values()) for rule in RULES}
    print("total:", json.dumps(total))
    if args.json:  # with the machine block (benchmarks/machine.py), as every result file
        command = "python benchmarks/world_audit.py " + " ".join(sys.argv[1:] if argv is None else argv)
        write_result(args.json, {"benchmark": "world_audit", "command": command, "releases": report,
                                 "total": total}, indent=1)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
