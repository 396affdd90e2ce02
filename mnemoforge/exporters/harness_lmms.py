"""``mnemoforge export RELEASE --format lmms-eval --out DIR``: an lmms-eval task folder.

* ``DIR/mnemoforge_<family>_mcq.yaml`` and ``DIR/mnemoforge_<family>_open.yaml`` (the kinds the
  release has), tagged ``mnemoforge_<family>``: one task per row kind (``process_docs`` keeps that
  kind's rows of ``samples.jsonl``, read through the ``json`` dataset builder by its path relative
  to the task file, so the folder can move; ``generate_until``, greedy). lmms-eval resolves a
  relative ``data_files`` path of a local builder against the task file's folder
  (``utils.load_yaml_config``, lmms-eval 0.7.3 and later); older versions hand it to ``datasets``,
  which resolves it against the working directory: run them from ``DIR``;
* ``DIR/utils.py``: ``doc_to_visual`` (the kept observations' images as PIL images),
  ``doc_to_text`` (memory, question, lettered options), ``process_results`` (the strict letter
  parse for MCQ, normalised exact match for open items), aggregations ``accuracy`` (pooled over
  rotations) and ``all_four`` (items right under every rotation), both over the items whose
  every rotation was run (``--limit`` may cut the last one short);
* ``DIR/samples.jsonl`` and the images under ``DIR/media/``.

Pass ``--include_path DIR`` to lmms-eval and run ``--tasks mnemoforge_<family>`` (every task) or
``--tasks mnemoforge_<family>_mcq``. Function-call items are left out (they need
``score_calls``: use the inspect export or ``mnemoforge evaluate``).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from mnemoforge.exporters.harness_common import group_by, harness_rows, link_media, prepare_out, write_marker
from mnemoforge.store import atomic

UTILS_SOURCE = Path(__file__).with_name("lmms_task_utils.py")
"""Copied into the task folder as ``utils.py`` (``GROUP_BY`` set to the family's table key)."""



DATA_FILE = "samples.jsonl"
"""The rows, beside the task file; the YAML names it relative to itself."""


KINDS = ("mcq", "open")
"""One task per row kind: MCQ rows score per rotation and all-four, open rows by exact match."""


def task_yaml(family: str, kind: str) -> str:
    """The task YAML of one row kind (with lmms-eval's ``!function`` tags, which plain YAML
    loaders do not know); its ``tag`` runs every kind of the release together."""
    names = ["accuracy", "all_four"] if kind == "mcq" else ["accuracy"]
    metrics = [
        {"metric": m, "aggregation": f"FN:utils.aggregate_{m}", "higher_is_better": True} for m in names
    ]
    body = {
        "task": f"mnemoforge_{family}_{kind}",
        "tag": f"mnemoforge_{family}",
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": DATA_FILE}},
        "test_split": "test",
        "process_docs": f"FN:utils.{kind}_docs",
        "output_type": "generate_until",
        "doc_to_visual": "FN:utils.doc_to_visual",
        "doc_to_text": "FN:utils.doc_to_text",
        "doc_to_target": "target",
        "generation_kwargs": {"max_new_tokens": 64, "temperature": 0, "do_sample": False},
        "process_results": "FN:utils.process_results",
        "metric_list": metrics,
        "metadata": {"version": 0.2, "source": "mnemoforge", "family": family},
    }
    text = yaml.safe_dump(body, sort_keys=False)
    return text.replace("FN:", "!function ")


def export_lmms(release: Path, out: Path, max_context_chars: int = 60000) -> list[Path]:
    """Write the lmms-eval task folder; returns the files written."""
    release, out = Path(release), Path(out)
    prepare_out(out, release, "lmms-eval")
    family, rows = harness_rows(release, max_context_chars)
    rows = [r for r in rows if r["kind"] != "call"]  # function calls need score_calls: inspect / evaluate
    files = [atomic.write_jsonl(out / DATA_FILE, rows), *link_media(release, out, rows)]
    for kind in KINDS:
        if any(r["kind"] == kind for r in rows):
            files.append(atomic.write_text(out / f"mnemoforge_{family}_{kind}.yaml", task_yaml(family, kind)))
    files.append(
        atomic.write_text(
            out / "utils.py",
            UTILS_SOURCE.read_text(encoding="utf-8").replace(
                'GROUP_BY = "category"', f"GROUP_BY = {group_by(family)!r}"
            ),
        )
    )
    files.append(write_marker(out, release, "lmms-eval", files, len(rows)))
    return files
