"""lmms-eval hooks for a mnemoforge release: copied as ``utils.py`` by `mnemoforge export --format lmms-eval`.

Standalone: only the standard library and Pillow; the strict MCQ parse and the answer
normalisation are copies of mnemoforge's (``evaluation.scoring``, ``answerers.textnorm``).
"""

from __future__ import annotations

import re
import string
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
GROUP_BY = "category"
LETTERS = "ABCDEFGHIJ"
_LEAD = r"^\s*(?:\**\s*)?(?:(?:the\s+)?(?:correct\s+)?(?:answer|option|choice)\s*(?:is)?\s*[:\-]?\s*)?"
_LETTER = re.compile(
    _LEAD + r"[\(\[]?([A-J])[\)\]]?(?:\s*[.:)\-]\s*(.*?))?\s*\**[.!]?\s*$", re.IGNORECASE | re.DOTALL
)
_PUNCT = str.maketrans({c: " " for c in string.punctuation + "\u2018\u2019\u201c\u201d\u2013\u2014"})
NUMBERS = {w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = re.sub(r"(\w)['\u2019]s\b", r"\1", text)
    return " ".join(NUMBERS.get(w, w) for w in text.translate(_PUNCT).split() if w not in ("a", "an", "the"))


def parse_letter(reply: str, choices: list[str]) -> str | None:
    """The letter a reply gives, strictly; None (invalid) for anything else."""
    text = (reply or "").strip()
    m = _LETTER.match(text)
    if m:
        k = LETTERS.index(m.group(1).upper())
        tail = (m.group(2) or "").strip()
        if k >= len(choices) or (tail and normalize(tail) != normalize(choices[k])):
            return None
        return LETTERS[k]
    hits = [k for k, c in enumerate(choices) if normalize(c) == normalize(text)]
    return LETTERS[hits[0]] if len(hits) == 1 else None


def mcq_docs(dataset):  # noqa: ANN001, ANN201 - a datasets.Dataset
    """``process_docs`` of the MCQ task: the multiple-choice rows (one per rotation)."""
    return dataset.filter(lambda d: d["kind"] == "mcq")


def open_docs(dataset):  # noqa: ANN001, ANN201 - a datasets.Dataset
    """``process_docs`` of the open task: the open-answer rows."""
    return dataset.filter(lambda d: d["kind"] == "open")


def doc_to_visual(doc: dict) -> list:
    from PIL import Image

    return [Image.open(HERE / m).convert("RGB") for m in doc.get("images") or []]


def doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    text = f"Memory:\n{doc['memory']}\n\nQuestion: {doc['question']}\n"
    if doc.get("choices"):
        text += "Options:\n" + "".join(f"{LETTERS[k]}. {c}\n" for k, c in enumerate(doc["choices"]))
        text += "Reply with the letter of the correct option only."
    else:
        text += "Reply with a short answer on one line, nothing else."
    return text


def process_results(doc: dict, results: list[str]) -> dict:
    reply = results[0] if results else ""
    if doc.get("choices"):
        ok = parse_letter(reply, doc["choices"]) == doc["target"]
    else:
        line = next((s.strip() for s in reply.splitlines() if s.strip()), "")
        refs = [doc["target"], *(doc.get("aliases") or [])]
        ok = bool(line) and any(normalize(line) == normalize(r) for r in refs)
    rec = {
        "item_id": doc["item_id"],
        "rotation": doc.get("rotation"),
        "n_rotations": doc.get("n_rotations") or 1,
        "correct": bool(ok),
        "group": doc["metadata"].get(GROUP_BY),
    }
    return {"accuracy": rec, "all_four": rec} if doc.get("choices") else {"accuracy": rec}


def complete_items(records: list[dict]) -> dict[str, list[bool]]:
    """Item id -> its answers, for the items whose every rotation was run (``--limit`` may cut
    an item's rotations short: that item is left out, so the metrics never count part of one)."""
    seen: dict[str, dict] = {}
    for r in records:
        seen.setdefault(r["item_id"], {})[r.get("rotation")] = (r["correct"], r.get("n_rotations") or 1)
    return {
        item: [ok for ok, _ in runs.values()]
        for item, runs in seen.items()
        if len(runs) == next(iter(runs.values()))[1]
    }


def aggregate_accuracy(records: list[dict]) -> float:
    """Answers right, over every rotation of the complete items (NaN when none is complete)."""
    answers = [ok for v in complete_items(records).values() for ok in v]
    return sum(answers) / len(answers) if answers else float("nan")


def aggregate_all_four(records: list[dict]) -> float:
    """Complete items answered right under every rotation (NaN when none is complete)."""
    items = complete_items(records)
    return sum(all(v) for v in items.values()) / len(items) if items else float("nan")
