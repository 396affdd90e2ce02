"""verify's third pass: what the release *means*, beyond bytes and counts.

Checksums catch an edit that leaves the checksum files alone; the first two passes
(``release_check``, ``release_audit``) catch edits that disagree with the data. These checks catch
edits that are consistent with every checksum but change what a model is asked or scored on:

- ``agent_view``: the agent view is rebuilt from ``data/`` by the release writer's own function
  (:func:`mnemoforge.exporters.agent_tables.write_agent_view`, into a scratch folder), and every
  agent table must hold the same rows: a reordered option list, an edited option or question
  text, a changed cutoff or an added table shows, whatever layout the writer uses.
- ``option_keys``: in the evaluator view, the correct option comes first, no distractor equals
  the answer (or one of its aliases) or another distractor, each rotation is an order of all
  the options, and the rotations put the key once at each letter.
- ``manifest_fields``: MANIFEST.json's own fields against theme.yaml, config.resolved.json and
  the changelog: name (the theme's name, ``-sSEED`` for another seed), family (a registered one),
  version; none of them may crash verify, whatever it was edited to.

What no check inside a release can catch is listed in ``docs/reliability.md``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mnemoforge import yaml_io
from mnemoforge.exporters.tables import TableReader
from mnemoforge.registry import DEFAULT_FAMILY
from mnemoforge.validators.answerers.protocol import LETTERS

MANIFEST = "MANIFEST.json"


def _norm(text: Any) -> str:
    return " ".join(str(text).casefold().split())


def manifest_fields(root: Path, manifest: dict[str, Any]) -> list[str]:
    """MANIFEST.json's name, family and version against what the release was built from."""
    from mnemoforge.generators.families import family_names

    problems: list[str] = []
    fam = manifest.get("family")
    if fam not in (known := family_names()):
        problems.append(f"{MANIFEST}: family {fam!r} is not a known family ({', '.join(known)})")
    elif not (root / "data" / str(fam)).is_dir():
        problems.append(f"{MANIFEST}: family {fam!r}, but the release has no data/{fam}/ folder")
    theme = _theme_head(root)
    cfg = _json(root / "config.resolved.json")
    cfg_theme = cfg.get("theme") if isinstance(cfg.get("theme"), dict) else {}
    for where, t in (("theme.yaml", theme), ("config.resolved.json", cfg_theme)):
        if not t:
            continue
        t_fam = t.get("family", DEFAULT_FAMILY)
        if fam != t_fam:
            problems.append(f"{MANIFEST}: family {fam!r}, but {where} says {t_fam!r}")
        if "name" in t and manifest.get("name") != t["name"]:
            problems.append(f"{MANIFEST}: name {manifest.get('name')!r}, but {where} names {t['name']!r}")
    run_id = str(manifest.get("run_id", ""))
    if theme.get("name") and not run_id.startswith(f"{theme['name']}-s"):
        problems.append(f"{MANIFEST}: run_id {run_id!r} is not a run of theme {theme['name']!r}")
    version = manifest.get("version")
    log = root / "CHANGELOG.md"
    if log.is_file() and f"## {version}\n" not in log.read_text(encoding="utf-8", errors="replace"):
        problems.append(f"{MANIFEST}: version {version!r} has no entry in CHANGELOG.md")
    return problems + card_identity(root, manifest)


def card_identity(root: Path, manifest: dict[str, Any]) -> list[str]:
    """The card's configs name this release (``name version (run RUN)``), as the writer wrote them."""
    from mnemoforge.exporters.card import config_entry
    from mnemoforge.validators.release_audit import card_meta

    identity = (str(manifest.get("name")), str(manifest.get("version")), str(manifest.get("run_id")))
    for cfg in card_meta(root).get("configs") or []:
        if not isinstance(cfg, dict) or "description" not in cfg:
            continue  # a card written before configs carried the release's identity
        want = config_entry(str(cfg.get("config_name")), "", str(manifest.get("family")), identity)
        for key in ("description", "version"):
            if cfg.get(key) != want.get(key):
                return [f"README.md: config {cfg.get('config_name')} says {key} {cfg.get(key)!r}; "
                        f"{MANIFEST} gives {want.get(key)!r}"]  # fmt: skip
    return []


def family_readable(root: Path, family: str) -> bool:
    """Whether the content checks can run at all: a registered family with its data folder."""
    from mnemoforge.generators.families import family_names

    return family in family_names() and (root / "data" / family / "questions.jsonl").is_file()


def content(root: Path, family: str, tables: TableReader) -> list[str]:
    """The meaning checks that read tables: option keys of the evaluator view, the agent view."""
    rel = f"data/{family}/questions.jsonl"
    return option_keys(rel, tables.rows(root / rel)) + agent_view(root, family, tables)


def stopped(exc: BaseException) -> str:
    """The one line verify prints when an edit leaves a file it cannot read at all."""
    what = f"{type(exc).__name__}: {str(exc)[:300]}"
    return f"verify stopped early: {what} (a file does not read as a release file)"


