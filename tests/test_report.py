"""The static HTML report: figures, example items, relative links, determinism, a real browser."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mnemoforge.exporters.report import _card, write_report
from mnemoforge.pipeline import BuildResult
from tests.browser import CHROMIUM, CHROMIUM_FLAGS

FIGURES = ["cast", "timeline", "sources", "funnel", "heatmap", "categories"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _Tags(HTMLParser):
    """Collects every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(html_text: str, name: str) -> list[dict[str, str | None]]:
    parser = _Tags()
    parser.feed(html_text)
    return [attrs for tag, attrs in parser.tags if tag == name]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tiny_build) -> BuildResult:  # type: ignore[no-untyped-def]
    return tiny_build[2]  # a small album, built once per session (tests/conftest.py)


@pytest.fixture(scope="module")
def site(built: BuildResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    index = write_report(built.release_dir, tmp_path_factory.mktemp("report") / "site")
    assert index.name == "index.html" and index.is_file()
    return index.parent


def _questions(built: BuildResult) -> list[dict]:
    path = built.release_dir / "data" / "icm" / "questions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_every_image_is_a_local_png_and_nothing_is_remote(site: Path) -> None:
    text = (site / "index.html").read_text(encoding="utf-8")
    imgs = _tags(text, "img")
    assert len(imgs) >= len(FIGURES)
    for attrs in imgs:
        src = attrs["src"] or ""
        assert not re.match(r"^([a-z]+:|/|\\)", src), f"not a relative link: {src}"
        path = (site / src).resolve()
        assert path.is_relative_to(site.resolve()) and path.is_file(), src
        assert path.read_bytes()[:8] == PNG_MAGIC, src
        assert attrs.get("alt"), f"{src} has no alt text"
    for attrs in _tags(text, "a"):
        assert (attrs["href"] or "").startswith("#"), attrs
    assert "<script" not in text.lower()
    assert not re.search(r"https?://", text), "the page must not load anything from the network"
    for tag in ("link", "iframe", "object", "embed"):
        assert not _tags(text, tag), tag


def test_figures_exist_are_valid_pngs_and_show_something(site: Path) -> None:
    text = (site / "index.html").read_text(encoding="utf-8")
    ids = {attrs.get("id") for attrs in _tags(text, "img")}
    for name in FIGURES:
        path = site / "figures" / f"{name}.png"
        assert path.stat().st_size > 4000, name
        with Image.open(path) as img:
            img.verify()
        with Image.open(path) as img:
            assert img.format == "PNG" and img.width >= 400 and img.height >= 250, (name, img.size)
            pixels = np.asarray(img.convert("L"), dtype=float)
        assert pixels.std() > 8, f"{name} looks blank"
        assert f"fig-{name}" in ids, name


def test_heatmap_slot_says_when_there_are_no_xy_labels(site: Path) -> None:
    text = (site / "index.html").read_text(encoding="utf-8")
    assert "No X/Y labels in this release" in text
    assert 'id="fig-heatmap"' in text


def test_example_items_show_answers_cutoffs_and_evidence(built: BuildResult, site: Path) -> None:
    text = (site / "index.html").read_text(encoding="utf-8")
    questions = _questions(built)
    shown = [q for q in questions if escape(q["question"]) in text]
    assert {q["category"] for q in shown} == {q["category"] for q in questions}
    for q in shown:
        card = text[text.index(escape(q["question"])) :].split('<div class="card">')[0]
        assert escape(q["answer"]) in card, q["id"]
        assert "cutoff: " + ("full timeline" if q["cutoff"] is None else f"up to clip {q['cutoff']}") in card
        for oid in q["evidence"][:6]:
            assert escape(oid) in card, (q["id"], oid)
        stills = [a["src"] for a in _tags(card, "img")]
        assert stills and all(s.startswith("media/shots/") for s in stills), q["id"]
    clips = [
        json.loads(line) for line in (built.release_dir / "data/icm/clips.jsonl").read_text().splitlines()
    ]
    lines = {ln["id"]: ln["text"] for c in clips for s in c["shots"] for ln in s["dialogue"]}
    spoken = [oid for q in shown for oid in q["evidence"][:6] if oid in lines]
    for oid in spoken:  # speech evidence quotes the line
        assert escape(lines[oid]) in text, oid


def test_a_run_folder_reports_too(built: BuildResult, tmp_path: Path) -> None:
    index = write_report(built.run_dir, tmp_path / "run-site")
    text = index.read_text(encoding="utf-8")
    assert f"run {built.run_dir.name}" in text
    for name in FIGURES:
        assert (tmp_path / "run-site" / "figures" / f"{name}.png").is_file()
    for q in _questions(built)[:3]:
        assert escape(q["answer"]) in text or escape(q["question"]) not in text


def test_same_input_gives_the_same_bytes(built: BuildResult, site: Path, tmp_path: Path) -> None:
    again = write_report(built.release_dir, tmp_path / "again").parent
    assert _tree(again) == _tree(site)
    write_report(built.release_dir, again)  # rewriting in place changes nothing either
    assert _tree(again) == _tree(site)


def test_text_is_escaped() -> None:
    q = {"question": "Who said <b>hi</b> & left?", "answer": "<script>x</script>", "evidence": ["e1"]}
    ev = {
        "id": "e1",
        "still": None,
        "speech": True,
        "text": '"<i>"',
        "speaker": "A&B",
        "when": "",
        "where": "",
    }
    out = _card({"q": q, "cutoff": "full timeline", "evidence": [ev]})
    assert "<script>" not in out and "<b>" not in out and "<i>" not in out
    assert "&lt;script&gt;" in out and "A&amp;B" in out and "&amp; left" in out


def test_unknown_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="neither a release"):
        write_report(tmp_path, tmp_path / "out")


