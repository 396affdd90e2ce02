"""Two agent views of one release, diffed, do not point at the evidence (issue 31): smm's
source-concentrated twin against the distributed release, and the old twin (only the evidence
blocks moved into the hub) put back, which the diff catches. Agent-visible media names are
opaque: no face anchor is named by its person."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.validators.view_diff import pair_leaks, views


def _evidence(root: Path, fam: str) -> set[str]:
    return {e for q in read_jsonl(root / f"data/{fam}/questions.jsonl") for e in q["evidence"]}


def test_twin_and_release_differ_only_where_evidence_is_not_denser(smm_release) -> None:  # type: ignore[no-untyped-def]
    root = smm_release.root
    assert set(views(root, "smm")) == {".", "concentrated"}
    assert pair_leaks(root, "smm", _evidence(root, "smm")) == []


def test_the_evidence_only_twin_is_caught(smm_release, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The twin every release had before: only the evidence rows moved into the hub."""
    root = tmp_path / "rel"
    shutil.copytree(smm_release.root / "agent", root / "agent")
    evidence = _evidence(smm_release.root, "smm")
    hub = json.loads((smm_release.root / "dataset_statistics.json").read_text())["smm"]["concentrated"]["hub"]
    rows = read_jsonl(root / "agent/smm/observations.jsonl")
    old = [r | {"source": hub, "episode": hub} if r["id"] in evidence else r for r in rows]
    (root / "agent/smm/concentrated/observations.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in old)
    )
    leaks = pair_leaks(root, "smm", evidence)
    assert leaks and "rows that differ" in leaks[0]


def test_face_anchors_have_opaque_names(tiny_build) -> None:  # type: ignore[no-untyped-def]
    release = tiny_build[2].release_dir
    world = json.loads((release / "data/world.json").read_text())
    anchors = sorted(p.stem for p in (release / "media/anchors").glob("*.png"))
    assert anchors and len(anchors) == len(world["people"])
    names = {p["id"] for p in world["people"]} | {
        p["name"].lower().replace(" ", "_") for p in world["people"]
    }
    assert not set(anchors) & names
    owners = json.loads((release / "data/icm/annotations/anchors.json").read_text())
    assert set(owners) == {p["id"] for p in world["people"]}
    assert sorted(Path(v).stem for v in owners.values()) == anchors
