"""verify without blind spots: one tampering per row, for each family, with checksums rewritten.

Each row edits a copy of a release the way a careless (or malicious) editor would, then
rewrites MANIFEST.json's file entries and checksums/sha256.txt to match, so only verify's
content checks can notice. The message must name what is wrong.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image
from typer.testing import CliRunner

from mnemoforge.cli import app
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.hashing import sha256_file
from mnemoforge.validators.release_check import verify_release

Tamper = Callable[[Path, str], None]  # (release copy, family)


def _replace(path: Path, data: bytes) -> None:
    """Write as a new file: the copy's files are hard links to the original release."""
    path.unlink()
    path.write_bytes(data)


def _jsonl_edit(path: Path, edit: Callable[[list[dict]], None]) -> None:
    rows = read_jsonl(path)
    edit(rows)
    _replace(
        path, "".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in rows).encode()
    )


def _parquet_edit(path: Path, edit: Callable[[list[dict]], list[dict]]) -> None:
    table = pq.read_table(path)
    rows = edit(table.to_pylist())
    path.unlink()
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)


def _manifest_edit(root: Path, edit: Callable[[dict], None]) -> None:
    m = json.loads((root / "MANIFEST.json").read_text())
    edit(m)
    _replace(root / "MANIFEST.json", json.dumps(m, indent=2).encode())


def _other_answer(q: dict) -> str:
    return next(o for o in (q.get("options") or []) if o != q["answer"]) if q.get("options") else "nobody"


def parquet_answer(root: Path, fam: str) -> None:
    def edit(rows: list[dict]) -> list[dict]:
        rows[0]["answer"] = _other_answer(read_jsonl(root / f"data/{fam}/questions.jsonl")[0])
        return rows

    _parquet_edit(root / f"data/{fam}/questions.parquet", edit)


def jsonl_answer(root: Path, fam: str) -> None:
    _jsonl_edit(
        root / f"data/{fam}/questions.jsonl", lambda rows: rows[0].update(answer=_other_answer(rows[0]))
    )


def parquet_row_dropped(root: Path, fam: str) -> None:
    _parquet_edit(root / f"data/{fam}/observations.parquet", lambda rows: rows[:-1])


def _names(root: Path) -> list[list[str]]:
    w = json.loads((root / "data/world.json").read_text())
    return [
        [x["name"] for x in w.get(k, []) if x.get("name")]
        for k in ("people", "entities", "places", "objects")
    ]


def question_retargeted(root: Path, fam: str) -> None:
    """A question text changed to name someone (or something) else, in both formats alike."""
    i, new = _retargeted(root, read_jsonl(root / f"data/{fam}/questions.jsonl"))

    def edit(rows: list[dict]) -> list[dict]:
        rows[i]["question"] = new
        return rows

    _jsonl_edit(root / f"data/{fam}/questions.jsonl", edit)
    _parquet_edit(root / f"data/{fam}/questions.parquet", edit)


def _retargeted(root: Path, rows: list[dict]) -> tuple[int, str]:
    for names in _names(root):
        for i, q in enumerate(rows):
            hit = next((n for n in names if n in q["question"]), None)
            if hit:
                other = next(n for n in names if n != hit and n not in hit and hit not in n)
                return i, q["question"].replace(hit, other)
    raise AssertionError("no question names anything")


def code_version_edited(root: Path, fam: str) -> None:
    _manifest_edit(root, lambda m: m.update(code_version="9.9.9"))


def seed_edited(root: Path, fam: str) -> None:
    _manifest_edit(root, lambda m: m.update(seed=m["seed"] + 1))


def questions_count_edited(root: Path, fam: str) -> None:
    _manifest_edit(root, lambda m: m["counts"].update(questions=m["counts"]["questions"] + 1))


FAMILY_COUNT = {"icm": "clips", "smm": "sources", "memeye": "images"}


def family_count_edited(root: Path, fam: str) -> None:
    key = FAMILY_COUNT[fam]
    _manifest_edit(root, lambda m: m["counts"].update({key: m["counts"][key] + 2}))


def image_edited(root: Path, fam: str) -> None:
    png = sorted((root / "media").rglob("*.png"))[0]
    im = Image.open(png).convert("RGB")
    im.putpixel((0, 0), tuple(255 - c for c in im.getpixel((0, 0))))
    png.unlink()
    im.save(png)


