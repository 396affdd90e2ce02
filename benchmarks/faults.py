"""The reliability fault table (issue 33): every fault the third round tried, run again, one table.

Rows:

- **themes**: every mutation class of ``theme_mutations.py`` over the three families' starter
  themes (``theme check`` on each mutant; up to ``--builds-per-class`` accepted mutants of each
  family and class are then built), and the same classes over the themes kept outside the project
  (``tests/themes/``). Goal: every mutant refused in one line naming file and field within a second,
  or (where the class may be valid) built into a non-empty release.
- **verify**: the tamper table of ``tests/test_verify_tampering.py`` on an icm, an smm and a memeye
  release, checksums rewritten each time. Goal: every tampering reported.
- **evaluate**: a loopback OpenAI-protocol server that answers 500 to image requests (a text-only
  server), and one that is down. Goal: no image sent after one probe, every item answered; a down
  server's items counted as failed (never scored) and the CLI exits 1.
- **load**: two releases named ``0.1.0`` loaded with ``datasets`` in one cache, and one without a
  config name. Goal: each gives its own rows.
- **modes**: every file and folder of the releases, their runs and an export. Goal: ``0666 & ~umask``
  and ``0777 & ~umask`` (0644 / 0755 under umask 022).
- **review**: two review servers on one synthetic run (an in-process one and a ``mnemoforge review``
  subprocess), 8 threads x 60 POSTs alternating between them (``tests/review_race.py``); 120 POSTs
  at once to one server; decisions for an unknown shot or item, or an unknown verdict. Goal: every
  POST answered, every acknowledged decision in the store as posted, unknown ids and verdicts 4xx
  with nothing written.

    python benchmarks/faults.py                   # everything (about an hour on 2 shared cores)
    python benchmarks/faults.py --mutants 200     # an evenly spaced sample of the mutants

Writes ``benchmarks/results/faults.json``. Figures (times) from a shared machine are indicative.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

import fault_themes  # noqa: E402
from machine import write_result  # noqa: E402
from theme_mutations import all_mutants  # noqa: E402

Row = dict[str, Any]


def row(area: str, fault: str, goal: str, result: str, ok: bool, **detail: Any) -> Row:
    return {"area": area, "fault": fault, "goal": goal, "result": result, "at_goal": ok, **detail}


# --- themes ----------------------------------------------------------------------------------


def theme_rows(bases: dict[str, dict], label: str, limit: int | None, builds_per_class: int) -> list[Row]:
    mutants = [m for fam, base in bases.items() for m in all_mutants(fam.split(":")[0], base)]
    mutants = fault_themes.select(mutants, limit)
    recs = fault_themes.run_all(mutants, bases, build=False, progress=False)
    by_id = {m.id + f"#{i}": m for i, m in enumerate(mutants)}
    picked: dict[tuple[str, str], int] = Counter()
    with tempfile.TemporaryDirectory(prefix="mf-faults-build-") as tmp:
        for (key, m), rec in zip(by_id.items(), recs, strict=True):
            pair = (m.family, m.cls)
            if rec["outcome"] != "accepted" or picked[pair] >= builds_per_class:
                continue
            picked[pair] += 1
            rec.update(fault_themes.build_mutant(m, Path(tmp)))
            rec["at_goal"] = fault_themes.at_goal(rec) and rec["outcome"] == "built"
            print(f"  built {key}: {rec['outcome']}", flush=True)
    out = []
    classes: dict[str, list[dict]] = defaultdict(list)
    for r in recs:
        classes[r["class"]].append(r)
    for cls, rs in sorted(classes.items()):
        outcomes = Counter(r["outcome"] for r in rs)
        slowest = max(r.get("check_cpu_seconds") or r["check_seconds"] for r in rs)
        good = sum(r["at_goal"] for r in rs)
        expect = "refused" if all(r["expect"] == "reject" for r in rs) else "refused, or built"
        out.append(
            row(
                "themes" + label,
                f"{cls} ({len(rs)} mutants)",
                f"{expect}; one line; < {fault_themes.CHECK_GOAL_S:g} CPU-s",
                ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
                + f"; slowest check {slowest:.2f} CPU-s",
                good == len(rs),
                off_goal=[
                    {k: r.get(k) for k in ("id", "outcome", "message", "detail", "stack")}
                    for r in rs
                    if not r["at_goal"]
                ],
            )
        )
    return out


def external_themes() -> dict[str, dict]:
    import yaml

    out = {}
    for t in sorted((ROOT / "tests" / "themes").glob("*.yaml")):
        data = fault_themes._jsonable(yaml.safe_load(t.read_text()))
        out[f"{data.get('family', 'icm')}:{t.stem}"] = data
    return out


# --- releases for the other rows ---------------------------------------------------------------


def build_releases(work: Path) -> dict[str, Path]:
    """icm (two seeds: two releases both named 0.1.0), smm and memeye starter releases."""
    import yaml

    from mnemoforge.pipeline import build

    bases = fault_themes.base_themes()
    out = {}
    for key, fam, seed in (("icm", "icm", None), ("icm_seed2", "icm", 2), ("smm", "smm", None),
                           ("memeye", "memeye", None)):  # fmt: skip
        theme = work / f"{fam}.yaml"
        theme.write_text(yaml.safe_dump(bases[fam], sort_keys=False))
        t0 = time.perf_counter()
        out[key] = build(theme, seed=seed, outputs=work / "outputs", workers=1).release_dir
        print(f"  built {key} in {time.perf_counter() - t0:.0f} s: {out[key]}", flush=True)
    return out


# --- verify ------------------------------------------------------------------------------------


def tamper_rows(releases: dict[str, Path], work: Path) -> list[Row]:
    from mnemoforge.validators.release_check import verify_release
    from tests.test_verify_tampering import FAMILY_COUNT, ROWS, _copy, _fix_checksums

    out = []
    for name, tamper, needle in ROWS:
        got = []
        for fam in ("icm", "smm", "memeye"):
            copy = work / f"tamper-{name}-{fam}"
            _copy(releases[fam], copy)
            try:
                tamper(copy, fam)
                _fix_checksums(copy)
                problems = verify_release(copy)
                want = needle.format(fam=fam, count=FAMILY_COUNT[fam])
                validator = subprocess.run(
                    [sys.executable, str(copy / "scripts/validate_release.py"), str(copy)],
                    capture_output=True, text=True, check=False,
                )  # fmt: skip
                got.append((fam, any(want in p for p in problems), validator.returncode == 1))
            except Exception as e:  # verify must never crash
                got.append((fam, False, False))
                print(f"  {name}/{fam}: {type(e).__name__}: {e}", flush=True)
            finally:
                shutil.rmtree(copy, ignore_errors=True)
        caught = [f for f, ok, _ in got if ok]
        bundled = [f for f, _, ok in got if ok]
        out.append(
            row(
                "verify",
                f"tamper: {name}",
                "reported by verify (3 families)",
                f"verify {len(caught)}/3; bundled validator {len(bundled)}/3",
                len(caught) == 3,
                bundled_validator=bundled,
            )
        )
    return out


# --- evaluate ----------------------------------------------------------------------------------


def evaluate_rows(release: Path, work: Path) -> list[Row]:
    import yaml
    from typer.testing import CliRunner

    from mnemoforge.cli import app
    from mnemoforge.evaluation.runner import evaluate
    from tests.llm_servers import LLMServer, Reply, error_body
    from tests.test_evaluate_failures import _has_image

    def spec(srv: LLMServer, name: str) -> Path:
        block = {"provider": "openai", "model": name, "base_url": srv.base_url, "api_key_env": None,
                 "max_retries": 1, "retry": {"base_delay": 0.01, "max_delay": 0.05}}  # fmt: skip
        path = work / f"{name}.yaml"
        path.write_text(yaml.safe_dump({"name": name, "text": {"backend": block}}))
        return path

    out = []
    with LLMServer("openai", default_text="A") as srv:
        srv.reply_for = lambda rec: (
            Reply(500, error_body("openai", 500, "no images")) if _has_image(rec) else None
        )
        res = {
            m: evaluate(release, m, spec(srv, "textonly"), work / f"eval-{m}", limit=8)
            for m in ("question_only", "oracle_evidence", "full_context_multimodal")
        }
        probes = sum(_has_image(r) and "one-pixel image" in str(r.json) for r in srv.requests)
        images = sum(_has_image(r) and "one-pixel image" not in str(r.json) for r in srv.requests)
    s = {m: r["summary"] for m, r in res.items()}
    failed = sum(v["failed"] for v in s.values())
    out.append(
        row(
            "evaluate",
            "text-only server (HTTP 500 on images), 3 methods x 8 items",
            "no image but the probes (one per run with images); every item answered",
            f"probes {probes} (with retries); other image requests {images}; failed {failed}; answered "
            + ", ".join(f"{m} {v['answered']}" for m, v in s.items()),
            images == 0 and failed == 0 and 0 < probes,
        )
    )
    with LLMServer("openai") as srv:
        srv.reply_for = lambda rec: Reply(500, error_body("openai", 500, "down"))
        path = spec(srv, "down")
        r = CliRunner().invoke(
            app,
            ["evaluate", str(release), "--method", "oracle_evidence", "--model", str(path), "--limit", "4",
             "--out", str(work / "eval-down")],
        )  # fmt: skip
    summary = json.loads((work / "eval-down" / "results.json").read_text())["summary"]
    ok = (
        r.exit_code == 1
        and summary["failed"] == 4
        and summary["score"] is None
        and "Traceback" not in r.output
    )
    out.append(
        row(
            "evaluate",
            "server down (HTTP 500 on every call), CLI",
            "items failed, not scored; exit 1",
            f"exit {r.exit_code}; failed {summary['failed']}/4; score {summary['score']}",
            ok,
        )
    )
    return out


# --- load --------------------------------------------------------------------------------------


def load_rows(a: Path, b: Path, work: Path) -> list[Row]:
    from mnemoforge.exporters.tables import read_jsonl
    from tests.test_release_identity import _load

    cache = work / "hf-cache"
    want = {r: [q["id"] for q in read_jsonl(r / "data/icm/questions.jsonl")] for r in (a, b)}
    got_a = _load(a, cache, "icm_questions")
    got_b = _load(b, cache, "icm_questions")
    got_default = _load(b, cache)
    return [
        row(
            "load",
            "two releases both named 0.1.0, one HF cache",
            "each loads its own rows",
            f"first {'own' if got_a == want[a] else 'WRONG'} rows, second "
            f"{'own' if got_b == want[b] else 'the first one' if got_b == want[a] else 'WRONG'} rows",
            got_a == want[a] and got_b == want[b] and want[a] != want[b],
        ),
        row(
            "load",
            "load_dataset(folder) without a config name",
            "the family's questions",
            "ok" if got_default == want[b] else "wrong or failed",
            got_default == want[b],
        ),
    ]


# --- modes -------------------------------------------------------------------------------------


def mode_rows(releases: dict[str, Path], work: Path) -> list[Row]:
    from mnemoforge.exporters.peers import export_release
    from mnemoforge.store.atomic import dir_mode, file_mode

    export = work / "export-locomo"
    export_release(releases["icm"], "locomo", export)
    roots = {
        "releases": list(releases.values()),
        "runs": [r.parents[2] / "runs" for r in releases.values()][:1],
        "exports": [export],
    }
    out = []
    for what, folders in roots.items():
        bad, n = [], 0
        for folder in folders:
            for p in [folder, *folder.rglob("*")]:
                if p.name.endswith(".lock") or p.is_symlink():
                    continue
                n += 1
                mode = stat.S_IMODE(p.stat().st_mode)
                if mode != (dir_mode() if p.is_dir() else file_mode()):
                    bad.append(f"{p}: {oct(mode)}")
        out.append(
            row(
                "modes",
                f"{what}: {n} files and folders",
                f"files {oct(file_mode())}, folders {oct(dir_mode())}",
                f"{len(bad)} other",
                not bad,
                off_goal=bad[:10],
            )
        )
    return out


def review_rows(work: Path) -> list[Row]:
    import threading

    from mnemoforge.review_server import ReviewServer
    from mnemoforge.validators.human_review import decisions_path
    from tests.review_race import PER_THREAD, THREADS, post, two_server_race
    from tests.review_runs import synthesise_run

    base = synthesise_run(work / "review" / "run", shots=300, items=200, clips=60)
    race = two_server_race(Path(shutil.copytree(base, work / "review" / "race", symlinks=True)))
    lost = len(race.lost) + len(race.differ)
    out = [
        row(
            "review",
            f"two servers, {THREADS} threads x {PER_THREAD} POSTs",
            "every POST answered; every acknowledged decision kept as posted",
            f"acknowledged {len(race.acked)}/{race.posted}; unanswered or refused {len(race.failures)}; "
            f"lost or changed {lost}",
            not race.failures and len(race.acked) == race.posted and not lost,
            off_goal=(race.failures + [f"{k}:{i}" for k, i in race.lost + race.differ])[:10],
        )
    ]
    run = Path(shutil.copytree(base, work / "review" / "one", symlinks=True))
    srv = ReviewServer(run).start()
    try:
        refused = [
            post(srv.url, {"kind": "shot", "id": "c9999_s00", "decision": "pass"})[0],
            post(srv.url, {"kind": "item", "id": "c0000_s00", "decision": "pass"})[0],  # a shot id
            post(srv.url, {"kind": "shot", "id": "c0000_s00", "decision": "maybe"})[0],
        ]
        written = decisions_path(run).exists()
        codes: list[int | str] = []
        lock = threading.Lock()

        def one(n: int) -> None:
            try:
                code: int | str = post(srv.url, {"kind": "item", "id": f"q{n:05d}", "decision": "pass"})[0]
            except OSError as e:
                code = str(e)
            with lock:
                codes.append(code)

        pool = [threading.Thread(target=one, args=(n,)) for n in range(120)]
        for th in pool:
            th.start()
        for th in pool:
            th.join(timeout=120)
    finally:
        srv.stop()
    out.append(
        row(
            "review",
            "unknown shot, unknown item, unknown verdict",
            "4xx each, nothing written",
            f"HTTP {', '.join(map(str, refused))}; store {'written' if written else 'untouched'}",
            all(400 <= c < 500 for c in refused) and not written,
        )
    )
    ok = sum(c == 200 for c in codes)
    out.append(
        row(
            "review",
            "120 POSTs at once to one server",
            "every one answered 200",
            f"answered 200: {ok}/120",
            ok == 120,
            off_goal=[str(c) for c in codes if c != 200][:10],
        )
    )
    return out


# --- main --------------------------------------------------------------------------------------


def print_table(rows: list[Row]) -> None:
    widths = [8, 58, 46]
    print(f"{'area':<{widths[0]}} {'fault':<{widths[1]}} {'at goal':<7} result")
    for r in rows:
        mark = "yes" if r["at_goal"] else "NO"
        print(f"{r['area']:<{widths[0]}} {r['fault'][: widths[1]]:<{widths[1]}} {mark:<7} {r['result']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", type=int, default=None, help="an evenly spaced sample of this many mutants")
    ap.add_argument("--external", type=int, default=150, help="mutants of the themes outside the project")
    ap.add_argument(
        "--builds-per-class", type=int, default=1, help="accepted mutants built per family and class"
    )
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/faults.json")
    a = ap.parse_args()
    os.environ.setdefault("MNEMOFORGE_CACHE", tempfile.mkdtemp(prefix="mf-faults-cache-"))
    t0 = time.perf_counter()
    rows: list[Row] = []
    print("themes: the starter themes' mutants", flush=True)
    rows += theme_rows(fault_themes.base_themes(), "", a.mutants, a.builds_per_class)
    print("themes: the themes kept outside the project", flush=True)
    rows += theme_rows(external_themes(), " (outside)", a.external, 0)
    with tempfile.TemporaryDirectory(prefix="mf-faults-") as tmp:
        work = Path(tmp)
        print("building the releases the other rows read", flush=True)
        releases = build_releases(work)
        print("verify", flush=True)
        rows += tamper_rows(releases, work)
        print("evaluate", flush=True)
        rows += evaluate_rows(releases["smm"], work)
        print("load", flush=True)
        rows += load_rows(releases["icm"], releases["icm_seed2"], work)
        print("modes", flush=True)
        rows += mode_rows(releases, work)
        print("review", flush=True)
        rows += review_rows(work)
    print_table(rows)
    result = {
        "rows": rows,
        "at_goal": sum(r["at_goal"] for r in rows),
        "rows_total": len(rows),
        "seconds": round(time.perf_counter() - t0),
        "note": "times from a shared 2-core machine: indicative",
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    write_result(a.out, result, indent=1, default=str)
    print(f"{result['at_goal']} of {len(rows)} rows at goal; {a.out}")


if __name__ == "__main__":
    main()
