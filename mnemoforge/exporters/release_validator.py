#!/usr/bin/env python3
"""Validate this mnemoforge release with nothing but Python's standard library and pyarrow.

Usage: ``python scripts/validate_release.py [RELEASE_DIR]`` (default: the folder above
``scripts/``). Prints ``OK`` and exits 0, or prints one line per problem, each naming its file,
and exits 1.

Checks: every file's sha256 and size against ``MANIFEST.json`` (and ``checksums/sha256.txt``), no
unlisted file; question and observation rows against the required fields and top-level types of
``schemas/*.schema.json``; counts (manifest, ``dataset_statistics.json``, every JSONL beside its
Parquet); every evidence id resolves to an observation; every cutoff comes at or after its
evidence; and the two views: ``agent/<family>/`` holds the same questions as ``data/<family>/``
with no evaluator-key field in any agent table, at any depth. Meaning: each agent question's text,
cutoff and option lists (one per rotation, the evaluator view's ``options`` in ``rotations``
order) equal the evaluator view's; the correct option comes first, no distractor equals the
answer, each rotation orders all the options and the key sits once at each letter, and no rule
over an agent row's option lists (a letter, how options move between rotations, which lists hold
them) finds the answer above chance; MANIFEST.json's name, family and version agree with
``config.resolved.json``.

This file is copied verbatim into every release by mnemoforge and must never import it.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

FORBIDDEN = frozenset(
    {
        "answer", "answer_aliases", "answer_index", "correct", "evidence", "evidence_clips",
        "evidence_shots", "evidence_alternatives", "evidence_sources", "evidence_eligible",
        "expresses", "facts", "facts_read", "fact", "people", "visible", "speaker", "speakers",
        "names_said", "holders", "target_people", "clue_for", "alt_clue_for", "program", "lineage",
        "structured_answer", "labels", "category", "options", "rotations",
        "place", "places", "event", "occasion", "evidence_units",
    }
)  # fmt: skip
"""Evaluator-key fields no agent table may hold (mnemoforge's ``views.AGENT_FORBIDDEN``)."""

JSON_TYPES = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def check_files(root: Path, manifest: dict) -> list[str]:
    problems = []
    files = manifest.get("files", {})
    for rel, entry in sorted(files.items()):
        p = root / rel
        if not p.is_file():
            problems.append(f"{rel}: missing")
        elif p.stat().st_size != entry["bytes"] or _sha256(p) != entry["sha256"]:
            problems.append(f"{rel}: checksum mismatch (file was altered)")
    listed = set(files) | {"MANIFEST.json"}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and rel not in listed and "__pycache__" not in rel:
            problems.append(f"{rel}: not listed in MANIFEST.json")
    sums = root / "checksums/sha256.txt"
    if sums.is_file():
        for line in sums.read_text(encoding="utf-8").splitlines():
            digest, _, rel = line.partition("  ")
            if rel in files and files[rel]["sha256"] != digest:
                problems.append(f"checksums/sha256.txt: {rel} disagrees with MANIFEST.json")
    return problems


def _type_ok(value: object, spec: dict) -> bool:
    kinds = []
    if "type" in spec:
        kinds = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    for alt in spec.get("anyOf", []):
        if "type" in alt:
            kinds.append(alt["type"])
        elif "$ref" in alt:
            kinds.append("object")
    if not kinds:
        return True
    if isinstance(value, bool) and "boolean" not in kinds:
        return False
    return any(isinstance(value, JSON_TYPES[k]) for k in kinds if k in JSON_TYPES)


def check_schema(root: Path, rel: str, schema_name: str) -> list[str]:
    """Required fields and top-level types of each row, against the shipped JSON Schema."""
    schema_path = root / f"schemas/{schema_name}.schema.json"
    if not schema_path.is_file():
        return [f"schemas/{schema_name}.schema.json: missing"]
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    props, required = schema.get("properties", {}), schema.get("required", [])
    problems = []
    for i, row in enumerate(_rows(root / rel)):
        for k in required:
            if k not in row:
                problems.append(f"{rel}: line {i + 1}: {k}: field required")
        for k, v in row.items():
            if k in props and not _type_ok(v, props[k]):
                problems.append(f"{rel}: line {i + 1}: {k}: wrong type {type(v).__name__}")
        if len(problems) > 20:
            break
    return problems


def _parquet_rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows


def check_counts(root: Path, manifest: dict, fam: str, questions: list[dict], obs: list[dict]) -> list[str]:
    problems = []
    stats = json.loads((root / "dataset_statistics.json").read_text(encoding="utf-8"))
    qrel = f"data/{fam}/questions.jsonl"
    if stats["questions"]["kept"] != len(questions):
        problems.append(f"dataset_statistics.json: {stats['questions']['kept']} questions listed, "
                        f"{len(questions)} in {qrel}")  # fmt: skip
    counts = manifest.get("counts", {})
    if counts.get("questions") != len(questions):
        problems.append(
            f"MANIFEST.json: counts.questions {counts.get('questions')}, {len(questions)} in {qrel}"
        )
    if counts.get("observations") != len(obs):
        problems.append(f"MANIFEST.json: counts.observations {counts.get('observations')}, "
                        f"{len(obs)} in data/{fam}/observations.jsonl")  # fmt: skip
    for jsonl in sorted(root.glob("**/*.jsonl")):
        parquet = jsonl.with_suffix(".parquet")
        if parquet.is_file():
            n_json, n_parquet = len(_rows(jsonl)), _parquet_rows(parquet)
            if n_json != n_parquet:
                problems.append(f"{parquet.relative_to(root).as_posix()}: {n_parquet} rows, "
                                f"{n_json} in {jsonl.name}")  # fmt: skip
    return problems


def check_evidence(fam: str, questions: list[dict], obs: list[dict]) -> list[str]:
    problems = []
    order = {o["id"]: o["order"] for o in obs}
    rel = f"data/{fam}/questions.jsonl"
    for q in questions:
        ids = list(q.get("evidence") or []) + list(q.get("evidence_alternatives") or [])
        missing = [e for e in ids if e not in order]
        if missing:
            problems.append(f"{rel}: {q['id']}: evidence {missing} not in data/{fam}/observations.jsonl")
            continue
        cutoff = q.get("cutoff")
        late = [e for e in q.get("evidence") or [] if cutoff is not None and order[e] > cutoff]
        if late:
            problems.append(f"{rel}: {q['id']}: evidence {late} after the cutoff {cutoff}")
    return problems


def _forbidden(value: object, path: str = "") -> list[str]:
    if isinstance(value, str) and value[:1] in "{[":
        try:
            value = json.loads(value)
        except ValueError:
            return []
    found: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            here = f"{path}.{k}" if path else k
            found += [here] if k in FORBIDDEN else _forbidden(v, here)
    elif isinstance(value, list):
        for v in value:
            found += _forbidden(v, path)
    return found


def check_agent_view(root: Path, fam: str, questions: list[dict]) -> list[str]:
    """``agent/<family>/`` exists, holds the kept questions, and no key field at any depth."""
    agent = root / "agent" / fam
    if not (agent / "questions.jsonl").is_file():
        return [f"agent/{fam}/questions.jsonl: missing (no agent view in this release)"]
    problems = []
    ids = [r["id"] for r in _rows(agent / "questions.jsonl")]
    if ids != [q["id"] for q in questions]:
        problems.append(f"agent/{fam}/questions.jsonl: question ids differ from data/{fam}/questions.jsonl")
    for path in sorted(agent.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.suffix == ".jsonl":
            bad = sorted({f for row in _rows(path) for f in _forbidden(row)})
        elif path.suffix == ".parquet":
            import pyarrow.parquet as pq

            schema = pq.read_schema(path)
            bad = sorted({f for name in schema.names for f in _forbidden({name: None})})
            bad += sorted(_nested_forbidden(schema))
        else:
            continue
        if bad:
            problems.append(f"{rel}: evaluator key field(s) {sorted(set(bad))} in an agent-input table")
    return problems


def _nested_forbidden(schema: object) -> list[str]:
    """Struct field names inside Parquet columns (lists of structs included)."""
    import pyarrow as pa

    found: list[str] = []

    def walk(t: object, path: str) -> None:
        if pa.types.is_struct(t):
            for f in t:
                here = f"{path}.{f.name}"
                if f.name in FORBIDDEN:
                    found.append(here)
                walk(f.type, here)
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            walk(t.value_type, path)

    for f in schema:
        walk(f.type, f.name)
    return found


def _norm(text: object) -> str:
    return " ".join(str(text).casefold().split())


def check_options(fam: str, questions: list[dict]) -> list[str]:
    """The evaluator view's options and rotations (mnemoforge's ``release_meaning.option_keys``)."""
    rel, problems = f"data/{fam}/questions.jsonl", []
    for q in questions:
        opts = q.get("options")
        if not opts:
            continue
        answers = {_norm(a) for a in [q.get("answer"), *(q.get("answer_aliases") or [])]}
        if _norm(opts[0]) != _norm(q.get("answer")):
            problems.append(f"{rel}: {q['id']}: options[0] is not the answer (the key comes first)")
        for i, o in enumerate(opts[1:], 1):
            if _norm(o) in answers:
                problems.append(f"{rel}: {q['id']}: distractor {i} {o!r} equals the answer")
        rots = q.get("rotations") or []
        if any(sorted(rot) != list(range(len(opts))) for rot in rots):
            problems.append(f"{rel}: {q['id']}: a rotation is not an order of the {len(opts)} options")
        elif len(rots) == len(opts) and len({rot.index(0) for rot in rots}) != len(opts):
            problems.append(f"{rel}: {q['id']}: rotations do not put the key once at each letter")
    return problems


def check_agent_questions(root: Path, fam: str, questions: list[dict]) -> list[str]:
    """Each agent question against its evaluator row: text, cutoff, media, options per rotation."""
    path = root / "agent" / fam / "questions.jsonl"
    if not path.is_file():
        return []
    rel, problems = f"agent/{fam}/questions.jsonl", []
    data = {q["id"]: q for q in questions}
    for a in _rows(path):
        q = data.get(a.get("id"))
        if q is None:
            continue  # reported by check_agent_view
        for key in ("question", "cutoff", "question_media"):
            if (a.get(key) or None) != (q.get(key) or None):
                problems.append(f"{rel}: {a['id']}: {key} differs from data/{fam}/questions.jsonl")
        opts, rots = q.get("options"), q.get("rotations")
        want = [[opts[i] for i in rot] for rot in rots] if opts and rots else [list(opts)] if opts else None
        if a.get("choices") != want:
            problems.append(f"{rel}: {a['id']}: options differ (order or text) from data/{fam}")
    return problems


def check_manifest_fields(root: Path, manifest: dict) -> list[str]:
    """MANIFEST.json's name, family and version against config.resolved.json."""
    path = root / "config.resolved.json"
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    theme = cfg.get("theme") if isinstance(cfg.get("theme"), dict) else {}
    problems = []
    for key, theirs in (("name", theme.get("name")), ("family", theme.get("family")),
                        ("version", cfg.get("release_version"))):  # fmt: skip
        if theirs is not None and manifest.get(key) != theirs:
            said = f"config.resolved.json says {theirs!r}"
            problems.append(f"MANIFEST.json: {key} {manifest.get(key)!r}, {said}")
    return problems


# ---------------------------------------------------------------- answer keys in option layouts

KEY_MARGIN = 0.05
"""A rule over an agent row's option lists fails the release when it beats chance by more than
this and by more than chance alone would (one-sided binomial p below :data:`KEY_P`)."""
KEY_P = 0.01


def _positions(choices: list[list[str]]) -> dict[str, list[int | None]]:
    """Each option (in order of first appearance) with its letter in every list (None: absent)."""
    seen: dict[str, list[int | None]] = {}
    for r, row in enumerate(choices):
        for p, opt in enumerate(row):
            seen.setdefault(opt, [None] * len(choices))[r] = p
    return seen


def _moves(pos: list[int | None]) -> int:
    return sum(1 for a, b in zip(pos, pos[1:], strict=False) if a != b)


def _shifts(pos: list[int | None]) -> tuple[int | None, ...]:
    """How far the option moves from each list to the next (None where it is absent)."""
    return tuple(None if a is None or b is None else b - a for a, b in zip(pos, pos[1:], strict=False))


def _rarest(values: list[object]) -> list[float]:
    """Score an option by how few others share its value (the odd one out scores highest)."""
    return [-float(sum(v == w for w in values)) for v in values]


def key_rules(choices: list[list[str]]) -> dict[str, list[float]]:
    """Every layout rule a reader of one row can apply without memory: a score per option (in
    order of first appearance; the highest is the rule's pick). Positional (letter p of list r),
    movement (most / fewest letter changes, the rarest displacement pattern) and set difference
    (present in most / fewest lists, the rarest presence pattern)."""
    pos = _positions(choices)
    opts = list(pos)
    rules: dict[str, list[float]] = {}
    for r, row in enumerate(choices):
        for p in range(len(row)):
            rules[f"list{r + 1}_letter{'ABCDEFGH'[p] if p < 8 else p}"] = [
                1.0 if pos[o][r] == p else 0.0 for o in opts
            ]
    if len(choices) > 1:
        moves = [float(_moves(pos[o])) for o in opts]
        rules["moves_most"] = moves
        rules["moves_fewest"] = [-m for m in moves]
        rules["movement_rarest"] = _rarest([_shifts(pos[o]) for o in opts])
        present = [float(sum(x is not None for x in pos[o])) for o in opts]
        rules["present_most"] = present
        rules["present_fewest"] = [-x for x in present]
        rules["presence_rarest"] = _rarest([tuple(x is None for x in pos[o]) for o in opts])
    return rules


def _binomial_tail(hits: int, n: int, p: float) -> float:
    """P(X >= hits) for X ~ Binomial(n, p), in logs (no underflow on large n)."""
    import math

    if hits <= 0:
        return 1.0
    total = 0.0
    for i in range(hits, n + 1):
        log_term = (
            math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
            + i * math.log(p) + (n - i) * math.log1p(-p)
        )  # fmt: skip
        total += math.exp(log_term)
    return min(1.0, total)


def key_recovery(items: list[tuple[list[list[str]], str]]) -> dict[str, dict]:
    """Each layout rule's forced-choice accuracy over ``items`` ((option lists, answer text); a tie
    of k options holding the answer counts 1/k): ``{rule: {accuracy, chance, n, p}}``."""
    sums: dict[str, float] = {}
    chance: dict[str, float] = {}
    count: dict[str, int] = {}
    for choices, answer in items:
        if not choices or not any(answer in row for row in choices):
            continue
        rules = key_rules(choices)
        opts = list(_positions(choices))
        k = opts.index(answer)
        for name, scores in rules.items():
            top = max(scores)
            winners = [i for i, s in enumerate(scores) if s == top]
            sums[name] = sums.get(name, 0.0) + (1.0 / len(winners) if k in winners else 0.0)
            chance[name] = chance.get(name, 0.0) + 1.0 / len(opts)
            count[name] = count.get(name, 0) + 1
    out = {}
    for name, n in count.items():
        acc, base = sums[name] / n, chance[name] / n
        out[name] = {
            "accuracy": round(acc, 4),
            "chance": round(base, 4),
            "n": n,
            "p": _binomial_tail(int(round(sums[name])), n, base),
        }
    return out


def key_leaks(items: list[tuple[list[list[str]], str]]) -> list[str]:
    """The rules that recover the answer above chance (see :data:`KEY_MARGIN`, :data:`KEY_P`)."""
    return sorted(
        f"{name} picks the answer in {s['accuracy']:.0%} of {s['n']} items (chance {s['chance']:.0%})"
        for name, s in key_recovery(items).items()
        if s["accuracy"] > s["chance"] + KEY_MARGIN and s["p"] < KEY_P
    )


def check_agent_keys(root: Path, fam: str, questions: list[dict]) -> list[str]:
    """No rule over the agent rows' option lists (position, movement, set difference) finds the
    answer above chance, in ``agent/<family>/questions.jsonl`` and every other agent question
    table (a twin's)."""
    answers = {q["id"]: q["answer"] for q in questions}
    problems = []
    for path in sorted((root / "agent" / fam).rglob("questions.jsonl")):
        rows = [r for r in _rows(path) if r.get("choices") and r["id"] in answers]
        leaks = key_leaks([(r["choices"], answers[r["id"]]) for r in rows])
        rel = path.relative_to(root).as_posix()
        problems += [f"{rel}: the option lists give the answer away: {why}" for why in leaks]
    return problems


def validate(root: Path) -> list[str]:
    """Every problem found in the release at ``root``; empty when it is valid."""
    mpath = root / "MANIFEST.json"
    if not mpath.is_file():
        return [f"MANIFEST.json: missing (is {root} a release folder?)"]
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
        fam = manifest["family"]
    except (ValueError, KeyError) as e:
        return [f"MANIFEST.json: unreadable ({e})"]
    problems = check_files(root, manifest)
    if problems:
        return problems
    problems = check_manifest_fields(root, manifest)
    qrel, orel = f"data/{fam}/questions.jsonl", f"data/{fam}/observations.jsonl"
    if not isinstance(fam, str) or not (root / qrel).is_file():
        return problems + [f"MANIFEST.json: family {fam!r}, but the release has no {qrel}"]
    problems += check_schema(root, qrel, "question") + check_schema(root, orel, "observation")
    questions, obs = _rows(root / qrel), _rows(root / orel)
    problems += check_counts(root, manifest, fam, questions, obs)
    problems += check_evidence(fam, questions, obs)
    problems += check_agent_view(root, fam, questions)
    problems += check_options(fam, questions) + check_agent_questions(root, fam, questions)
    problems += check_agent_keys(root, fam, questions)
    return problems


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    problems = validate(root)
    for p in problems:
        print(p)
    if not problems:
        print("OK")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
