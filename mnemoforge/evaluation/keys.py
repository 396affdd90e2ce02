"""The evaluator's side of a release: answers, gold letters per rotation, labels, evidence ids.

Only scorers, judges, the oracle method's evidence list and the ``symbolic`` upper bound read this
module; methods build prompts from :func:`mnemoforge.exporters.views.load_agent_view` alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemoforge import yaml_io
from mnemoforge.validators.answerers.protocol import LETTERS


class EvaluationError(ValueError):
    """Bad input to an evaluation: the message names the file and the field."""


def read_yaml_mapping(path: Path, expected: str) -> dict[str, Any]:
    """A YAML file that must hold a mapping (``expected`` says of what), as a dict; one clear
    ``EvaluationError`` naming the file otherwise (the caller checks that it exists)."""
    import yaml

    try:
        data = yaml_io.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise EvaluationError(f"{path}: not valid YAML ({e})") from None
    if not isinstance(data, dict):
        raise EvaluationError(f"{path}: expected a mapping with {expected}")
    return dict(data)


@dataclass(frozen=True)
class ItemKey:
    """What a scorer needs about one item."""

    id: str
    family: str
    category: str
    answer: str
    aliases: list[str]
    options: list[str] | None
    rotations: list[list[int]] | None
    evidence: list[str]
    labels: dict[str, str]
    structured_answer: list[dict] | None
    row: dict = field(repr=False, default_factory=dict)

    def gold_letters(self) -> list[str]:
        """The correct letter under each rotation (one entry for an MCQ without rotations)."""
        if not self.options:
            return []
        k = self.options.index(self.answer)
        rots = self.rotations or [list(range(len(self.options)))]
        return [LETTERS[rot.index(k)] for rot in rots]

    @property
    def kind(self) -> str:
        """``mcq``, ``call`` (function calling) or ``open``."""
        if self.options:
            return "mcq"
        return "call" if self.structured_answer else "open"

    def group(self) -> dict[str, str]:
        """The table keys this item is reported under, as its family reads them
        (``Family.eval_group``: icm category, smm task, memeye x/y/cell); a family no installed
        package registers: its category."""
        from mnemoforge.evaluation.cross_keys import eval_family

        try:
            fam = eval_family(self.family)
        except KeyError:
            return {"category": self.category}
        return fam.eval_group(self.category, self.labels)


def read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as e:
                raise EvaluationError(f"{path}: line {n} is not JSON ({e})") from None
    return rows


def release_family(release: Path) -> str:
    manifest = Path(release) / "MANIFEST.json"
    if not manifest.is_file():
        raise EvaluationError(f"{release}: not a release (no MANIFEST.json)")
    try:
        fam = json.loads(manifest.read_text(encoding="utf-8"))["family"]
    except (ValueError, KeyError) as e:
        raise EvaluationError(f"{manifest}: field 'family' missing or unreadable ({e})") from None
    return str(fam)


def item_key(row: dict) -> ItemKey:
    return ItemKey(
        id=row["id"],
        family=row["family"],
        category=row.get("category", ""),
        answer=row.get("answer", ""),
        aliases=list(row.get("answer_aliases") or []),
        options=list(row["options"]) if row.get("options") else None,
        rotations=[list(r) for r in row["rotations"]] if row.get("rotations") else None,
        evidence=list(row.get("evidence") or []),
        labels=dict(row.get("labels") or {}),
        structured_answer=row.get("structured_answer"),
        row=row,
    )


def load_keys(release: Path, concentrated: bool = False) -> dict[str, ItemKey]:
    """Item id -> key, from ``data/<family>/questions.jsonl`` (or the smm twin's)."""
    fam = release_family(release)
    data = Path(release) / "data" / fam
    path = (data / "concentrated" if concentrated else data) / "questions.jsonl"
    if not path.is_file():
        raise EvaluationError(f"{path}: no such table (the concentrated twin exists only for smm releases)")
    return {r["id"]: item_key(r) for r in read_jsonl(path)}


def load_world(release: Path) -> Any:
    """The release's World (for the symbolic upper bound and the function-call tool schemas); a
    family's release inside a multi-family release: the one World at that release's root."""
    from mnemoforge.evaluation.cross_keys import shared_world
    from mnemoforge.schemas.world import World

    path = Path(release) / "data" / "world.json"
    if not path.is_file():
        path = shared_world(release) or path
    if not path.is_file():
        raise EvaluationError(f"{path}: missing (needed to score function calls and by the symbolic model)")
    return World.model_validate_json(path.read_text(encoding="utf-8"))


def gold_evidence(release: Path, concentrated: bool = False) -> dict[str, list[str]]:
    """Item id -> gold evidence observation ids: what ``oracle_evidence`` may show, and nothing else."""
    return {k: v.evidence for k, v in load_keys(release, concentrated).items()}
