"""The diary's peer format: one CSV row per item (``mnemoforge export --format diary-csv``).

Registered in the ``mnemoforge.exporters`` entry-point group; ``export_release`` claims the folder,
writes the ``mnemoforge_export.json`` marker and removes stale files, as for the built-in formats.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from mnemoforge.exporters.peers.common import PeerItem
from mnemoforge.exporters.peers.formats import PeerFormat
from mnemoforge.store import atomic

FILE = "diary_qa.csv"
COLUMNS = ("key", "question", "answer", "day", "evidence")


def _questions(release_dir: Path) -> list[dict]:
    rows = (release_dir / "data/diary/questions.jsonl").read_text().splitlines()
    return [json.loads(r) for r in rows]


def write(release_dir: Path, out: Path, base_url: str | None) -> tuple[list[Path], list[dict], dict]:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    items = []
    for i, q in enumerate(_questions(release_dir)):
        key = f"d{i:03d}"
        w.writerow([key, q["question"], q["answer"], q["program"]["args"]["day"], " ".join(q["evidence"])])
        items.append({"key": key, "id": q["id"], "cutoff": q["cutoff"]})
    return [atomic.write_text(out / FILE, buf.getvalue())], items, {}


def read(export_dir: Path, release_dir: Path) -> list[PeerItem]:
    marker = json.loads((export_dir / "mnemoforge_export.json").read_text())
    items = {it["key"]: it for it in marker["items"]}
    with (export_dir / FILE).open(newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        it = items[r["key"]]
        cutoff = -1 if it["cutoff"] is None else int(it["cutoff"])  # -1: the whole diary
        out.append(PeerItem(it["id"], r["question"], r["answer"], None, tuple(r["evidence"].split()), cutoff))
    return out


DIARY_CSV = PeerFormat("diary-csv", ("diary",), write, read)