# ------------------------------------------------------------------------------ headless browser


def _chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
    flags = [
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile}",
        "--virtual-time-budget=5000",
    ]
    return subprocess.run(
        [str(CHROMIUM), *flags, *args], capture_output=True, text=True, timeout=60, check=False
    )


needs_chromium = pytest.mark.skipif(
    not CHROMIUM.is_file(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
)


@needs_chromium
def test_browser_renders_a_page_that_is_not_blank(site: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    url = (site / "index.html").resolve().as_uri()
    r = _chromium([f"--screenshot={shot}", "--window-size=1280,4000", url], tmp_path / "profile")
    assert shot.is_file(), r.stderr[-2000:]
    with Image.open(shot) as img:
        assert img.size == (1280, 4000)
        pixels = np.asarray(img.convert("RGB"), dtype=float)
    assert pixels.std() > 20, "the screenshot is blank"
    header = pixels[:120, :600].reshape(-1, 3)
    assert (np.abs(header - [31, 42, 55]).sum(axis=1) < 12).mean() > 0.5, "the styled header is missing"
    colourful = (pixels.max(axis=2) - pixels.min(axis=2)) > 40
    assert colourful.mean() > 0.02, "no figure content visible"


@needs_chromium
def test_browser_loads_every_figure(site: Path, tmp_path: Path) -> None:
    text = (site / "index.html").read_text(encoding="utf-8")
    dom = _chromium(["--dump-dom", (site / "index.html").resolve().as_uri()], tmp_path / "p1").stdout
    ids = {a.get("id") for a in _tags(dom, "img")}
    assert {f"fig-{name}" for name in FIGURES} <= ids, dom[:500]
    # The page has no script; a test copy gets one that records what each image decoded to.
    probe = tmp_path / "probe"
    shutil.copytree(site, probe)
    script = (
        "<script>addEventListener('load',()=>{for(const i of document.images)"
        "i.setAttribute('data-w',i.naturalWidth);document.body.setAttribute('data-loaded','1')})</script>"
    )
    (probe / "index.html").write_text(text.replace("</body>", script + "</body>"), encoding="utf-8")
    dom = _chromium(["--dump-dom", (probe / "index.html").resolve().as_uri()], tmp_path / "p2").stdout
    assert 'data-loaded="1"' in dom, dom[-500:]
    imgs = _tags(dom, "img")
    assert len(imgs) == len(_tags(text, "img"))
    for attrs in imgs:
        assert int(attrs.get("data-w") or 0) > 0, f"{attrs.get('src')} did not load in the browser"


def test_heatmap_uses_xy_labels_when_questions_carry_them() -> None:
    from mnemoforge.exporters.report_figures import taxonomy_heatmap, xy_label

    labelled = [{"category": "c", "x": f"X{i % 3 + 1}", "y": f"Y{i % 2 + 1}"} for i in range(7)]
    assert xy_label(labelled[0]) == ("X1", "Y1")
    assert xy_label({"category": "c", "taxonomy": {"x": "X2", "y": "Y3"}}) == ("X2", "Y3")
    with_xy = np.asarray(taxonomy_heatmap(labelled).convert("RGB"), dtype=int)
    without = np.asarray(
        taxonomy_heatmap([{"category": "c", "evidence_clips": ["a"]}]).convert("RGB"), dtype=int
    )
    note = np.array([255, 244, 214])  # the banner saying there are no X/Y labels
    assert not (np.abs(with_xy - note).sum(axis=2) == 0).any()
    assert (np.abs(without - note).sum(axis=2) == 0).mean() > 0.01


def test_report_command(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    bad = CliRunner().invoke(app, ["report", str(tmp_path), "--out", str(tmp_path / "r")])
    assert bad.exit_code == 2 and "neither" in bad.output


def test_report_command_writes_the_page(built: BuildResult, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mnemoforge.cli import app

    r = CliRunner().invoke(app, ["report", str(built.release_dir), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    assert Path(r.output.strip().splitlines()[-1]) == tmp_path / "rep" / "index.html"
    assert (tmp_path / "rep" / "index.html").read_text().count("<img") >= 6
