"""Shortcut solvers per family: one table (solver × family: accuracy, n) over built releases.

    python benchmarks/shortcuts.py [THEME.yaml | RELEASE_DIR ...] [--outputs DIR] [--seed N]
                                   [--json benchmarks/results/shortcuts.json] [--per-theme]
                                   [--no-minilm]

Each argument is a theme (built here with ``pipeline.build`` into ``--outputs``, default a folder
under /tmp) or a frozen release folder (read as it is). Without arguments: every shipped theme
(``assets/themes/*.yaml``) and the unseen-domain orchard themes (``tests/themes/orchard_*.yaml``).
For every kept multiple-choice item each solver of ``validators/shortcut_panel.py`` is forced to
choose (a k-way tie counts 1/k); items a solver does not apply to are left out of its n. Prints
accuracy (n) per solver and family, pooled over the releases of that family, marks cells above
the bound (chance + 5 points) with ``*`` (``i``: a row reported only, see :data:`REPORTED_ONLY`),
and writes every figure (per release too) as JSON.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from mnemoforge.validators import shortcut_panel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import write_result  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BOUND = 0.05
REPORTED_ONLY = {"text_sentences_x1_scene"}
"""Rows outside the goal: MemEye's scene-level (X1) captions may name the scene's gist, as MemEye
designs them (finer cells are held to the bound in ``text_sentences``)."""


def default_inputs() -> list[Path]:
    return sorted((ROOT / "assets/themes").glob("*.yaml")) + sorted(
        (ROOT / "tests/themes").glob("orchard_*.yaml")
    )


def release_of(path: Path, outputs: Path, seed: int | None) -> Path:
    """``path`` when it is a release folder, else the release built from the theme at ``path``."""
    if (path / "MANIFEST.json").is_file():
        return path
    from mnemoforge.pipeline import build

    return build(path, seed=seed, outputs=outputs).release_dir


def pooled(per_release: dict[str, dict]) -> dict[str, dict[str, dict]]:
    """Family -> solver -> pooled {accuracy, chance, n} (sums of hits and chances over releases)."""
    acc: dict[str, dict[str, dict[str, float]]] = {}
    for rel in per_release.values():
        fam = acc.setdefault(rel["family"], {})
        for solver, s in rel["solvers"].items():
            cell = fam.setdefault(solver, {"hits": 0.0, "chance": 0.0, "n": 0})
            cell["hits"] += s.get("hits", s["accuracy"] * s["n"])
            cell["chance"] += s["chance"] * s["n"]
            cell["n"] += s["n"]
    return {
        f: {
            s: {
                "accuracy": round(c["hits"] / c["n"], 4),
                "chance": round(c["chance"] / c["n"], 4),
                "n": int(c["n"]),
            }
            for s, c in sorted(solvers.items())
            if c["n"]
        }
        for f, solvers in sorted(acc.items())
    }


def table(columns: dict[str, dict[str, dict]]) -> str:
    """Rows: solvers; columns: ``columns`` keys; cells ``0.27 (41)``, ``*`` above the bound."""
    solvers = sorted({s for col in columns.values() for s in col})
    width = max(len(s) for s in solvers) if solvers else 10
    head = f"{'solver':<{width}}  " + "  ".join(f"{c:>16}" for c in columns)
    lines = [head, "-" * len(head)]
    for s in solvers:
        cells = []
        for col in columns.values():
            x = col.get(s)
            if x is None:
                cells.append(f"{'-':>16}")
                continue
            mark = "*" if x["accuracy"] > x["chance"] + BOUND else " "
            mark = "i" if s in REPORTED_ONLY else mark
            cells.append(f"{x['accuracy']:.2f} ({x['n']:>4}){mark:>1}".rjust(16))
        lines.append(f"{s:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="*", type=Path)
    ap.add_argument("--outputs", type=Path, default=None)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--json", type=Path, default=HERE / "results" / "shortcuts.json")
    ap.add_argument("--per-theme", action="store_true", help="one column per release instead of per family")
    ap.add_argument("--no-minilm", action="store_true", help="leave out the MiniLM solvers")
    args = ap.parse_args(argv)
    outputs = args.outputs or Path(tempfile.mkdtemp(prefix="mnemoforge-shortcuts-"))
    per_release: dict[str, dict] = {}
    for path in args.inputs or default_inputs():
        release = release_of(path, outputs, args.seed)
        inp = shortcut_panel.load(release)
        name = path.stem if path.suffix == ".yaml" else release.parent.name
        per_release[name] = {
            "family": inp.family,
            "release": str(release),
            "kept": len(inp.questions),
            "mcq": sum(1 for q in inp.questions if q.options),
            "solvers": shortcut_panel.panel(inp, minilm=not args.no_minilm),
        }
        print(
            f"{name}: {inp.family}, {per_release[name]['mcq']} MCQ of {len(inp.questions)} kept",
            file=sys.stderr,
        )
    families = pooled(per_release)
    cols = (
        {f"{r['family']}:{n}"[:16]: r["solvers"] for n, r in per_release.items()}
        if args.per_theme
        else families
    )
    print(table(cols))
    above = sorted(
        f"{f}/{s}"
        for f, ss in families.items()
        for s, x in ss.items()
        if x["accuracy"] > x["chance"] + BOUND and s not in REPORTED_ONLY
    )
    print(f"\nabove chance + {BOUND:.2f}: {', '.join(above) if above else 'none'}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_result(args.json, {"families": families, "releases": per_release}, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
