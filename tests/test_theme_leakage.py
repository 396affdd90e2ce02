"""Theme-true releases: a theme written with a vocabulary disjoint from every shipped theme and
content pack (tests/themes/, naming no pack) gets a release in which no title and no distinctive
three-word sequence (two content words or more) of a shipped theme or pack appears, in any text,
caption, table cell or drawn label, and whose pictures show what the theme declares."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mnemoforge import yaml_io
from mnemoforge.exporters.tables import read_jsonl
from mnemoforge.generators.smm.filler import banks
from mnemoforge.generators.smm.render import filler_content
from mnemoforge.schemas.packs import PACKS, load_pack, pack_texts, pack_titles
from mnemoforge.theme_io import THEMES_DIR, load_theme

from .conftest import TEST_THEMES

# words too common to make a sequence distinctive on their own
STOP = set(
    "a an the and or but of to in on at for with by from as is are was were be been it its this that "
    "these those i me my we our you your he she they them his her their there here what which who how "
    "when where why not no yes so if then than too very can could will would should do does did done "
    "have has had just all any some one two up down out over again now today get got let s t ll m re ve "
    "d about into after before more most other only same such own also new".split()
)


def _strings(x: Any) -> list[str]:
    if isinstance(x, str):
        return [x]
    if isinstance(x, dict):
        return [s for v in x.values() for s in _strings(v)]
    if isinstance(x, list | tuple):
        return [s for v in x for s in _strings(v)]
    return []


def _words(text: str) -> list[list[str]]:
    """Word runs of a text (placeholders split a template into runs)."""
    return [re.findall(r"[a-z0-9]+(?:'[a-z]+)?", part.lower()) for part in re.split(r"\{[^}]*\}", text)]


def _grams(text: str, n: int = 3) -> set[tuple[str, ...]]:
    out = set()
    for run in _words(text):
        for i in range(len(run) - n + 1):
            g = tuple(run[i : i + n])
            if sum(w not in STOP for w in g) >= 2:  # distinctive: two content words or more
                out.add(g)
    return out


def shipped() -> tuple[set[tuple[str, ...]], set[str]]:
    """Distinctive 3-grams and titles of every shipped theme and content pack."""
    grams: set[tuple[str, ...]] = set()
    titles: set[str] = set()
    for path in sorted(THEMES_DIR.glob("*.yaml")):
        data = yaml_io.safe_load(path.read_text(encoding="utf-8"))
        for s in _strings(data):
            grams |= _grams(s)
        theme = load_theme(path)
        titles.add(theme.title)
        if theme.smm:
            titles |= {s.title for s in theme.smm.sources} | {e.name for e in theme.smm.entities}
        if theme.memeye:
            titles |= {s.title for s in theme.memeye.scenarios}
            titles |= {n for s in theme.memeye.scenarios for n in s.scenes}
    for path in sorted(PACKS.glob("*.yaml")):
        pack = load_pack(path.stem)
        for s in pack_texts(pack):
            grams |= _grams(s)
        titles |= set(pack_titles(pack))
    return grams, {t for t in titles if len(t) > 3}


def leaks(texts: dict[str, str], own: str = "") -> list[str]:
    """Shipped titles and 3-grams found in ``texts``, except what the test theme ``own`` (a
    tests/themes file name) says itself (a bakery's own 'whiteboard' is its word, not a leak)."""
    grams, titles = shipped()
    if own:
        data = yaml_io.safe_load((TEST_THEMES / own).read_text(encoding="utf-8"))
        mine = " | ".join(_strings(data)).lower()
        grams = grams - _grams(mine)
        titles = {t for t in titles if t.lower() not in mine}
    title_res = {t: re.compile(rf"(?<![a-z0-9]){re.escape(t.lower())}(?![a-z0-9])") for t in titles}
    out = []
    for where, text in texts.items():
        for g in sorted(_grams(text) & grams):
            out.append(f"{where}: {' '.join(g)!r} in {text[:120]!r}")
        for t, rx in title_res.items():
            if rx.search(text.lower()):
                out.append(f"{where}: title {t!r} in {text[:120]!r}")
    return out


def _rows(path: Path) -> list[dict]:
    return read_jsonl(path) if path.exists() else []


def smm_texts(release: Path, run: Path) -> dict[str, str]:
    theme = load_theme(TEST_THEMES / "ferry_crew.yaml")
    bk = banks(theme)
    texts: dict[str, str] = {}
    for o in _rows(release / "data/smm/observations.jsonl"):
        texts[o["id"]] = o["content"]
    for c in _rows(release / "data/smm/captions.jsonl"):
        texts[f"caption {c['observation']}"] = c["caption"]
    for q in _rows(release / "data/smm/questions.jsonl"):
        texts[q["id"]] = " | ".join([q["question"], *map(str, q.get("options") or [])])
    for a in _rows(run / "episodes/smm_attachments.jsonl"):  # every drawn label and table cell
        spec = a["spec"]
        drawn = filler_content(bk, spec) if spec["kind"] == "filler" else spec
        texts[f"drawn {a['observation']}"] = " | ".join(_strings(json.loads(json.dumps(drawn))))
    return texts


def test_smm_release_of_a_disjoint_theme_leaks_nothing(ferry_release) -> None:  # type: ignore[no-untyped-def]
    texts = smm_texts(ferry_release.release_dir, ferry_release.run_dir)
    assert len(texts) > 200
    assert leaks(texts, "ferry_crew.yaml") == []


def test_smm_pictures_draw_the_themes_own_subjects(ferry_release) -> None:  # type: ignore[no-untyped-def]
    theme = load_theme(TEST_THEMES / "ferry_crew.yaml")
    assert theme.smm is not None
    own = {p.name for p in theme.cast} | {e.name for e in theme.smm.entities}
    own |= {s.title for s in theme.smm.sources} | {p.name for p in theme.places}
    own |= {k.noun for k in theme.smm.entity_kinds}
    rows = _rows(ferry_release.run_dir / "episodes/smm_attachments.jsonl")
    bk = banks(theme)
    assert {r["spec"]["kind"] for r in rows} >= {"filler", "table", "profile_card"}
    for r in rows:
        spec = r["spec"]
        drawn = " | ".join(_strings(filler_content(bk, spec) if spec["kind"] == "filler" else spec))
        codes = re.findall(r"\b[A-Z]{3}-\d+\b", drawn)  # record codes stand for entities
        assert codes or any(x in drawn for x in own), (r["observation"], drawn)


def memeye_texts(release: Path) -> dict[str, str]:
    texts: dict[str, str] = {}
    for o in _rows(release / "data/memeye/observations.jsonl"):
        texts[o["id"]] = o["content"]
    for c in _rows(release / "data/memeye/captions.jsonl"):
        texts[f"caption {c['observation']}"] = c["caption"]
    for q in _rows(release / "data/memeye/questions.jsonl"):
        texts[q["id"]] = " | ".join([q["question"], *map(str, q.get("options") or [])])
    return texts


def test_memeye_release_of_a_disjoint_theme_leaks_nothing(bakery_release) -> None:  # type: ignore[no-untyped-def]
    texts = memeye_texts(bakery_release.release_dir)
    assert len(texts) > 30
    assert leaks(texts, "bakery_log.yaml") == []


def test_memeye_pictures_show_the_declared_scenes(bakery_release) -> None:  # type: ignore[no-untyped-def]
    theme = load_theme(TEST_THEMES / "bakery_log.yaml")
    assert theme.memeye is not None
    kinds = {s.id: s.kind for s in theme.memeye.scenarios}
    scenes = {s.id: set(s.scenes) for s in theme.memeye.scenarios}
    release = bakery_release.release_dir
    obs = _rows(release / "data/memeye/observations.jsonl")
    images = [o for o in obs if o.get("media")]
    assert {o["source"] for o in images} == set(kinds)
    for o in images:
        assert o["kind"] == f"{kinds[o['source']]}_photo"  # no pack: the composed kind name
        assert (release / o["media"][0]).is_file()
        assert any(n in o["content"] for n in scenes[o["source"]]), o["content"]


def test_the_leak_detector_finds_pack_and_theme_strings() -> None:
    assert leaks({"x": "See the Team offsite agenda."})  # an office pack title
    assert leaks({"x": "My doctor suggested a walk."})  # a visual_diary pack sequence
    assert leaks({"x": "Pricing Sync moved."})  # an entity of a shipped theme
    assert not leaks({"x": "The Kelp Run sails at 05:40 from the North slip."})


def _constants(path: Path, docstrings: bool) -> list[str]:
    """The string constants of a module (with or without its docstrings)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                docs.add(id(body[0].value))
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and (docstrings or id(n) not in docs)
    ]


def test_memeye_generators_hold_no_domain_words() -> None:
    """The memeye generator modules (``vocab.py`` with its docstrings) name no drawable of the
    library and no wording or chat line of a pack: those are data (``visual_catalog`` names what
    the renderer draws; packs say how a domain speaks)."""
    from mnemoforge.backends.image.visual_catalog import CATALOG

    names = set()
    for d in CATALOG.values():
        names |= {*d.gists, *d.items, d.instances, d.detail, d.countables, d.colour_object}
    rx = re.compile(
        r"(?<![a-z])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![a-z])"
    )
    pack_grams: set[tuple[str, ...]] = set()
    for path in sorted(PACKS.glob("*.yaml")):
        mp = load_pack(path.stem).memeye
        if mp is not None:
            for s in _strings(mp.model_dump()):
                pack_grams |= _grams(s)
    root = Path(__file__).resolve().parent.parent / "mnemoforge/generators/memeye"
    found = []
    for path in sorted(root.glob("*.py")):
        for text in _constants(path, docstrings=path.name == "vocab.py"):
            hits = rx.findall(text.lower()) + [" ".join(g) for g in _grams(text) & pack_grams]
            found += [f"{path.name}: {h!r} in {text[:60]!r}" for h in hits]
    assert found == []
    assert rx.search("a star sticker") and not rx.search("the starboard side")


def test_smm_photo_captions_take_the_place_names_article(ferry_release) -> None:  # type: ignore[no-untyped-def]
    """A board photographed at "the wheelhouse" is "a photo of the wheelhouse board", never "a the"
    (the English layer's ``indefinite``; found by benchmarks/world_audit.py)."""
    caps = [c["caption"] for c in _rows(ferry_release.release_dir / "agent/smm/captions.jsonl")]
    photos = [c for c in caps if "photo of" in c]
    assert photos and not [c for c in photos if re.search(r"\b(a|an) (the|a|an)\b", c)], photos[:3]