def theme_edited(root: Path, fam: str) -> None:
    p = root / "theme.yaml"
    _replace(p, p.read_bytes() + b"\n# edited\n")


def _mcq_index(root: Path, fam: str) -> int:
    rows = read_jsonl(root / f"data/{fam}/questions.jsonl")
    return next(i for i, q in enumerate(rows) if q.get("options") and q.get("rotations"))


def _edit_first_mcq(root: Path, view: str, fam: str, edit: Callable[[dict], None]) -> None:
    """Edit the first MCQ item of one view (``agent`` or ``data``), in both its formats alike."""
    i = _mcq_index(root, fam)

    def rows_edit(rows: list[dict]) -> list[dict]:
        edit(rows[i])
        return rows

    _jsonl_edit(root / f"{view}/{fam}/questions.jsonl", lambda rows: edit(rows[i]))
    _parquet_edit(root / f"{view}/{fam}/questions.parquet", rows_edit)


def _agent_edit(root: Path, fam: str, edit: Callable[[dict], None]) -> None:
    _edit_first_mcq(root, "agent", fam, edit)


def agent_options_reordered(root: Path, fam: str) -> None:
    def edit(q: dict) -> None:
        q["choices"][0][0], q["choices"][0][1] = q["choices"][0][1], q["choices"][0][0]

    _agent_edit(root, fam, edit)


def agent_option_text(root: Path, fam: str) -> None:
    _agent_edit(root, fam, lambda q: q["choices"][1].__setitem__(2, q["choices"][1][2] + " (edited)"))


def agent_question_text(root: Path, fam: str) -> None:
    _agent_edit(root, fam, lambda q: q.update(question=q["question"].rstrip("?") + " last year?"))


def _data_edit_consistently(root: Path, fam: str, edit: Callable[[dict], None]) -> None:
    """Edit the first MCQ item of the evaluator view in both formats, then rewrite the agent view
    from it with the release writer's own function: every table agrees, only meaning is wrong."""
    from mnemoforge.exporters.agent_tables import write_agent_view

    _edit_first_mcq(root, "data", fam, edit)
    for f in (root / "agent" / fam).rglob("*"):
        if f.is_file():
            f.unlink()  # new files, never writes through the hard links to the original
    write_agent_view(root, fam)


def distractor_is_the_answer(root: Path, fam: str) -> None:
    _data_edit_consistently(root, fam, lambda q: q["options"].__setitem__(2, q["answer"]))


def key_always_at_a(root: Path, fam: str) -> None:
    _data_edit_consistently(root, fam, lambda q: q.update(rotations=[[0, 1, 2, 3]] * len(q["rotations"])))


def manifest_name(root: Path, fam: str) -> None:
    _manifest_edit(root, lambda m: m.update(name="someone-else"))


def manifest_family(root: Path, fam: str) -> None:
    _manifest_edit(root, lambda m: m.update(family="nosuch"))


def manifest_other_family(root: Path, fam: str) -> None:
    _manifest_edit(root, lambda m: m.update(family="smm" if fam != "smm" else "icm"))


def manifest_version(root: Path, fam: str) -> None:
    _manifest_edit(root, lambda m: m.update(version="9.9.9"))


# (id, tampering, what the message must say; {fam} is filled in)
ROWS: list[tuple[str, Tamper, str]] = [
    ("answer_in_parquet_only", parquet_answer, "data/{fam}/questions.parquet: row 1"),
    ("answer_in_jsonl_only", jsonl_answer, "data/{fam}/questions.parquet: row 1"),
    ("parquet_row_dropped", parquet_row_dropped, "observations.parquet: "),
    ("question_names_someone_else", question_retargeted, "question text does not match its program"),
    ("code_version", code_version_edited, "code_version 9.9.9"),
    ("seed", seed_edited, "seed"),
    ("counts_questions", questions_count_edited, "counts.questions = "),
    ("family_count", family_count_edited, "counts.{count} = "),
    ("image_with_both_checksums", image_edited, "differs from"),
    ("theme_yaml", theme_edited, "theme_sha256 does not match theme.yaml"),
    # meaning, with every table consistent (issue 33)
    ("agent_options_reordered", agent_options_reordered, "options of rotation 0 are reordered"),
    ("agent_option_text", agent_option_text, "option text of rotation 1 differs"),
    ("agent_question_text", agent_question_text, "question text differs from data/{fam}"),
    ("distractor_is_the_answer", distractor_is_the_answer, "equals the answer"),
    ("key_always_at_a", key_always_at_a, "rotations put the key at AAAA"),
    ("manifest_name", manifest_name, "MANIFEST.json: name 'someone-else'"),
    ("manifest_family_unknown", manifest_family, "family 'nosuch' is not a known family"),
    ("manifest_family_other", manifest_other_family, "MANIFEST.json: family "),
    ("manifest_version", manifest_version, "version '9.9.9'"),
]


