"""The dataset card (README.md with Hugging Face YAML) written into every release."""

from __future__ import annotations

import yaml

from mnemoforge.schemas.theme import Theme

CATEGORY_NAMES = {
    "identity_recall": "Identity Recall (a local event about a person)",
    "cross_episode_retrieval": "Cross-Episode Identity Retrieval",
    "profile_inference": "Long-Term Identity Profile Inference",
    "single_hop": "Single-hop QA across sources",
    "multi_hop": "Multi-hop QA across sources",
    "conflict_resolution": "Conflict resolution (latest / authoritative value)",
    "preference": "Preference reasoning from scattered behaviour",
    "function_calling": "Function calling (structured call list)",
}

FIELDS = {
    "id": "stable item id (hash of template and program)",
    "question": "the question text",
    "answer": "concise reference answer, computed by executing `program` on the World",
    "category": "question category (see above)",
    "target_people": "ids of the people the question is about",
    "evidence": "observation ids (shots, spoken lines) expressing the facts the program read",
    "evidence_clips": "icm: clip ids holding the evidence",
    "evidence_shots": "icm: shot ids holding visual evidence",
    "evidence_alternatives": "other observations expressing the same facts (count as clue hits in retrieval)",
    "evidence_sources": "smm: source ids holding the evidence; memeye: session ids of the clue rounds",
    "labels": "family taxonomy: smm `{task}`; memeye `{x, y, scenario}` (X1–X4 granularity, Y1–Y3 depth)",
    "options": "multiple-choice mirror: option texts, the correct one first (null: open-ended only)",
    "rotations": "four option orders (indices into `options`) placing the correct option once at each of A–D",
    "structured_answer": "function calling: `[{step, calls: [{name, arguments}]}]`; `answer` is its JSON",
    "question_media": "images shown with the question",
    "cutoff": "latest accessible observation order (clip index for icm; null: the full timeline)",
    "program": "JSON: the program (function and arguments) that computes the answer",
    "lineage": "JSON: template id, seed and hashes of program, world and answer",
}


def gates_table(theme: Theme, funnel: dict | None) -> str:
    """Each gate in order with what it rejected and, for panel gates, who sat on the panel."""
    if not funnel:
        return "(no gate log)"
    panels = theme.gates.panels
    rows = []
    for st in funnel["stages"]:
        members = panels.get(st["gate"])
        who = ", ".join(members) if members else ("exact check" if st["gate"] not in panels else "not run")
        rows.append(f"| `{st['gate']}` | {who} | {st['rejected']} | {st['kept']} |")
    return (
        f"{funnel['candidates']} candidates; panel rule `{theme.gates.rule}`. A panel member that "
        "abstains (no context, no decisive evidence) counts as not answering, so a panel of offline "
        "answerers only rejects what they can actually answer; stronger panels (a chat model) are "
        "configured under `gates:` in the theme.\n\n| gate | panel | rejected | kept |\n|---|---|---|---|\n"
        + "\n".join(rows)
        + undecided_note(funnel)
        + shortfall_note(funnel)
        + review_note(funnel)
    )


def review_note(funnel: dict) -> str:
    """Human review coverage (``mnemoforge review``), when a reviewer looked at the run."""
    cov = funnel.get("human_review")
    if not cov:
        return ""
    parts = []
    for kind in ("shots", "items"):
        c = cov[kind]
        tags = ", ".join(f"{t} {n}" for t, n in c["reasons"].items())
        parts.append(f"{c['reviewed']} of {c['total']} {kind} reviewed, {c['passed']} passed, "
                     f"{c['excluded']} excluded" + (f" ({tags})" if tags else ""))  # fmt: skip
    changes = cov.get("changes") or {}
    moved = ""
    if changes.get("left") or changes.get("entered"):
        moved = (f" {len(changes['left'])} items left the release and {len(changes['entered'])} other "
                 "survivors of their categories took their places (listed in `CHANGELOG.md`); the other "
                 "categories kept their quotas.")  # fmt: skip
    return (
        "\n\n**Human review.** " + "; ".join(parts) + ". Items citing an excluded shot are rejected as "
        "unanswerable by the `human_review` gate; the coverage is in `gates/funnel.json`." + moved
    )


