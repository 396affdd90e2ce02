"""``mnemoforge export RELEASE --format lmms-eval --out DIR``: an lmms-eval task folder.

* ``DIR/mnemoforge_<family>.yaml``: the task (``samples.jsonl`` by its absolute path through the
  ``json`` dataset builder, so re-export after moving the folder; ``generate_until``, greedy);
* ``DIR/utils.py``: ``doc_to_visual`` (the kept observations' images as PIL images),
  ``doc_to_text`` (memory, question, lettered options), ``process_results`` (the strict letter
  parse for MCQ, normalised exact match for open items), aggregations ``accuracy`` (pooled over
  rotations) and ``all_four`` (items right under every rotation);
* ``DIR/samples.jsonl`` and the images under ``DIR/media/``.

Pass ``--include_path DIR`` to lmms-eval and run ``--tasks mnemoforge_<family>``. Function-call
items are left out (they need ``score_calls``: use the inspect export or ``mnemoforge evaluate``).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from mnemoforge.exporters.harness_common import harness_rows, link_media, prepare_out, write_marker
from mnemoforge.store import atomic

UTILS_SOURCE = Path(__file__).with_name("lmms_task_utils.py")
"""Copied into the task folder as ``utils.py`` (``GROUP_BY`` set to the family's table key)."""

GROUP_BY = {"icm": "category", "smm": "task", "memeye": "cell"}


def task_yaml(family: str, data_file: Path | None = None) -> str:
    """The task YAML (with lmms-eval's ``!function`` tags, which plain YAML loaders do not know)."""
    body = {
        "task": f"mnemoforge_{family}",
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(data_file or "samples.jsonl")}},
        "test_split": "test",
        "output_type": "generate_until",
        "doc_to_visual": "FN:utils.doc_to_visual",
        "doc_to_text": "FN:utils.doc_to_text",
        "doc_to_target": "target",
        "generation_kwargs": {"max_new_tokens": 64, "temperature": 0, "do_sample": False},
        "process_results": "FN:utils.process_results",
        "metric_list": [
            {"metric": "accuracy", "aggregation": "FN:utils.aggregate_accuracy", "higher_is_better": True},
            {"metric": "all_four", "aggregation": "FN:utils.aggregate_all_four", "higher_is_better": True},
        ],
        "metadata": {"version": 0.1, "source": "mnemoforge", "family": family},
    }
    text = yaml.safe_dump(body, sort_keys=False)
    return text.replace("FN:", "!function ")


def export_lmms(release: Path, out: Path, max_context_chars: int = 60000) -> list[Path]:
    """Write the lmms-eval task folder; returns the files written."""
    release, out = Path(release), Path(out)
    prepare_out(out, release, "lmms-eval")
    family, rows = harness_rows(release, max_context_chars)
    rows = [r for r in rows if r["kind"] != "call"]  # function calls need score_calls: inspect / evaluate
    files = [atomic.write_jsonl(out / "samples.jsonl", rows), *link_media(release, out, rows)]
    files.append(
        atomic.write_text(
            out / f"mnemoforge_{family}.yaml", task_yaml(family, (out / "samples.jsonl").resolve())
        )
    )
    files.append(
        atomic.write_text(
            out / "utils.py",
            UTILS_SOURCE.read_text(encoding="utf-8").replace(
                'GROUP_BY = "category"', f"GROUP_BY = {GROUP_BY.get(family, 'category')!r}"
            ),
        )
    )
    files.append(write_marker(out, release, "lmms-eval", files, len(rows)))
    return files
