"""How much of a release is about its theme: the share of kept items whose question names a
person, place, object, entity, animal or activity the World declares (a person may be named by
a description of how they look, "the woman with a ponytail" or "the bald man", as icm's identity items do).

    python benchmarks/theme_presence.py RELEASE_DIR [RELEASE_DIR ...] [--json OUT]

Reads only the release's files (``data/world.json``, ``data/<family>/questions.jsonl``); prints one
line per release and family, with the items that name nothing the theme declares.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402

FAMILIES = ("icm", "smm", "memeye")
PEOPLE = r"(?:man|woman|person|child|boy|girl)"
# "the woman with a ponytail", "the man wearing a cap", "the bald man": a cast member by their look
DESCRIPTION = re.compile(rf"\bthe (?:{PEOPLE} (?:with|wearing|in)|[a-z-]+ {PEOPLE})\b", re.I)


def declared_names(world: dict) -> set[str]:
    """Every name the World declares, with a person's name parts and a place's name without "the"."""
    names: set[str] = set()
    for p in world.get("people", []):
        names |= {p.get("name") or "", p.get("given") or "", p.get("family") or ""}
        names |= set(p.get("aliases") or [])
        names |= set((p.get("name") or "").split())
    for key in ("places", "objects", "entities"):
        for x in world.get(key) or []:
            n = x.get("name") or ""
            names |= {n, re.sub(r"^the ", "", n)}
    names |= {e.get("noun") or "" for e in world.get("events") or []}
    titles = {p.get("title") or "" for p in world.get("people", [])}
    return {n for n in names if n.strip() and n not in titles}


def presence(release: Path) -> dict[str, dict]:
    """Per family: kept items, how many name something declared, and the others' texts."""
    world = json.loads((release / "data/world.json").read_text(encoding="utf-8"))
    names = sorted(declared_names(world), key=len, reverse=True)
    out: dict[str, dict] = {}
    for fam in FAMILIES:
        path = release / "data" / fam / "questions.jsonl"
        if not path.exists():
            continue
        qs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        missing = [
            q["question"]
            for q in qs
            if not DESCRIPTION.search(q["question"])
            and not any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", q["question"], re.I) for n in names)
        ]
        n = len(qs)
        out[fam] = {"items": n, "named": n - len(missing), "share": round((n - len(missing)) / max(1, n), 4),
                    "missing": missing[:10]}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("releases", nargs="+", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    result = {}
    for rel in args.releases:
        got = presence(rel)
        result[f"{rel.parent.name}@{rel.name}"] = got
        for fam, r in got.items():
            share = f"{r['named']}/{r['items']} items name the theme ({r['share']:.0%})"
            print(f"{rel.parent.name}: {fam} {share}")
    if args.json:
        write_result(args.json, {"releases": result}, ensure_ascii=False, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
