"""Rows shared by the inspect_ai and lmms-eval task exports.

Each row's *input* is built from the release's agent view only (:func:`load_agent_view`): the
``full_context_text`` memory (every observation at or before the item's cutoff, images as their
captions, the oldest dropped first past ``max_context_chars``) followed by the question. The
*target* (a letter per rotation, the answer text, or the call plan) comes from the evaluator keys,
as any harness's scorer needs it. MCQ items become one row per rotation, tied by ``item_id``,
so the harness can report all-four-rotations accuracy; each row carries its item's number of
rotations, so a harness run cut short (``--limit``) scores only the items it ran whole.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from mnemoforge.evaluation.keys import EvaluationError, load_keys
from mnemoforge.evaluation.methods import MethodConfig, MethodInput, full_context_text
from mnemoforge.exporters.views import load_agent_view
from mnemoforge.store import atomic
from mnemoforge.validators.answerers.protocol import IMAGE_SUFFIXES

MAX_IMAGES = 8

MARKER = "mnemoforge_harness.json"


def group_by(family: str) -> str:
    """The row key a harness groups its metrics by: the family's last ``eval_keys`` key (icm
    category, smm task, memeye cell); ``category`` for a family no installed package registers."""
    from mnemoforge.generators.families import get_family

    try:
        return get_family(family).eval_keys[-1]
    except KeyError:
        return "category"


def harness_rows(release: Path, max_context_chars: int = 60000) -> tuple[str, list[dict[str, Any]]]:
    """``(family, rows)``; each row has ``id``, ``item_id``, ``kind``, ``memory``, ``question``,
    ``choices`` (MCQ), ``target``, ``rotation``, ``n_rotations`` (how many the item has), ``images``
    (release-relative paths of the kept observations' images, the latest :data:`MAX_IMAGES`) and
    ``metadata`` (table groups, cutoff, rotation)."""
    view = load_agent_view(release)
    keys = load_keys(release)
    inp = MethodInput(view, MethodConfig(max_context_chars=max_context_chars))
    rows = []
    for item in view.items:
        key = keys[item.id]
        built = full_context_text(inp, item)
        memory = "\n".join(built.lines) or "(nothing)"
        kept = set(built.observation_ids)
        images = [
            m
            for o in view.history(item.cutoff)
            if o["id"] in kept
            for m in o.get("media") or []
            if m.lower().endswith(IMAGE_SUFFIXES)
        ][-MAX_IMAGES:]
        meta = {
            "item_id": item.id,
            "family": view.family,
            "category": key.category,
            "cutoff": item.cutoff,
            **key.group(),
        }
        if item.choices:
            for r, (choices, gold) in enumerate(zip(item.choices, key.gold_letters(), strict=True)):
                rows.append(
                    {
                        "id": f"{item.id}#r{r}",
                        "item_id": item.id,
                        "kind": "mcq",
                        "memory": memory,
                        "question": item.question,
                        "choices": choices,
                        "target": gold,
                        "rotation": r,
                        "n_rotations": len(item.choices),
                        "images": images,
                        "metadata": {**meta, "rotation": r, "n_rotations": len(item.choices)},
                    }
                )
        else:
            target = json.dumps(key.structured_answer) if key.kind == "call" else key.answer
            rows.append(
                {
                    "id": item.id,
                    "item_id": item.id,
                    "kind": key.kind,
                    "memory": memory,
                    "question": item.question,
                    "choices": None,
                    "target": target,
                    "rotation": None,
                    "n_rotations": 1,
                    "images": images,
                    "aliases": key.aliases,
                    "metadata": meta,
                }
            )
    return view.family, rows


def prepare_out(out: Path, release: Path, fmt: str) -> None:
    """An empty folder, or one holding an earlier export of this format (replaced)."""
    if out.resolve().is_relative_to(Path(release).resolve()):
        raise EvaluationError(f"{out}: inside the release {release}; releases are never modified")
    if out.exists() and any(out.iterdir()):
        marker = out / MARKER
        if not marker.is_file() or json.loads(marker.read_text()).get("format") != fmt:
            raise EvaluationError(f"{out}: not empty and not an earlier {fmt} export; choose another folder")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def write_marker(out: Path, release: Path, fmt: str, files: list[Path], n_rows: int) -> Path:
    return atomic.write_json(
        out / MARKER,
        {
            "format": fmt,
            "release": str(release),
            "rows": n_rows,
            "files": sorted(str(f.relative_to(out)) for f in files),
        },
    )


def link_media(release: Path, out: Path, rows: list[dict]) -> list[Path]:
    """Hard-link (or copy) every image the rows name into ``out``, keeping release-relative paths."""
    import os

    files = []
    for rel in sorted({m for r in rows for m in r.get("images") or []}):
        src, dst = Path(release) / rel, out / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(src, dst)
        except OSError:
            shutil.copyfile(src, dst)
        files.append(dst)
    return files