def _theme_head(root: Path) -> dict[str, Any]:
    """theme.yaml's top-level fields, or {} when it does not read as a mapping."""
    path = root / "theme.yaml"
    if not path.is_file():
        return {}
    try:
        data = yaml_io.safe_load(path.read_text(encoding="utf-8"))
    except Exception:  # an unreadable theme.yaml is reported by its checksum and hash checks
        return {}
    return data if isinstance(data, dict) else {}


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def option_keys(rel: str, rows: list[dict]) -> list[str]:
    """Options and rotations of each evaluator question row (``rel`` names the table)."""
    problems: list[str] = []
    for q in rows:
        opts, qid = q.get("options"), q.get("id")
        if not opts:
            continue
        answers = {_norm(a) for a in [q.get("answer"), *(q.get("answer_aliases") or [])]}
        if _norm(opts[0]) != _norm(q.get("answer")):
            problems.append(f"{rel}: {qid}: options[0] {opts[0]!r} is not the answer (the key comes first)")
        for i, o in enumerate(opts[1:], 1):
            if _norm(o) in answers:
                problems.append(f"{rel}: {qid}: distractor {i} {o!r} equals the answer")
            elif any(_norm(o) == _norm(p) for p in opts[1:i]):
                problems.append(f"{rel}: {qid}: distractor {i} {o!r} repeats another option")
        rots = q.get("rotations")
        if not rots:
            continue
        n = len(opts)
        bad = [r for r, rot in enumerate(rots) if sorted(rot) != list(range(n))]
        if bad:
            problems.append(f"{rel}: {qid}: rotation {bad[0]} is not an order of the {n} options")
            continue
        keys = [LETTERS[rot.index(0)] for rot in rots]
        if len(rots) == n and len(set(keys)) != n:
            problems.append(
                f"{rel}: {qid}: rotations put the key at {''.join(keys)}; it must sit once at each letter"
            )
    return problems


def rederive_agent_view(root: Path, family: str) -> tuple[Path, Path]:
    """(scratch folder, its agent folder): the agent view written from ``root``'s data by the
    release writer's function. The caller removes the scratch folder."""
    from mnemoforge.exporters.agent_tables import write_agent_view
    from mnemoforge.exporters.views import AGENT_DIR

    scratch = Path(tempfile.mkdtemp(prefix="mnemoforge-verify-"))
    for entry in root.iterdir():
        if entry.name != AGENT_DIR:
            os.symlink(entry.resolve(), scratch / entry.name)
    write_agent_view(scratch, family)
    return scratch, scratch / AGENT_DIR


def agent_view(root: Path, family: str, tables: TableReader | None = None) -> list[str]:
    """Every agent table against the same table rebuilt from ``data/`` by the writer."""
    from mnemoforge.exporters.views import AGENT_DIR

    tables = tables or TableReader()
    mine = root / AGENT_DIR / family
    if not mine.is_dir():
        return []  # check_agent_view reports a release without an agent view
    scratch, derived = rederive_agent_view(root, family)
    try:
        ours = _tables_under(derived / family)
        theirs = _tables_under(mine)
        problems = [
            f"{AGENT_DIR}/{family}/{rel}: missing (the writer derives it from data/{family}/)"
            for rel in sorted(set(ours) - set(theirs))
        ]
        problems += [
            f"{AGENT_DIR}/{family}/{rel}: not derived from data/{family}/ by the release writer"
            for rel in sorted(set(theirs) - set(ours))
        ]
        for rel in sorted(set(ours) & set(theirs)):
            shown = f"{AGENT_DIR}/{family}/{rel}"
            want, got = TableReader().rows(ours[rel]), tables.rows(theirs[rel])
            if want == got:
                continue
            if Path(rel).stem == "questions":
                problems += _question_rows(shown, f"data/{family}/{rel}", want, got)
            else:
                problems += _first_difference(shown, want, got)
        return problems
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _tables_under(folder: Path) -> dict[str, Path]:
    if not folder.is_dir():
        return {}
    return {
        p.relative_to(folder).as_posix(): p
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix in (".jsonl", ".parquet")
    }


def _question_rows(shown: str, source: str, want: list[dict], got: list[dict]) -> list[str]:
    """What differs between the derived and the shipped agent questions, said item by item."""
    if [r.get("id") for r in want] != [r.get("id") for r in got]:
        return [f"{shown}: question ids differ from {source}"]
    out: list[str] = []
    for w, g in zip(want, got, strict=True):
        qid = w.get("id")
        if w.get("question") != g.get("question"):
            out.append(f"{shown}: {qid}: question text differs from {source}")
        wc, gc = w.get("choices"), g.get("choices")
        if wc != gc:
            out.append(f"{shown}: {qid}: {_choices_difference(wc, gc, source)}")
        for k in sorted((set(w) | set(g)) - {"question", "choices", "id"}):
            if w.get(k) != g.get(k):
                out.append(f"{shown}: {qid}: field {k!r} differs from {source}")
        if len(out) >= 20:
            out.append(f"{shown}: (further differing items not listed)")
            break
    return out


def _choices_difference(want: Any, got: Any, source: str) -> str:
    if not isinstance(want, list) or not isinstance(got, list) or len(want) != len(got):
        return f"option lists differ from {source} (rotations added, dropped or not lists)"
    for r, (w, g) in enumerate(zip(want, got, strict=True)):
        if w == g:
            continue
        if isinstance(w, list) and isinstance(g, list) and sorted(map(str, w)) == sorted(map(str, g)):
            return f"options of rotation {r} are reordered (the letters no longer match {source})"
        return f"option text of rotation {r} differs from {source}"
    return f"option lists differ from {source}"


def _first_difference(shown: str, want: list[dict], got: list[dict]) -> list[str]:
    if len(want) != len(got):
        return [f"{shown}: {len(got)} rows, but the view derived from data/ has {len(want)}"]
    for i, (w, g) in enumerate(zip(want, got, strict=True)):
        if w != g:
            col = next((k for k in sorted(set(w) | set(g)) if w.get(k) != g.get(k)), "?")
            rid = w.get("id", f"line {i + 1}")
            return [f"{shown}: row {i + 1} ({rid}) column {col!r} differs from the view derived from data/"]
    return []