def _fix_checksums(root: Path) -> None:
    """Rewrite both checksum files to match the (tampered) files: only content checks remain."""
    m = json.loads((root / "MANIFEST.json").read_text())
    sums = root / "checksums/sha256.txt"
    lines = []
    for line in sums.read_text().splitlines():
        _, _, rel = line.partition("  ")
        lines.append(f"{sha256_file(root / rel)}  {rel}")
    _replace(sums, ("\n".join(lines) + "\n").encode())
    for rel in m["files"]:
        p = root / rel
        m["files"][rel] = {"sha256": sha256_file(p), "bytes": p.stat().st_size}
    _replace(root / "MANIFEST.json", json.dumps(m, indent=2).encode())


@pytest.fixture(scope="module")
def icm_release(tiny_build) -> Path:  # type: ignore[no-untyped-def]
    return tiny_build[2].release_dir  # the small icm theme, built once per session (tests/conftest.py)


class _Releases(dict):
    """family -> release folder, each session build asked for only when a test reads it (so a
    test of one family does not wait for the other families' builds). ``small_smm``: the ferry
    theme's smm release (23 items) instead of the shipped one (70 items), for the tampering rows."""

    def __init__(self, request: pytest.FixtureRequest, small_smm: bool = False) -> None:
        super().__init__()
        self.request, self.small_smm = request, small_smm

    def __missing__(self, fam: str) -> Path:
        get = self.request.getfixturevalue
        if fam == "smm":
            path = get("ferry_release").release_dir if self.small_smm else get("smm_release").root
        else:
            path = get("icm_release") if fam == "icm" else get(f"{fam}_release")
        self[fam] = path
        return path


@pytest.fixture
def releases(request: pytest.FixtureRequest) -> dict[str, Path]:
    return _Releases(request)


@pytest.fixture
def small_releases(request: pytest.FixtureRequest) -> dict[str, Path]:
    return _Releases(request, small_smm=True)


# each family's rows on the worker of the build they copy (the smm rows: the ferry build's)
TAMPERED_FAMILIES = ["icm", pytest.param("smm", marks=pytest.mark.xdist_group("ferry")), "memeye"]


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, copy_function=os.link)
    return dest


@pytest.mark.parametrize("fam", ["icm", "smm", "memeye"])
def test_untouched_release_verifies_and_prints_its_manifest_sha(releases: dict[str, Path], fam: str) -> None:
    assert verify_release(releases[fam]) == []
    r = CliRunner().invoke(app, ["verify", str(releases[fam])])
    assert r.exit_code == 0, r.output
    assert f"MANIFEST.json sha256 {sha256_file(releases[fam] / 'MANIFEST.json')}" in r.output


@pytest.mark.parametrize("fam", TAMPERED_FAMILIES)
@pytest.mark.parametrize(("tamper", "needle"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_tampering_is_caught_with_checksums_rewritten(
    small_releases: dict[str, Path], tmp_path: Path, fam: str, tamper: Tamper, needle: str
) -> None:
    releases = small_releases
    copy = _copy(releases[fam], tmp_path / "r")
    tamper(copy, fam)
    _fix_checksums(copy)
    problems = verify_release(copy)
    want = needle.format(fam=fam, count=FAMILY_COUNT[fam])
    assert any(want in p for p in problems), (want, problems)
    if tamper is image_edited:  # the copy shares files with the original by hard links
        assert verify_release(releases[fam]) == [], "the original release was altered"