def undecided_note(funnel: dict) -> str:
    """Items no gate could decide because model calls failed (not in the release; retried by `gate`)."""
    n = funnel.get("undecided", 0)
    if not n:
        return ""
    per = ", ".join(f"`{st['gate']}` {st['undecided']}" for st in funnel["stages"] if st.get("undecided"))
    return (
        f"\n\n**Undecided.** {n} candidates are left out because model calls failed after their "
        f"retries ({per}); `gates/verdicts.jsonl` names each failed answerer and why."
    )


def shortfall_note(funnel: dict) -> str:
    """Categories the theme asked more of than its World supports (empty when none fell short)."""
    short = funnel.get("shortfall") or []
    if not short:
        return ""
    lines = "\n".join(
        f"| {s['category']} | {s['requested']} | {s['produced']} | {s['reason']} |" for s in short
    )
    return (
        "\n\n**Shortfall.** The release holds fewer items than the theme asked for in these "
        "categories (too few candidates, or too few survived the gates):\n\n"
        "| category | asked | got | why |\n|---|---|---|---|\n" + lines
    )


def names_note(theme: Theme) -> str:
    """Where a cast name is written outside the Latin script: how the English voices say it (the
    theme's ``spoken`` name, else an ``anyascii`` transliteration) and which fonts draw it."""
    from importlib.metadata import PackageNotFoundError, version

    from mnemoforge.generators.names import scripts, spoken_parts

    rows = [(p, scripts(p.name) - {"LATIN"}) for p in theme.cast]
    rows = [(p, s) for p, s in rows if s]
    if not rows:
        return ""
    try:
        tool = f"anyascii {version('anyascii')}"
    except PackageNotFoundError:  # pragma: no cover - a dependency
        tool = "anyascii"
    said = "\n".join(
        f"| {p.name} | {', '.join(sorted(s)).lower()} | {spoken_parts(p).name} | "
        f"{'the theme' if p.spoken else tool} |"
        for p, s in rows
    )
    return (
        "\n\nNames are written in their own scripts in text and pictures (Noto fonts cover them) and "
        "spoken by English voices in Latin letters:\n\n"
        "| name | script | said as | from |\n|---|---|---|---|\n" + said
    )


def views_section(configs: dict[str, str]) -> str:
    """Which configs are agent input and which are evaluator keys, and how to validate the release."""
    agent = sorted(n for n in configs if n.startswith("agent_"))
    keys = sorted(n for n in configs if not n.startswith("agent_"))
    return f"""## Two views: agent input and evaluator keys

A memory system under test reads **only the agent input**: the `agent/` folder (configs
{", ".join(f"`{n}`" for n in agent)}) and the media under `media/`. Agent questions carry the
question text, `choices` (one option list per rotation, in letter order A–D; null for open
items), `question_media` and `cutoff`; observations carry their text, media, timestamps and
stream order, never which facts they express or who is in them; media tables carry no place,
event, speaker or people labels.

The **evaluator keys** are everything under `data/` (configs {", ".join(f"`{n}`" for n in keys)}),
`data/world.json` and `gates/`: answers, option orders, evidence, fact ids, people labels, clue
links, programs and lineage. Score a run by joining its answers to `data/` on the question `id`.

Check the release, with only the Python standard library and `pyarrow`:

```bash
python scripts/validate_release.py .
```

It re-checks every checksum, the schemas, the counts, that evidence ids resolve and come at or
before each cutoff, and that no agent-input table holds an evaluator-key field; it prints `OK`
or one line per problem naming the file, and exits 1 on a problem.
"""


