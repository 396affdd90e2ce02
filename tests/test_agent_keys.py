"""Agent-view option layouts hide the key: rotations are cyclic shifts of a seeded shuffle, the
answer's first letter is spread evenly over a release, and ``verify`` and the release's own
validator fail a release whose agent rows put the old layout back."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

from mnemoforge.exporters import release_validator
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.questions.key_letters import spread
from mnemoforge.generators.questions.options import rotations
from mnemoforge.schemas.questions import Lineage, Program, Question
from mnemoforge.validators.release_check import verify_release
from tests.test_release_views import _rechecksum


def _old_rotations(n: int = 4) -> list[list[int]]:
    """The layout of every release before this check: the answer inserted at letter r among
    distractors kept in one order (only the answer moves, and it is A of the first list)."""
    others = list(range(1, n))
    return [others[:r] + [0] + others[r:] for r in range(n)]


def _item(i: int, rots: list[list[int]]) -> Question:
    return Question(
        id=f"x_{i:03d}", family="x", category="c", question=f"Q{i}?", answer=f"a{i}",
        options=[f"a{i}", f"b{i}", f"c{i}", f"d{i}"], rotations=rots, target_people=[], evidence=["o"],
        facts_read=[], cutoff=None, program=Program(fn="f"),
        lineage=Lineage(template="t", seed=1, program_hash="h", world_hash="w", answer_hash="a"),
    )  # fmt: skip


def _rows(qs: list[Question]) -> list[tuple[list[list[str]], str]]:
    return [([[q.options[j] for j in r] for r in q.rotations], q.answer) for q in qs]  # type: ignore[index,union-attr]


def test_rotations_are_cyclic_shifts_where_every_option_moves() -> None:
    for qid in ("a", "b", "c"):
        rots = rotations(7, qid)
        assert sorted(r.index(0) for r in rots) == [0, 1, 2, 3]
        for opt in range(4):  # every option, the answer too, visits every letter once
            assert sorted(r.index(opt) for r in rots) == [0, 1, 2, 3]
            assert all((b.index(opt) - a.index(opt)) % 4 == 1 for a, b in zip(rots, rots[1:], strict=False))
    assert len({tuple(rotations(7, f"q{i}")[0]) for i in range(40)}) > 6  # a shuffle per item


def test_spread_balances_the_first_letter_and_keeps_the_set_of_orders() -> None:
    qs = [_item(i, rotations(3, f"x_{i:03d}")) for i in range(41)]
    out = spread(qs, seed=3)
    letters = Counter(q.rotations[0].index(0) for q in out)  # type: ignore[index]
    assert max(letters.values()) - min(letters.values()) <= 1
    for a, b in zip(qs, out, strict=True):
        assert a.id == b.id and sorted(map(tuple, a.rotations)) == sorted(map(tuple, b.rotations))  # type: ignore[arg-type]
    assert release_validator.key_leaks(_rows(out)) == []
    stats = release_validator.key_recovery(_rows(out))
    assert max(s["accuracy"] for s in stats.values()) <= 0.25 + 1 / 41 + 1e-9


def test_the_old_layout_is_caught_by_position_and_movement_rules() -> None:
    leaks = release_validator.key_leaks(_rows([_item(i, _old_rotations()) for i in range(12)]))
    assert any(x.startswith("list1_letterA ") for x in leaks)
    assert any(x.startswith("moves_most ") for x in leaks)
    # one row per rotation with only the answer present in all of them (a set difference)
    rows = [([[f"a{i}", f"b{i}"], [f"a{i}", f"c{i}"], [f"a{i}", f"d{i}"]], f"a{i}") for i in range(12)]
    assert any(x.startswith("present_most ") for x in release_validator.key_leaks(rows))


def test_shipped_layouts_give_no_rule_above_chance(family_release: Path) -> None:
    release = family_release
    fam = json.loads((release / "MANIFEST.json").read_text())["family"]
    answers = {q["id"]: q["answer"] for q in read_jsonl(release / f"data/{fam}/questions.jsonl")}
    for path in sorted((release / "agent" / fam).rglob("questions.jsonl")):
        rows = [(r["choices"], answers[r["id"]]) for r in read_jsonl(path) if r.get("choices")]
        assert rows, path
        assert release_validator.key_leaks(rows) == [], path
        firsts = Counter(ch[0].index(a) for ch, a in rows)
        assert max(firsts.values()) - min(firsts.values()) <= 1, (path, firsts)


def test_verify_and_validator_fail_the_old_layout(memeye_release: Path, tmp_path: Path) -> None:
    root = tmp_path / "rel"
    shutil.copytree(memeye_release, root)
    data = {q["id"]: q for q in read_jsonl(root / "data/memeye/questions.jsonl")}
    rel = "agent/memeye/questions.jsonl"
    rows = read_jsonl(root / rel)
    for r in rows:  # the layout every release had before: answer first, then moving through A-D
        if r.get("choices"):
            opts = data[r["id"]]["options"]
            r["choices"] = [[opts[i] for i in rot] for rot in _old_rotations(len(opts))]
    (root / rel).write_text("".join(json.dumps(r) + "\n" for r in rows))
    _rechecksum(root, rel)
    problems = verify_release(root)
    assert any(p.startswith(f"{rel}: the option lists give the answer away: list1_letterA") for p in problems)
    r = subprocess.run(
        [sys.executable, str(root / "scripts/validate_release.py"), str(root)], capture_output=True, text=True
    )
    assert r.returncode == 1 and f"{rel}: the option lists give the answer away" in r.stdout
