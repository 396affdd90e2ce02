"""The two views of a release: what a memory system may read (agent input) and the evaluator keys.

*Agent input* is the media, the messages and transcripts, captions (for caption-memory
baselines) and timestamps. *Evaluator keys* are everything that names an answer or where it
lies: answers, the correct option's position, evidence ids, fact ids, people labels, programs,
lineage, per-round question links. Evaluation methods, peer exports and harness tasks read the
model's side only through :func:`load_agent_view`; scorers read the keys from the release's
``data/`` tables.

This module is the contract between the release writer and its readers. Every release stores
the agent view as its own folder, ``agent/<family>/`` (questions without keys, observations
without fact or people labels, the family's media tables with only the columns in
:func:`agent_tables`); ``data/<family>/`` holds the evaluator keys. :func:`load_agent_view`
reads ``agent/`` and, for releases frozen before it existed, derives the same rows from ``data/``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

KEY_FIELDS: frozenset[str] = frozenset(
    {
        "answer",
        "answer_aliases",
        "answer_index",
        "correct",
        "evidence",
        "evidence_clips",
        "evidence_shots",
        "evidence_alternatives",
        "evidence_sources",
        "evidence_eligible",
        "expresses",
        "facts",
        "facts_read",
        "fact",
        "people",
        "visible",
        "speaker",
        "speakers",
        "names_said",
        "holders",
        "target_people",
        "clue_for",
        "alt_clue_for",
        "program",
        "lineage",
        "structured_answer",
        "labels",
        "category",
        "options",
        "rotations",
    }
)
"""Field names that are evaluator keys wherever they appear (``options`` and ``rotations`` are keys
because the stored option list is in generation order; the agent sees ``choices``, one option list
per rotation)."""

AGENT_FORBIDDEN: frozenset[str] = KEY_FIELDS | {"place", "places", "event", "occasion", "evidence_units"}
"""Fields no agent-input table may hold at any depth (``mnemoforge verify`` and the release's own
``scripts/validate_release.py`` check it): the keys, plus metadata that states a fact the media
must carry (a shot's place, a clip's event, a source's evidence count)."""

AGENT_DIR = "agent"

OBSERVATION_FIELDS = ("id", "source", "episode", "kind", "timestamp", "order", "content", "media")
ITEM_FIELDS = ("id", "family", "question", "choices", "question_media", "cutoff", "open_ended")


@dataclass(frozen=True)
class AgentItem:
    """A question as a memory system sees it: no answer, no evidence, no labels."""

    id: str
    family: str
    question: str
    choices: list[list[str]] | None
    """MCQ: one option list per rotation, in letter order (A, B, C, D); None for open-ended."""
    question_media: list[str]
    cutoff: int | None
    """Latest episode order the agent may read before answering; None = the whole timeline."""

    @property
    def open_ended(self) -> bool:
        return self.choices is None


@dataclass(frozen=True)
class AgentView:
    """Everything a memory system may read from one release."""

    root: Path
    family: str
    items: list[AgentItem]
    observations: list[dict]
    """Observation rows with only :data:`OBSERVATION_FIELDS`, in stream order."""
    captions: list[dict] = field(default_factory=list)
    haystacks: dict[str, frozenset[str]] | None = None
    """A length variant (docs/variants.md): item id -> the observation ids of its own history."""
    haystack: frozenset[str] | None = None
    """Set by :meth:`for_item`: the one item's history that :meth:`history` reads."""

    def for_item(self, item_id: str) -> AgentView:
        """The view one item is answered from: in a length variant, its own history; else itself."""
        if self.haystacks is None:
            return self
        return replace(self, haystack=self.haystacks[item_id])

    def history(self, cutoff: int | None) -> list[dict]:
        """The observations an item with this cutoff may read (all of them when ``cutoff`` is None;
        in an item's view of a length variant, only those of its history)."""
        obs = self.observations
        if self.haystack is not None:
            obs = [o for o in obs if o["id"] in self.haystack]
        if cutoff is None:
            return list(obs)
        return [o for o in obs if o["order"] <= cutoff]


def _rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def agent_item(row: dict) -> AgentItem:
    """The agent's side of one question row (``data/<family>/questions.jsonl``)."""
    choices = None
    if row.get("options") and row.get("rotations"):
        choices = [[row["options"][i] for i in rot] for rot in row["rotations"]]
    elif row.get("options"):
        choices = [list(row["options"])]
    return AgentItem(
        id=row["id"],
        family=row["family"],
        question=row["question"],
        choices=choices,
        question_media=list(row.get("question_media") or []),
        cutoff=row.get("cutoff"),
    )


def agent_observation(row: dict) -> dict:
    return {k: row[k] for k in OBSERVATION_FIELDS if k in row}


def strip_keys(row: dict) -> dict:
    """A row of any table with every evaluator-key field removed."""
    return {k: v for k, v in row.items() if k not in KEY_FIELDS}


def strip_deep(value: Any, forbidden: frozenset[str] = AGENT_FORBIDDEN) -> Any:
    """``value`` with every forbidden key removed at any depth (dicts inside lists too)."""
    if isinstance(value, dict):
        return {k: strip_deep(v, forbidden) for k, v in value.items() if k not in forbidden}
    if isinstance(value, list):
        return [strip_deep(v, forbidden) for v in value]
    return value


def forbidden_fields(value: Any, forbidden: frozenset[str] = AGENT_FORBIDDEN, path: str = "") -> list[str]:
    """Dotted paths of forbidden keys anywhere in ``value`` (JSON strings of objects included)."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            value = json.loads(value)
        except ValueError:
            return []
    found: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            here = f"{path}.{k}" if path else k
            if k in forbidden:
                found.append(here)
            else:
                found += forbidden_fields(v, forbidden, here)
    elif isinstance(value, list):
        for v in value:
            found += forbidden_fields(v, forbidden, path)
    return sorted(set(found))


def agent_row(table: str, row: dict, columns: tuple[str, ...] | None) -> dict:
    """One row of an agent-input table: questions and observations by their contracts, other
    tables by their column list, then every forbidden field dropped at any depth."""
    name = table.rsplit("/", 1)[-1]
    if name == "questions":
        item = agent_item(row)
        return {k: getattr(item, k) for k in ITEM_FIELDS if k != "open_ended"}
    if name == "observations":
        return agent_observation(row)
    kept = {k: v for k, v in row.items() if columns is None or k in columns}
    return strip_deep(kept)


def agent_tables(family: str) -> dict[str, tuple[str, ...] | None]:
    """Every agent-input table of ``family``: questions, observations, then its own tables
    (``Family.agent_tables``; none for a family no installed package registers)."""
    from mnemoforge.generators.families import get_family

    try:
        own = dict(get_family(family).agent_tables)
    except KeyError:
        own = {}
    return {"questions": None, "observations": None} | own


def load_agent_view(release: Path, variant: str | None = None) -> AgentView:
    """Read a frozen release's agent input (never its keys); with ``variant``, that variant of it
    (docs/variants.md): a length variant's items, each with its own history (``haystacks``; answer
    an item from ``view.for_item(id)``), or an ablation's observations and captions."""
    release = Path(release)
    manifest = json.loads((release / "MANIFEST.json").read_text(encoding="utf-8"))
    fam = manifest["family"]
    agent = release / AGENT_DIR / fam
    haystacks = None
    if variant is not None:
        names = [v["name"] for v in manifest.get("variants") or []]
        if variant not in names:
            raise FileNotFoundError(
                f"{release}: no length variant {variant!r} in MANIFEST.json (it lists {names or 'none'})"
            )
        items = [_item_from_agent_row(r) for r in _rows(agent / "questions.jsonl")]
        where = agent / "variants" / variant
        if (where / "haystacks.jsonl").is_file():  # a length variant: each item's own history
            haystacks = {r["item"]: frozenset(r["observations"]) for r in _rows(where / "haystacks.jsonl")}
            items = [i for i in items if i.id in haystacks]
            obs, caps = _rows(agent / "observations.jsonl"), _rows(agent / "captions.jsonl")
        else:  # an ablation: its own observations
            obs = _rows(where / "observations.jsonl")
            caps = _rows(where / "captions.jsonl") if (where / "captions.jsonl").is_file() else []
    elif (agent / "questions.jsonl").exists():
        items = [_item_from_agent_row(r) for r in _rows(agent / "questions.jsonl")]
        obs = _rows(agent / "observations.jsonl")
        caps = _rows(agent / "captions.jsonl")
    else:  # a release frozen before the agent/ folder: derive the same rows from data/
        data = release / "data" / fam
        items = [agent_item(r) for r in _rows(data / "questions.jsonl")]
        obs = [agent_observation(r) for r in _rows(data / "observations.jsonl")]
        caps = [strip_keys(r) for r in _rows(data / "captions.jsonl")]
    obs = sorted(obs, key=lambda o: (o["order"], o["timestamp"], o["id"]))
    return AgentView(
        root=release, family=fam, items=items, observations=obs, captions=caps, haystacks=haystacks
    )


def _item_from_agent_row(row: dict) -> AgentItem:
    return AgentItem(
        id=row["id"],
        family=row["family"],
        question=row["question"],
        choices=row.get("choices"),
        question_media=list(row.get("question_media") or []),
        cutoff=row.get("cutoff"),
    )