def config_entry(name: str, path: str, family: str, identity: tuple[str, str, str] | None) -> dict:
    """One card config; with an identity, a description and version of its own (see dataset_card)."""
    entry: dict = {"config_name": name, "data_files": [{"split": "test", "path": path}]}
    if identity is not None:
        release, version, run_id = identity
        entry["description"] = f"{release} {version} (run {run_id})"
        entry["version"] = version.split("+", 1)[0]  # datasets takes X.Y.Z; the description has it all
    if name == f"{family}_questions":
        entry["default"] = True
    return entry


def dataset_card(
    theme: Theme,
    stats: dict,
    configs: dict[str, str],
    seed: int,
    code_version: str,
    family_section: str = "",
    contents_line: str = "",
    funnel: dict | None = None,
    identity: tuple[str, str, str] | None = None,
) -> str:
    """The card: shared construction text, the family's own section, contents, fields.

    ``identity`` is (release name, version, run id): every config carries it (its
    ``description`` and ``version``), so ``datasets`` caches each release apart (it keys a local
    folder's cache by the folder's name, ``0.1.0`` for every release, and the config), and the
    family's questions table is the default config (``load_dataset(folder)`` needs no name)."""
    size = stats["questions"]["kept"]
    bucket = "n<1K" if size < 1000 else "1K<n<10K" if size < 10_000 else "10K<n<100K"
    meta = {
        "license": theme.license,
        "pretty_name": theme.title,
        "task_categories": ["question-answering", "visual-question-answering"],
        "language": ["en"],
        "size_categories": [bucket],
        "tags": ["synthetic", "long-term-memory", "multimodal", "benchmark", "mnemoforge"],
        "configs": [
            config_entry(name, path, theme.family, identity) for name, path in sorted(configs.items())
        ],
    }
    cats = "\n".join(
        f"| {CATEGORY_NAMES.get(c, c)} | {n} |" for c, n in sorted(stats["questions"]["by_category"].items())
    )
    fields = "\n".join(f"- `{k}`: {v}" for k, v in FIELDS.items())
    gates = gates_table(theme, funnel)
    media = stats.get("media", {})
    return f"""---
{yaml.safe_dump(meta, sort_keys=True).strip()}
---

# {theme.title}

{theme.description}

A synthetic benchmark of long-term multimodal memory built by mnemoforge from the theme
`{theme.name}` (seed {seed}, mnemoforge {code_version}). The same theme, seed and code version
rebuild this release byte for byte (see `MANIFEST.json`). `mnemoforge verify` re-checks every
file and prints the sha256 of `MANIFEST.json`, which lists every other file's digest: pin the
release by that value (it is also the description of the Hub commit that uploaded it; this card
cannot hold it, being one of the files it covers).

## Construction

A seeded World (cast, relations, places, objects, a timeline of {stats["world"]["events"]} events and
{stats["world"]["facts"]} facts) is planned from the theme (family `{theme.family}`). Every
observation the agent sees (a shot, a spoken line, a message, an image, a table, a document)
records which facts it expresses and in which channel (scene, pixel, speech, text). Questions are
programs executed on the World: answers are computed, and the evidence is the set of observations
expressing the facts the program read. Quality gates then check every candidate and keep their
verdicts in `gates/verdicts.jsonl` and `gates/funnel.json`.{names_note(theme)}

{family_section}

## Contents

- {contents_line}, {stats["world"]["people"]} recurring people
- {size} questions kept of {stats["questions"]["candidates"]} candidates
- media: {media.get("files", 0)} files

| category | questions |
|---|---|
{cats}

{views_section(configs)}
## Fields (`data/*/questions.*`)

{fields}

## Quality gates

{gates}

## Known limitations

- All content is synthetic: procedurally drawn people and places, synthesised speech.
- No occlusion, camera noise, background noise or overlapping speech; transfer to real recordings
  is not established.
- Reference answers are concise strings; open-ended scoring needs a semantic judge.
"""
